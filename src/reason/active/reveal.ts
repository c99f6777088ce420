/**
 * What the offline explorers do with their hands (issue 46): reveal hidden state before answering. A scene can
 * hide what a question needs in two ways the built-in world models: a box kept closed by its lid, and a cloth
 * draped over an object. An explorer with `--actions all` that sees either goes within reach, opens the box or
 * lifts the cloth, and only then goes on exploring with the camera: it acts to falsify the graph it has.
 * - 3D arms find them in the graph: a `cloth` node, or a box node with a lid node lying flat on its top (the
 *   count's own rule, enclosurePrograms.ts); they walk the 0.25 m / 15 deg lattice to a pose within reach
 *   whose view holds the node, then act on the node by its id.
 * - The 2D arm sees instance masks with categories and no depth: it acts on a cloth or lidded box it sees by
 *   category and colour, and turns towards and walks up to it while the simulator says it is out of reach.
 */
import { intendedPose, MOVE_STEP_M, PITCH_STEP_RAD, REACH_M, TURN_STEP_RAD, type NavigationAction } from "../../../core/task/actions.js";
import { intrinsicsFromHfov, poseToExtrinsic, projectPoint, type AgentPose } from "../../../core/math/camera.js";
import type { Vec3 } from "../../../core/math/vec.js";
import type { Task } from "../../../core/task/schema.js";
import type { SceneGraph, GraphNode } from "../../../scenegraph/types.js";
import { sightClearsRim } from "../../../core/geometry.js";

import type { AgentContext } from "./types.js";
import { isLidLabel, lidClosedBoxes } from "../enclosurePrograms.js";
import { nameColor } from "../../../core/task/palette.js";
import { LIBRARY } from "../../../core/objects/library.js";

/** Categories whose object hides what is under it until lifted. */
const COVER_LABELS: ReadonlySet<string> = new Set(["cloth"]);
/** Approach until the node's box is this far from the camera on the floor plan (m): inside the simulator's reach with a margin for the graph's box error. */
const APPROACH_M = REACH_M - 0.2;
/** The node's centre must project this far inside the image border (fraction of the size) for the view to hold it. */
const IN_VIEW_MARGIN = 0.1;
/** Lattice search depth when walking up to a node (actions). Ours: 3 m of 0.25 m steps with a few turns. */
const APPROACH_DEPTH = 14;
/** The 2D arm reads a lid's box from this many pixel rows under the lid's mask. */
const UNDER_LID_PX = 6;
/** How deep under its rim the agent looks into an open box (m): the library's boxes stand 0.25-0.36 m; a target on the floor inside rises above it. */
const LOOK_DEPTH_M = 0.25;
/** The body keeps this clearance from what it walks by (m): the simulator's body clearance. */
export const BODY_CLEARANCE_M = 0.15;
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
  /** its node's bottom and top heights (3D): where to look into it once open */
  z?: [number, number];
  /** where its mask's centre is in the view, as a fraction of the width (2D: steering towards it) */
  u?: number;
  /** its category alone (2D): the name to try when the hands read its colour otherwise */
  bare?: string;
}

/** The graph's nodes that hide something: cloths and boxes with a lid on them. */
export function hiddenInGraph(graph: SceneGraph): RevealTarget[] {
  const out: RevealTarget[] = [];
  const target = (action: RevealTarget["action"], n: GraphNode): RevealTarget => ({
    action,
    ref: n.id,
    point: n.box.centre,
    half: [n.box.extent[0] / 2, n.box.extent[1] / 2],
    z: [n.box.centre[2] - n.box.extent[2] / 2, n.box.centre[2] + n.box.extent[2] / 2],
  });
  for (const n of graph.nodes) {
    // a held node is in the agent's hand: lifted already
    if (n.flags.held) continue;
    if (COVER_LABELS.has(n.label)) out.push(target("pick_up", n));
    // (a may_contain node with no lid on it is an open container: looking from above shows its inside, no act does)
  }
  // a lidded box, as the count's program reads one (a lid lying flat on its top; once open the lid stands up)
  for (const box of lidClosedBoxes(graph.nodes)) if (!box.flags.held) out.push(target("open", box));
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
  // a mask is named by its category and the colour its pixels show (the hands tell apart two boxes of a kind by it)
  const named = (category: string, pick: (i: number) => boolean): string => {
    const sum = [0, 0, 0];
    let n = 0;
    for (let i = 0; i < view.ids.length; i++)
      if (pick(i)) {
        for (let k = 0; k < 3; k++) sum[k]! += view.rgb[3 * i + k]!;
        n++;
      }
    const words = category.replace(/_/g, " ");
    // among the colours the category comes in (the library's palettes: what any agent may know of a toy box), as
    // shading moves a pixel's colour off its name
    const palette = [...new Set(LIBRARY.get(category)?.models.flatMap((m) => m.palette) ?? [])];
    return n
      ? `${nameColor(
          sum.map((x) => x / n),
          palette.length ? palette : undefined,
        )} ${words}`
      : words;
  };
  const out: RevealTarget[] = [];
  const centreU = (pick: (i: number) => boolean) => {
    let sum = 0,
      n = 0;
    for (let i = 0; i < view.ids.length; i++) if (pick(i)) [sum, n] = [sum + (i % view.width), n + 1];
    return n ? sum / n / view.width : 0.5;
  };
  for (const c of seen)
    if (COVER_LABELS.has(c)) {
      const pick = (i: number) => categories.get(view.ids[i]!) === c;
      out.push({ action: "pick_up", ref: named(c, pick), bare: c.replace(/_/g, " "), u: centreU(pick) });
    }
  // a lid's box: the category of the pixels right under the lid's mask, across its width
  const { width, height } = view;
  const lidIds = [...new Set(view.ids)].filter((id) => isLidLabel(categories.get(id) ?? ""));
  for (const lid of lidIds) {
    const below = new Map<string, number>();
    for (let u = 0; u < width; u++) {
      let bottom = -1;
      for (let v = 0; v < height; v++) if (view.ids[v * width + u] === lid) bottom = v;
      if (bottom < 0) continue;
      for (let v = bottom + 1; v < Math.min(height, bottom + 1 + UNDER_LID_PX); v++) {
        const c = categories.get(view.ids[v * width + u]!);
        if (c && !isLidLabel(c) && c !== "floor" && c !== "wall") below.set(c, (below.get(c) ?? 0) + 1);
      }
    }
    const box = [...below.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
    if (box) {
      // the box's own mask: the instance most often right under the lid
      const ids = new Map<number, number>();
      for (let u = 0; u < width; u++) {
        let bottom = -1;
        for (let v = 0; v < height; v++) if (view.ids[v * width + u] === lid) bottom = v;
        const id = bottom >= 0 && bottom + 1 < height ? view.ids[(bottom + 1) * width + u]! : -1;
        if (categories.get(id) === box) ids.set(id, (ids.get(id) ?? 0) + 1);
      }
      const boxId = [...ids.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
      const pick = (i: number) => view.ids[i] === boxId;
      out.push({
        action: "open",
        ref: boxId === undefined ? box.replace(/_/g, " ") : named(box, pick),
        bare: box.replace(/_/g, " "),
        u: boxId === undefined ? 0.5 : centreU(pick),
      });
    }
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

/** Planar moves and yaw turns: the walk searches the floor plan and the heading only (pitch is set on arrival). */
const WALK_ACTIONS: readonly NavigationAction[] = ["move_forward", "move_backward", "move_left", "move_right", "turn_left", "turn_right"];

/** The pose with its pitch aimed at the target: what the view would hold once the agent tilts on arrival. */
function aimed(p: AgentPose, t: RevealTarget): AgentPose {
  const [dx, dy, dz] = [t.point![0] - p.position[0], t.point![1] - p.position[1], t.point![2] - p.position[2]];
  return { ...p, pitch: Math.atan2(dz, Math.hypot(dx, dy)) };
}

/**
 * The next action towards a pose from which the agent can act on the target: within reach with the target in view
 * once the camera tilts to it. Within reach and facing it, the tilt (turn_up/turn_down); otherwise the first action of
 * the shortest walk (breadth first over the floor plan and the heading, at the current height, over poses the body
 * can stand at), or null when none is found within APPROACH_DEPTH actions.
 */
export function approach(
  task: Task,
  start: AgentPose,
  t: RevealTarget,
  passable: (p: AgentPose) => boolean,
  blocked: (from: AgentPose, a: NavigationAction) => boolean = () => false,
): NavigationAction | null {
  const arrived = (p: AgentPose) => reachDistance(p, t) <= APPROACH_M && holds(task, aimed(p, t), t.point!);
  if (arrived(start)) {
    const want = aimed(start, t).pitch;
    if (Math.abs(want - start.pitch) >= PITCH_STEP_RAD / 2) return want < start.pitch ? "turn_down" : "turn_up";
    return null;
  }
  const key = (p: AgentPose) => `${p.position.map((x) => Math.round(x * 100)).join(",")}|${Math.round(p.yaw * 100)}`;
  const seen = new Set([key(start)]);
  let frontier: Array<{ pose: AgentPose; first: NavigationAction | null }> = [{ pose: start, first: null }];
  for (let depth = 1; depth <= APPROACH_DEPTH && frontier.length; depth++) {
    const next: typeof frontier = [];
    for (const node of frontier)
      for (const a of WALK_ACTIONS) {
        // a move the simulator refused from here is not planned again (the occupancy grid may think it free)
        if (blocked(node.pose, a)) continue;
        const p = intendedPose(node.pose, a);
        if (a.startsWith("move_") && !passable(p)) continue;
        const k = key(p);
        if (seen.has(k)) continue;
        seen.add(k);
        const first = node.first ?? a;
        if (arrived(p)) return first;
        next.push({ pose: p, first });
      }
    frontier = next;
  }
  return null;
}

/**
 * The next action to look into a box just opened (3D): a step up while the sightline from the eye to its floor's
 * centre would pass under the near rim (a box on a table), then the turns that aim the view at that centre; null
 * once the view looks into it. The agent knows the box from its node only.
 */
export function lookInto(start: AgentPose, t: RevealTarget): LookAction | null {
  const [x, y] = t.point!,
    [bottom, rim] = t.z!;
  // a node's bottom may be a table's under the box: look no deeper than a box's inside
  const floor = Math.max(bottom, rim - LOOK_DEPTH_M);
  const dx = x - start.position[0],
    dy = y - start.position[1],
    dz = floor - start.position[2];
  const run = Math.hypot(dx, dy);
  const yawOff = Math.atan2(Math.sin(Math.atan2(dy, dx) - start.yaw), Math.cos(Math.atan2(dy, dx) - start.yaw));
  // closer if there is room before the near wall (facing it), else higher
  if (!sightClearsRim(start.position, [x, y, floor], Math.min(...t.half!), rim))
    return Math.abs(yawOff) < TURN_STEP_RAD / 2 && run - Math.min(...t.half!) > MOVE_STEP_M + BODY_CLEARANCE_M ? "move_forward" : "move_up";
  if (Math.abs(yawOff) >= TURN_STEP_RAD / 2) return yawOff > 0 ? "turn_left" : "turn_right";
  const pitch = Math.atan2(dz, run);
  if (Math.abs(pitch - start.pitch) >= PITCH_STEP_RAD / 2) return pitch < start.pitch ? "turn_down" : "turn_up";
  return null;
}

type LookAction = Extract<NavigationAction, "move_forward" | "move_up" | "turn_left" | "turn_right" | "turn_down" | "turn_up">;

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

  /** The hands found nothing by that name where it was: asking again from here is the same question. */
  giveUp(t: RevealTarget): void {
    this.tries.set(this.keyOf(t), MAX_ATTEMPTS);
  }
}
