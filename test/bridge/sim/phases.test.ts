import { describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { captureBundle } from "../../../bridge/sim/capture.js";
import { TaskSchema, type Task } from "../../../core/task/schema.js";
import { idCounts } from "../../../core/idTally.js";

/** A generated task made to change: the object its first view shows most is gone in phase 1. */
function twoPhaseTask(): { task: Task; goneId: number } {
  const base = generateTask("counting_with_occlusion", "phases", 0);
  const seen = idCounts(captureBundle(base, "single").payloads[0]!.ids);
  const goneId = base.objects.map((o) => o.id).sort((a, b) => (seen.get(b) ?? 0) - (seen.get(a) ?? 0))[0]!;
  const later = base.objects.filter((o) => o.id !== goneId);
  const task = TaskSchema.parse({
    ...base,
    phases: [
      { label: "Phase 1", objects: base.objects },
      { label: "Phase 2", objects: later },
    ],
  });
  return { task, goneId };
}

describe("a world that changes between looks", () => {
  it("stamps each view with the phase it saw, and the change shows in the pixels", () => {
    const { task, goneId } = twoPhaseTask();
    const { manifest, payloads } = captureBundle(task, "single");
    expect(manifest.views.map((v) => v.phase)).toEqual([0, 1]);
    expect(manifest.views.map((v) => v.action)).toEqual([null, null]);
    expect(idCounts(payloads[0]!.ids).get(goneId) ?? 0).toBeGreaterThan(0);
    expect(idCounts(payloads[1]!.ids).get(goneId) ?? 0).toBe(0);
  });

  it("shares the multi-view budget among the phases, each walk starting without an action", () => {
    const { task } = twoPhaseTask();
    const { manifest } = captureBundle(task, "multi");
    expect(manifest.views).toHaveLength(30);
    expect(manifest.views.filter((v) => v.phase === 0)).toHaveLength(15);
    expect(manifest.views[15]!.phase).toBe(1);
    expect(manifest.views[15]!.action).toBeNull();
    expect(manifest.views[16]!.action).not.toBeNull();
  });

  it("leaves a task of one world as it was: no phase on any view", () => {
    const task = generateTask("counting_with_occlusion", "phases", 0);
    const { manifest } = captureBundle(task, "single");
    expect(manifest.views.map((v) => v.phase)).toEqual([undefined]);
  });

  it("rejects phases whose first is not the task's objects, or an id that changes category", () => {
    const { task } = twoPhaseTask();
    const first = task.phases![0]!;
    const bad = TaskSchema.safeParse({ ...task, phases: [{ ...first, objects: first.objects.slice(1) }, task.phases![1]] });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toContain("phase 0's objects must be the task's objects");
    const renamed = task.phases![1]!.objects.map((o, i) => (i === 0 ? { ...o, category: `${o.category}-other` } : o));
    const clash = TaskSchema.safeParse({ ...task, phases: [first, { label: "Phase 2", objects: renamed }] });
    expect(clash.success).toBe(false);
    expect(JSON.stringify(clash.error?.issues)).toContain("a new object takes a new id");
  });
});
