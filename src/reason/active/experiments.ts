/**
 * Acting to test physics (issue 46): an offline explorer with `--actions all` in an Inclined Plane task does the
 * experiment the question asks about: it puts the object on the slope and reads what happened from its next view,
 * instead of guessing from shape and a friction prior. The question names the object; the board is the node (3D)
 * or mask (2D) labelled `slope`. The simulator runs the task's own experiment (bridge/sim/manipulation/hands.ts);
 * the agent sees only the result.
 * - 3D: the object's node in the view after the placement (the node the current view supports) stayed when its
 *   centre is within OBSERVED_STAY_M of the board's centre on the floor plan; with the board in view and the object
 *   nowhere in it, it left the board.
 * - 2D: the object's mask in that view stayed when its pixel box overlaps the board's; no mask of it, it left.
 */
import type { FrameBundle } from "../../../core/bundle/io.js";
import type { Task } from "../../../core/task/schema.js";
import type { GraphNode, SceneGraph } from "../../../scenegraph/types.js";
import { BOARD_CATEGORY } from "../slopePrior.js";
import { queryOf } from "../query.js";
import type { RevealTarget } from "./reveal.js";
import { STACK_MIN_RISE_M } from "../../../core/task/rules.js";

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
  if (!board) return null;
  // the view looks where the object was set down: the board in it and the object not means it left the board
  if (!object) return inView(board, view) ? { stayed: false, why: `after the placement the ${cat} is no longer on the board in view` } : null;
  const d = Math.hypot(object.box.centre[0] - board.box.centre[0], object.box.centre[1] - board.box.centre[1]);
  return {
    stayed: d <= OBSERVED_STAY_M,
    why: `after the placement the ${cat} is ${d.toFixed(2)} m from the board's centre (stays within ${OBSERVED_STAY_M} m)`,
  };
}

/** What the view after the placement shows (2D: the masks' pixel boxes). */
export function observeSlope2d(task: Task, bundle: FrameBundle): SlopeObservation | null {
  const cat = slopeObjectCategory(task);
  const b = maskBox(bundle, BOARD_CATEGORY),
    o = cat ? maskBox(bundle, cat) : null;
  if (!b) return null;
  if (!o) return { stayed: false, why: `after the placement the ${cat} is no longer on the board in view` };
  const overlap = o.x0 <= b.x1 && o.x1 >= b.x0 && o.y0 <= b.y1 && o.y1 >= b.y0;
  return { stayed: overlap, why: `after the placement the ${cat}'s mask ${overlap ? "overlaps" : "lies clear of"} the board's` };
}

/** The pixel box of a category's masks in the bundle's last view (null when none shows). */
function maskBox(bundle: FrameBundle, category: string): { x0: number; y0: number; x1: number; y1: number } | null {
  const view = bundle.views.at(-1)!;
  const categories = new Map(bundle.manifest.instances.map((e) => [e.id, e.category]));
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < view.ids.length; i++)
    if (categories.get(view.ids[i]!) === category) {
      const x = i % view.width,
        y = Math.floor(i / view.width);
      [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
    }
  return x0 === Infinity ? null : { x0, y0, x1, y1 };
}

/** The answer an observation gives ("yes": it stays; the question asks whether it stays). */
export function slopeAnswer(task: Task, o: SlopeObservation): string | null {
  const want = o.stayed ? "yes" : "no";
  return task.options.includes(want) ? want : null;
}

/**
 * Stacking & Stability with the hands: stack the items in an order (the program's first), watch, and keep the first
 * order that stands; an order that falls is marked and the next is tried with the objects wherever they fell (the
 * hands stand an object up again when they set it down). Stands: in the view after the last placement each upper
 * item's lowest point is at least STACK_MIN_RISE_M above the one under it's, over its footprint (ESI's stacking rule's
 * rise, read from the graph; 2D: the upper mask's pixel box above and overlapping the lower one's).
 */
export class StackExperiment {
  private orders: string[][];
  private current = 0;
  private placed = 0;
  private awaiting = false;
  private failures = 0;
  answer: string | null = null;
  why = "";

  constructor(items: readonly string[], first: readonly string[] | null) {
    const all = permutations([...items]);
    const head = first && first.length === items.length ? [...first] : null;
    this.orders = head ? [head, ...all.filter((o) => o.join() !== head.join())] : all;
  }

  /** The next action (or null: nothing left to try); `observe` reads the view after the last placement. */
  next(
    lastBlocked: boolean,
    observe: (order: string[]) => { stands: boolean; why: string } | null,
    placeOn: (upper: string, lower: string) => string | null,
  ): string | null {
    if (this.answer) return null;
    if (this.awaiting) {
      this.awaiting = false;
      if (lastBlocked) this.failures++;
      else this.placed++;
    }
    if (this.failures >= MAX_STACK_FAILURES) return null;
    const order = this.orders[this.current];
    if (!order) return null;
    if (this.placed === order.length - 1) {
      const seen = observe(order);
      if (seen?.stands) {
        this.answer = JSON.stringify(order);
        this.why = seen.why;
        return null;
      }
      this.why = seen?.why ?? "the stack could not be seen";
      this.current++;
      this.placed = 0;
      return this.next(false, observe, placeOn);
    }
    const action = placeOn(order[this.placed + 1]!, order[this.placed]!);
    if (action?.startsWith("put_on(")) this.awaiting = true;
    return action;
  }
}

/** Failed placements before the agent gives up on its stacking experiment. */
const MAX_STACK_FAILURES = 4;

function permutations<T>(xs: T[]): T[][] {
  if (xs.length <= 1) return [xs];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}

/** The item's node the current view shows (the most points). */
export function itemNode(graph: SceneGraph, item: string, view: number): GraphNode | undefined {
  return graph.nodes.filter((n) => n.label === item && inView(n, view)).sort((a, b) => b.point_count - a.point_count)[0];
}

/** Whether the order stands in the graph's current view (3D). */
export function observeStack3d(graph: SceneGraph, order: readonly string[], view: number): { stands: boolean; why: string } | null {
  const nodes = order.map((item) => itemNode(graph, item, view));
  if (nodes.some((n) => !n)) return null;
  for (let k = 1; k < nodes.length; k++) {
    const [lo, up] = [nodes[k - 1]!, nodes[k]!];
    const rise = up.aabb.min[2] - lo.aabb.min[2];
    const over =
      Math.abs(up.box.centre[0] - lo.box.centre[0]) <= lo.box.extent[0] / 2 + up.box.extent[0] / 2 &&
      Math.abs(up.box.centre[1] - lo.box.centre[1]) <= lo.box.extent[1] / 2 + up.box.extent[1] / 2;
    if (rise < STACK_MIN_RISE_M || !over) return { stands: false, why: `${up.label} is not on ${lo.label} after stacking (${rise.toFixed(3)} m above it)` };
  }
  return { stands: true, why: `${order.join(" under ")} still stacked after watching` };
}

/** Whether the order stands in the current view's masks (2D). */
export function observeStack2d(bundle: FrameBundle, order: readonly string[]): { stands: boolean; why: string } | null {
  const boxes = order.map((item) => maskBox(bundle, item));
  if (boxes.some((b) => !b)) return null;
  for (let k = 1; k < boxes.length; k++) {
    const [lo, up] = [boxes[k - 1]!, boxes[k]!];
    // image rows grow downwards: the upper item ends above the lower one's bottom, over its columns
    const above = up.y1 < lo.y1 && up.y0 < lo.y0;
    const over = up.x0 <= lo.x1 && up.x1 >= lo.x0;
    if (!above || !over) return { stands: false, why: `${order[k]}'s mask is not above ${order[k - 1]}'s after stacking` };
  }
  return { stands: true, why: `${order.join(" under ")}: each mask above the one below after watching` };
}
