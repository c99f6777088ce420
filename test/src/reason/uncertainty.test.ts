import { describe, expect, it, beforeAll } from "vitest";
import { generateTask, prepareGenerators } from "../../../bridge/sim/generate/suite.js";
import { BUILTIN_SUBCATEGORIES, SUBCATEGORY_CATEGORY } from "../../../core/task/taxonomy.js";
import type { Task } from "../../../core/task/schema.js";
import { truthGraph } from "../../../scenegraph/truth.js";
import type { GraphNode, SceneGraph } from "../../../scenegraph/types.js";
import { resolveDuplicates, weighedConfidence } from "../../../src/reason/countEvidence.js";
import { queryOf } from "../../../src/reason/query.js";
import { createSymbolicReasoner, decide } from "../../../src/reason/symbolic.js";

// the Physical Dynamics subcategories simulate: the physics engine loads before any task is drawn
beforeAll(() => prepareGenerators(BUILTIN_SUBCATEGORIES));

/**
 * The subcategories whose answer a ground-truth graph holds. Physical Dynamics' does not: whether an object stays
 * on a slope hangs on its friction, whether a stack stands on where each object lands, and no graph shows either.
 * Nor does Structural Enclosure's: a graph of seen surfaces cannot tell that a closed box is empty.
 */
const GRAPH_ANSWERED = BUILTIN_SUBCATEGORIES.filter((s) => SUBCATEGORY_CATEGORY[s] !== "physical_dynamics" && s !== "structural_enclosure");

/** A hand-built node: a 10 cm object at `at`, seen in `views`. */
function node(id: string, at: [number, number, number], views: number[], extra: { low?: boolean; points?: number; label?: string } = {}): GraphNode {
  const h = 0.05;
  return {
    id,
    label: extra.label ?? "mug",
    label_distribution: { [extra.label ?? "mug"]: 1 },
    centroid: at,
    color: [200, 0, 0],
    color_name: "red",
    box: { centre: at, extent: [0.1, 0.1, 0.1], yaw: 0 },
    aabb: { min: [at[0] - h, at[1] - h, at[2] - h], max: [at[0] + h, at[1] + h, at[2] + h] },
    volume_m3: 0.001,
    point_count: 100,
    raw_point_count: extra.points ?? 500,
    views,
    detections: views.length,
    mean_confidence: 1,
    flags: { low_support: extra.low ?? false, possible_duplicate_of: [], fragment: false },
    support: views.map((v) => ({ view: v, points: 100, bbox: [0, 0, 10, 10] })),
  };
}

describe("count evidence: duplicates resolved by views and distance", () => {
  it("merges same-label nodes close together and never seen in one view (strong evidence of one object)", () => {
    const r = resolveDuplicates([node("a", [0, 0, 0], [0, 1]), node("b", [0.15, 0, 0], [3]), node("c", [0.05, 0.1, 0], [4])]);
    expect(r.count).toBe(1);
    expect(r.groups).toEqual([["a", "b", "c"]]);
    expect(r.merges).toHaveLength(2);
  });

  it("keeps nodes apart when one view sees both, when they are farther than the radius, or when there is no view information", () => {
    // weak evidence: a shared view means two detections in one image
    expect(resolveDuplicates([node("a", [0, 0, 0], [0, 1]), node("b", [0.1, 0, 0], [1, 2])]).count).toBe(2);
    // 0.36 m: just past the 0.35 m duplicate radius
    expect(resolveDuplicates([node("a", [0, 0, 0], [0]), node("b", [0.36, 0, 0], [1])]).count).toBe(2);
    // a ground-truth graph's nodes carry no views
    expect(resolveDuplicates([node("a", [0, 0, 0], []), node("b", [0.05, 0, 0], [])]).count).toBe(2);
  });

  it("keeps the view cannot-link for groups: a chain of merges stops where a view would see two of its members", () => {
    // a and b are two objects seen together in view 0; c (view 2) lies near both and joins only the nearer one
    const r = resolveDuplicates([node("a", [0, 0, 0], [0]), node("b", [0.2, 0, 0], [0]), node("c", [0.08, 0, 0], [2])]);
    expect(r.count).toBe(2);
    expect(r.groups.map((g) => [...g].sort())).toContainEqual(["a", "c"]);
  });

  it("discounts objects seen only through low-support nodes in a multi-view graph, not in a single view", () => {
    const multi = resolveDuplicates([node("a", [0, 0, 0], [0, 1]), node("p", [1, 1, 0], [5], { low: true, points: 60 })]);
    expect(multi.weak).toBe(1);
    expect(multi.estimate).toBe(1.5);
    const single = resolveDuplicates([node("a", [0, 0, 0], [0]), node("p", [1, 1, 0], [0], { low: true, points: 60 })]);
    expect(single.weak).toBe(0);
    expect(single.estimate).toBe(2);
  });

  it("never counts below the most nodes one view sees at once (distinct detections of one image)", () => {
    // three low-support nodes seen together in view 0 and one object elsewhere: the discount alone says 2.5
    const low = { low: true, points: 60 };
    const r = resolveDuplicates([
      node("a", [0, 0, 0], [0], low),
      node("b", [0.5, 0, 0], [0], low),
      node("c", [1, 0, 0], [0], low),
      node("d", [3, 3, 0], [1, 2]),
    ]);
    expect([r.count, r.weak]).toEqual([4, 3]); // 4 - 3 · 0.5 = 2.5 by the discount
    expect(r.seenTogether).toBe(3);
    expect(r.estimate).toBe(3);
    // a duplicate merged away from a pair seen together elsewhere: the merge stands (2 objects, 2 seen together)
    const m = resolveDuplicates([node("a", [0, 0, 0], [0, 1]), node("b", [0.4, 0, 0], [0, 1]), node("a2", [0.1, 0, 0], [3])]);
    expect(m.count).toBe(2);
    expect(m.estimate).toBe(2);
  });

  it("lowers the confidence of a decision read off low-support nodes toward 0.5, keeping 0.5 and the answer", () => {
    expect(weighedConfidence(1, 0)).toBe(1);
    // one weak node keeps half of the confidence above 0.5, two a quarter
    expect(weighedConfidence(1, 1)).toBe(0.75);
    expect(weighedConfidence(0.9, 2)).toBe(0.6);
    expect(weighedConfidence(0.5, 2)).toBe(0.5);
  });
});

/** A counting task of the suite whose options hold both its answer and answer + 1. */
function countingTask(sub: "category_ambiguity" | "merged_observation"): Task {
  for (let i = 0; ; i++) {
    const t = generateTask(sub, "uncertainty-test", i);
    if (t.options.includes(String(Number(t.answer) + 1))) return t;
  }
}

/** The task's truth graph as a reconstruction would give it: every node seen in view 0 (and so never merged). */
function seenGraph(task: Task): SceneGraph {
  const g = truthGraph(task, "multi");
  for (const n of g.nodes) {
    n.views = [0];
    n.support = [{ view: 0, points: n.raw_point_count, bbox: [0, 0, 10, 10] }];
  }
  return g;
}

const targetNode = (task: Task, g: SceneGraph) => g.nodes.find((n) => n.label === queryOf(task).countCategory)!;

describe("symbolic reasoner, --uncertainty on: counts weigh the graph's evidence", () => {
  it("counts a displaced copy of a target seen in other views once (on), twice (off)", () => {
    const task = countingTask("category_ambiguity");
    const g = seenGraph(task);
    const t = targetNode(task, g);
    g.nodes.push({ ...node("dup", [t.centroid[0] + 0.12, t.centroid[1], t.centroid[2]], [3, 4], { label: t.label }), label_distribution: { [t.label]: 1 } });
    const q = queryOf(task);
    const on = decide(g, q, { uncertainty: true });
    const off = decide(g, q, { uncertainty: false });
    expect("answer" in on && on.answer).toBe(task.answer);
    expect("answer" in off && off.answer).toBe(String(Number(task.answer) + 1));
    expect(on.trace.join("\n")).toMatch(/dup ~ .* never seen together/);
  });

  it("counts two copies side by side that one view sees together as two, even within the radius", () => {
    const task = countingTask("merged_observation");
    const g = seenGraph(task);
    const t = targetNode(task, g);
    g.nodes.push({ ...node("copy", [t.centroid[0] + 0.1, t.centroid[1], t.centroid[2]], [0], { label: t.label }), label_distribution: { [t.label]: 1 } });
    const on = decide(g, queryOf(task), { uncertainty: true });
    expect("answer" in on && on.answer).toBe(String(Number(task.answer) + 1));
  });

  it("discounts a low-support node seen once in a multi-view graph (on) that off counts as an object", () => {
    const task = countingTask("category_ambiguity");
    const g = seenGraph(task);
    const t = targetNode(task, g);
    // the real nodes are seen in two views; a phantom seen once with few points, far from them
    for (const n of g.nodes) n.views = [0, 1];
    g.nodes.push({
      ...node("phantom", [t.centroid[0] + 2, t.centroid[1] + 2, t.centroid[2]], [6], { label: t.label, low: true, points: 60 }),
      label_distribution: { [t.label]: 1 },
    });
    const q = queryOf(task);
    const on = decide(g, q, { uncertainty: true });
    const off = decide(g, q, { uncertainty: false });
    expect("answer" in on && on.answer).toBe(task.answer);
    expect("answer" in off && off.answer).toBe(String(Number(task.answer) + 1));
  });

  it("answers a near-margin relation with a low-support referent less surely (on), with the same answer as off", () => {
    const task = generateTask("physical_contact", "uncertainty-test", 0);
    const g = truthGraph(task);
    const q = queryOf(task);
    const off = decide(g, q);
    const ref = g.nodes.find((n) => n.label === q.referents[0]!.category)!;
    ref.flags.low_support = true;
    const on = decide(g, q, { uncertainty: true });
    expect("answer" in on && "answer" in off).toBe(true);
    if (!("answer" in on) || !("answer" in off)) return;
    expect(on.answer).toBe(off.answer);
    expect(on.confidence).toBe(weighedConfidence(off.confidence, 1));
    if (off.confidence > 0.5) expect(on.confidence).toBeLessThan(off.confidence);
  });

  it("leaves --uncertainty off exactly as before: the same decision as no option at all", () => {
    for (const sub of ["merged_observation", "physical_contact", "spatial_distance"] as const) {
      const task = generateTask(sub, "uncertainty-test", 1);
      const g = seenGraph(task);
      g.nodes.forEach((n, i) => (n.flags.low_support = i % 2 === 0));
      expect(decide(g, queryOf(task), { uncertainty: false })).toEqual(decide(g, queryOf(task)));
    }
  });

  it("is still the graph oracle: 100 % on ground-truth graphs of every built-in subcategory with uncertainty on", async () => {
    const r = createSymbolicReasoner();
    const wrong: string[] = [];
    for (const sub of GRAPH_ANSWERED)
      for (let i = 0; i < 2; i++) {
        const task = generateTask(sub, "oracle-test", i);
        const a = await r.answer({ task, graph: truthGraph(task), uncertainty: true });
        expect(a.status).toBe("parsed");
        if (a.answer !== task.answer) wrong.push(`${task.task_id}: ${a.answer} vs ${task.answer}`);
      }
    expect(wrong).toEqual([]);
  }, 240_000);
});
