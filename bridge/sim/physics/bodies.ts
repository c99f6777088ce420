/**
 * Rigid bodies of placed task objects. An object collides as
 * - `box`: its box (the extent), for furniture and anything the box describes well;
 * - `hull`: the convex hull of its library mesh, scaled: round fruit and balls roll, a mug's handle counts;
 * - `compound`: an open box container as its five walls, so that what is put in it can go inside.
 * `shapeFor` picks: a box container is compound, everything else its hull (a hull of a box is the box).
 *
 * Rapier's contact between two flat faces keeps at most four vertices of each face, so a hull standing on a round
 * flat bottom (a can's 20-gon) touches the floor on four neighbouring vertices and rocks without end (measured: a
 * can still turning at about 1 rad/s after 1.5 s). Such a hull stands on a foot instead: a thin square plate
 * inscribed in its bottom polygon, with the hull's bottom ring lifted by the plate's thickness.
 */
import type { Vec3 } from "../../../core/math/vec.js";
import type { TaskObject } from "../../../core/task/schema.js";
import { buildModel, LIBRARY } from "../../../core/objects/library.js";
import { shapeOf } from "../../../core/objects/shape.js";
import type { Material } from "./params.js";
import type { BodySpec, BoxShape, ShapeSpec } from "./world.js";

type ShapeKind = ShapeSpec["kind"];

const scaleVector = (s: TaskObject["scale"]): Vec3 => (typeof s === "number" ? [s, s, s] : [s[0], s[1], s[2]]);

/** The mesh's distinct vertices, scaled, in the object's frame (its box centre at the origin). */
function hullPoints(obj: TaskObject): Float32Array {
  const o = shapeOf(obj);
  const tris = buildModel(o.model).tris;
  const [sx, sy, sz] = scaleVector(o.scale);
  const seen = new Set<string>();
  const out: number[] = [];
  for (let i = 0; i < tris.length; i += 3) {
    const key = `${tris[i]},${tris[i + 1]},${tris[i + 2]}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(tris[i]! * sx, tris[i + 1]! * sy, tris[i + 2]! * sz);
  }
  return Float32Array.from(out);
}

/** Thickness of the foot under a round flat bottom (m). Ours: thin against any object, thick against contact noise. */
const FOOT_THICKNESS_M = 0.002;
/** A flat bottom with more vertices than Rapier keeps per face (4) gets a foot. */
const MAX_FACE_VERTICES = 4;

/** The convex polygon of 2D points, counter-clockwise (Andrew's monotone chain). */
function convexPolygon(points: ReadonlyArray<readonly [number, number]>): Array<readonly [number, number]> {
  const sorted = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const cross = (o: readonly number[], a: readonly number[], b: readonly number[]) => (a[0]! - o[0]!) * (b[1]! - o[1]!) - (a[1]! - o[1]!) * (b[0]! - o[0]!);
  const half = (pts: ReadonlyArray<readonly [number, number]>) => {
    const out: Array<readonly [number, number]> = [];
    for (const p of pts) {
      while (out.length >= 2 && cross(out[out.length - 2]!, out[out.length - 1]!, p) <= 0) out.pop();
      out.push(p);
    }
    return out.slice(0, -1);
  };
  return [...half(sorted), ...half([...sorted].reverse())];
}

/** A thin square plate inscribed in a flat face's polygon, and the face's vertex indices. */
interface Plate {
  centre: [number, number];
  half: number;
  face: number[];
}

/**
 * The plate for the flat face at height `z` (the hull's bottom or top), or null when that face has no more vertices
 * than a contact keeps. The square is centred on the face polygon's vertex mean, its corners 0.9 of the way to the
 * nearest edge: inside the polygon (which holds the circle of that radius), so the plate never pokes out of the hull.
 */
function facePlate(points: Float32Array, z: number): Plate | null {
  const face: number[] = [];
  for (let i = 0; i < points.length; i += 3) if (Math.abs(points[i + 2]! - z) < 1e-6) face.push(i);
  if (face.length <= MAX_FACE_VERTICES) return null;
  const ring = convexPolygon(face.map((i) => [points[i]!, points[i + 1]!] as const));
  let cx = 0;
  let cy = 0;
  for (const [x, y] of ring) {
    cx += x;
    cy += y;
  }
  cx /= ring.length;
  cy /= ring.length;
  let nearest = Infinity;
  ring.forEach(([ax, ay], k) => {
    const [bx, by] = ring[(k + 1) % ring.length]!;
    const length = Math.sqrt((bx - ax) ** 2 + (by - ay) ** 2);
    nearest = Math.min(nearest, Math.abs((bx - ax) * (ay - cy) - (ax - cx) * (by - ay)) / length);
  });
  return { centre: [cx, cy], half: (0.9 * nearest) / Math.SQRT2, face };
}

/**
 * The hull, or the hull on a foot when its flat bottom has more vertices than a contact keeps; with `cap`, a flat
 * top of that kind gets the same plate (a lid), so that what stands on the object rests on four corners, not on
 * four neighbouring vertices of its rim (Stacking: measured, a box on a can's 20-gon top still rocking at 2 rad/s
 * after 1 s without the lid).
 */
function hullShape(obj: TaskObject, cap = false): ShapeSpec {
  const points = hullPoints(obj);
  let bottom = Infinity;
  let top = -Infinity;
  for (let i = 2; i < points.length; i += 3) {
    bottom = Math.min(bottom, points[i]!);
    top = Math.max(top, points[i]!);
  }
  const foot = facePlate(points, bottom);
  const lid = cap ? facePlate(points, top) : null;
  if (!foot && !lid) return { kind: "hull", points };
  const lifted = Float32Array.from(points);
  const parts: Array<{ shape: Exclude<ShapeSpec, { kind: "compound" }>; offset: Vec3 }> = [{ shape: { kind: "hull", points: lifted }, offset: [0, 0, 0] }];
  if (foot) {
    for (const i of foot.face) lifted[i + 2] = bottom + FOOT_THICKNESS_M;
    parts.push({
      shape: { kind: "box", half: [foot.half, foot.half, FOOT_THICKNESS_M / 2] },
      offset: [foot.centre[0], foot.centre[1], bottom + FOOT_THICKNESS_M / 2],
    });
  }
  if (lid) {
    for (const i of lid.face) lifted[i + 2] = top - FOOT_THICKNESS_M;
    parts.push({
      shape: { kind: "box", half: [lid.half, lid.half, FOOT_THICKNESS_M / 2] },
      offset: [lid.centre[0], lid.centre[1], top - FOOT_THICKNESS_M / 2],
    });
  }
  return { kind: "compound", parts };
}

/** An open box container's bottom and four walls, in the object's frame; null for any other object. */
function containerWalls(obj: TaskObject): ShapeSpec | null {
  const spec = LIBRARY.get(obj.category)?.flags.interior;
  if (!spec || spec.shape !== "box") return null;
  const model = buildModel(obj.model).extent;
  // the walls are the whole mesh only when the model is exactly the declared outer box (no handles or lids)
  if (model.some((e, k) => Math.abs(e - spec.outer[k]!) > 1e-9)) return null;
  const [kx, ky, kz] = scaleVector(obj.scale);
  const [sx, sy, sz] = [spec.outer[0] * kx, spec.outer[1] * ky, spec.outer[2] * kz];
  const wx = spec.wallFraction * sx;
  const wy = spec.wallFraction * sy;
  const wb = spec.bottomFraction * sz;
  const part = (centre: Vec3, size: Vec3): { shape: BoxShape; offset: Vec3 } => ({
    shape: { kind: "box", half: [size[0] / 2, size[1] / 2, size[2] / 2] },
    offset: [centre[0], centre[1], centre[2] - sz / 2],
  });
  return {
    kind: "compound",
    parts: [
      part([0, 0, wb / 2], [sx, sy, wb]),
      part([-sx / 2 + wx / 2, 0, sz / 2], [wx, sy, sz]),
      part([sx / 2 - wx / 2, 0, sz / 2], [wx, sy, sz]),
      part([0, -sy / 2 + wy / 2, sz / 2], [sx - 2 * wx, wy, sz]),
      part([0, sy / 2 - wy / 2, sz / 2], [sx - 2 * wx, wy, sz]),
    ],
  };
}

/** The collision shape of an object of the given kind (default: compound for a box container, else hull). */
function shapeFor(obj: TaskObject, kind?: ShapeKind, cap = false): ShapeSpec {
  if (kind === "box") return { kind: "box", half: [obj.extent[0] / 2, obj.extent[1] / 2, obj.extent[2] / 2] };
  if (kind === "compound" || kind === undefined) {
    const walls = containerWalls(obj);
    if (walls) return walls;
    if (kind === "compound") throw new Error(`${obj.name} (${obj.category}) is not a box container: no compound shape`);
  }
  return hullShape(obj, cap);
}

export interface BodyOptions {
  kind?: ShapeKind;
  fixed?: boolean;
  massKg?: number;
  material?: Material;
  /** A round flat top gets a lid plate too (hullShape): for objects that others are stacked on. */
  cap?: boolean;
}

/** The body of a placed object, at its recorded pose. */
export function bodyOf(obj: TaskObject, opts: BodyOptions = {}): BodySpec {
  return {
    id: obj.id,
    shape: shapeFor(obj, opts.kind, opts.cap === true),
    position: [obj.position[0], obj.position[1], obj.position[2]],
    orientation: obj.orientation,
    ...(opts.fixed ? { fixed: true } : {}),
    ...(opts.massKg !== undefined ? { massKg: opts.massKg } : {}),
    ...(opts.material ? { material: opts.material } : {}),
  };
}
