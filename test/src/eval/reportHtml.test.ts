/**
 * report.html's parts, without a browser: the markdown it is drawn from turned into HTML block by block, one
 * colour per arm, the forest plot first, and every report.md section present with content.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { armColour } from "../../../src/eval/armColours.js";
import { DEFAULT_RUN_CONFIG } from "../../../src/eval/config.js";
import { markdownSections, markdownToHtml } from "../../../src/eval/markdownHtml.js";
import { reportMarkdown } from "../../../src/eval/report.js";
import { reportHtml } from "../../../src/eval/reportHtml.js";
import { summarizeRun } from "../../../src/eval/summary.js";
import { qualityFigures } from "../../../src/eval/pipeline.js";
import type { GraphMetrics } from "../../../scenegraph/diagnosisSchema.js";
import { armItems, REPORT_ARMS } from "../../helpers/arms.js";
import { staleGraph } from "../../helpers/staleGraph.js";

describe("report.md as HTML", () => {
  it("renders a paragraph before a table, the table, its note and a list, each as what it is", () => {
    const html = markdownToHtml(
      ["Some **bold** text and `code`,", "on two lines.", "", "| A | B |", "|---|--:|", "| x | 1.5 |", "(a note on the table)", "", "- one", "- two"].join(
        "\n",
      ),
    );
    expect(html).toBe(
      [
        "<p>Some <strong>bold</strong> text and <code>code</code>, on two lines.</p>",
        '<div class="scroll"><table><thead><tr><th>A</th><th>B</th></tr></thead><tbody><tr><td>x</td><td class="num">1.5</td></tr></tbody></table></div>',
        '<p class="note">(a note on the table)</p>',
        "<ul><li>one</li><li>two</li></ul>",
      ].join("\n"),
    );
    expect(markdownToHtml('a < b & "c"')).toBe("<p>a &lt; b &amp; &quot;c&quot;</p>");
  });

  it("splits a document into its ## sections", () => {
    expect(markdownSections("# T\n\nlead\n## One\n\nbody 1\n## Two\nbody 2\n")).toEqual({
      lead: "# T\n\nlead\n",
      sections: [
        { title: "One", body: "\nbody 1\n" },
        { title: "Two", body: "body 2\n" },
      ],
    });
  });
});

describe("arm colours", () => {
  it("gives every arm of a run its own colour, and a second reasoner's arm a shade of the same family", () => {
    const arms = [...REPORT_ARMS, "VGGT-3D appearance"];
    expect(new Set(arms.map((a) => armColour(a, arms))).size).toBe(arms.length);
    // each a colour of its own, none the fallback of an arm the palette does not know
    expect(arms.map((a) => armColour(a, arms))).not.toContain(armColour("Other-3D"));
    const levels = ["2D", "Noisy-3D@0", "Noisy-3D@0.5", "Noisy-3D@1", "Noisy-3D@1.5", "Noisy-3D@0 appearance", "Noisy-3D@1.5 appearance", "Noisy-3D"];
    expect(new Set(levels.map((a) => armColour(a, levels))).size).toBe(levels.length);
    const two = ["GT-3D [symbolic]", "GT-3D [openai:gpt-4o]", "2D [symbolic]", "2D [openai:gpt-4o]"];
    const colours = two.map((m) => armColour(m, two));
    expect(new Set(colours).size).toBe(4);
    expect(colours[0]).toBe(armColour("GT-3D"));
    // darker, same hue: blue stays the largest channel
    const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    const [r, g, b] = rgb(colours[1]!);
    expect(b).toBeGreaterThan(r!);
    expect(b).toBeGreaterThan(g!);
    expect(b).toBeLessThan(rgb(colours[0]!)[2]!);
  });
});

/** Every arm of a default run on three subcategories, two paradigms: GT-3D well above 2D on one, below on another. */
export function reportRecords() {
  const plan: Array<[string, Record<string, number>]> = [
    ["geometric_configuration", { "2D": 3, Shortcut: 4, "GT-3D": 10, "GT-3D appearance": 8, "Noisy-3D": 2, "Noisy-3D appearance": 1 }],
    ["linear_alignment", { "2D": 5, Shortcut: 5, "GT-3D": 7, "GT-3D appearance": 6, "Noisy-3D": 5, "Noisy-3D appearance": 4 }],
    ["connectivity", { "2D": 9, Shortcut: 5, "GT-3D": 2, "GT-3D appearance": 3, "Noisy-3D": 4, "Noisy-3D appearance": 4 }],
  ];
  return plan.flatMap(([sub, right]) =>
    ["single", "gt"].flatMap((p) => Object.entries(right).flatMap(([arm, k]) => armItems(sub.slice(0, 4), p, arm as (typeof REPORT_ARMS)[number], 10, k, sub))),
  );
}

describe("report.html", () => {
  const s = summarizeRun(reportRecords());
  const meta = { runId: "r", version: "0" };
  const html = reportHtml(s, DEFAULT_RUN_CONFIG, meta);

  it("opens with the forest plot, right after the title and one line of context", () => {
    const body = html.slice(html.indexOf("<body>"));
    const order = ["<h1>", '<p class="context">', '<section id="forest">', 'data-testid="forest-all"', '<section id="run">', "<h2>Leaderboard</h2>"].map((x) =>
      body.indexOf(x),
    );
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // the forest's rows: most helped first, the paper's marks beside them
    const rows = [...html.matchAll(/data-testid="forest-all"[\s\S]*?<\/svg>/g)][0]![0];
    expect([...rows.matchAll(/data-subcategory="([a-z_]+)"/g)].map((m) => m[1])).toEqual(["geometric_configuration", "linear_alignment", "connectivity"]);
    expect(rows).toContain('data-paper="gt3d_gemini" data-paradigm="single" data-points="43.3"');
    expect(rows).toContain('data-paper="vggt_gemini" data-paradigm="gt" data-points="-12"');
  });

  it("draws every report.md section with its content (none empty), the agreement and the three forms of accuracy among them", () => {
    const md = reportMarkdown(s, DEFAULT_RUN_CONFIG, meta);
    for (const { title } of markdownSections(md).sections) expect(html, title).toContain(`<h2>${title.replace(/&/g, "&amp;")}</h2>`);
    expect(html).not.toMatch(/<(ul|section|p|table)[^>]*>\s*<\/\1>/);
    expect(html).not.toMatch(/<h2>[^<]*<\/h2>\s*(<\/section>|<section|<h2)/);
    for (const t of [
      "Agreement with the paper (ESI-Bench Table 4)",
      "Accuracy by subcategory, method and paradigm (all items)",
      "Coverage by subcategory, method and paradigm (share of items answered)",
      "Accuracy on answered items by subcategory, method and paradigm",
      "Answerable without perception (shortcut baseline)",
    ])
      expect(html).toContain(`<h2>${t}</h2>`);
    // the shortcut section's paragraph and its table
    const shortcut = html.slice(html.indexOf("<h2>Answerable without perception"));
    expect(shortcut.slice(0, shortcut.indexOf("</section>"))).toMatch(/<p>The shortcut baseline reads only[\s\S]*<table>/);
  });

  it("has no script and fetches nothing", () => {
    expect(html).not.toMatch(/<script|<link|src="http|href="http/);
  });
});

describe("the report's graph-quality chart counts stale nodes", () => {
  let m: GraphMetrics;
  beforeAll(async () => {
    m = (await staleGraph()).diagnosis.metrics;
  }, 60_000);

  /** The GT-3D arm's graphs with these quality figures (as a run records them), the 2D arm beside them. */
  const withFigures = (figures: Record<string, number | null>) =>
    summarizeRun([
      ...armItems("line", "single", "2D", 3, 2, "linear_alignment"),
      ...armItems("line", "single", "GT-3D", 3, 2, "linear_alignment").map((r) => ({ ...r, graph_quality: figures })),
    ]);
  const qualitySvg = (html: string) => /<svg [^>]*aria-label="graph quality"[\s\S]*?<\/svg>/.exec(html)?.[0] ?? "";
  const bar = (svg: string, rate: string) => new RegExp(`<rect [^>]*data-rate="${rate}"><title>([^<]*)</title>`).exec(svg)?.[1];

  it("a stale bar beside the duplicates and hallucinations, at the diagnosis's stale rate; a legend entry", () => {
    expect(m.stale, "the helper's graph keeps a node where the moved box was").toBeGreaterThan(0);
    const s = withFigures(qualityFigures(m));
    expect(s.quality[0]!.stale_rate).toBeCloseTo(m.stale! / m.nodes, 12);
    const svg = qualitySvg(reportHtml(s, DEFAULT_RUN_CONFIG, { runId: "r", version: "0" }));
    expect(bar(svg, "stale_rate")).toBe(`stale: ${((m.stale! / m.nodes) * 100).toFixed(1)}%`);
    expect(bar(svg, "duplicate_rate")).toBe(`duplicates: ${((m.duplicates / m.nodes) * 100).toFixed(1)}%`);
    expect(bar(svg, "hallucination_rate")).toBeDefined();
    expect(svg).toContain(">stale (of nodes / objects)</text>");
    // the run's sentence summary names them per graph
    expect(s.headlines.join("\n")).toContain(`hallucinated and ${m.stale!.toFixed(2)} stale nodes per graph.`);
  });

  it("records written before objects could move: no stale bar, '-' in its place, and '-' in the quality table", () => {
    const { stale: _stale, stale_rate: _rate, ...old } = qualityFigures(m);
    const s = withFigures(old);
    expect(s.quality[0]!.stale_rate).toBeUndefined();
    const html = reportHtml(s, DEFAULT_RUN_CONFIG, { runId: "r", version: "0" });
    const svg = qualitySvg(html);
    expect(bar(svg, "stale_rate")).toBeUndefined();
    expect(svg).toMatch(/<text [^>]*data-rate="stale_rate"><title>stale: not recorded<\/title>-<\/text>/);
    expect(bar(svg, "duplicate_rate")).toBeDefined();
    expect(s.headlines.join("\n")).toMatch(/duplicate and \d+\.\d\d hallucinated nodes per graph\./);
    const md = reportMarkdown(s, DEFAULT_RUN_CONFIG, { runId: "r", version: "0" });
    const head = md.split("\n").find((l) => l.includes("stale rate"))!;
    const row = md.split("\n")[md.split("\n").indexOf(head) + 2]!;
    expect(
      row.split("|").map((c) => c.trim())[
        head
          .split("|")
          .map((c) => c.trim())
          .indexOf("stale rate")
      ],
    ).toBe("-");
  });
});
