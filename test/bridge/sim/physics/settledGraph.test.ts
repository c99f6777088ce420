/**
 * A settled scene in the 3D arm: a Stacking & Stability task's objects stacked in an order its generator found
 * stable, dropped and settled by the physics world, then rendered; the graph from the rendered depth and the
 * ground-truth graph both show the support relations (ESI's stacking rule, `stacked_on` / `stacked_under`). A low
 * side view does not do: it sees a box's front face and not the top the book rests on, and too little of the book
 * for ESI's XY IoU of 0.1; a view from above the stack sees both.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { generateTask, prepareGenerators } from "../../../../bridge/sim/generate/suite.js";
import { settle } from "../../../../bridge/sim/physics/settle.js";
import type { Task, TaskObject } from "../../../../core/task/schema.js";
import { backprojectViews } from "../../../../reconstruct/gt/backproject.js";
import { bundleCategories } from "../../../../reconstruct/categories.js";
import { buildSceneGraph } from "../../../../scenegraph/build.js";
import { truthGraph } from "../../../../scenegraph/truth.js";
import type { SceneGraph } from "../../../../scenegraph/types.js";
import { bundleOf } from "../../../scenegraph/helpers.js";
import { lookAt } from "../../../../bridge/sim/agent.js";
import { poseQuaternion } from "../../../../core/math/camera.js";

let task: Task;
let order: TaskObject[];

beforeAll(async () => {
  await prepareGenerators(["stacking_stability"]);
  const t = generateTask("stacking_stability", "settled-graph", 0);
  const accepted = t.answer_spec?.kind === "any_ordering" ? t.answer_spec.accepted[0]! : [];
  // the stable order, bottom first, stacked where the row's middle object stands (the initial view looks there)
  const targets = t.objects.filter((o) => o.role === "target");
  order = accepted.map((category) => targets.find((o) => o.category === category)!);
  const [x, y] = targets[Math.floor(targets.length / 2)]!.position;
  let top = 0;
  const stacked = order.map((o, k) => {
    const placed: TaskObject = {
      ...o,
      position: [x, y, top + o.extent[2] / 2],
      orientation: { x: 0, y: 0, z: 0, w: 1 },
      support: k === 0 ? "floor" : order[k - 1]!.id,
    };
    top += o.extent[2];
    return placed;
  });
  const others = t.objects.filter((o) => o.role !== "target");
  const r = settle({
    roomSize: t.room.size,
    objects: [...others, ...stacked],
    dropped: new Set(stacked.map((o) => o.id)),
    bodyOptions: () => ({ cap: true }),
    steps: 240,
  });
  expect(r.problems).toEqual([]);
  task = { ...t, objects: r.objects };
}, 120_000);

/** Whether the graph relates upper to lower by `stacked_on` and lower to upper by `stacked_under`. */
function stacked(g: SceneGraph, upper: string, lower: string): boolean {
  return (
    g.relations.some((r) => r.subject === upper && r.predicate === "stacked_on" && r.object === lower) &&
    g.relations.some((r) => r.subject === lower && r.predicate === "stacked_under" && r.object === upper)
  );
}

describe("a settled stack in the scene graph", () => {
  it("the ground-truth graph of the settled scene has each object stacked on the one below it, and no more", () => {
    const g = truthGraph(task);
    for (let k = 1; k < order.length; k++)
      expect(stacked(g, `o${order[k]!.id}`, `o${order[k - 1]!.id}`), `${order[k]!.category} on ${order[k - 1]!.category}`).toBe(true);
    expect(g.relations.filter((r) => r.predicate === "stacked_on")).toHaveLength(order.length - 1);
    // and upright, as the settled world left them
    for (const o of order) expect(g.nodes.find((n) => n.id === `o${o.id}`)!.physics?.upright, o.category).toBe(true);
  });

  it("renders, and the graph from the depth of a view from above the stack shows the same support relations", () => {
    // the task's own first view is ESI's, level and 5 cm above the floor: it sees the stack's sides, not the tops
    // the objects rest on; a camera 0.6 m off and 0.8 m up, looking at the stack, sees both
    const [x, y] = order[0]!.position;
    const from: [number, number, number] = [x, y - 0.6, 0.8];
    const pose = { position: from, ...lookAt(from, [x, y, 0.2]) };
    const b = bundleOf({ ...task, agent_initial: { ...pose, orientation: poseQuaternion(pose) } }, "single");
    const structure = new Set(b.manifest.instances.filter((e) => e.structure).map((e) => e.id));
    const cloud = backprojectViews(b.views, bundleCategories(b), { excludeIds: structure });
    const g = buildSceneGraph(cloud, b, { masks: "instance", instances: "fusion" }).graph;
    // an object's node is the one of its label with the most points (a fusion may leave a fragment beside it)
    const node = (o: TaskObject) => {
      const n = g.nodes.filter((x) => x.label === o.category).sort((a, b) => b.raw_point_count - a.raw_point_count);
      expect(n.length, `a ${o.category} node`).toBeGreaterThan(0);
      return n[0]!.id;
    };
    for (let k = 1; k < order.length; k++)
      expect(stacked(g, node(order[k]!), node(order[k - 1]!)), `${order[k]!.category} on ${order[k - 1]!.category}`).toBe(true);
  }, 120_000);
});
