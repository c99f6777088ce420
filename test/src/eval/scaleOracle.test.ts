import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseTask } from "../../../core/task/io.js";
import { DEFAULT_RUN_CONFIG } from "../../../src/eval/config.js";
import { makeRecord } from "../../../src/eval/pipeline.js";
import { ItemRecordSchema } from "../../../src/eval/records.js";
import { reportMarkdown } from "../../../src/eval/report.js";
import { reportHtml } from "../../../src/eval/reportHtml.js";
import { summarizeRun } from "../../../src/eval/summary.js";
import type { ReasonerAnswer } from "../../../src/reason/types.js";
import { REPO_ROOT } from "../apps/cli/helpers.js";

const file = join(REPO_ROOT, "fixtures", "tasks", "linear_alignment-000.json");
const task = parseTask(JSON.parse(readFileSync(file, "utf8")), file);
const answer: ReasonerAnswer = { status: "parsed", answer: task.answer, confidence: null, raw: [], method: "program:test", latencyMs: 1 };
const config = { ...DEFAULT_RUN_CONFIG, sources: ["vggt" as const] };
const record = (scaleOracle: boolean | undefined) =>
  makeRecord({ task, paradigm: "single", arm: "3d", source: "vggt", config, reasoner: "symbolic", answer, views: 1, quality: null, timings: {}, scaleOracle });

describe("scale oracle (the vggt source's single-view scale from the simulator's depth)", () => {
  it("is carried by the item record, through its schema, only when it happened", () => {
    expect(ItemRecordSchema.parse(record(true)).scale_oracle).toBe(true);
    expect("scale_oracle" in record(false)).toBe(false);
    expect("scale_oracle" in record(undefined)).toBe(false);
  });

  it("is stated in report.md and report.html with the number of items, and absent otherwise", () => {
    const recs = [record(true), record(false)];
    const meta = { runId: "r", version: "0", scaleOracleItems: recs.filter((r) => r.scale_oracle).length };
    const md = reportMarkdown(summarizeRun(recs), config, meta);
    expect(md).toMatch(/\*\*Scale oracle:\*\* 1 3D item\(s\) took their metric scale from the simulator's depth/);
    expect(reportHtml(summarizeRun(recs), config, meta)).toMatch(/<strong>Scale oracle:<\/strong> 1 3D item\(s\)/);
    const clean = reportMarkdown(summarizeRun([record(false)]), config, { runId: "r", version: "0", scaleOracleItems: 0 });
    expect(clean).not.toMatch(/Scale oracle/);
  });
});
