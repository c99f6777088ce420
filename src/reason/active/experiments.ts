/**
 * Acting to test physics (issue 46): an offline explorer with `--actions all` in an Inclined Plane task does the
 * experiment the question asks about: it puts the object on the slope and reads what happened from its next view,
 * instead of guessing from shape and a friction prior. The question names the object; the board is the node (3D)
 * or mask (2D) labelled `slope`. The simulator runs the task's own experiment (bridge/sim/manipulation/hands.ts);
 * the agent sees only the result.
 * - 3D: the object's node in the view after the placement (the node the current view supports) stayed when its
 *   centre is within OBSERVED_STAY_M of the board's centre on the floor plan.
 * - 2D: the object's mask in that view stayed when its pixel box overlaps the board's.
 */
import type { FrameBundle } from "../../../core/bundle/io.js";
import type { Task } from "../../../core/task/schema.js";
import type { GraphNode, SceneGraph } from "../../../scenegraph/types.js";
import { BOARD_CATEGORY } from "../slopePrior.js";
import { queryOf } from "../query.js";
import type { RevealTarget } from "./reveal.js";

/**
 * The object stayed on the board when its node's centre is within this of the board's centre (m): ESI's 3 cm slide
 * threshold, plus the few centimetres the object is set down off the board's centre by its tilt, plus the graph's
 * box error. A slide that matters ends at the board's foot or on the floor, tens of centimetres away.
 */
const OBSERVED_STAY_M = 0.08;

export type SlopeObservation = { stayed: boolean; why: string };

/** The question's object category (the one that is not the board). */
export function slopeObjectCategory(task: Task): string | null {
  return queryOf(task).referents.find((r) => r.category !== BOARD_CATEGORY)?.category ?? null;
}

const inView = (n: GraphNode, view: number) => n.support.some((s) => s.view === view);

/** The board and the object as reveal-style targets (3D), for walking within reach of both. */
export function slopeNodes(task: Task, graph: SceneGraph): { board: GraphNode; object: GraphNode } | null {
  const cat = slopeObjectCategory(task);
  const board = graph.nodes.find((n) => n.label === BOARD_CATEGORY);
  const object = graph.nodes.find((n) => n.label === cat);
  return board && object ? { board, object } : null;
}

export const asTarget = (n: GraphNode): RevealTarget => ({
  action: "pick_up",
  ref: n.id,
  point: n.box.centre,
  half: [n.box.extent[0] / 2, n.box.extent[1] / 2],
});

/** What the view after the placement shows (3D). */
export function observeSlope3d(task: Task, graph: SceneGraph, view: number): SlopeObservation | null {
  const cat = slopeObjectCategory(task);
  const board = graph.nodes.find((n) => n.label === BOARD_CATEGORY);
  const object = graph.nodes.filter((n) => n.label === cat && inView(n, view)).sort((a, b) => b.point_count - a.point_count)[0];
  if (!board || !object) return null;
  const d = Math.hypot(object.box.centre[0] - board.box.centre[0], object.box.centre[1] - board.box.centre[1]);
  return {
    stayed: d <= OBSERVED_STAY_M,
    why: `after the placement the ${cat} is ${d.toFixed(2)} m from the board's centre (stays within ${OBSERVED_STAY_M} m)`,
  };
}

/** What the view after the placement shows (2D: the masks' pixel boxes). */
export function observeSlope2d(task: Task, bundle: FrameBundle): SlopeObservation | null {
  const cat = slopeObjectCategory(task);
  const view = bundle.views.at(-1)!;
  const categories = new Map(bundle.manifest.instances.map((e) => [e.id, e.category]));
  const box = (category: string) => {
    let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
    for (let i = 0; i < view.ids.length; i++)
      if (categories.get(view.ids[i]!) === category) {
        const x = i % view.width,
          y = Math.floor(i / view.width);
        [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
      }
    return x0 === Infinity ? null : [x0, y0, x1, y1];
  };
  const b = box(BOARD_CATEGORY),
    o = cat ? box(cat) : null;
  if (!b || !o) return null;
  const overlap = o[0]! <= b[2]! && o[2]! >= b[0]! && o[1]! <= b[3]! && o[3]! >= b[1]!;
  return { stayed: overlap, why: `after the placement the ${cat}'s mask ${overlap ? "overlaps" : "lies clear of"} the board's` };
}

/** The answer an observation gives ("yes": it stays; the question asks whether it stays). */
export function slopeAnswer(task: Task, o: SlopeObservation): string | null {
  const want = o.stayed ? "yes" : "no";
  return task.options.includes(want) ? want : null;
}
