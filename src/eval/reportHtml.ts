/**
 * report.html: one self-contained page (inline SVG and CSS, no script, no CDN). Its first screen answers the
 * question esi3d exists for, where 3D helps and where it hurts: a forest plot of each 3D arm minus 2D per
 * subcategory, with the paper's differences beside it. Below it, report.md's sections (reportMarkdown), each
 * with its chart, and the same forest plot per paradigm. Wide tables scroll inside their own box.
 */
import type { RunConfig } from "./config.js";
import { forestRows } from "./forest.js";
import { escapeHtml as esc, markdownSections, markdownToHtml } from "./markdownHtml.js";
import { paperAgreement, PAPER_DIFFERENCE_MIN_POINTS } from "./paperAgreement.js";
import { reportMarkdown, type ReportMeta } from "./report.js";
import { accuracyChart, anytimeChart, forestChart, forestLegend, qualityChart } from "./reportCharts.js";
import { PARADIGM_TITLES, type RunSummary } from "./summary.js";

const STYLE = `
body{font-family:system-ui,sans-serif;max-width:1320px;margin:0 auto;padding:8px 20px 40px;color:#222;font-size:14px}
h1{font-size:20px;margin:4px 0 2px}h2{font-size:17px;margin:26px 0 6px;padding-bottom:2px;border-bottom:1px solid #ddd}
h3{font-size:15px;margin:14px 0 4px}.context{margin:0 0 4px;color:#444;font-size:13px}
#forest h2{margin-top:6px;font-size:16px}
.scroll{overflow-x:auto;max-width:100%;margin:8px 0}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #d6d6d6;padding:2px 6px;white-space:nowrap}
th{background:#f1f3f5;text-align:left}td.num{text-align:right}td.long{white-space:normal;min-width:12em}
td:first-child,th:first-child{position:sticky;left:0;background:#fff;text-align:left}th:first-child{background:#f1f3f5}
.note{color:#666;font-size:12px}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12px;margin:2px 0 4px}
.key{display:inline-flex;align-items:center;gap:4px}.swatch{display:inline-block;width:12px;height:12px;border-radius:2px}
.chart{overflow-x:auto;max-width:100%}svg{display:block;margin:4px 0}
details{margin:6px 0}summary{cursor:pointer;font-weight:600;margin:4px 0}
`;

/** What the forest plot's rows are, in one caption. */
function forestCaption(paradigm: string): string {
  const over = paradigm === "all" ? "paradigms pooled" : `${PARADIGM_TITLES[paradigm] ?? paradigm} paradigm`;
  return `Each 3D arm minus the same reasoner's 2D arm, ${over}: accuracy over all items (an item without an answer credited at chance), with the paired 95 % interval (by task; docs/statistics.md). Rows: most helped first (mean over the arms). Right: the paper's difference for the same subcategory and paradigm.`;
}

/** One forest plot with its legend, caption and test id. */
function forestBlock(s: RunSummary, paradigm: string): string {
  const rows = forestRows(s, paradigm);
  const arms = s.methods.filter((m) => rows.some((r) => r.arms.some((a) => a.method === m)));
  const hasPaper = rows.some((r) => r.paper.some((g) => g.marks.length));
  const agreement = paradigm === "all" ? agreementLine(s) : "";
  return `${rows.length ? forestLegend(arms, hasPaper) : ""}<div class="chart">${forestChart(rows, s.methods, { id: `forest-${paradigm}`, caption: forestCaption(paradigm) })}</div><p class="note">${esc(forestCaption(paradigm))}${agreement ? ` ${esc(agreement)}` : ""}</p>`;
}

/** The sign agreement in a sentence (the table is in its own section). */
function agreementLine(s: RunSummary): string {
  const rows = paperAgreement(s);
  if (!rows.length) return "";
  const arms = rows.map(
    (r) => `${r.method} ${r.same} of ${r.cells.length} (${r.sameSignificant} significant; ${r.oppositeSignificant} significantly opposite)`,
  );
  return `Same sign as the paper, per paradigm, where the paper's difference is at least ${PAPER_DIFFERENCE_MIN_POINTS} points: ${arms.join(", ")}.`;
}

/** The per-paradigm forest plots, each folded (no script: <details>). */
function perParadigmForests(s: RunSummary): string {
  if (s.paradigms.length < 2) return "";
  const blocks = s.paradigms.map(
    (p) => `<details data-paradigm="${esc(p)}"><summary>${esc(PARADIGM_TITLES[p] ?? p)} paradigm</summary>${forestBlock(s, p)}</details>`,
  );
  return `<section id="forest-per-paradigm"><h2>3D arm − 2D, per paradigm</h2>${blocks.join("\n")}</section>`;
}

/** The charts that go with a report.md section, by the start of its title. */
function chartsFor(title: string, s: RunSummary): string {
  if (title.startsWith("Accuracy by subcategory")) {
    const perParadigm =
      s.paradigms.length > 1
        ? s.paradigms
            .map((p) => `<details><summary>${esc(PARADIGM_TITLES[p] ?? p)} paradigm</summary><div class="chart">${accuracyChart(s, p)}</div></details>`)
            .join("")
        : "";
    return `<h3>Paradigms pooled</h3><div class="chart">${accuracyChart(s, "all")}</div>${perParadigm}`;
  }
  if (title.startsWith("Graph quality") && s.quality.length) return `<div class="chart">${qualityChart(s)}</div>`;
  if (title.startsWith("Anytime accuracy") && s.active?.length) return `<div class="chart">${anytimeChart(s)}</div>`;
  return "";
}

const slug = (t: string) =>
  t
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

/** The one line under the title: what was run, and what the numbers are. */
function contextLine(s: RunSummary, config: RunConfig, meta: ReportMeta): string {
  return `esi3d ${meta.version} · suite ${config.suite} (seed ${config.seed}) · ${s.items} items · paradigms ${s.paradigms.map((p) => PARADIGM_TITLES[p] ?? p).join(", ")} · reasoner ${config.reasoner.join(", ")} · accuracy over all items, an unanswered item at chance${meta.wallSeconds ? ` · ${meta.wallSeconds.toFixed(0)} s` : ""}`;
}

export function reportHtml(s: RunSummary, config: RunConfig, meta: ReportMeta): string {
  const { lead, sections } = markdownSections(reportMarkdown(s, config, meta));
  const about = markdownToHtml(lead.replace(/^# .*\n/, ""));
  const body = sections
    .map(({ title, body }) => {
      const html = markdownToHtml(body) + chartsFor(title, s);
      if (!html.trim()) return "";
      const after = title.startsWith("Agreement with the paper") ? perParadigmForests(s) : "";
      return `<section id="${slug(title)}"><h2>${esc(title)}</h2>${html}</section>${after}`;
    })
    .join("\n");
  const hasForest = s.differences.length > 0;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>esi3d run ${esc(meta.runId)}</title>
<style>${STYLE}</style>
</head><body>
<h1>esi3d run ${esc(meta.runId)}</h1>
<p class="context">${esc(contextLine(s, config, meta))}</p>
${hasForest ? `<section id="forest"><h2>Where 3D helps and where it hurts: 3D arm − 2D per subcategory</h2>${forestBlock(s, "all")}</section>` : ""}
<section id="run"><h2>The run</h2>${about}</section>
${body}
${hasForest && !sections.some((x) => x.title.startsWith("Agreement with the paper")) ? perParadigmForests(s) : ""}
</body></html>
`;
}
