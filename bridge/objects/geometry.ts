/** Geometry of placed objects for the generator: yaw boxes, footprint tests, surface gaps. */
import type { Vec3 } from "../../src/core/math/vec.js";
import { quatToMat } from "../../src/core/math/quat.js";
import type { TaskObject } from "../task/schema.js";
import { objectWorldTriangles } from "./shape.js";

export interface YawBox {
  centre: Vec3;
  /** Half sizes along the box's own x, y and z axes. */
  half: Vec3;
  yaw: number;
}

export function objectBox(o: Pick<TaskObject, "position" | "orientation" | "extent">): YawBox {
  const R = quatToMat(o.orientation);
  return { centre: [...o.position] as Vec3, half: [o.extent[0] / 2, o.extent[1] / 2, o.extent[2] / 2], yaw: Math.atan2(R[1][0], R[0][0]) };
}

export const boxBottom = (b: YawBox): number => b.centre[2] - b.half[2];
export const boxTop = (b: YawBox): number => b.centre[2] + b.half[2];

/** Footprint corners, counter-clockwise. */
export function footprint(b: YawBox, grow = 0): Array<[number, number]> {
  const c = Math.cos(b.yaw), s = Math.sin(b.yaw);
  const hx = b.half[0] + grow, hy = b.half[1] + grow;
  return ([[hx, hy], [-hx, hy], [-hx, -hy], [hx, -hy]] as Array<[number, number]>).map(([x, y]) => [b.centre[0] + c * x - s * y, b.centre[1] + s * x + c * y]);
}

/** Penetration depth of two convex polygons along their least-overlapping separating axis (<= 0: apart). */
function polygonOverlap(p: Array<[number, number]>, q: Array<[number, number]>): number {
  let minOverlap = Infinity;
  for (const poly of [p, q]) {
    for (let i = 0; i < poly.length; i++) {
      const a = poly[i]!, b = poly[(i + 1) % poly.length]!;
      const nx = -(b[1] - a[1]), ny = b[0] - a[0];
      const L = Math.hypot(nx, ny) || 1;
      let pMin = Infinity, pMax = -Infinity, qMin = Infinity, qMax = -Infinity;
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
  const dx = b[0] - a[0], dy = b[1] - a[1];
  const t = Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy || 1)));
  return Math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy);
}

/** Closest distance between two footprints (0 when they overlap). */
export function footprintDistance(a: YawBox, b: YawBox): number {
  const p = footprint(a), q = footprint(b);
  if (polygonOverlap(p, q) > 0) return 0;
  let d = Infinity;
  for (const [P, Q] of [[p, q], [q, p]] as const)
    for (const v of P) for (let i = 0; i < Q.length; i++) d = Math.min(d, segmentPointDistance(v, Q[i]!, Q[(i + 1) % Q.length]!));
  return d;
}

/** Closest distance between two yaw boxes (prisms): footprint distance combined with the z gap. */
export function boxDistance(a: YawBox, b: YawBox): number {
  const dz = Math.max(0, Math.max(boxBottom(a), boxBottom(b)) - Math.min(boxTop(a), boxTop(b)));
  return Math.hypot(footprintDistance(a, b), dz);
}

/** Volume of an object's box (m^3). */
export const boxVolume = (b: YawBox): number => 8 * b.half[0] * b.half[1] * b.half[2];

/** Point in footprint test. */
export function inFootprint(b: YawBox, x: number, y: number, margin = 0): boolean {
  const c = Math.cos(b.yaw), s = Math.sin(b.yaw);
  const dx = x - b.centre[0], dy = y - b.centre[1];
  return Math.abs(c * dx + s * dy) <= b.half[0] - margin && Math.abs(-s * dx + c * dy) <= b.half[1] - margin;
}

/** Points on a triangle soup's surface, about `spacingM` apart (deterministic barycentric grid per triangle). */
export function sampleTriangles(t: ArrayLike<number>, spacingM: number): Float32Array {
  const pts: number[] = [];
  for (let i = 0; i < t.length; i += 9) {
    const a: Vec3 = [t[i]!, t[i + 1]!, t[i + 2]!], b: Vec3 = [t[i + 3]!, t[i + 4]!, t[i + 5]!], c: Vec3 = [t[i + 6]!, t[i + 7]!, t[i + 8]!];
    const longest = Math.max(Math.hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]), Math.hypot(c[0] - a[0], c[1] - a[1], c[2] - a[2]), Math.hypot(c[0] - b[0], c[1] - b[1], c[2] - b[2]));
    const n = Math.max(1, Math.ceil(longest / spacingM));
    for (let u = 0; u <= n; u++)
      for (let v = 0; v + u <= n; v++) {
        const w = n - u - v;
        pts.push((a[0] * w + b[0] * u + c[0] * v) / n, (a[1] * w + b[1] * u + c[1] * v) / n, (a[2] * w + b[2] * u + c[2] * v) / n);
      }
  }
  return Float32Array.from(pts);
}

const localSampleCache = new Map<string, Float32Array>();

/** Surface samples of an object, placed in the world (samples are cached per model, scale and spacing). */
export function surfaceSamples(o: TaskObject, spacingM: number): Float32Array {
  const key = `${o.model}|${JSON.stringify(o.scale)}|${spacingM}`;
  let local = localSampleCache.get(key);
  if (!local) {
    local = sampleTriangles(objectWorldTriangles({ ...o, position: [0, 0, 0], orientation: { x: 0, y: 0, z: 0, w: 1 } }), spacingM);
    localSampleCache.set(key, local);
  }
  const R = quatToMat(o.orientation);
  const [px, py, pz] = o.position;
  const out = new Float32Array(local.length);
  for (let i = 0; i < local.length; i += 3) {
    const x = local[i]!, y = local[i + 1]!, z = local[i + 2]!;
    out[i] = R[0][0] * x + R[0][1] * y + R[0][2] * z + px;
    out[i + 1] = R[1][0] * x + R[1][1] * y + R[1][2] * z + py;
    out[i + 2] = R[2][0] * x + R[2][1] * y + R[2][2] * z + pz;
  }
  return out;
}

function bounds(p: Float32Array): { min: Vec3; max: Vec3 } {
  const min: Vec3 = [Infinity, Infinity, Infinity], max: Vec3 = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < p.length; i += 3)
    for (let k = 0; k < 3; k++) {
      const v = p[i + k]!;
      if (v < min[k]!) min[k] = v;
      if (v > max[k]!) max[k] = v;
    }
  return { min, max };
}

/** The points of `p` inside the box [min - pad, max + pad]. */
function crop(p: Float32Array, box: { min: Vec3; max: Vec3 }, pad: number): Float32Array {
  const out: number[] = [];
  for (let i = 0; i < p.length; i += 3) {
    const x = p[i]!, y = p[i + 1]!, z = p[i + 2]!;
    if (x >= box.min[0] - pad && x <= box.max[0] + pad && y >= box.min[1] - pad && y <= box.max[1] + pad && z >= box.min[2] - pad && z <= box.max[2] + pad) out.push(x, y, z);
  }
  return Float32Array.from(out);
}

function strided(p: Float32Array, stride: number): Float32Array {
  const n = Math.ceil(p.length / 3 / stride);
  const out = new Float32Array(n * 3);
  for (let i = 0, k = 0; k < n; i += stride, k++) out.set(p.subarray(i * 3, i * 3 + 3), k * 3);
  return out;
}

/** Exhaustive search over grid cells of size `cell` (>= the distance sought) around each point of `a`. */
function gridMin(a: Float32Array, b: Float32Array, cell: number, best: number): number {
  const key = (ix: number, iy: number, iz: number) => (ix * 73856093) ^ (iy * 19349663) ^ (iz * 83492791);
  const grid = new Map<number, number[]>();
  for (let j = 0; j < b.length; j += 3) {
    const k = key(Math.floor(b[j]! / cell), Math.floor(b[j + 1]! / cell), Math.floor(b[j + 2]! / cell));
    let list = grid.get(k);
    if (!list) grid.set(k, (list = []));
    list.push(j);
  }
  let best2 = best * best;
  for (let i = 0; i < a.length; i += 3) {
    const x = a[i]!, y = a[i + 1]!, z = a[i + 2]!;
    const cx = Math.floor(x / cell), cy = Math.floor(y / cell), cz = Math.floor(z / cell);
    for (let dx = -1; dx <= 1; dx++)
      for (let dy = -1; dy <= 1; dy++)
        for (let dz = -1; dz <= 1; dz++) {
          const list = grid.get(key(cx + dx, cy + dy, cz + dz));
          if (!list) continue;
          for (const j of list) {
            const ex = b[j]! - x, ey = b[j + 1]! - y, ez = b[j + 2]! - z;
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
  let a = crop(a0, bounds(b0), cutoff), b = crop(b0, bounds(a0), cutoff);
  if (a.length === 0 || b.length === 0) return cutoff;
  const stride = Math.max(1, Math.floor(Math.sqrt(Math.min(a.length, b.length) / 3) / 4));
  let bound = stride > 1 ? gridMin(strided(a, stride), strided(b, stride), cutoff, cutoff) : cutoff;
  bound = Math.min(cutoff, bound * 1.0001 + 1e-6);
  a = crop(a, bounds(b), bound);
  b = crop(b, bounds(a), bound);
  if (a.length === 0 || b.length === 0) return bound >= cutoff ? cutoff : bound;
  return gridMin(a, b, Math.max(bound, 0.002), bound);
}

/** Sampling spacing for surface gaps (m): fine enough for the 2 mm contact tolerance of the generator. */
export const SURFACE_SAMPLE_SPACING_M = 0.0025;

/** Surface gap between two objects (m), capped at `cutoff`. */
export function surfaceGap(a: TaskObject, b: TaskObject, cutoff = 0.25): number {
  return minPointDistance(surfaceSamples(a, SURFACE_SAMPLE_SPACING_M), surfaceSamples(b, SURFACE_SAMPLE_SPACING_M), cutoff);
}
