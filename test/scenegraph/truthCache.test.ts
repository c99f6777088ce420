import { describe, expect, it } from "vitest";
import { generateTask } from "../../bridge/sim/generate/suite.js";
import { cachedTrueRelations, trueRelations } from "../../scenegraph/truth.js";
import type { Task } from "../../core/task/schema.js";

describe("cachedTrueRelations", () => {
  it("gives trueRelations' relations, computed once per task and shared by the task's later units", () => {
    const task = generateTask("physical_contact", "truth-cache", 0);
    const first = cachedTrueRelations(task);
    expect(first).toEqual(trueRelations(task));
    expect(first.length).toBeGreaterThan(0);
    // a copy of the same task (as a worker receives it, structured-cloned) hits the same entry
    expect(cachedTrueRelations(structuredClone(task))).toBe(first);
  });

  it("computes afresh when the objects change under the same task id", () => {
    const task = generateTask("physical_contact", "truth-cache", 1);
    const before = cachedTrueRelations(task);
    // move every object 3 m apart along x: touching and on relations between them vanish
    const moved: Task = {
      ...task,
      objects: task.objects.map((o, i) => ({ ...o, position: [o.position[0] + 3 * i, o.position[1], o.position[2]] as typeof o.position })),
    };
    const after = cachedTrueRelations(moved);
    expect(after).not.toBe(before);
    expect(after).toEqual(trueRelations(moved));
    expect(after).not.toEqual(before);
  });
});
