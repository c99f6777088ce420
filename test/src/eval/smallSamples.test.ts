/** Small samples shown as small: n in every cell, cells under SMALL_CELL_ITEMS marked, the ablation with intervals. */
import { describe, expect, it } from "vitest";
import { summarizeRun } from "../../../src/eval/summary.js";
import { paperTable } from "../../../src/eval/report.js";
import { ablationHtml, ablationTable, summarizeAblation } from "../../../src/eval/ablation.js";
import { SMALL_CELL_ITEMS } from "../../../src/eval/smallSamples.js";
import { wilsonInterval } from "../../../core/math/proportion.js";
import { scoredItem } from "../../helpers/items.js";

const task = (i: number, sub = "linear_alignment") => `${sub}-${String(i).padStart(3, "0")}`;

describe("small cells are marked", () => {
  it("the paper table carries n in every cell and marks those under SMALL_CELL_ITEMS", () => {
    expect(SMALL_CELL_ITEMS).toBe(10);
    // linear_alignment: 12 tasks; spatial_distance: 3 tasks (2D right on 2, GT-3D on all)
    const big = Array.from({ length: 12 }, (_, i) => [scoredItem(task(i), "single", "2d", i % 2 === 0), scoredItem(task(i), "single", "gt", true)]).flat();
    const small = Array.from({ length: 3 }, (_, i) => [
      scoredItem(task(i, "spatial_distance"), "single", "2d", i < 2, "spatial_distance"),
      scoredItem(task(i, "spatial_distance"), "single", "gt", true, "spatial_distance"),
    ]).flat();
    const t = paperTable(summarizeRun([...big, ...small]));
    expect(t).toMatch(/Linear Alignment\s+50\.0 \(12\)\s+100\.0 \(12\)/);
    expect(t).toMatch(/Spatial Distance\s+66\.7 \(3\*\)\s+100\.0 \(3\*\)/);
    expect(t).toMatch(/Spatial Relations\s+50\.0 \(12\)\s+100\.0 \(12\)/);
    expect(t).toMatch(/Overall\s+53\.3 \(15\)\s+100\.0 \(15\)/);
    expect(t).toMatch(/\* = fewer than 10 scored items/);
  });
});

describe("the ablation shows intervals and tests below-2D against 2D", () => {
  // 12 tasks, one paradigm: 2D right on all; noise 0 right on all; noise 2 right on 2 (10 discordant pairs)
  const records = Array.from({ length: 12 }, (_, i) => [
    scoredItem(task(i), "gt", "2d", true),
    scoredItem(task(i), "gt", { noisy: 0 }, true),
    scoredItem(task(i), "gt", { noisy: 2 }, i < 2),
  ]).flat();
  const a = summarizeAblation(records, ["all"]);

  it("each cell carries its Wilson interval and n; a significant drop is marked <2D!", () => {
    const w = wilsonInterval(2, 12);
    const table = ablationTable(a);
    expect(table).toContain(`16.7 [${(w.lo * 100).toFixed(0)}, ${(w.hi * 100).toFixed(0)}] n=12 <2D!`);
    expect(table).toMatch(/Linear Alignment\s+100\.0 \[76, 100\] n=12\s+100\.0 \[76, 100\] n=12\s+16\.7/);
    // paired: 0 vs 10 discordant, McNemar exact p = 2 / 2^10
    const d = a.versus2D["linear_alignment"]!["2"]!;
    expect(d.test).toBe("mcnemar-exact");
    expect(d.p).toBeCloseTo(2 / 1024, 14);
    expect(a.headlines.join("\n")).toMatch(/Significantly below 2D \(paired by task, p < 0.05\) somewhere in the sweep: Linear Alignment/);
  });

  it("a drop of one item in three is below 2D but not significant, and marked small", () => {
    const few = summarizeAblation(
      Array.from({ length: 3 }, (_, i) => [scoredItem(task(i), "gt", "2d", true), scoredItem(task(i), "gt", { noisy: 1 }, i > 0)]).flat(),
      ["all"],
    );
    const table = ablationTable(few);
    expect(table).toMatch(/66\.7 \[\d+, \d+\] n=3\* <2D(?!!)/);
    expect(few.versus2D["linear_alignment"]!["1"]!.p).toBe(1);
    // the report's plot: whiskers, the 2D band, a hollow (small) point
    const svg = ablationHtml(few);
    expect(svg).toMatch(/2D baseline 95% interval \[\d+, 100\]%, n=3/);
    expect(svg).toMatch(/<circle [^>]*fill="#fff"[^>]*><title>noise 1: 66\.7% \[\d+, \d+\] n=3 \(small\) \(below 2D, not significant\)/);
  });
});
