/**
 * Whether a scene's objects are placed sensibly: the checks the built-in generator applies to every draft
 * (bridge/sim/generate/suite.ts finalizeDraft), shared with tasks read from files (core/task/io.ts), which
 * used to get only schema checks (intersecting objects, negative extents, zero quaternions and
 * objects outside the room all rendered).
 */
import { boxesIntersect, footprint, type YawBox } from "../geometry.js";
import type { z } from "zod";
import type { RoomSchema, TaskObject } from "../task/schema.js";

type Room = z.infer<typeof RoomSchema>;
import { objectBox } from "./geometry.js";

/** How far a quaternion's norm may be from 1: float32 round-trips stay far inside it, a zero or unnormalised one does not. */
const QUATERNION_NORM_TOLERANCE = 0.01;
/** Footprint corners may stick out of the room by this much (m): the generator's rounding slack. */
const ROOM_SLACK_M = 1e-6;
/**
 * Penetration (m) beyond which two boxes intersect for a task read from a file. The generator knows which pairs
 * may overlap (touching, nested, stacked: its allowedOverlaps) and uses boxesIntersect's own 1 mm; a file does
 * not say, and touching objects' boxes can interpenetrate by a few millimetres where their meshes only touch,
 * so a file allows 1 cm. Ours.
 */
export const FILE_PENETRATION_TOLERANCE_M = 0.01;
/** The check stops after this many problems: enough to fix a file (3000 coincident copies make 4.5 million pairs). */
const MAX_PLACEMENT_PROBLEMS = 20;

export interface PlacementOptions {
  /** pairs of ids allowed to overlap (the generator's touching, nesting and stacking pairs) */
  allowedOverlaps?: ReadonlyArray<readonly [number, number]>;
  /** penetration tolerance of the intersection test (m; default boxesIntersect's) */
  tolerance?: number;
  /** allow a box entirely inside the box of an enclosing object (ENCLOSING_ROLES), when the pair is not declared */
  allowNested?: boolean;
}

/**
 * Roles of objects whose box may enclose another object (bridge/sim/generate): a Material Transparency
 * container holding one, a Spatial Segmentation divider (a chair) with one on the floor under it (ESI Q.20).
 */
const ENCLOSING_ROLES: ReadonlySet<string> = new Set(["container", "divider"]);
/** A nested box must be this much smaller in volume than its container: coincident copies are not nested. Ours. */
const NESTED_MAX_VOLUME_RATIO = 0.9;

/** True when `inner` lies wholly inside `outer` (footprint and height) and is clearly smaller: an object in a container. */
const within = (inner: YawBox, outer: YawBox): boolean => {
  const volume = (b: YawBox) => b.extent[0] * b.extent[1] * b.extent[2];
  if (volume(inner) > NESTED_MAX_VOLUME_RATIO * volume(outer)) return false;
  const bottom = (b: YawBox) => b.centre[2] - b.extent[2] / 2,
    top = (b: YawBox) => b.centre[2] + b.extent[2] / 2;
  if (bottom(inner) < bottom(outer) - 1e-6 || top(inner) > top(outer) + 1e-6) return false;
  const c = Math.cos(-outer.yaw),
    s = Math.sin(-outer.yaw);
  return footprint(inner).every(([x, y]) => {
    const dx = x - outer.centre[0],
      dy = y - outer.centre[1];
    return Math.abs(c * dx - s * dy) <= outer.extent[0] / 2 + 1e-6 && Math.abs(s * dx + c * dy) <= outer.extent[1] / 2 + 1e-6;
  });
};

/** The room's floor rectangle in world x, y: its bounds, or centred at the origin. */
function floorOf(room: Pick<Room, "size" | "bounds">): { min: [number, number]; max: [number, number] } {
  if (room.bounds) return { min: room.bounds.min, max: room.bounds.max };
  return { min: [-room.size[0] / 2, -room.size[1] / 2], max: [room.size[0] / 2, room.size[1] / 2] };
}

/**
 * Every placement problem of the objects, as `{field, message}` with the field an `objects[i]...` path: a
 * non-positive extent, a quaternion that is not a unit one, a footprint outside the room, two intersecting boxes.
 */
export function placementProblems(
  room: Pick<Room, "size" | "bounds">,
  objects: readonly TaskObject[],
  opts: PlacementOptions = {},
): Array<{ field: string; message: string }> {
  const problems: Array<{ field: string; message: string }> = [];
  const valid: boolean[] = objects.map((o, i) => {
    const bad: Array<{ field: string; message: string }> = [];
    if (!o.extent.every((e) => e > 0))
      bad.push({ field: `objects.${i}.extent`, message: `object ${o.id}: extent ${JSON.stringify(o.extent)}: every side must be positive (metres)` });
    const q = o.orientation,
      norm = Math.hypot(q.x, q.y, q.z, q.w);
    if (Math.abs(norm - 1) > QUATERNION_NORM_TOLERANCE)
      bad.push({ field: `objects.${i}.orientation`, message: `object ${o.id}: orientation has norm ${norm.toPrecision(3)}; expected a unit quaternion` });
    problems.push(...bad);
    return bad.length === 0;
  });
  const floor = floorOf(room);
  const boxes = objects.map((o, i) => (valid[i] ? objectBox(o) : null));
  boxes.forEach((b, i) => {
    if (!b) return;
    const out = footprint(b).some(
      ([x, y]) => x < floor.min[0] - ROOM_SLACK_M || x > floor.max[0] + ROOM_SLACK_M || y < floor.min[1] - ROOM_SLACK_M || y > floor.max[1] + ROOM_SLACK_M,
    );
    if (out)
      problems.push({
        field: `objects.${i}.position`,
        message: `object ${objects[i]!.id} lies (partly) outside the room's floor [${floor.min.join(", ")}]..[${floor.max.join(", ")}] m`,
      });
  });
  const allowed = new Set((opts.allowedOverlaps ?? []).flatMap(([a, b]) => [`${a}:${b}`, `${b}:${a}`]));
  for (let i = 0; i < objects.length && problems.length < MAX_PLACEMENT_PROBLEMS; i++) {
    const a = objects[i]!,
      ab = boxes[i];
    if (!ab) continue;
    for (let j = i + 1; j < objects.length && problems.length < MAX_PLACEMENT_PROBLEMS; j++) {
      const b = objects[j]!,
        bb = boxes[j];
      if (!bb || allowed.has(`${a.id}:${b.id}`) || a.support === b.id || b.support === a.id) continue;
      if (opts.allowNested && ((ENCLOSING_ROLES.has(b.role) && within(ab, bb)) || (ENCLOSING_ROLES.has(a.role) && within(bb, ab)))) continue;
      if (boxesIntersect(ab, bb, opts.tolerance)) problems.push({ field: `objects.${i}`, message: `objects ${a.id} and ${b.id} intersect` });
    }
  }
  return problems;
}
