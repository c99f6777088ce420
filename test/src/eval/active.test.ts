/**
 * The active paradigm's loop with the offline explorers: stopping rules, determinism, records, and bad
 * active options on the command line (exit 2, naming the flag).
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { generatorContext, GeneratorOptionsSchema } from "../../../bridge/sim/generate/options.js";
import { runActiveEpisode } from "../../../src/eval/active.js";
import { DEFAULT_RUN_CONFIG, resolveRunConfig, type ThreeDArm } from "../../../src/eval/config.js";
import { ItemRecordSchema, readRecords } from "../../../src/eval/records.js";
import { createExplorerAgent } from "../../../src/reason/active/explorers.js";
import { stopReason } from "../../../src/reason/active/stopping.js";
import type { AgentDecision } from "../../../src/reason/active/types.js";
import { esi3d } from "../apps/cli/helpers.js";

const CAMERA = { width: 160, height: 120, hfov_deg: 70 };
const GT: ThreeDArm = { source: "gt", noise: DEFAULT_RUN_CONFIG.noise, labels: "oracle", label: "gt" };
const decision = (p: Partial<AgentDecision>): AgentDecision => ({
  requestedAction: "turn_left",
  action: "turn_left",
  status: "parsed",
  answer: "yes",
  confidence: 0.5,
  reasoning: "",
  trace: [],
  reprompted: false,
  latencyMs: 0,
  ...p,
});
const withoutTimes = (e: unknown) => JSON.stringify(e, (k, v) => (k === "time_ms" ? 0 : v));

describe("stopping rules (ESI's should_stop)", () => {
  const o = { maxSteps: 30, threshold: 0.8, minSteps: 3 };
  it("stop ends the episode at once, even before --min-steps", () => expect(stopReason(decision({ action: "stop" }), 1, o)).toBe("stop_action"));
  it("a confident conclusive answer ends it from --min-steps on", () => {
    expect(stopReason(decision({ confidence: 0.9 }), 2, o)).toBeNull();
    expect(stopReason(decision({ confidence: 0.9 }), 3, o)).toBe("confident");
    expect(stopReason(decision({ confidence: 0.8 }), 3, o)).toBe("confident");
    expect(stopReason(decision({ confidence: 0.79 }), 3, o)).toBeNull();
  });
  it("'not sure' is never conclusive, whatever its confidence", () => expect(stopReason(decision({ answer: null, confidence: 1 }), 5, o)).toBeNull());
  it("the budget ends it at --max-steps", () => expect(stopReason(decision({}), 30, o)).toBe("budget"));
});

describe("active episodes with the offline explorers", () => {
  const task = generateTask("counting_with_occlusion", "inc", 0, generatorContext(GeneratorOptionsSchema.parse({}), CAMERA));
  for (const explorer of ["nbv", "verify", "random"] as const)
    it(`${explorer}: deterministic, within budget, every step recorded`, async () => {
      const config = resolveRunConfig({ active: { explorer, maxSteps: 8, minSteps: 8, threshold: 1 } });
      const run = () => runActiveEpisode({ task, config, arm: GT, agent: createExplorerAgent(explorer, task, "3d") });
      const a = await run(),
        b = await run();
      expect(withoutTimes(a.episode)).toBe(withoutTimes(b.episode));
      expect(a.answer.answer).toBe(b.answer.answer);
      ItemRecordSchema.shape.active.unwrap().parse(a.episode);
      const e = a.episode;
      expect(e.steps_used).toBeLessThanOrEqual(8);
      expect(e.steps.map((s) => s.step)).toEqual(Array.from({ length: e.steps_used }, (_, i) => i + 1));
      // views: the initial one plus one per executed move or turn
      expect(a.views).toBe(1 + e.steps.filter((s) => s.action !== null && s.action !== "stop").length);
      if (e.stop_reason === "budget") expect(e.steps_used).toBe(8);
      // the graph grows (or stays) as views come in
      const sizes = e.steps.map((s) => s.graph_nodes!);
      expect(sizes.every((n) => n >= 0)).toBe(true);
      expect(e.steps.at(-1)!.duplicates).not.toBeNull();
    });

  it("the threshold stop: a confident answer stops the episode at --min-steps", async () => {
    const t = generateTask("linear_alignment", "inc", 0, generatorContext(GeneratorOptionsSchema.parse({}), CAMERA));
    const config = resolveRunConfig({ active: { minSteps: 2, threshold: 0.5 } });
    const out = await runActiveEpisode({ task: t, config, arm: GT, agent: createExplorerAgent("nbv", t, "3d") });
    expect(["confident", "stop_action"]).toContain(out.episode.stop_reason);
    expect(out.episode.steps_used).toBe(2);
  });

  it("the 2D arm explores with the seeded walk and never sees a graph", async () => {
    const out = await runActiveEpisode({
      task,
      config: resolveRunConfig({ active: { maxSteps: 5, minSteps: 5, threshold: 1 } }),
      arm: null,
      agent: createExplorerAgent("nbv", task, "2d"),
    });
    expect(out.graph).toBeNull();
    expect(out.episode.agent).toBe("symbolic-2d+random");
    expect(out.episode.steps.every((s) => s.graph_nodes === null)).toBe(true);
  });
});

describe("esi3d run --paradigm active", () => {
  it("writes active records that --resume reads back", () => {
    const out = join(mkdtempSync(join(tmpdir(), "esi3d-active-")), "run");
    const args = [
      "run",
      "--paradigm",
      "active",
      "--subcategories",
      "linear_alignment",
      "--per-subcategory",
      "1",
      "--source",
      "gt",
      "--max-steps",
      "6",
      "--concurrency",
      "1",
      "--out",
      out,
    ];
    const r = esi3d(args);
    expect(r.code, r.stderr).toBe(0);
    const recs = readRecords(join(out, "items.jsonl")).records;
    expect(recs.map((x) => x.key).sort()).toEqual(["linear_alignment-000|active|2d", "linear_alignment-000|active|3d:gt"]);
    for (const x of recs) expect(x.active!.steps.length).toBe(x.active!.steps_used);
    const again = esi3d([...args, "--resume"]);
    expect(again.code, again.stderr).toBe(0);
    expect(readRecords(join(out, "items.jsonl")).records.length).toBe(2);
  }, 120_000);

  for (const [flag, value, expected] of [
    ["--max-steps", "0", /--max-steps: expected an integer in \[1, 500\], got "0"/],
    ["--threshold", "1.5", /--threshold: expected a number in \[0, 1\], got "1.5"/],
    ["--threshold", "-0.1", /--threshold: expected a number in \[0, 1\]/],
    ["--explorer", "greedy", /--explorer: expected one of nbv, verify, random, got "greedy"/],
    ["--invalid-action", "skip", /--invalid-action: expected one of reprompt, forward, got "skip"/],
    ["--paradigm", "single,passive", /--paradigm: "passive" is not one of single, multi, gt, active/],
  ] as const)
    it(`${flag} ${value} exits 2 naming the flag`, () => {
      const r = esi3d(["run", flag, value, "--out", join(tmpdir(), "esi3d-never-made")]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(expected);
    });

  it("the active options are RunConfig's active object, with ESI's defaults", () => {
    expect(DEFAULT_RUN_CONFIG.active).toEqual({ maxSteps: 30, threshold: 0.8, minSteps: 3, invalidAction: "reprompt", actions: "all", explorer: "nbv" });
  });
});
