/**
 * 2D convex hull (Andrew's monotone chain) and minimum-area enclosing rectangle (rotating calipers,
 * after Freeman & Shapira / Toussaint: the optimal rectangle has a side on a hull edge).
 * Coordinates are a Float64Array of x, y pairs; callers centre them first for conditioning.
 */

/**
 * Indices of the convex hull vertices, counter-clockwise, starting at the lowest-x (then lowest-y)
 * point; collinear points on edges are dropped. 0, 1 or 2 indices for degenerate input.
 * Akl-Toussaint prefilter: points strictly inside the octagon of extreme points cannot be on the hull.
 */
export function convexHull2d(xy: Float64Array, count = xy.length / 2): Int32Array {
  const n = count;
  if (n === 0) return new Int32Array(0);
  // extreme points along x, y, x+y, x-y
  let iMinX = 0,
    iMaxX = 0,
    iMinY = 0,
    iMaxY = 0,
    iMinS = 0,
    iMaxS = 0,
    iMinD = 0,
    iMaxD = 0;
  for (let i = 1; i < n; i++) {
    const x = xy[2 * i]!,
      y = xy[2 * i + 1]!;
    if (x < xy[2 * iMinX]! || (x === xy[2 * iMinX]! && y < xy[2 * iMinX + 1]!)) iMinX = i;
    if (x > xy[2 * iMaxX]!) iMaxX = i;
    if (y < xy[2 * iMinY + 1]!) iMinY = i;
    if (y > xy[2 * iMaxY + 1]!) iMaxY = i;
    if (x + y < xy[2 * iMinS]! + xy[2 * iMinS + 1]!) iMinS = i;
    if (x + y > xy[2 * iMaxS]! + xy[2 * iMaxS + 1]!) iMaxS = i;
    if (x - y < xy[2 * iMinD]! - xy[2 * iMinD + 1]!) iMinD = i;
    if (x - y > xy[2 * iMaxD]! - xy[2 * iMaxD + 1]!) iMaxD = i;
  }
  // octagon, counter-clockwise: minX, minS, minY, maxD, maxX, maxS, maxY, minD
  const oct = [iMinX, iMinS, iMinY, iMaxD, iMaxX, iMaxS, iMaxY, iMinD];
  const candidates: number[] = [];
  // a degenerate octagon (all extremes collinear) filters nothing
  let octArea = 0;
  for (let e = 0; e < 8; e++) {
    const a = oct[e]!,
      b = oct[(e + 1) & 7]!;
    octArea += xy[2 * a]! * xy[2 * b + 1]! - xy[2 * b]! * xy[2 * a + 1]!;
  }
  const filter = octArea > 0;
  for (let i = 0; i < n; i++) {
    if (!filter) {
      candidates.push(i);
      continue;
    }
    const x = xy[2 * i]!,
      y = xy[2 * i + 1]!;
    let inside = true;
    for (let e = 0; e < 8; e++) {
      const a = oct[e]!,
        b = oct[(e + 1) & 7]!;
      if (a === b) continue;
      const ax = xy[2 * a]!,
        ay = xy[2 * a + 1]!;
      const cross = (xy[2 * b]! - ax) * (y - ay) - (xy[2 * b + 1]! - ay) * (x - ax);
      if (cross <= 0) {
        inside = false; // on or right of an octagon edge: may be on the hull
        break;
      }
    }
    if (!inside) candidates.push(i);
  }
  candidates.sort((a, b) => xy[2 * a]! - xy[2 * b]! || xy[2 * a + 1]! - xy[2 * b + 1]! || a - b);
  // drop exact duplicates
  const pts: number[] = [];
  for (const i of candidates) {
    const last = pts[pts.length - 1];
    if (last !== undefined && xy[2 * last] === xy[2 * i] && xy[2 * last + 1] === xy[2 * i + 1]) continue;
    pts.push(i);
  }
  if (pts.length <= 2) return Int32Array.from(pts);
  const cross = (o: number, a: number, b: number) =>
    (xy[2 * a]! - xy[2 * o]!) * (xy[2 * b + 1]! - xy[2 * o + 1]!) - (xy[2 * a + 1]! - xy[2 * o + 1]!) * (xy[2 * b]! - xy[2 * o]!);
  const hull: number[] = [];
  for (const p of pts) {
    while (hull.length >= 2 && cross(hull[hull.length - 2]!, hull[hull.length - 1]!, p) <= 0) hull.pop();
    hull.push(p);
  }
  const lower = hull.length + 1;
  for (let j = pts.length - 2; j >= 0; j--) {
    const p = pts[j]!;
    while (hull.length >= lower && cross(hull[hull.length - 2]!, hull[hull.length - 1]!, p) <= 0) hull.pop();
    hull.push(p);
  }
  hull.pop(); // the first point again
  if (hull.length === 2 && xy[2 * hull[0]!] === xy[2 * hull[1]!] && xy[2 * hull[0]! + 1] === xy[2 * hull[1]! + 1]) hull.pop();
  return Int32Array.from(hull);
}

export interface Rect2d {
  /** Centre. */
  cx: number;
  cy: number;
  /** Direction of the first side, radians (atan2 of the hull edge it lies on). */
  angle: number;
  /** Side length along `angle`. */
  length: number;
  /** Side length perpendicular to `angle`. */
  width: number;
  area: number;
}

/**
 * Minimum-area rectangle enclosing the hull polygon (vertices counter-clockwise, as convexHull2d
 * returns them), by rotating calipers: for each hull edge the extreme vertices along the edge and
 * along its inward normal advance monotonically, so the whole sweep is O(h). Ties keep the first edge.
 */
export function minAreaRect(xy: Float64Array, hull: Int32Array): Rect2d {
  const h = hull.length;
  if (h === 0) throw new RangeError("minAreaRect: empty hull");
  const px = new Float64Array(h),
    py = new Float64Array(h);
  for (let j = 0; j < h; j++) {
    px[j] = xy[2 * hull[j]!]!;
    py[j] = xy[2 * hull[j]! + 1]!;
  }
  if (h === 1) return { cx: px[0]!, cy: py[0]!, angle: 0, length: 0, width: 0, area: 0 };
  if (h === 2) {
    const dx = px[1]! - px[0]!,
      dy = py[1]! - py[0]!;
    return { cx: (px[0]! + px[1]!) / 2, cy: (py[0]! + py[1]!) / 2, angle: Math.atan2(dy, dx), length: Math.hypot(dx, dy), width: 0, area: 0 };
  }
  const at = (j: number) => j % h;
  let best: Rect2d | null = null;
  // caliper indices (unbounded counters; positions are taken mod h)
  let jU = 1,
    jV = 1,
    jL = 1;
  for (let i = 0; i < h; i++) {
    const ax = px[i]!,
      ay = py[i]!;
    let ux = px[at(i + 1)]! - ax,
      uy = py[at(i + 1)]! - ay;
    const len = Math.hypot(ux, uy);
    if (len === 0) continue;
    ux /= len;
    uy /= len;
    const vx = -uy,
      vy = ux; // inward normal (hull is counter-clockwise)
    const dotU = (j: number) => (px[at(j)]! - ax) * ux + (py[at(j)]! - ay) * uy;
    const dotV = (j: number) => (px[at(j)]! - ax) * vx + (py[at(j)]! - ay) * vy;
    if (jU < i + 1) jU = i + 1;
    while (jU < i + h && dotU(jU + 1) >= dotU(jU)) jU++;
    if (jV < jU) jV = jU;
    while (jV < i + h && dotV(jV + 1) >= dotV(jV)) jV++;
    if (jL < jV) jL = jV;
    while (jL < i + h && dotU(jL + 1) <= dotU(jL)) jL++;
    const maxU = dotU(jU),
      minU = Math.min(0, dotU(jL)),
      maxV = dotV(jV);
    const length = maxU - minU,
      width = maxV,
      area = length * width;
    if (best === null || area < best.area * (1 - 1e-12)) {
      const mu = (maxU + minU) / 2,
        mv = maxV / 2;
      best = { cx: ax + ux * mu + vx * mv, cy: ay + uy * mu + vy * mv, angle: Math.atan2(uy, ux), length, width, area };
    }
  }
  return best!;
}
