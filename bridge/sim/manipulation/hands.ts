/**
 * The agent's hands in the built-in world (issue 46): pick_up, put_on, put_inside, put_back, open and close on
 * the scene's objects. A manipulation either happens whole or changes nothing and says why (ESI's later runner's
 * `action_result`). Placements are dropped and watched through the physics engine for PLACE_SETTLE_STEPS, so
 * what the next view shows is what physics did (an unstable stack tips, a ball rolls off). A held object travels
 * with the camera. Lids and cloths are ordinary objects: a box's lid (role `lid`, resting on the box) swings open
 * about the rim edge farthest from the agent; a cloth (category `cloth`) is lifted like any object.
 */
import type { AgentPose } from "../../../core/math/camera.js";
import { quatFromAxisAngle, quatMul, quatToMat, type Quat } from "../../../core/math/quat.js";
import type { Vec3 } from "../../../core/math/vec.js";
import { REACH_ABOVE_EYE_M, REACH_M, type ManipulationAction } from "../../../core/task/actions.js";
import type { TaskObject } from "../../../core/task/schema.js";
import { interiorOf } from "../../../core/objects/containers.js";
import type { ObjectRef, WorldTruth } from "../../env/types.js";
import { bodyOf } from "../physics/bodies.js";
import type { TaskPhysics } from "../physics/taskWorld.js";
import { PhysicsWorld } from "../physics/world.js";
import { addFloor } from "../physics/settle.js";
import { DROP_CLEARANCE_M } from "../physics/params.js";
import { boxDistance, resolveReference } from "./references.js";
import {
  FIXED_ROLES,
  GRASP_MAX_EXTENT_M,
  HOLD_AHEAD_M,
  HOLD_BELOW_M,
  HOLD_RIGHT_M,
  LID_OPEN_RAD,
  MANIPULATION_MIN_VISIBLE_PX,
  PLACE_OVERLAP_TOLERANCE_M,
  PLACE_SETTLE_STEPS,
  SUPPORT_TOLERANCE_M,
} from "./params.js";

/** Objects whose bodies do not collide: a cloth is soft and drapes over what it meets. */
const SOFT_CATEGORIES: ReadonlySet<string> = new Set(["cloth"]);
/** A lid's role: it rests on the box it closes (its `support`). */
const LID_ROLE = "lid";

export interface HandsResult {
  ok: boolean;
  /** "ok", or why nothing happened. */
  result: string;
  /** The objects acted on (when it happened). */
  ids?: number[];
}

const fail = (result: string): HandsResult => ({ ok: false, result });
const OK: HandsResult = { ok: true, result: "ok" };
const r4 = (x: number) => Math.round(x * 1e4) / 1e4;

/** The world-z of an object's box bottom and top (exact for the upright objects the built-in world places). */
function zRange(o: TaskObject): [number, number] {
  const R = quatToMat(o.orientation);
  const half = [0, 1, 2].reduce((s, k) => s + (Math.abs(R[2][k]!) * o.extent[k]!) / 2, 0);
  return [o.position[2] - half, o.position[2] + half];
}

/** Half-extents of an object's footprint along world X and Y (its box's AABB). */
function footprintHalf(o: TaskObject): [number, number] {
  const R = quatToMat(o.orientation);
  const h = (row: 0 | 1) => [0, 1, 2].reduce((s, k) => s + (Math.abs(R[row][k]!) * o.extent[k]!) / 2, 0);
  return [h(0), h(1)];
}

export class Hands {
  private objects: TaskObject[];
  private held: number | null = null;
  /** Where each picked-up object was taken from: put_back returns it there. */
  private readonly takenFrom = new Map<number, TaskObject>();
  /** Lids that are open, with their closed pose. */
  private readonly openLids = new Map<number, TaskObject>();

  constructor(
    objects: readonly TaskObject[],
    private readonly roomSize: readonly [number, number],
    /** The task's world: each object's body (its material) and how long a placement is watched (physics/taskWorld.ts). */
    private readonly physics: TaskPhysics = { bodyOptions: () => undefined, watchSteps: null },
  ) {
    this.objects = objects.map((o) => ({ ...o }));
  }

  /** The objects as they are now (a held one at the hand). */
  current(): TaskObject[] {
    return this.objects.map((o) => ({ ...o }));
  }

  holding(): number | null {
    return this.held;
  }

  private get(id: number): TaskObject {
    return this.objects.find((o) => o.id === id)!;
  }

  private set(o: TaskObject): void {
    this.objects = this.objects.map((x) => (x.id === o.id ? o : x));
  }

  /** Moves a held object to the hand at a camera pose (call after every camera move). */
  carry(pose: AgentPose): void {
    if (this.held === null) return;
    const o = this.get(this.held);
    const fx = Math.cos(pose.yaw),
      fy = Math.sin(pose.yaw);
    const [bottomOffset] = zRange({ ...o, position: [0, 0, 0] });
    const z = Math.max(pose.position[2] - HOLD_BELOW_M, -bottomOffset);
    this.set({
      ...o,
      position: [r4(pose.position[0] + HOLD_AHEAD_M * fx + HOLD_RIGHT_M * fy), r4(pose.position[1] + HOLD_AHEAD_M * fy - HOLD_RIGHT_M * fx), r4(z)],
    });
  }

  /** Runs one manipulation from a camera pose, `visible` the current view's pixels per instance id. */
  apply(name: ManipulationAction, refs: readonly ObjectRef[], pose: AgentPose, visible: ReadonlyMap<number, number>): HandsResult {
    const ids: number[] = [];
    for (const ref of refs) {
      // `#id` names any object (ground-truth trajectories); every other reference only what is in view
      const r = resolveReference(ref, /^#\d+$/.test(ref.text.trim()) ? this.objects : this.inView(visible), visible);
      if ("error" in r) return fail(r.error);
      ids.push(r.id);
    }
    const r = this.run(name, ids, pose, visible);
    return r.ok ? { ...r, ids } : r;
  }

  /** Which object a reference names among those in view (the error when none): an agent can name only what it sees. */
  check(ref: ObjectRef, visible: ReadonlyMap<number, number>): string | null {
    const r = resolveReference(ref, this.inView(visible), visible);
    return "error" in r ? r.error : null;
  }

  /**
   * The objects a reference may name: those the current view shows (MANIPULATION_MIN_VISIBLE_PX) and the held one, so
   * a failed reference says nothing about what is hidden ("nothing in view is called apple" whether or not an apple
   * lies under the cloth).
   */
  private inView(visible: ReadonlyMap<number, number>): TaskObject[] {
    return this.objects.filter((o) => o.id === this.held || (visible.get(o.id) ?? 0) >= MANIPULATION_MIN_VISIBLE_PX);
  }

  private run(name: ManipulationAction, ids: number[], pose: AgentPose, visible: ReadonlyMap<number, number>): HandsResult {
    const [x, y] = ids as [number, number | undefined];
    switch (name) {
      case "pick_up":
        return this.pickUp(x, pose, visible);
      case "put_on":
        return this.putOn(x, y!, pose, visible);
      case "put_inside":
        return this.putInside(x, y!, pose, visible);
      case "put_back":
        return this.putBack(x);
      case "open":
        return this.open(x, pose, visible);
      case "close":
        return this.close(x, pose, visible);
    }
  }

  private label(id: number): string {
    return this.get(id).name.replace(/^the\s+/, "");
  }

  /** Within reach and in view: what any manipulation needs of the objects it touches. */
  private reachable(id: number, pose: AgentPose, visible: ReadonlyMap<number, number>): string | null {
    if (id === this.held) return null;
    const px = visible.get(id) ?? 0;
    if (px < MANIPULATION_MIN_VISIBLE_PX) return `${this.label(id)} is not in view (${px} px; at least ${MANIPULATION_MIN_VISIBLE_PX} are needed to act on it)`;
    const o = this.get(id);
    const d = boxDistance(o, [pose.position[0], pose.position[1], o.position[2]]);
    if (d > REACH_M) return `${this.label(id)} is out of reach (${d.toFixed(2)} m away; reach ${REACH_M} m)`;
    const [bottom] = zRange(o);
    if (bottom > pose.position[2] + REACH_ABOVE_EYE_M) return `${this.label(id)} is out of reach (too high: ${bottom.toFixed(2)} m)`;
    return null;
  }

  /** What rests on or in an object (its lid included). */
  private carried(id: number): TaskObject[] {
    return this.objects.filter((o) => o.support === id && o.id !== this.held);
  }

  private lidOf(id: number): TaskObject | undefined {
    return this.objects.find((o) => o.role === LID_ROLE && o.support === id);
  }

  private graspProblem(id: number, pose: AgentPose, visible: ReadonlyMap<number, number>): string | null {
    const o = this.get(id);
    if (this.held !== null && this.held !== id) return `the hands already hold ${this.label(this.held)}`;
    if (this.held === id) return null;
    if (o.role === LID_ROLE) return `${this.label(id)} is a lid: open or close its box instead`;
    if (FIXED_ROLES.has(o.role)) return `${this.label(id)} is furniture and cannot be picked up`;
    const longest = Math.max(...o.extent);
    if (longest > GRASP_MAX_EXTENT_M) return `${this.label(id)} is too large to pick up (${longest.toFixed(2)} m; at most ${GRASP_MAX_EXTENT_M} m)`;
    const on = this.carried(id);
    if (on.length) return `${on.map((c) => this.label(c.id)).join(" and ")} ${on.length > 1 ? "rest" : "rests"} on or in ${this.label(id)}`;
    return this.reachable(id, pose, visible);
  }

  private pickUp(id: number, pose: AgentPose, visible: ReadonlyMap<number, number>): HandsResult {
    if (this.held === id) return fail(`the hands already hold ${this.label(id)}`);
    const p = this.graspProblem(id, pose, visible);
    if (p) return fail(p);
    this.takenFrom.set(id, { ...this.get(id) });
    const { support: _support, ...rest } = this.get(id);
    this.set(rest);
    this.held = id;
    this.carry(pose);
    return OK;
  }

  /**
   * X set down on the centre of Y's top face, turned with the face (on a tilted board it sits flat on the board, as
   * the Inclined Plane experiment puts it), or the reason when Y's top has no room.
   */
  private placeOnTop(x: TaskObject, y: TaskObject): { object: TaskObject; up: Vec3 } | string {
    const [hx, hy] = footprintHalf(x);
    const taken = this.carried(y.id).find((c) => {
      const [cx, cy] = footprintHalf(c);
      return Math.abs(c.position[0] - y.position[0]) < hx + cx && Math.abs(c.position[1] - y.position[1]) < hy + cy;
    });
    if (taken) return `there is no room on ${this.label(y.id)}: ${this.label(taken.id)} is there`;
    const R = quatToMat(y.orientation);
    const n: Vec3 = [R[0][2], R[1][2], R[2][2]];
    // set down upright (a fallen object is stood up again: its twist about +Z kept, its tilt dropped), then turned with the face
    const upright = quatMul(tiltTowards(n), twistAboutZ(x.orientation));
    const [bottom] = zRange({ ...x, position: [0, 0, 0] });
    const lift = y.extent[2] / 2 - bottom;
    return { object: { ...x, orientation: upright, position: [y.position[0] + lift * n[0], y.position[1] + lift * n[1], y.position[2] + lift * n[2]] }, up: n };
  }

  private putOn(xId: number, yId: number, pose: AgentPose, visible: ReadonlyMap<number, number>): HandsResult {
    if (xId === yId) return fail("an object cannot be put on itself");
    const p = this.graspProblem(xId, pose, visible) ?? this.reachable(yId, pose, visible);
    if (p) return fail(p);
    const y = this.get(yId);
    if (SOFT_CATEGORIES.has(y.category)) return fail(`${this.label(yId)} is soft: nothing stays on it`);
    const lid = this.lidOf(yId);
    const target = this.placeOnTop(this.get(xId), lid && !this.openLids.has(lid.id) ? lid : y);
    if (typeof target === "string") return fail(target);
    return this.drop(xId, target.object.position, target.object, target.up);
  }

  private putInside(xId: number, yId: number, pose: AgentPose, visible: ReadonlyMap<number, number>): HandsResult {
    if (xId === yId) return fail("an object cannot be put inside itself");
    const p = this.graspProblem(xId, pose, visible) ?? this.reachable(yId, pose, visible);
    if (p) return fail(p);
    const x = this.get(xId),
      y = this.get(yId);
    const interior = interiorOf(y.category, y.extent);
    if (!interior) return fail(`${this.label(yId)} is not a container`);
    const lid = this.lidOf(yId);
    if (lid && !this.openLids.has(lid.id)) return fail(`${this.label(yId)} is closed: open it first`);
    const [hx, hy] = footprintHalf(x);
    const [ix, iy] = interior.extent;
    const fits = (2 * hx <= ix && 2 * hy <= iy) || (2 * hx <= iy && 2 * hy <= ix);
    if (!fits)
      return fail(
        `${this.label(xId)} does not fit inside ${this.label(yId)} (${(2 * hx).toFixed(2)} x ${(2 * hy).toFixed(2)} m; opening ${ix.toFixed(2)} x ${iy.toFixed(2)} m)`,
      );
    const [, top] = zRange(y);
    const [bx] = zRange({ ...x, position: [0, 0, 0] });
    return this.drop(xId, [y.position[0], y.position[1], top - interior.extent[2] - bx]);
  }

  private putBack(id: number): HandsResult {
    if (this.held !== id) return fail(`the hands do not hold ${this.label(id)}`);
    const from = this.takenFrom.get(id)!;
    return this.drop(id, from.position, from);
  }

  /** Drops X (held or grasped now) at a position, watches the physics settle it, and records where it ends. */
  private drop(id: number, at: Vec3, as?: TaskObject, up: Vec3 = [0, 0, 1]): HandsResult {
    // lifted off the surface along its normal, so it lands without sliding into its fall (a board is tilted)
    const x = {
      ...(as ?? this.get(id)),
      position: [at[0] + DROP_CLEARANCE_M * up[0], at[1] + DROP_CLEARANCE_M * up[1], at[2] + DROP_CLEARANCE_M * up[2]] as Vec3,
    };
    const others = this.objects.filter((o) => o.id !== id && !SOFT_CATEGORIES.has(o.category) && o.id !== this.held);
    const world = new PhysicsWorld();
    let settled: TaskObject;
    try {
      addFloor(world, this.roomSize);
      for (const o of others) world.addBody(bodyOf(o, { ...this.physics.bodyOptions(o), fixed: true }));
      world.addBody(bodyOf(x, this.physics.bodyOptions(x)));
      world.step(this.physics.watchSteps ?? PLACE_SETTLE_STEPS);
      const overlap = others.find((o) => world.penetration(id, o.id) > PLACE_OVERLAP_TOLERANCE_M);
      if (overlap) return fail(`there is no room for ${this.label(id)}: it would overlap ${this.label(overlap.id)}`);
      const { position, orientation } = world.pose(id);
      settled = { ...x, position: position.map(r4) as Vec3, orientation };
    } finally {
      world.free();
    }
    const { support: _support, ...rest } = settled;
    const under = this.supportUnder(rest, others);
    this.set(under === undefined ? rest : { ...rest, support: under });
    if (this.held === id) this.held = null;
    this.takenFrom.delete(id);
    return OK;
  }

  /** The object (or the floor) an object rests on: the highest whose top is at its bottom under its centre. */
  private supportUnder(o: TaskObject, others: readonly TaskObject[]): number | "floor" | undefined {
    const [bottom] = zRange(o);
    if (bottom < SUPPORT_TOLERANCE_M) return "floor";
    const under = others
      .filter((s) => {
        const [sb, st] = zRange(s);
        const [hx, hy] = footprintHalf(s);
        const inside = Math.abs(o.position[0] - s.position[0]) <= hx && Math.abs(o.position[1] - s.position[1]) <= hy;
        // on its top, or on a container's inner bottom (between its bottom and top)
        return inside && bottom >= sb - SUPPORT_TOLERANCE_M && bottom <= st + SUPPORT_TOLERANCE_M;
      })
      .sort((a, b) => zRange(b)[1] - zRange(a)[1]);
    return under[0]?.id;
  }

  private open(id: number, pose: AgentPose, visible: ReadonlyMap<number, number>): HandsResult {
    const box = this.get(id);
    const lid = this.lidOf(id);
    if (!lid)
      return fail(
        SOFT_CATEGORIES.has(box.category) ? `${this.label(id)} is lifted, not opened: pick_up(${this.label(id)})` : `${this.label(id)} does not open`,
      );
    if (this.openLids.has(lid.id)) return fail(`${this.label(id)} is already open`);
    const p = this.reachable(id, pose, visible);
    if (p) return fail(p);
    const blocker = this.carried(lid.id)[0];
    if (blocker) return fail(`${this.label(blocker.id)} rests on the lid of ${this.label(id)}`);
    this.openLids.set(lid.id, { ...lid });
    this.set(hingedOpen(lid, box, pose.position));
    return OK;
  }

  private close(id: number, pose: AgentPose, visible: ReadonlyMap<number, number>): HandsResult {
    const box = this.get(id);
    const lid = this.lidOf(id);
    if (!lid) return fail(`${this.label(id)} does not close`);
    const closed = this.openLids.get(lid.id);
    if (!closed) return fail(`${this.label(id)} is already closed`);
    const p = this.reachable(id, pose, visible);
    if (p) return fail(p);
    const [, rim] = zRange(box);
    const sticking = this.carried(id).find((o) => o.id !== lid.id && zRange(o)[1] > rim + SUPPORT_TOLERANCE_M);
    if (sticking) return fail(`${this.label(sticking.id)} sticks out of ${this.label(id)}`);
    this.openLids.delete(lid.id);
    this.set(closed);
    return OK;
  }
}

/** A lid swung up by LID_OPEN_RAD about the box's top edge farthest from `eye`, so it stands behind the box as seen from there. */
function hingedOpen(lid: TaskObject, box: TaskObject, eye: Vec3): TaskObject {
  const R = quatToMat(box.orientation);
  const u: Vec3 = [R[0][0], R[1][0], 0],
    v: Vec3 = [R[0][1], R[1][1], 0];
  const [hx, hy] = [box.extent[0] / 2, box.extent[1] / 2];
  const edges = [
    { n: u, h: hx },
    { n: [-u[0], -u[1], 0] as Vec3, h: hx },
    { n: v, h: hy },
    { n: [-v[0], -v[1], 0] as Vec3, h: hy },
  ];
  const far = edges
    .map((e) => ({ ...e, d: Math.hypot(box.position[0] + e.n[0] * e.h - eye[0], box.position[1] + e.n[1] * e.h - eye[1]) }))
    .sort((a, b) => b.d - a.d)[0]!;
  const [lidBottom] = zRange(lid);
  const hinge: Vec3 = [box.position[0] + far.n[0] * far.h, box.position[1] + far.n[1] * far.h, lidBottom];
  // about z × n the lid's near half rises: its centre goes up and over the hinge
  const axis: Vec3 = [-far.n[1], far.n[0], 0];
  const q = quatFromAxisAngle(axis, LID_OPEN_RAD);
  const M = quatToMat(q);
  const r: Vec3 = [lid.position[0] - hinge[0], lid.position[1] - hinge[1], lid.position[2] - hinge[2]];
  const rr = [0, 1, 2].map((k) => M[k]![0] * r[0] + M[k]![1] * r[1] + M[k]![2] * r[2]);
  return {
    ...lid,
    position: [r4(hinge[0] + rr[0]!), r4(hinge[1] + rr[1]!), r4(hinge[2] + rr[2]!)],
    orientation: quatMul(q, lid.orientation),
  };
}

/** The rotation that turns +Z onto the unit normal `n` (the identity for a level face), from + - * and one sqrt. */
function tiltTowards(n: Vec3): Quat {
  // half-way quaternion: q = (z × n, 1 + z·n) normalised
  const w = 1 + n[2];
  if (w < 1e-9) return { x: 1, y: 0, z: 0, w: 0 };
  const len = Math.sqrt(n[1] * n[1] + n[0] * n[0] + w * w);
  return { x: -n[1] / len, y: n[0] / len, z: 0, w: w / len };
}

/** The twist of a rotation about +Z (swing-twist decomposition): (0, 0, z, w) normalised. */
function twistAboutZ(q: Quat): Quat {
  const len = Math.sqrt(q.z * q.z + q.w * q.w);
  return len < 1e-9 ? { x: 0, y: 0, z: 0, w: 1 } : { x: 0, y: 0, z: q.z / len, w: q.w / len };
}

/** An object has moved when its centre is this far from where the task put it (m): below the renderer's resolution at 1 m. */
const MOVED_M = 0.005;

/** The objects now and which have moved (or turned) since the task began: what the diagnosis judges a graph against. */
export function worldTruth(initial: readonly TaskObject[], objects: TaskObject[]): WorldTruth {
  const moved = objects.flatMap((to) => {
    const from = initial.find((o) => o.id === to.id)!;
    const d = Math.hypot(...to.position.map((x, k) => x - from.position[k]!));
    const turned = Math.abs(to.orientation.w - from.orientation.w) + Math.abs(to.orientation.z - from.orientation.z) > 1e-3;
    return d > MOVED_M || turned ? [{ id: to.id, from, to }] : [];
  });
  return { objects, moved };
}
