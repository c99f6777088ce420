/**
 * The offline reasoners read only what the question gives (issue 16): the counted category and the objects'
 * categories and colours come from the question's words, so scrambling the task's label_metadata and its
 * true object records (categories, colours, names, roles) changes no answer of symbolic or symbolic-2d.
 */
import { describe, expect, it, beforeAll } from "vitest";
import { generateTask, prepareGenerators } from "../../../bridge/sim/generate/suite.js";
import { BUILTIN_SUBCATEGORIES } from "../../../core/task/taxonomy.js";
import type { Task } from "../../../core/task/schema.js";
import { truthGraph } from "../../../scenegraph/truth.js";
import { createSymbolicReasoner } from "../../../src/reason/symbolic.js";
import { createSymbolic2dReasoner } from "../../../src/reason/symbolic2d.js";
import { bundleOf } from "../../scenegraph/helpers.js";

// the Physical Dynamics subcategories simulate: the physics engine loads before any task is drawn
beforeAll(() => prepareGenerators(BUILTIN_SUBCATEGORIES));

/** The task with its hidden records scrambled: every object takes another's category, colour, name and role. */
function scrambled(task: Task): Task {
  const t = structuredClone(task);
  const shift = (k: number) => t.objects[(k + 1) % t.objects.length]!;
  const copy = structuredClone(t.objects);
  t.objects.forEach((o, k) =>
    Object.assign(o, { category: copy[(k + 1) % copy.length]!.category, color: "purple", name: `the thing ${k}`, role: shift(k).role }),
  );
  t.objects.forEach((o) => (o.category = o.category === "floor" ? "floor" : `not_${o.category}`));
  t.label_metadata = { category: "pumpkin", count: 99, scrambled: true };
  t.relevant_object_ids = [...t.relevant_object_ids].reverse();
  return t;
}

describe("offline reasoners read only the question", () => {
  it("answer the same when label_metadata and the true object records are scrambled (graph oracle and 2D baseline)", async () => {
    const s3 = createSymbolicReasoner(),
      s2 = createSymbolic2dReasoner();
    const changed: string[] = [];
    let compared = 0;
    for (const sub of BUILTIN_SUBCATEGORIES)
      for (let i = 0; i < 2; i++) {
        const task = generateTask(sub, "question-only", i);
        const graph = truthGraph(task);
        const bundle = bundleOf(task, "single");
        const other = scrambled(task);
        const [a3, b3] = [await s3.answer({ task, graph }), await s3.answer({ task: other, graph })];
        const [a2, b2] = [await s2.answer({ task, bundle }), await s2.answer({ task: other, bundle })];
        if (a3.answer !== b3.answer) changed.push(`symbolic ${task.task_id}: ${a3.answer} -> ${b3.answer}`);
        if (a2.answer !== b2.answer) changed.push(`symbolic-2d ${task.task_id}: ${a2.answer} -> ${b2.answer}`);
        // the check can fail: the original answers are real answers, not declines
        if (a3.status === "parsed") compared++;
      }
    expect(changed).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(BUILTIN_SUBCATEGORIES.length * 2 - 2);
  }, 240_000);

  it('never take the room\'s floor or walls for a referent ("standing on the floor in a straight line")', async () => {
    const s2 = createSymbolic2dReasoner();
    const task = generateTask("linear_alignment", "question-only", 0);
    expect(task.question).toMatch(/on the floor/);
    const bundle = bundleOf(task, "gt");
    expect(bundle.manifest.instances.some((e) => e.structure && e.category === "floor")).toBe(true);
    const a = await s2.answer({ task, bundle });
    expect(a.raw.join("\n")).not.toMatch(/the floor ->|the wall ->/);
    expect(a.status, a.raw.join("\n")).toBe("parsed");
  });
});
