/**
 * The active paradigm on a world that changes (Unobserved Change, `--actions all`): the episode explores Phase 1, the
 * world changes while no one looks (the boxes closed again, their contents changed, the agent back at Phase 2's
 * viewpoint), and it explores Phase 2 within the same step budget. Every view of the episode is stamped with its phase;
 * the 3D explorer opens boxes in both phases and sees the changed box's contents differ.
 */
import { describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { runActiveEpisode } from "../../../src/eval/active.js";
import { DEFAULT_RUN_CONFIG, resolveRunConfig, type ThreeDArm } from "../../../src/eval/config.js";
import { createExplorerAgent } from "../../../src/reason/active/explorers.js";
import { BuiltinEnvironment } from "../../../bridge/sim/env.js";
import { idCounts } from "../../../core/idTally.js";
import type { Task } from "../../../core/task/schema.js";

const GT: ThreeDArm = { source: "gt", noise: DEFAULT_RUN_CONFIG.noise, labels: "oracle", label: "gt" };
interface BoxMeta {
  box: number;
  change_type: string;
  phase1_content: number | null;
  phase2_content: number | null;
}
// single-box tasks whose box changed (tasks 0-3 are detection, 4-6 identification in a block of ten)
const tasks: Task[] = Array.from({ length: 7 }, (_, i) => generateTask("unobserved_change", "active-phases", i))
  .filter((t) => (t.label_metadata.boxes as BoxMeta[]).length === 1 && (t.label_metadata.boxes as BoxMeta[])[0]!.change_type !== "no_change")
  .slice(0, 2);

describe("active episodes over a world's phases", () => {
  it("the environment changes the world on nextPhase: the next phase's objects, from its viewpoint, the hands' changes undone", async () => {
    const t = tasks[0]!;
    const env = new BuiltinEnvironment(t);
    expect(env.phases).toBe(2);
    const v0 = await env.reset();
    expect(v0.phase).toBe(0);
    const v1 = await env.nextPhase();
    expect(v1.phase).toBe(1);
    expect(v1.view.index).toBe(1);
    expect(v1.pose.position).toEqual(t.phases![1]!.agent!.position);
    expect(v1.actionResult).toContain("Phase 2");
    await expect(env.nextPhase()).rejects.toThrow(/no phase after Phase 2/);
  });

  it("3d explorer: explores Phase 1, then Phase 2 in the same budget, opens the box in each and sees its contents change", async () => {
    expect(tasks).toHaveLength(2);
    const config = resolveRunConfig({ active: { actions: "all" } });
    for (const task of tasks) {
      const r = await runActiveEpisode({ task, config, arm: GT, agent: createExplorerAgent("nbv", task, "3d") });
      const phases = r.bundle.manifest.views.map((v) => v.phase);
      expect(phases[0]).toBe(0);
      expect(phases.at(-1)).toBe(1);
      // phases in order, each view stamped
      expect(phases.every((p, i) => p !== undefined && (i === 0 || p >= phases[i - 1]!))).toBe(true);
      expect(r.episode.steps.length).toBeLessThanOrEqual(config.active.maxSteps);
      const change = r.episode.steps.find((s) => s.action_result?.includes("now Phase 2"));
      expect(change).toBeDefined();
      const opens = r.episode.steps.filter((s) => s.action?.startsWith("open(") && s.action_result === "ok");
      const before = opens.filter((s) => s.step < change!.step).length;
      const after = opens.filter((s) => s.step > change!.step).length;
      expect([before, after]).toEqual([1, 1]);
      const b = (task.label_metadata.boxes as BoxMeta[])[0]!;
      const seen = (phase: number, id: number | null) =>
        id !== null && r.bundle.views.some((v, i) => phases[i] === phase && (idCounts(v.ids).get(id) ?? 0) > 0);
      if (b.phase1_content !== null) expect([seen(0, b.phase1_content), seen(1, b.phase1_content)]).toEqual([true, false]);
      if (b.phase2_content !== null) expect([seen(0, b.phase2_content), seen(1, b.phase2_content)]).toEqual([false, true]);
      expect(r.answer.status, r.answer.raw.join("\n")).toBe("parsed");
      expect(r.answer.answer).toBe(task.answer);
    }
  }, 300_000);

  it("2d explorer: the same two phases within the budget, every view stamped", async () => {
    const config = resolveRunConfig({ active: { actions: "all" } });
    const task = tasks[0]!;
    const r = await runActiveEpisode({ task, config, arm: null, agent: createExplorerAgent("nbv", task, "2d") });
    const phases = r.bundle.manifest.views.map((v) => v.phase);
    expect(new Set(phases)).toEqual(new Set([0, 1]));
    expect(r.episode.steps.filter((s) => s.action_result?.includes("now Phase 2"))).toHaveLength(1);
    expect(r.episode.steps.length).toBeLessThanOrEqual(config.active.maxSteps);
  }, 300_000);
});
