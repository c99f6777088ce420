/**
 * report.html in real headless Chromium (Debian's /usr/bin/chromium through playwright-core), in a 1400 x 900
 * window: the report of a small real run (`esi3d run`), and one of every built-in subcategory in three paradigms
 * from hand-built items (the widest tables and the tallest forest plot a default run gives). The forest plot is on
 * the first screen, nothing runs off the right edge except inside its own scroll box, no section is empty, no
 * chart's label is cut off, and every arm has its own colour, the same in every chart. Screenshots go to
 * $ESI3D_SCREENSHOTS when set (to look at them), else to the test's temporary directory.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { BUILTIN_SUBCATEGORIES } from "../../../core/task/taxonomy.js";
import { DEFAULT_RUN_CONFIG } from "../../../src/eval/config.js";
import { reportHtml } from "../../../src/eval/reportHtml.js";
import { summarizeRun } from "../../../src/eval/summary.js";
import { esi3d } from "../apps/cli/helpers.js";
import { launchChromium, needsChromium } from "../apps/viewer/helpers.js";
import { armItems, REPORT_ARMS } from "../../helpers/arms.js";

const VIEWPORT = { width: 1400, height: 900 };

let browser: Browser;
let dir: string;
let shots: string;
let runReport: string;
let fullReport: string;

/** Every built-in subcategory in three paradigms, 10 tasks each, every arm of a default run right on a different share. */
function fullRecords() {
  return BUILTIN_SUBCATEGORIES.flatMap((sub, i) =>
    ["single", "multi", "gt"].flatMap((p) =>
      REPORT_ARMS.filter((a) => a !== "VGGT-3D").flatMap((arm, j) => armItems(sub.slice(0, 6), p, arm, 10, (i * 3 + j * 5 + p.length) % 11, sub)),
    ),
  );
}

async function open(file: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: VIEWPORT });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.route(/^(?!file:|data:)/, (route) => {
    errors.push(`network request: ${route.request().url()}`);
    return route.abort();
  });
  await page.goto(`file://${file}`, { waitUntil: "load" });
  return { page, errors };
}

/** What the page's layout checks find: elements past the right edge outside a scroll box, empty sections, cut labels, arm colours. */
async function layout(page: Page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const inScrollBox = (el: Element) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement)
        if (["auto", "scroll"].includes(getComputedStyle(p).overflowX) && p.getBoundingClientRect().right <= width + 0.5) return true;
      return false;
    };
    const overflowing = [...document.body.querySelectorAll("*")]
      .filter((el) => el.getBoundingClientRect().right > width + 0.5 && !inScrollBox(el))
      .map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${el.className && typeof el.className === "string" ? `.${el.className}` : ""}`);
    const emptySections = [...document.querySelectorAll("section")]
      .filter((s) => [...s.children].filter((c) => !/^H[1-6]$/.test(c.tagName)).every((c) => !c.textContent?.trim() && !c.querySelector("svg")))
      .map((s) => s.id);
    const emptyBlocks = [...document.querySelectorAll("ul, table, p")].filter((el) => !el.textContent?.trim()).map((el) => el.tagName);
    // a label cut off: a text of an SVG chart reaching outside its SVG's box
    const cut = [...document.querySelectorAll("svg text")].flatMap((t) => {
      const svg = (t as SVGTextElement).ownerSVGElement!;
      const b = (t as SVGTextElement).getBBox();
      const w = svg.width.baseVal.value,
        h = svg.height.baseVal.value;
      return b.x < -0.5 || b.y < -0.5 || b.x + b.width > w + 0.5 || b.y + b.height > h + 0.5
        ? [`${t.textContent} (${b.x.toFixed(0)}+${b.width.toFixed(0)} of ${w})`]
        : [];
    });
    const legend = [...document.querySelectorAll("#forest .legend [data-arm]")].map(
      (k) => [k.getAttribute("data-arm")!, k.getAttribute("data-colour")!] as const,
    );
    // the accuracy chart's legend: a swatch, then the method's name
    const accuracy = [...document.querySelectorAll('svg[aria-label="accuracy by subcategory, All"] rect + text')].map(
      (t) => [t.textContent!, (t.previousElementSibling as SVGRectElement).getAttribute("fill")!] as const,
    );
    const forest = document.querySelector('[data-testid="forest-all"]')!.getBoundingClientRect();
    return {
      width,
      scrollWidth: document.documentElement.scrollWidth,
      overflowing,
      emptySections,
      emptyBlocks,
      cut,
      legend,
      accuracy,
      forest: { top: forest.top, bottom: forest.bottom, left: forest.left, right: forest.right },
    };
  });
}

function checkLayout(l: Awaited<ReturnType<typeof layout>>, arms: readonly string[]) {
  expect(l.scrollWidth, "the page does not scroll sideways").toBeLessThanOrEqual(l.width);
  expect(l.overflowing, "past the right edge outside a scroll box").toEqual([]);
  expect(l.emptySections).toEqual([]);
  expect(l.emptyBlocks).toEqual([]);
  expect(l.cut, "chart labels cut off").toEqual([]);
  // the forest plot on the first screen, whole
  expect(l.forest.top).toBeLessThan(VIEWPORT.height / 4);
  expect(l.forest.bottom).toBeLessThanOrEqual(VIEWPORT.height);
  expect(l.forest.right).toBeLessThanOrEqual(VIEWPORT.width);
  // every arm its own colour, the same in the forest plot and the accuracy chart
  expect(l.legend.map(([m]) => m)).toEqual(arms.filter((m) => m !== "2D" && m !== "Shortcut"));
  const colours = new Map([...l.accuracy, ...l.legend]);
  expect(colours.size).toBe(arms.length);
  expect(new Set(colours.values()).size, `colours ${JSON.stringify([...colours])}`).toBe(arms.length);
  for (const [m, c] of l.legend) expect(l.accuracy.find(([a]) => a === m)?.[1], m).toBe(c);
}

const chromium = needsChromium();

describe.skipIf(chromium.skip)(chromium.title("report.html in Chromium at 1400 x 900"), () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "esi3d-report-html-"));
    shots = process.env.ESI3D_SCREENSHOTS ?? join(dir, "shots");
    mkdirSync(shots, { recursive: true });
    const r = esi3d(["run", "--limit", "4", "--paradigm", "single,gt", "--concurrency", "2", "--out", join(dir, "run")]);
    expect(r.code, r.stderr).toBe(0);
    runReport = join(dir, "run", "report.html");
    fullReport = join(dir, "full.html");
    writeFileSync(fullReport, reportHtml(summarizeRun(fullRecords()), DEFAULT_RUN_CONFIG, { runId: "every-subcategory", version: "test" }));
    browser = await launchChromium();
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
  });

  it("a real run's report: forest plot first, nothing past the edge, no empty section, one colour per arm", async () => {
    const { page, errors } = await open(runReport);
    await page.screenshot({ path: join(shots, "report-run-first-screen.png") });
    const summary = JSON.parse(readFileSync(join(dir, "run", "summary.json"), "utf8")) as { methods: string[] };
    checkLayout(await layout(page), summary.methods);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("every built-in subcategory in three paradigms: the tallest forest plot and widest tables still fit", async () => {
    const { page, errors } = await open(fullReport);
    await page.screenshot({ path: join(shots, "report-full-first-screen.png") });
    const l = await layout(page);
    checkLayout(l, ["2D", "Shortcut", "GT-3D", "GT-3D appearance", "Noisy-3D", "Noisy-3D appearance"]);
    expect(await page.locator('[data-testid="forest-all"] [data-subcategory]').count()).toBe(BUILTIN_SUBCATEGORIES.length);
    // the three accuracy tables (all items, coverage, answered) each scroll in their own box
    for (const t of [
      "Accuracy by subcategory, method and paradigm (all items)",
      "Coverage by subcategory, method and paradigm (share of items answered)",
      "Accuracy on answered items by subcategory, method and paradigm",
    ]) {
      const box = page.locator(`section:has(> h2:text-is("${t}")) .scroll`).first();
      expect(await box.count(), t).toBe(1);
      expect(await box.evaluate((el) => el.scrollWidth > el.clientWidth), `${t}: wider than the page, so it scrolls`).toBe(true);
    }
    // the per-paradigm forest plots open without script
    await page.locator('#forest-per-paradigm details[data-paradigm="multi"] summary').click();
    expect(await page.locator('[data-testid="forest-multi"]').isVisible()).toBe(true);
    await page.screenshot({ path: join(shots, "report-full-page.png"), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });
});
