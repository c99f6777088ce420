/**
 * The ablation's graph quality counts stale nodes (a node where a moved object was) beside duplicates and
 * hallucinations: in its quality rows, its table, its sentence summary and its chart. The stale graph is a real
 * one (test/helpers/staleGraph.ts); records written before objects could move carry no stale count and show "-".
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ablationHtml, ablationTable, summarizeAblation, type AblationSummary } from "../../../src/eval/ablation.js";
import { qualityFigures } from "../../../src/eval/pipeline.js";
import type { ItemRecord } from "../../../src/eval/records.js";
import type { GraphMetrics } from "../../../scenegraph/diagnosisSchema.js";
import { scoredItem, type TestArm } from "../../helpers/items.js";
import { staleGraph } from "../../helpers/staleGraph.js";

const task = (i: number) => `linear_alignment-${String(i).padStart(3, "0")}`;

/** One noisy item per task at `level`, each carrying the graph's quality as a run records it. */
function itemsWithGraph(level: number, figures: Record<string, number | null>): ItemRecord[] {
  return Array.from({ length: 3 }, (_, i) => ({ ...scoredItem(task(i), "gt", { noisy: level } satisfies TestArm, true), graph_quality: figures }));
}

/** A record of a run from before objects could move: the same figures without the stale ones. */
function beforeMoves(figures: Record<string, number | null>): Record<string, number | null> {
  const { stale: _stale, stale_rate: _rate, ...rest } = figures;
  return rest;
}

const staleRow = (table: string) => table.split("\n").find((l) => /^\s*stale rate\b/.test(l));

describe("the ablation counts stale nodes", () => {
  let m: GraphMetrics;
  let a: AblationSummary;
  beforeAll(async () => {
    m = (await staleGraph()).diagnosis.metrics;
    const figures = qualityFigures(m);
    const twoD = Array.from({ length: 3 }, (_, i) => scoredItem(task(i), "gt", "2d", true));
    // noise 0: the stale graph as a run records it; noise 2: the same graph recorded before stale was counted
    a = summarizeAblation([...twoD, ...itemsWithGraph(0, figures), ...itemsWithGraph(2, beforeMoves(figures))], ["all"]);
  }, 60_000);

  it("a level's stale rate is its stale nodes over its nodes; a level whose records lack it has none (null), not 0", () => {
    expect(m.stale, "the helper's graph keeps a node where the moved box was").toBeGreaterThan(0);
    const [q0, q2] = a.quality;
    expect(q0!.stale_rate).toBeCloseTo(m.stale! / m.nodes, 12);
    expect(q0!.duplicate_rate).toBeCloseTo(m.duplicates / m.nodes, 12);
    expect(q2!.stale_rate).toBeNull();
  });

  it('the table has a stale rate row ("-" where not recorded) and the summary names it', () => {
    const row = staleRow(ablationTable(a));
    expect(row).toBeDefined();
    expect(row!.trim().split(/\s{2,}/)).toEqual(["stale rate", `${((m.stale! / m.nodes) * 100).toFixed(1)}%`, "-"]);
    expect(a.headlines.join("\n")).toContain(`stale rate ${((m.stale! / m.nodes) * 100).toFixed(1)}% -> -`);
  });

  it("the chart draws stale as a series, with a point only where it was recorded", () => {
    const html = ablationHtml(a);
    const line = /<polyline [^>]*data-series="stale_rate" points="([^"]+)"><title>([^<]+)<\/title>/.exec(html);
    expect(line, "a stale polyline").not.toBeNull();
    expect(line![1]!.split(" ")).toHaveLength(1);
    expect(line![2]).toBe(`stale: noise 0 ${((m.stale! / m.nodes) * 100).toFixed(1)}%, noise 2 -`);
    for (const k of ["duplicate_rate", "hallucination_rate", "miss_rate"]) expect(html).toContain(`data-series="${k}"`);
  });

  it("a sweep of records from before objects could move shows stale as not recorded and leaves it out of the summary", () => {
    const old = summarizeAblation(
      [...Array.from({ length: 3 }, (_, i) => scoredItem(task(i), "gt", "2d", true)), ...itemsWithGraph(1, beforeMoves(qualityFigures(m)))],
      ["all"],
    );
    expect(
      staleRow(ablationTable(old))!
        .trim()
        .split(/\s{2,}/),
    ).toEqual(["stale rate", "-"]);
    expect(old.headlines.join("\n")).not.toContain("stale");
    const html = ablationHtml(old);
    expect(html).not.toContain('data-series="stale_rate"');
    expect(html).toContain(">stale (not recorded)</text>");
  });
});
