/**
 * Rigid bodies of placed task objects. An object collides as
 * - `box`: its box (the extent), when asked for (a slope board, anything the box describes well);
 * - its mesh's parts, by default: each connected part of the library mesh is one convex piece (a stool's seat and
 *   four legs, so what stands between the legs is not inside it), a part that is a sphere is a ball (a ball on the
 *   floor stays where it is put; a hull of its mesh rolls onto a facet), any other part its convex hull;
 * - an open container as its walls and bottom, so that what is put in it can go inside: a box container as five
 *   boxes, a round one as a bottom and one convex piece per wall segment of its mesh.
 *
 * Rapier's contact between two flat faces keeps at most four vertices of each face, so a hull standing on a round
 * flat bottom (a can's 20-gon) touches the floor on four neighbouring vertices and rocks without end (measured: a
 * can still turning at about 1 rad/s after 1.5 s). Such a part stands on a foot instead: a thin square plate
 * inscribed in its bottom polygon, with the part's bottom ring lifted by the plate's thickness.
 */
import type { Vec3 } from "../../../core/math/vec.js";
import type { TaskObject } from "../../../core/task/schema.js";
import { buildModel, LIBRARY } from "../../../core/objects/library.js";
import { CONTAINER_SEGMENTS } from "../../../core/objects/mesh.js";
import { shapeOf } from "../../../core/objects/shape.js";
import { CLOTH_CATEGORY } from "../../../core/objects/drape.js";
import type { Material } from "./params.js";
import { exactSinCos } from "./rotation.js";
import type { BodySpec, BoxShape, ConvexShape, ShapeSpec } from "./world.js";

type ShapeKind = "box" | "compound";
type Piece = { shape: ConvexShape; offset: Vec3 };

const scaleVector = (s: TaskObject["scale"]): Vec3 => (typeof s === "number" ? [s, s, s] : [s[0], s[1], s[2]]);

/**
 * The distinct vertices of each connected part of the object's mesh, scaled, in the object's frame (its box centre
 * at the origin). Triangles that share a vertex (equal coordinates) are one part: the library builds an object from
 * closed primitives (a seat, a leg, a head), each its own part.
 */
function meshParts(obj: TaskObject): Float32Array[] {
  const o = shapeOf(obj);
  const tris = buildModel(o.model).tris;
  const [sx, sy, sz] = scaleVector(o.scale);
  const index = new Map<string, number>();
  const xyz: number[] = [];
  const parent: number[] = [];
  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  for (let t = 0; t < tris.length; t += 9) {
    const corners = [0, 3, 6].map((c) => {
      const key = `${tris[t + c]},${tris[t + c + 1]},${tris[t + c + 2]}`;
      let i = index.get(key);
      if (i === undefined) {
        i = parent.length;
        index.set(key, i);
        parent.push(i);
        xyz.push(tris[t + c]! * sx, tris[t + c + 1]! * sy, tris[t + c + 2]! * sz);
      }
      return i;
    });
    parent[root(corners[1]!)] = root(corners[0]!);
    parent[root(corners[2]!)] = root(corners[0]!);
  }
  // parts in the order of their first vertex, so the same mesh always gives the same compound
  const byRoot = new Map<number, number[]>();
  for (let i = 0; i < parent.length; i++) {
    const r = root(i);
    let part = byRoot.get(r);
    if (!part) byRoot.set(r, (part = []));
    part.push(xyz[3 * i]!, xyz[3 * i + 1]!, xyz[3 * i + 2]!);
  }
  return [...byRoot.values()].map((p) => Float32Array.from(p));
}

/**
 * A part is a sphere when its box is a cube as wide as the ball through its farthest vertex and its vertices lie at
 * one distance from its centre, all to this fraction (a cube's corners lie at one distance too, but its box is
 * 1/sqrt(3) of that ball's). Ours: a library sphere's vertices lie on it exactly; an apple's or an egg's squash is
 * several times this.
 */
const SPHERE_TOLERANCE = 0.02;

function boundsOf(points: Float32Array): { min: Vec3; max: Vec3 } {
  const min: Vec3 = [Infinity, Infinity, Infinity];
  const max: Vec3 = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < points.length; i += 3)
    for (let k = 0; k < 3; k++) {
      min[k] = Math.min(min[k]!, points[i + k]!);
      max[k] = Math.max(max[k]!, points[i + k]!);
    }
  return { min, max };
}

/** The part as a ball (its centre, and the radius that holds every vertex), or null when it is not a sphere. */
function asBall(points: Float32Array): Piece | null {
  const { min, max } = boundsOf(points);
  const extent = [0, 1, 2].map((k) => max[k]! - min[k]!);
  if (Math.max(...extent) > (1 + SPHERE_TOLERANCE) * Math.min(...extent)) return null;
  const c: Vec3 = [(min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2];
  let near = Infinity;
  let far = 0;
  for (let i = 0; i < points.length; i += 3) {
    const d = Math.sqrt((points[i]! - c[0]) ** 2 + (points[i + 1]! - c[1]) ** 2 + (points[i + 2]! - c[2]) ** 2);
    near = Math.min(near, d);
    far = Math.max(far, d);
  }
  const round = far - near <= SPHERE_TOLERANCE * far && Math.min(...extent) >= 2 * far * (1 - SPHERE_TOLERANCE);
  return round ? { shape: { kind: "ball", radius: far }, offset: c } : null;
}

/** Thickness of the foot under a round flat bottom (m). Ours: thin against any object, thick against contact noise. */
const FOOT_THICKNESS_M = 0.002;
/** A flat bottom with more vertices than Rapier keeps per face (4) gets a foot. */
const MAX_FACE_VERTICES = 4;
/** Vertices this close to a part's lowest one (m) lie on its flat bottom: float32 noise of a scaled mesh. Ours. */
const FLAT_BOTTOM_TOLERANCE_M = 1e-6;

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

/**
 * A thin square plate whose underside is at height `z`, centred on the polygon's vertex mean, its corners 0.9 of the way to the
 * polygon's nearest edge: inside the polygon (which holds the circle of that radius).
 */
function footPlate(ring: ReadonlyArray<readonly [number, number]>, z: number): Piece {
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
  const half = (0.9 * nearest) / Math.SQRT2;
  return { shape: { kind: "box", half: [half, half, FOOT_THICKNESS_M / 2] }, offset: [cx, cy, z + FOOT_THICKNESS_M / 2] };
}

/** The vertex offsets of a part's flat face at height `z`, when it has more vertices than a contact keeps; else null. */
function flatFace(points: Float32Array, z: number): number[] | null {
  const face: number[] = [];
  for (let i = 0; i < points.length; i += 3) if (Math.abs(points[i + 2]! - z) < FLAT_BOTTOM_TOLERANCE_M) face.push(i);
  return face.length > MAX_FACE_VERTICES ? face : null;
}

/**
 * A part's hull; on a foot when it stands on the object's bottom on a flat face with more vertices than a contact
 * keeps; with `cap`, a flat top of that kind on the object's top gets the same plate (a lid), so that what stands
 * on the object rests on four corners, not on four neighbouring vertices of its rim (Stacking: measured, a box on a
 * can's 20-gon top still rocking at 2 rad/s after 1 s without the lid).
 */
function hullPieces(points: Float32Array, object: { bottom: number; top: number }, cap: boolean): Piece[] {
  let bottom = Infinity;
  let top = -Infinity;
  for (let i = 2; i < points.length; i += 3) {
    bottom = Math.min(bottom, points[i]!);
    top = Math.max(top, points[i]!);
  }
  const foot = bottom - object.bottom <= FLAT_BOTTOM_TOLERANCE_M ? flatFace(points, bottom) : null;
  const lid = cap && object.top - top <= FLAT_BOTTOM_TOLERANCE_M ? flatFace(points, top) : null;
  if (!foot && !lid) return [{ shape: { kind: "hull", points }, offset: [0, 0, 0] }];
  const lifted = Float32Array.from(points);
  const plates: Piece[] = [];
  const ring = (face: number[]) => convexPolygon(face.map((i) => [points[i]!, points[i + 1]!] as const));
  if (foot) {
    for (const i of foot) lifted[i + 2] = bottom + FOOT_THICKNESS_M;
    plates.push(footPlate(ring(foot), bottom));
  }
  if (lid) {
    for (const i of lid) lifted[i + 2] = top - FOOT_THICKNESS_M;
    plates.push(footPlate(ring(lid), top - FOOT_THICKNESS_M));
  }
  return [{ shape: { kind: "hull", points: lifted }, offset: [0, 0, 0] }, ...plates];
}

/**
 * Categories that sit on a round bottom: a plush toy's bottom flattens under its weight. The hull of its mesh rests
 * on one vertex under a high centre of mass and topples (a teddy bear fell over, 160 mm, in every settled scene);
 * it sits on a foot inscribed in its lowest ring of vertices instead. Ours.
 */
const SEATED_CATEGORIES: ReadonlySet<string> = new Set(["teddy_bear"]);
/** How far above a seated object's lowest vertex its seat ring lies at most (m, unit scale): one ring of its mesh. Ours. */
const SEAT_RING_M = 0.01;

/** The seat of a seated object: a foot at its bottom inscribed in the ring of its vertices just above the lowest. */
function seat(parts: readonly Float32Array[], objectBottom: number, scaleZ: number): Piece {
  const ring: Array<readonly [number, number]> = [];
  for (const points of parts)
    for (let i = 0; i < points.length; i += 3) {
      const above = points[i + 2]! - objectBottom;
      if (above > FLAT_BOTTOM_TOLERANCE_M && above <= SEAT_RING_M * scaleZ) ring.push([points[i]!, points[i + 1]!]);
    }
  if (ring.length < 3) throw new Error(`a seated object has no ring of vertices within ${SEAT_RING_M} m of its bottom`);
  return footPlate(convexPolygon(ring), objectBottom);
}

/** An open box container's bottom and four walls, in the object's frame; null for any other object. */
function boxContainerWalls(obj: TaskObject): Piece[] | null {
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
  const part = (centre: Vec3, size: Vec3): Piece => ({
    shape: { kind: "box", half: [size[0] / 2, size[1] / 2, size[2] / 2] } satisfies BoxShape,
    offset: [centre[0], centre[1], centre[2] - sz / 2],
  });
  return [
    part([0, 0, wb / 2], [sx, sy, wb]),
    part([-sx / 2 + wx / 2, 0, sz / 2], [wx, sy, sz]),
    part([sx / 2 - wx / 2, 0, sz / 2], [wx, sy, sz]),
    part([0, -sy / 2 + wy / 2, sz / 2], [sx - 2 * wx, wy, sz]),
    part([0, sy / 2 - wy / 2, sz / 2], [sx - 2 * wx, wy, sz]),
  ];
}

/** Tolerance of the test that a mesh part lies within a round container's walls (unit scale, m). Ours: float noise. */
const ENVELOPE_TOLERANCE_M = 1e-6;

/**
 * A round open container's bottom and its wall segments (one convex piece per segment of its mesh), plus the mesh
 * parts outside its walls (a handle, a stem and foot); null for any other object.
 */
function roundContainerPieces(obj: TaskObject, parts: readonly Float32Array[]): Piece[] | null {
  const spec = LIBRARY.get(obj.category)?.flags.interior;
  if (!spec || spec.shape !== "round" || obj.model !== shapeOf(obj).model) return null;
  const { builtCentre: c } = buildModel(obj.model);
  const s = scaleVector(obj.scale);
  const { r0, r1, height, wall, base } = spec;
  // a point of the built frame (unit scale) in the object's frame
  const at = (x: number, y: number, z: number): number[] => [(x - c[0]) * s[0], (y - c[1]) * s[1], (z - c[2]) * s[2]];
  const radiusAt = (z: number) => r0 + ((r1 - r0) * (z - base)) / height;
  const ring = (r: number, z: number, k: number): number[] => {
    // the angle of segment k, in [-pi, pi] for the exact series
    const a = (2 * Math.PI * k) / CONTAINER_SEGMENTS;
    const { sin, cos } = exactSinCos(a > Math.PI ? a - 2 * Math.PI : a);
    return at(r * cos, r * sin, z);
  };
  const pieces: Piece[] = [];
  const bottom: number[] = [];
  for (let k = 0; k < CONTAINER_SEGMENTS; k++) bottom.push(...ring(r0, base, k), ...ring(radiusAt(base + wall), base + wall, k));
  const walls: Piece[] = [];
  for (let k = 0; k < CONTAINER_SEGMENTS; k++) {
    const points: number[] = [];
    for (const j of [k, k + 1])
      points.push(...ring(r0, base, j), ...ring(r1, base + height, j), ...ring(r0 - wall, base + wall, j), ...ring(r1 - wall, base + height, j));
    walls.push({ shape: { kind: "hull", points: Float32Array.from(points) }, offset: [0, 0, 0] });
  }
  // the mesh's other parts: any with a vertex outside the container's outer frustum
  const outside = parts.filter((p) => {
    for (let i = 0; i < p.length; i += 3) {
      const x = p[i]! / s[0] + c[0];
      const y = p[i + 1]! / s[1] + c[1];
      const z = p[i + 2]! / s[2] + c[2];
      const t = ENVELOPE_TOLERANCE_M;
      if (z < base - t || z > base + height + t || Math.sqrt(x * x + y * y) > radiusAt(z) + t) return true;
    }
    return false;
  });
  // an open container has no top to cap
  const object = { bottom: lowest(parts), top: highest(parts) };
  pieces.push(...hullPieces(Float32Array.from(bottom), object, false), ...walls);
  for (const p of outside) pieces.push(...convexPieces(p, object, false));
  return pieces;
}

function lowest(parts: readonly Float32Array[]): number {
  let bottom = Infinity;
  for (const p of parts) for (let i = 2; i < p.length; i += 3) bottom = Math.min(bottom, p[i]!);
  return bottom;
}

function highest(parts: readonly Float32Array[]): number {
  let top = -Infinity;
  for (const p of parts) for (let i = 2; i < p.length; i += 3) top = Math.max(top, p[i]!);
  return top;
}

/** One mesh part: a ball when it is a sphere, else its hull (on a foot where it needs one). */
const convexPieces = (points: Float32Array, object: { bottom: number; top: number }, cap: boolean): Piece[] => {
  const ball = asBall(points);
  return ball ? [ball] : hullPieces(points, object, cap);
};

const asShape = (pieces: readonly Piece[]): ShapeSpec =>
  pieces.length === 1 && pieces[0]!.offset.every((v) => v === 0) ? pieces[0]!.shape : { kind: "compound", parts: pieces };

/** The collision shape of an object: its box when asked for; else its container walls, or its mesh's parts. */
function shapeFor(obj: TaskObject, kind: ShapeKind | undefined, cap: boolean): ShapeSpec {
  if (kind === "box") return { kind: "box", half: [obj.extent[0] / 2, obj.extent[1] / 2, obj.extent[2] / 2] };
  const boxWalls = boxContainerWalls(obj);
  if (boxWalls) return asShape(boxWalls);
  const parts = meshParts(obj);
  const round = roundContainerPieces(obj, parts);
  if (round) return asShape(round);
  if (kind === "compound") throw new Error(`${obj.name} (${obj.category}) is not an open container: no walls to collide as`);
  const object = { bottom: lowest(parts), top: highest(parts) };
  const pieces = parts.flatMap((p) => convexPieces(p, object, cap));
  if (SEATED_CATEGORIES.has(obj.category)) pieces.push(seat(parts, object.bottom, scaleVector(shapeOf(obj).scale)[2]));
  return asShape(pieces);
}

/**
 * Whether an object has a rigid body at all. A cloth (core/objects/drape.ts) does not: its shape is a drape computed
 * over what lies under it, not a body, and a soft cover must not block the placements the engine settles (an
 * object put on a draped one rests on the hidden object, through the cloth, as it would on a real towel).
 */
export const collides = (obj: Pick<TaskObject, "category">): boolean => obj.category !== CLOTH_CATEGORY;

export interface BodyOptions {
  kind?: ShapeKind;
  fixed?: boolean;
  massKg?: number;
  material?: Material;
  /** A round flat top gets a lid plate too (hullPieces): for objects that others are stacked on. */
  cap?: boolean;
}

/** The body of a placed object, at its recorded pose. */
export function bodyOf(obj: TaskObject, opts: BodyOptions = {}): BodySpec {
  if (!collides(obj)) throw new Error(`${obj.name} (${obj.category}) has no rigid body: leave it out of the world (collides)`);
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
