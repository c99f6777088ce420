/**
 * Mirror ghosts (a reflection a noisy cloud took for geometry) in the run's summary, the report's graph-quality
 * table and the ablation's table: counted from a real noisy graph of the mirror test room, and absent for
 * records of scenes without mirrors (their summaries and tables stay as they were).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { renderBundle } from "../../../bridge/sim/capture.js";
import { graphOfBundle } from "../../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../../scenegraph/pipelineOptions.js";
import type { GraphMetrics } from "../../../scenegraph/diagnosisSchema.js";
import { ablationTable, summarizeAblation } from "../../../src/eval/ablation.js";
import { qualityFigures } from "../../../src/eval/pipeline.js";
import type { ItemRecord } from "../../../src/eval/records.js";
import { reportMarkdown } from "../../../src/eval/report.js";
import { summarizeRun } from "../../../src/eval/summary.js";
import { DEFAULT_RUN_CONFIG } from "../../../src/eval/config.js";
import { scoredItem } from "../../helpers/items.js";
import { mirrorGraphTask } from "../../helpers/mirrorScene.js";

const task = (i: number) => `linear_alignment-${String(i).padStart(3, "0")}`;
const items = (level: number, figures: Record<string, number | null>): ItemRecord[] =>
  Array.from({ length: 3 }, (_, i) => ({ ...scoredItem(task(i), "gt", { noisy: level }, true), graph_quality: figures }));
const meta = { runId: "r", version: "test", fuzzyMatches: [] };
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

describe("mirror ghost rates in the summary, the report and the ablation", () => {
  let m: GraphMetrics;
  beforeAll(async () => {
    const bundle = renderBundle(mirrorGraphTask(), "gt");
    m = (await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse({ source: "noisy", noiseLevel: 0.5 }))).diagnosis!.metrics;
  });

  it("a scene with a mirror: the ghost rate is its ghosts over its nodes, in the summary, the report's column and the ablation's row", () => {
    expect(m.mirror_ghosts, "the noisy graph of the mirror room has the box's reflection as a node").toBeGreaterThan(0);
    const figures = qualityFigures(m);
    const s = summarizeRun(items(0.5, figures));
    const q = s.quality[0]!;
    expect(q.mirror_ghost_rate).toBeCloseTo(m.mirror_ghosts! / m.nodes, 12);
    expect(q.mirror_ghosts_per_graph).toBeCloseTo(m.mirror_ghosts!, 12);
    const md = reportMarkdown(s, DEFAULT_RUN_CONFIG, meta);
    const header = md.split("\n").find((l) => l.includes("halluc. rate"))!;
    expect(header).toContain("ghost rate");
    expect(md).toContain(pct(m.mirror_ghosts! / m.nodes));
    const a = summarizeAblation([...items(0.5, figures), ...Array.from({ length: 3 }, (_, i) => scoredItem(task(i), "gt", "2d", true))], ["all"]);
    const row = ablationTable(a)
      .split("\n")
      .find((l) => /^\s*mirror ghost rate\b/.test(l));
    expect(row!.trim().split(/\s{2,}/)).toEqual(["mirror ghost rate", pct(m.mirror_ghosts! / m.nodes)]);
  });

  it("records of scenes without mirrors: no ghost figures, column or row", () => {
    const { mirror_ghosts: _g, ...plain } = qualityFigures(m);
    const s = summarizeRun(items(0.5, plain));
    expect(s.quality[0]).not.toHaveProperty("mirror_ghost_rate");
    expect(reportMarkdown(s, DEFAULT_RUN_CONFIG, meta)).not.toContain("ghost rate");
    const a = summarizeAblation([...items(0.5, plain), ...Array.from({ length: 3 }, (_, i) => scoredItem(task(i), "gt", "2d", true))], ["all"]);
    expect(a.quality[0]).not.toHaveProperty("mirror_ghost_rate");
    expect(ablationTable(a)).not.toContain("mirror ghost");
  });
});
