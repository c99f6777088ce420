/**
 * Boxes of point subsets: axis-aligned boxes and gravity-aligned (yaw-only) oriented boxes, their
 * 3D IoU and footprint intersection-over-minimum. World frame: Z up, metres, radians.
 *
 * Yaw box: minimum-area rectangle of the XY convex hull (rotating calipers) times the z range.
 *  - yaw is normalised to [0, pi/2): every rectangle has exactly one such description;
 *  - extent[0] is the full side length along (cos yaw, sin yaw), extent[1] along (-sin yaw, cos yaw),
 *    extent[2] the z range. Full sizes, like Open3D's OBB `extent` (not half sizes).
 * Rationale: 3D PCA boxes of partial, noisy clouds tilt, and tilted extents
 * confuse the reader; a gravity-aligned box keeps "height" meaning height.
 */
import { boundsOf, type Bounds, type YawBox } from "../../core/geometry.js";
import { pointCount } from "./bounds.js";

export type { YawBox };
import { convexHull2d, minAreaRect } from "./hull2d.js";

/** An axis-aligned box is a point set's bounds (core/geometry.ts). */
export type Aabb = Bounds;

const HALF_PI = Math.PI / 2;

/** Indices of the subset: all points when omitted. */
function subsetSize(xyz: Float32Array, indices?: ArrayLike<number>): number {
  const n = pointCount(xyz);
  const m = indices ? indices.length : n;
  if (m === 0) throw new RangeError("box of an empty point set");
  if (indices) {
    for (let j = 0; j < m; j++) {
      const i = indices[j]!;
      if (!(i >= 0 && i < n && Number.isInteger(i))) throw new RangeError(`indices[${j}] = ${i} is not a point index (cloud has ${n} points)`);
    }
  }
  return m;
}

/** Axis-aligned box of the points (or of the subset `indices`). */
export function aabb(xyz: Float32Array, indices?: ArrayLike<number>): Aabb {
  subsetSize(xyz, indices);
  return boundsOf(xyz, indices);
}

/** Gravity-aligned minimum-footprint box of the points (or of the subset `indices`). */
export function yawBox(xyz: Float32Array, indices?: ArrayLike<number>): YawBox {
  const m = subsetSize(xyz, indices);
  // centre the XY coordinates (double) for a well-conditioned hull
  let mx = 0,
    my = 0,
    zMin = Infinity,
    zMax = -Infinity;
  for (let j = 0; j < m; j++) {
    const o = 3 * (indices ? indices[j]! : j);
    mx += xyz[o]!;
    my += xyz[o + 1]!;
    const z = xyz[o + 2]!;
    if (z < zMin) zMin = z;
    if (z > zMax) zMax = z;
  }
  mx /= m;
  my /= m;
  const xy = new Float64Array(2 * m);
  for (let j = 0; j < m; j++) {
    const o = 3 * (indices ? indices[j]! : j);
    xy[2 * j] = xyz[o]! - mx;
    xy[2 * j + 1] = xyz[o + 1]! - my;
  }
  const r = minAreaRect(xy, convexHull2d(xy, m));
  const { yaw, along, across } = normaliseYaw(r.angle, r.length, r.width);
  const ez = zMax - zMin;
  return { centre: [r.cx + mx, r.cy + my, (zMin + zMax) / 2], extent: [along, across, ez], yaw };
}

/** Maps a rectangle (angle, side along it, side across it) to the yaw in [0, pi/2) describing it. */
function normaliseYaw(angle: number, along: number, across: number): { yaw: number; along: number; across: number } {
  let k = Math.floor(angle / HALF_PI);
  let yaw = angle - k * HALF_PI;
  if (yaw >= HALF_PI) {
    yaw -= HALF_PI;
    k++;
  }
  if (yaw < 0) {
    yaw += HALF_PI;
    k--;
  }
  if (yaw === 0) yaw = 0; // -0 -> 0
  return (k & 1) === 0 ? { yaw, along, across } : { yaw, along: across, across: along };
}

/** The footprint's 4 corners, counter-clockwise, as x0,y0, x1,y1, ... */
function yawBoxCorners(b: YawBox): Float64Array {
  const c = Math.cos(b.yaw),
    s = Math.sin(b.yaw);
  const hx = b.extent[0] / 2,
    hy = b.extent[1] / 2;
  const out = new Float64Array(8);
  const sx = [-1, 1, 1, -1],
    sy = [-1, -1, 1, 1];
  for (let k = 0; k < 4; k++) {
    const lx = sx[k]! * hx,
      ly = sy[k]! * hy;
    out[2 * k] = b.centre[0] + c * lx - s * ly;
    out[2 * k + 1] = b.centre[1] + s * lx + c * ly;
  }
  return out;
}

/** Area of a simple polygon (x,y pairs), positive when counter-clockwise. */
function polygonArea(poly: Float64Array, count = poly.length / 2): number {
  let a = 0;
  for (let i = 0, j = count - 1; i < count; j = i++) a += poly[2 * j]! * poly[2 * i + 1]! - poly[2 * i]! * poly[2 * j + 1]!;
  return a / 2;
}

/**
 * Intersection of two convex polygons given counter-clockwise (Sutherland-Hodgman: clip `subject` by
 * each edge of `clip`). Returns the intersection polygon (possibly empty).
 */
function clipConvex(subject: Float64Array, clip: Float64Array): Float64Array {
  let cur = Array.from(subject);
  const nc = clip.length / 2;
  for (let e = 0; e < nc && cur.length > 0; e++) {
    const ax = clip[2 * e]!,
      ay = clip[2 * e + 1]!;
    const bx = clip[2 * ((e + 1) % nc)]!,
      by = clip[2 * ((e + 1) % nc) + 1]!;
    const side = (x: number, y: number) => (bx - ax) * (y - ay) - (by - ay) * (x - ax); // > 0: left, inside
    const next: number[] = [];
    const m = cur.length / 2;
    for (let i = 0; i < m; i++) {
      const px = cur[2 * i]!,
        py = cur[2 * i + 1]!;
      const qx = cur[2 * ((i + 1) % m)]!,
        qy = cur[2 * ((i + 1) % m) + 1]!;
      const sp = side(px, py),
        sq = side(qx, qy);
      if (sp >= 0) next.push(px, py);
      if (sp >= 0 !== sq >= 0) {
        const t = sp / (sp - sq);
        next.push(px + t * (qx - px), py + t * (qy - py));
      }
    }
    cur = next;
  }
  return Float64Array.from(cur);
}

/** Area of the intersection of two boxes' footprints (m^2). */
export function footprintIntersectionArea(a: YawBox, b: YawBox): number {
  if (!(a.extent[0] > 0 && a.extent[1] > 0 && b.extent[0] > 0 && b.extent[1] > 0)) return 0;
  // quick reject on the circumscribed circles
  const ra = Math.hypot(a.extent[0], a.extent[1]) / 2,
    rb = Math.hypot(b.extent[0], b.extent[1]) / 2;
  if (Math.hypot(a.centre[0] - b.centre[0], a.centre[1] - b.centre[1]) >= ra + rb) return 0;
  const poly = clipConvex(yawBoxCorners(a), yawBoxCorners(b));
  return poly.length >= 6 ? Math.max(0, polygonArea(poly)) : 0;
}

/** Overlap of two boxes' z ranges (m). */
export function zOverlap(a: YawBox, b: YawBox): number {
  const lo = Math.max(a.centre[2] - a.extent[2] / 2, b.centre[2] - b.extent[2] / 2);
  const hi = Math.min(a.centre[2] + a.extent[2] / 2, b.centre[2] + b.extent[2] / 2);
  return Math.max(0, hi - lo);
}
