/**
 * What the offline explorers do with their hands (issue 46): reveal hidden state before answering. A scene can
 * hide what a question needs in two ways the built-in world models: a box kept closed by its lid, and a cloth
 * draped over an object. An explorer with `--actions all` that sees either goes within reach, opens the box or
 * lifts the cloth, and only then goes on exploring with the camera: it acts to falsify the graph it has.
 * - 3D arms find them in the graph: a `cloth` node, a node with a `box_lid` node resting on its top (a lidded
 *   box), or a node the memory flags `may_contain`; they walk the 0.25 m / 15 deg lattice to a pose within reach
 *   whose view holds the node, then act on the node by its id.
 * - The 2D arm sees instance masks with categories and no depth: it acts on a cloth or lidded box it sees by
 *   category and colour, and turns towards and walks up to it while the simulator says it is out of reach.
 */
import { intendedPose, NAVIGATION_ACTIONS, REACH_M, type NavigationAction } from "../../../core/task/actions.js";
import { intrinsicsFromHfov, poseToExtrinsic, projectPoint, type AgentPose } from "../../../core/math/camera.js";
import type { Vec3 } from "../../../core/math/vec.js";
import type { Task } from "../../../core/task/schema.js";
import type { SceneGraph, GraphNode } from "../../../scenegraph/types.js";

import type { AgentContext } from "./types.js";

/** Categories whose object hides what is under it until lifted. */
const COVER_LABELS: ReadonlySet<string> = new Set(["cloth"]);
/** A lid's category: the node it rests on is a closed box. */
const LID_LABEL = "box_lid";
/** A lid node rests on a box node when its bottom is within this of the box's top (m): the lid's own thickness and the graph's box error. */
const LID_ON_TOP_M = 0.06;
/** Approach until the node's box is this far from the camera on the floor plan (m): inside the simulator's reach with a margin for the graph's box error. */
const APPROACH_M = REACH_M - 0.2;
/** The node's centre must project this far inside the image border (fraction of the size) for the view to hold it. */
const IN_VIEW_MARGIN = 0.1;
/** Lattice search depth when walking up to a node (actions). Ours: a room's half-diagonal in 0.25 m steps with turns. */
const APPROACH_DEPTH = 12;
/** The 2D arm reads a lid's box from this many pixel rows under the lid's mask. */
const UNDER_LID_PX = 6;
/** Give up on a target after this many failed attempts (the simulator said no each time). */
const MAX_ATTEMPTS = 3;

export interface RevealTarget {
  /** what to do: open a lidded box, lift a cloth */
  action: "open" | "pick_up";
  /** how the agent names it: a node id (3D) or category text (2D) */
  ref: string;
  /** where it is (3D): the node's box centre */
  point?: Vec3;
  /** its node's box half-extents (3D) */
  half?: [number, number];
}

const xyInside = (p: readonly number[], n: GraphNode, grow = 0) =>
  Math.abs(p[0]! - n.box.centre[0]) <= n.box.extent[0] / 2 + grow && Math.abs(p[1]! - n.box.centre[1]) <= n.box.extent[1] / 2 + grow;

/** The graph's nodes that hide something: cloths, boxes with a lid on them, containers the memory flags may_contain. */
export function hiddenInGraph(graph: SceneGraph): RevealTarget[] {
  const out: RevealTarget[] = [];
  const target = (action: RevealTarget["action"], n: GraphNode): RevealTarget => ({
    action,
    ref: n.id,
    point: n.box.centre,
    half: [n.box.extent[0] / 2, n.box.extent[1] / 2],
  });
  for (const n of graph.nodes) {
    if (COVER_LABELS.has(n.label)) out.push(target("pick_up", n));
    else if ((n.flags as { may_contain?: boolean }).may_contain) out.push(target("open", n));
  }
  for (const lid of graph.nodes.filter((n) => n.label === LID_LABEL)) {
    const bottom = lid.aabb.min[2];
    const box = graph.nodes.find(
      (n) => n !== lid && n.label !== LID_LABEL && xyInside(lid.box.centre, n, 0.02) && Math.abs(bottom - n.aabb.max[2]) <= LID_ON_TOP_M,
    );
    if (box && !out.some((t) => t.ref === box.id)) out.push(target("open", box));
  }
  return out;
}

/** A cloth or lidded box the current view shows, for the 2D arm (category and colour from the masks' labels). */
export function hiddenInView(ctx: AgentContext): RevealTarget[] {
  const view = ctx.bundle.views.at(-1)!;
  const categories = new Map(ctx.bundle.manifest.instances.map((e) => [e.id, e.category]));
  const seen = new Set<string>();
  for (const id of view.ids) {
    const c = categories.get(id);
    if (c) seen.add(c);
  }
  const out: RevealTarget[] = [];
  for (const c of seen) if (COVER_LABELS.has(c)) out.push({ action: "pick_up", ref: c.replace(/_/g, " ") });
  // a lid's box: the category of the pixels right under the lid's mask, across its width
  const { width, height } = view;
  const lidIds = [...new Set(view.ids)].filter((id) => categories.get(id) === LID_LABEL);
  for (const lid of lidIds) {
    const below = new Map<string, number>();
    for (let u = 0; u < width; u++) {
      let bottom = -1;
      for (let v = 0; v < height; v++) if (view.ids[v * width + u] === lid) bottom = v;
      if (bottom < 0) continue;
      for (let v = bottom + 1; v < Math.min(height, bottom + 1 + UNDER_LID_PX); v++) {
        const c = categories.get(view.ids[v * width + u]!);
        if (c && c !== LID_LABEL && c !== "floor" && c !== "wall") below.set(c, (below.get(c) ?? 0) + 1);
      }
    }
    const box = [...below.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
    if (box) out.push({ action: "open", ref: box.replace(/_/g, " ") });
  }
  return out;
}

/** Horizontal distance from a pose to a target's box. */
function reachDistance(pose: AgentPose, t: RevealTarget): number {
  const [hx, hy] = t.half!;
  const dx = Math.max(0, Math.abs(pose.position[0] - t.point![0]) - hx),
    dy = Math.max(0, Math.abs(pose.position[1] - t.point![1]) - hy);
  return Math.hypot(dx, dy);
}

/** Whether a pose's view holds a point well inside the image. */
function holds(task: Task, pose: AgentPose, p: Vec3): boolean {
  const { width, height, hfov_deg } = task.camera;
  const K = intrinsicsFromHfov(width, height, hfov_deg);
  const q = projectPoint(poseToExtrinsic(pose), K, p);
  const mu = width * IN_VIEW_MARGIN,
    mv = height * IN_VIEW_MARGIN;
  return q.z > 0 && q.u >= mu && q.u <= width - mu && q.v >= mv && q.v <= height - mv;
}

/** Whether the agent can act on a target from this pose (by its own estimate: the simulator has the last word). */
export function canAct(task: Task, pose: AgentPose, t: RevealTarget): boolean {
  return reachDistance(pose, t) <= APPROACH_M && holds(task, pose, t.point!);
}

/**
 * The first action of the shortest lattice walk to a pose from which the agent can act on the target (breadth first,
 * over poses the body can stand at), or null when none is found within APPROACH_DEPTH actions.
 */
export function approach(task: Task, start: AgentPose, t: RevealTarget, passable: (p: AgentPose) => boolean): NavigationAction | null {
  const key = (p: AgentPose) => `${p.position.map((x) => Math.round(x * 100)).join(",")}|${Math.round(p.yaw * 100)}|${Math.round(p.pitch * 100)}`;
  const seen = new Set([key(start)]);
  let frontier: Array<{ pose: AgentPose; first: NavigationAction | null }> = [{ pose: start, first: null }];
  for (let depth = 1; depth <= APPROACH_DEPTH && frontier.length; depth++) {
    const next: typeof frontier = [];
    for (const node of frontier)
      for (const a of NAVIGATION_ACTIONS) {
        if (a === "move_up") continue; // reaching needs no height; fewer poses to search
        const p = intendedPose(node.pose, a);
        if (a.startsWith("move_") ? !passable(p) : Math.abs(p.pitch) > Math.PI / 2 + 1e-9) continue;
        const k = key(p);
        if (seen.has(k)) continue;
        seen.add(k);
        const first = node.first ?? a;
        if (canAct(task, p, t)) return first;
        next.push({ pose: p, first });
      }
    frontier = next;
  }
  return null;
}

/** Tracks what the agent has revealed or given up on, by where the target is (node ids change as the graph grows). */
export class RevealLog {
  private readonly tries = new Map<string, number>();
  private readonly done = new Set<string>();

  private keyOf(t: RevealTarget): string {
    return t.point ? `${t.action}@${t.point.map((x) => Math.round(x * 4)).join(",")}` : `${t.action}:${t.ref}`;
  }

  /** Targets not yet revealed and not given up. */
  open(targets: readonly RevealTarget[]): RevealTarget[] {
    return targets.filter((t) => !this.done.has(this.keyOf(t)) && (this.tries.get(this.keyOf(t)) ?? 0) < MAX_ATTEMPTS);
  }

  tried(t: RevealTarget): void {
    this.tries.set(this.keyOf(t), (this.tries.get(this.keyOf(t)) ?? 0) + 1);
  }

  revealed(t: RevealTarget): void {
    this.done.add(this.keyOf(t));
  }
}
