/**
 * Placement by settling, as ESI's generators place objects: `sample_kinematics("onTop")` puts an object just
 * above its support, then the simulator steps until it rests. Here the generator places objects analytically
 * (bottom on the support), `settle` lifts the ones it is told to drop by DROP_CLEARANCE_M, steps the world and
 * returns the settled poses with what went wrong: overlaps, objects that left their support, objects still moving.
 */
import type { TaskObject } from "../../../core/task/schema.js";
import { FLOOR_ID } from "../../../core/task/instanceIds.js";
import { bodyOf, collides, type BodyOptions } from "./bodies.js";
import { DEFAULT_MATERIAL, DROP_CLEARANCE_M, PENETRATION_TOLERANCE_M, SETTLE_STEPS, type Material } from "./params.js";
import { PhysicsWorld } from "./world.js";

/** Half-thickness of the floor slab under z = 0 (m): thick enough that nothing tunnels through it. Ours. */
const FLOOR_HALF_THICKNESS_M = 0.05;
/** An object moving faster than this after settling is not at rest (m/s). Ours: 5 mm/s. */
export const AT_REST_SPEED_M_S = 0.005;

/** Adds the room's floor, a fixed slab whose top is z = 0 over the room's rectangle (centred at the origin). */
export function addFloor(world: PhysicsWorld, roomSize: readonly [number, number], material: Material = DEFAULT_MATERIAL): void {
  world.addBody({
    id: FLOOR_ID,
    shape: { kind: "box", half: [roomSize[0] / 2, roomSize[1] / 2, FLOOR_HALF_THICKNESS_M] },
    position: [0, 0, -FLOOR_HALF_THICKNESS_M],
    orientation: { x: 0, y: 0, z: 0, w: 1 },
    fixed: true,
    material,
  });
}

export interface SettleRequest {
  roomSize: readonly [number, number];
  objects: readonly TaskObject[];
  /** Ids of the objects dropped and settled; every other object is a fixed body. */
  dropped: ReadonlySet<number>;
  /** Shape, mass and material of an object's body (default: bodies.ts's choice, PhysX's default material). */
  bodyOptions?: (o: TaskObject) => BodyOptions;
  steps?: number;
  floorMaterial?: Material;
}

export interface SettleResult {
  /** The objects with their settled poses (dropped ones moved; the rest as given). */
  objects: TaskObject[];
  /** SHA-256 of the settled world's snapshot. */
  snapshotHash: string;
  /** What makes the settled scene invalid; empty when it is valid. */
  problems: string[];
}

/** Drops, settles and validates; the world is freed before returning. */
export function settle(req: SettleRequest): SettleResult {
  const world = new PhysicsWorld();
  try {
    addFloor(world, req.roomSize, req.floorMaterial);
    // a cloth has no body (bodies.ts collides): it keeps its pose and blocks nothing
    for (const o of req.objects) {
      if (!collides(o)) continue;
      const drop = req.dropped.has(o.id);
      const body = bodyOf(o, { ...req.bodyOptions?.(o), fixed: !drop });
      if (drop) body.position = [body.position[0], body.position[1], body.position[2] + DROP_CLEARANCE_M];
      world.addBody(body);
    }
    world.step(req.steps ?? SETTLE_STEPS);
    const objects = req.objects.map((o) => {
      if (!req.dropped.has(o.id) || !collides(o)) return o;
      const { position, orientation } = world.pose(o.id);
      return { ...o, position, orientation };
    });
    return { objects, snapshotHash: world.snapshotHash(), problems: settledProblems(world, req.objects, req.dropped) };
  } finally {
    world.free();
  }
}

/** Overlaps, objects off their support and objects still moving, after the world has settled. */
function settledProblems(world: PhysicsWorld, objects: readonly TaskObject[], dropped: ReadonlySet<number>): string[] {
  const problems: string[] = [];
  const ids = world.ids();
  for (let i = 0; i < ids.length; i++)
    for (let j = i + 1; j < ids.length; j++) {
      const depth = world.penetration(ids[i]!, ids[j]!);
      if (depth > PENETRATION_TOLERANCE_M) problems.push(`bodies ${ids[i]} and ${ids[j]} overlap by ${depth.toFixed(4)} m`);
    }
  for (const o of objects) {
    if (!dropped.has(o.id) || !collides(o)) continue;
    const support = o.support === "floor" || o.support === undefined ? FLOOR_ID : o.support;
    if (!world.contacts(o.id).includes(support)) problems.push(`object ${o.id} no longer rests on ${support === FLOOR_ID ? "the floor" : `object ${support}`}`);
    const speed = world.speed(o.id);
    if (speed > AT_REST_SPEED_M_S) problems.push(`object ${o.id} still moves at ${speed.toFixed(4)} m/s`);
  }
  return problems;
}
