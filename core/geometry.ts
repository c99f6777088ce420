/**
 * The geometry every stage shares (World frame: Z up, metres, radians):
 *  - `YawBox`: a gravity-aligned oriented box, {centre, extent (full side lengths along its own x, y, z), yaw}.
 *    The same shape in memory and in JSON (scene graphs), like three.js's Box3 one concept, one type,
 *    with free functions on it;
 *  - `Bounds` and `boundsOf`: the axis-aligned bounds of a point set;
 *  - `minPointDistance`: the exact closest distance between two point sets.
 * Task objects, graph nodes and the reasoners' distances all use these, so the labels the generator writes,
 * the relations a graph predicts and the distances a program reads agree by construction.
 */
import * as z from "zod";
import type { Vec3 } from "./math/vec.js";

const Vec3Schema = z.tuple([z.number(), z.number(), z.number()]);

export const YawBoxSchema = z
  .object({
    centre: Vec3Schema.describe("box centre (m, world frame)"),
    extent: Vec3Schema.describe("full side lengths (m) along the box's own x (yaw direction), y and z"),
    yaw: z.number().describe("rotation about world Z (rad, counter-clockwise from +X)"),
  })
  .strict();
export type YawBox = { centre: Vec3; extent: Vec3; yaw: number };

export const boxBottom = (b: YawBox): number => b.centre[2] - b.extent[2] / 2;
export const boxTop = (b: YawBox): number => b.centre[2] + b.extent[2] / 2;

/** Footprint corners, counter-clockwise. */
export function footprint(b: YawBox, grow = 0): Array<[number, number]> {
  const c = Math.cos(b.yaw),
    s = Math.sin(b.yaw);
  const hx = b.extent[0] / 2 + grow,
    hy = b.extent[1] / 2 + grow;
  return (
    [
      [hx, hy],
      [-hx, hy],
      [-hx, -hy],
      [hx, -hy],
    ] as Array<[number, number]>
  ).map(([x, y]) => [b.centre[0] + c * x - s * y, b.centre[1] + s * x + c * y]);
}

/** Penetration depth of two convex polygons along their least-overlapping separating axis (<= 0: apart). */
function polygonOverlap(p: Array<[number, number]>, q: Array<[number, number]>): number {
  let minOverlap = Infinity;
  for (const poly of [p, q]) {
    for (let i = 0; i < poly.length; i++) {
      const a = poly[i]!,
        b = poly[(i + 1) % poly.length]!;
      const nx = -(b[1] - a[1]),
        ny = b[0] - a[0];
      const L = Math.hypot(nx, ny) || 1;
      let pMin = Infinity,
        pMax = -Infinity,
        qMin = Infinity,
        qMax = -Infinity;
      for (const v of p) {
        const d = (v[0] * nx + v[1] * ny) / L;
        pMin = Math.min(pMin, d);
        pMax = Math.max(pMax, d);
      }
      for (const v of q) {
        const d = (v[0] * nx + v[1] * ny) / L;
        qMin = Math.min(qMin, d);
        qMax = Math.max(qMax, d);
      }
      minOverlap = Math.min(minOverlap, Math.min(pMax, qMax) - Math.max(pMin, qMin));
    }
  }
  return minOverlap;
}

/** True when the two boxes interpenetrate by more than `tol` (m) in the footprint and in z. */
export function boxesIntersect(a: YawBox, b: YawBox, tol = 0.001): boolean {
  const zOverlap = Math.min(boxTop(a), boxTop(b)) - Math.max(boxBottom(a), boxBottom(b));
  if (zOverlap <= tol) return false;
  return polygonOverlap(footprint(a), footprint(b)) > tol;
}

/** True when the footprints (grown by `margin`) overlap, ignoring height. */
export function footprintsOverlap(a: YawBox, b: YawBox, margin = 0): boolean {
  return polygonOverlap(footprint(a, margin), footprint(b, margin)) > 0;
}

function segmentPointDistance(p: [number, number], a: [number, number], b: [number, number]): number {
  const dx = b[0] - a[0],
    dy = b[1] - a[1];
  const t = Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy || 1)));
  return Math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy);
}

/** Closest distance between two footprints (0 when they overlap). */
export function footprintDistance(a: YawBox, b: YawBox): number {
  const p = footprint(a),
    q = footprint(b);
  if (polygonOverlap(p, q) > 0) return 0;
  let d = Infinity;
  for (const [P, Q] of [
    [p, q],
    [q, p],
  ] as const)
    for (const v of P) for (let i = 0; i < Q.length; i++) d = Math.min(d, segmentPointDistance(v, Q[i]!, Q[(i + 1) % Q.length]!));
  return d;
}

/** Closest distance between two yaw boxes (prisms): footprint distance combined with the z gap. */
export function boxDistance(a: YawBox, b: YawBox): number {
  const dz = Math.max(0, Math.max(boxBottom(a), boxBottom(b)) - Math.min(boxTop(a), boxTop(b)));
  return Math.hypot(footprintDistance(a, b), dz);
}

/** Volume of a box (m^3). */
export const boxVolume = (b: YawBox): number => b.extent[0] * b.extent[1] * b.extent[2];

/** Point in footprint test. */
export function inFootprint(b: YawBox, x: number, y: number, margin = 0): boolean {
  const c = Math.cos(b.yaw),
    s = Math.sin(b.yaw);
  const dx = x - b.centre[0],
    dy = y - b.centre[1];
  return Math.abs(c * dx + s * dy) <= b.extent[0] / 2 - margin && Math.abs(-s * dx + c * dy) <= b.extent[1] / 2 - margin;
}

/** Distance (m) from a point to a box (0 inside). */
export function pointBoxDistance(p: Vec3, b: YawBox): number {
  const c = Math.cos(b.yaw),
    s = Math.sin(b.yaw);
  const dx = p[0] - b.centre[0],
    dy = p[1] - b.centre[1],
    dz = p[2] - b.centre[2];
  const lx = Math.abs(c * dx + s * dy) - b.extent[0] / 2,
    ly = Math.abs(-s * dx + c * dy) - b.extent[1] / 2,
    lz = Math.abs(dz) - b.extent[2] / 2;
  return Math.hypot(Math.max(0, lx), Math.max(0, ly), Math.max(0, lz));
}

// ---------------------------------------------------------------------------------------------------------------
// bounds

export interface Bounds {
  min: Vec3;
  max: Vec3;
}

/** Axis-aligned bounds of x,y,z triples (or of the points `indices` names); empty input gives min +Infinity, max -Infinity. */
export function boundsOf(xyz: ArrayLike<number>, indices?: ArrayLike<number>): Bounds {
  const min: Vec3 = [Infinity, Infinity, Infinity],
    max: Vec3 = [-Infinity, -Infinity, -Infinity];
  const n = indices ? indices.length : xyz.length / 3;
  for (let j = 0; j < n; j++) {
    const o = 3 * (indices ? indices[j]! : j);
    for (let a = 0; a < 3; a++) {
      const v = xyz[o + a]!;
      if (v < min[a]!) min[a] = v;
      if (v > max[a]!) max[a] = v;
    }
  }
  return { min, max };
}

// ---------------------------------------------------------------------------------------------------------------
// closest distance between point sets

/** The points of `p` inside the box [min - pad, max + pad]. */
function crop(p: Float32Array, box: Bounds, pad: number): Float32Array {
  const x0 = box.min[0] - pad,
    x1 = box.max[0] + pad,
    y0 = box.min[1] - pad,
    y1 = box.max[1] + pad,
    z0 = box.min[2] - pad,
    z1 = box.max[2] + pad;
  const inside = (i: number) => p[i]! >= x0 && p[i]! <= x1 && p[i + 1]! >= y0 && p[i + 1]! <= y1 && p[i + 2]! >= z0 && p[i + 2]! <= z1;
  // two passes (count, then copy) into a typed array instead of a growing number[]
  let n = 0;
  for (let i = 0; i < p.length; i += 3) if (inside(i)) n++;
  const out = new Float32Array(n * 3);
  for (let i = 0, k = 0; i < p.length; i += 3) if (inside(i)) (out[k++] = p[i]!), (out[k++] = p[i + 1]!), (out[k++] = p[i + 2]!);
  return out;
}

function strided(p: Float32Array, stride: number): Float32Array {
  const n = Math.ceil(p.length / 3 / stride);
  const out = new Float32Array(n * 3);
  for (let i = 0, k = 0; k < n; i += stride, k++) out.set(p.subarray(i * 3, i * 3 + 3), k * 3);
  return out;
}

/**
 * Exhaustive search over grid cells of size `cell` (>= the distance sought) around each point of `a`. The
 * cells of `b` live in a hash table of point lists (counting sort into one Int32Array): cells that share a
 * slot are scanned together, which only adds pairs farther than `cell`, so the minimum is the same.
 */
function gridMin(a: Float32Array, b: Float32Array, cell: number, best: number): number {
  const key = (ix: number, iy: number, iz: number) => (ix * 73856093) ^ (iy * 19349663) ^ (iz * 83492791);
  const nb = b.length / 3;
  let size = 1;
  while (size < 2 * nb) size *= 2;
  const mask = size - 1;
  const slotOf = new Int32Array(nb);
  const start = new Int32Array(size + 1);
  for (let p = 0, j = 0; p < nb; p++, j += 3) {
    const h = key(Math.floor(b[j]! / cell), Math.floor(b[j + 1]! / cell), Math.floor(b[j + 2]! / cell)) & mask;
    slotOf[p] = h;
    start[h + 1]!++;
  }
  for (let h = 0; h < size; h++) start[h + 1]! += start[h]!;
  const fill = start.slice(0, size);
  const points = new Int32Array(nb);
  for (let p = 0; p < nb; p++) points[fill[slotOf[p]!]!++] = 3 * p;
  let best2 = best * best;
  for (let i = 0; i < a.length; i += 3) {
    const x = a[i]!,
      y = a[i + 1]!,
      z = a[i + 2]!;
    const cx = Math.floor(x / cell),
      cy = Math.floor(y / cell),
      cz = Math.floor(z / cell);
    for (let dx = -1; dx <= 1; dx++)
      for (let dy = -1; dy <= 1; dy++)
        for (let dz = -1; dz <= 1; dz++) {
          const h = key(cx + dx, cy + dy, cz + dz) & mask;
          for (let q = start[h]!, end = start[h + 1]!; q < end; q++) {
            const j = points[q]!;
            const ex = b[j]! - x,
              ey = b[j + 1]! - y,
              ez = b[j + 2]! - z;
            const d2 = ex * ex + ey * ey + ez * ez;
            if (d2 < best2) best2 = d2;
          }
        }
  }
  return Math.sqrt(best2);
}

/**
 * Smallest distance between two point sets (m), or `cutoff` when every pair is farther apart.
 * A strided subset first gives an upper bound; the exact search then only looks that far.
 */
export function minPointDistance(a0: Float32Array, b0: Float32Array, cutoff: number): number {
  let a = crop(a0, boundsOf(b0), cutoff),
    b = crop(b0, boundsOf(a0), cutoff);
  if (a.length === 0 || b.length === 0) return cutoff;
  const stride = Math.max(1, Math.floor(Math.sqrt(Math.min(a.length, b.length) / 3) / 4));
  let bound = stride > 1 ? gridMin(strided(a, stride), strided(b, stride), cutoff, cutoff) : cutoff;
  bound = Math.min(cutoff, bound * 1.0001 + 1e-6);
  a = crop(a, boundsOf(b), bound);
  b = crop(b, boundsOf(a), bound);
  if (a.length === 0 || b.length === 0) return bound >= cutoff ? cutoff : bound;
  return gridMin(a, b, Math.max(bound, 0.002), bound);
}

/**
 * Whether the sightline from an eye to a point on a box's inner floor passes over the box's near wall, which stands
 * `minHalfWidth` (the box's smaller half-width) short of the point on the floor plan and `rim` high: whether a view
 * from there can see into the open box.
 */
export function sightClearsRim(eye: readonly number[], floor: readonly number[], minHalfWidth: number, rim: number): boolean {
  const run = Math.hypot(floor[0]! - eye[0]!, floor[1]! - eye[1]!);
  const wall = run - minHalfWidth;
  return wall <= 0 || eye[2]! + ((floor[2]! - eye[2]!) * wall) / run > rim;
}
