/**
 * Structure separation: which points are floor, which are walls, which are objects. Z up, metres.
 *
 * Floor: the lowest dominant horizontal layer of a z histogram (a bin holding at least
 * FLOOR_PEAK_FRACTION of the fullest bin and FLOOR_MIN_FRACTION of all points), refined by an
 * iterated least-squares plane fit z = a*x + b*y + c over the points within FLOOR_TOLERANCE_M.
 *
 * Walls: large vertical planes that bound the cloud. For each horizontal direction (WALL_ANGLE_STEP_DEG
 * steps over 180 deg) the non-floor points are projected on it; a wall perpendicular to the direction
 * is a dense slab at one end of the projection with (nearly) nothing beyond it. The best slab over all
 * directions is refined by a 2D line fit (PCA of its points' XY) and accepted only if it is tall
 * (WALL_MIN_HEIGHT_M), long (WALL_MIN_LENGTH_M), dense (WALL_MIN_FRACTION) and has at most
 * WALL_MAX_OUTSIDE_FRACTION of the points beyond it; its points are removed and the search repeats.
 * Deterministic: the searches run on an evenly strided sample, no randomness.
 */
import { computeBounds, pointCount } from "./bounds.js";

/** The per-point codes of the structure mask (scenegraph/regionGrid.ts reads them). */
export const STRUCTURE_OBJECT = 0;
export const STRUCTURE_FLOOR = 1;
export const STRUCTURE_WALL = 2;

/** Floor inlier band: |distance to the floor plane| <= 3 cm. 3DSSG/VLA-3D call an object "on the floor" when z_min is within 5 cm; GT depth noise is ~2 mm, aligned VGGT ~1-2 cm. */
const FLOOR_TOLERANCE_M = 0.03;
/** z histogram bin (m) for the floor search: finer than the tolerance, coarser than sensor noise. */
const FLOOR_HISTOGRAM_BIN_M = 0.02;
/** A horizontal layer is "dominant" when its bin holds >= 30 % of the fullest bin ... */
const FLOOR_PEAK_FRACTION = 0.3;
/** ... and >= 2 % of all points (so a few stray points below the floor never count). */
const FLOOR_MIN_FRACTION = 0.02;
/** Largest accepted floor tilt from horizontal (deg); beyond it the fit is rejected as not a floor. */
const FLOOR_MAX_TILT_DEG = 10;
/** Wall inlier band: |distance to the wall plane| <= 5 cm (walls are large and often slightly curved in reconstructions). */
const WALL_TOLERANCE_M = 0.05;
/** A wall spans at least 1.0 m vertically (ESI/OmniGibson rooms are 2.5-3 m; furniture sides are lower). */
const WALL_MIN_HEIGHT_M = 1.0;
/** ... and at least 1.0 m horizontally. */
const WALL_MIN_LENGTH_M = 1.0;
/** ... holds at least 2 % of the non-floor points. */
const WALL_MIN_FRACTION = 0.02;
/** At most 2 % of the non-floor points may lie beyond a wall (outliers, windows, doorways). */
const WALL_MAX_OUTSIDE_FRACTION = 0.02;
/** The wall search stops after this many candidates in a row fail the wall tests. */
const WALL_MAX_CONSECUTIVE_REJECTS = 3;
/** Direction search step (deg); the line fit then refines the angle. */
const WALL_ANGLE_STEP_DEG = 1;
/** At most this many walls are extracted (a rectangular room has 4). */
const MAX_WALLS = 8;
/** Points used by the plane searches (evenly strided sample); labelling then uses every point. */
const STRUCTURE_SAMPLE_POINTS = 30_000;

export interface StructureOptions {
  floorToleranceM?: number;
  wallToleranceM?: number;
  wallMinHeightM?: number;
  wallMinLengthM?: number;
  /** Skip the wall search (floor only). */
  walls?: boolean;
}

interface FloorPlane {
  /** z = a*x + b*y + c */
  a: number;
  b: number;
  c: number;
  /** Floor points found. */
  count: number;
}

interface WallPlane {
  /** Unit horizontal normal (nx, ny), pointing into the room (towards most points). */
  normal: [number, number];
  /** The plane is nx*x + ny*y = offset. */
  offset: number;
  count: number;
  zMin: number;
  zMax: number;
  lengthM: number;
}

interface StructureResult {
  /** Per point: 0 object, 1 floor, 2 wall. */
  mask: Uint8Array;
  floor: FloorPlane | null;
  walls: WallPlane[];
}

/** Per-point structure mask (0 object, 1 floor, 2 wall) and the floor and wall planes found. */
export function segmentStructure(xyz: Float32Array, opts: StructureOptions = {}): StructureResult {
  const n = pointCount(xyz);
  const mask = new Uint8Array(n);
  if (n === 0) return { mask, floor: null, walls: [] };
  const floorTol = opts.floorToleranceM ?? FLOOR_TOLERANCE_M;
  const floor = findFloor(xyz, floorTol);
  if (floor) {
    const norm = Math.sqrt(1 + floor.a * floor.a + floor.b * floor.b);
    let count = 0;
    for (let i = 0; i < n; i++) {
      const d = (xyz[3 * i + 2]! - (floor.a * xyz[3 * i]! + floor.b * xyz[3 * i + 1]! + floor.c)) / norm;
      if (Math.abs(d) <= floorTol) {
        mask[i] = STRUCTURE_FLOOR;
        count++;
      }
    }
    floor.count = count;
  }
  const walls = opts.walls === false ? [] : findWalls(xyz, mask, floor, opts);
  return { mask, floor, walls };
}

/** Sample stride so that about STRUCTURE_SAMPLE_POINTS points are used. */
function strideFor(n: number): number {
  return Math.max(1, Math.floor(n / STRUCTURE_SAMPLE_POINTS));
}

function findFloor(xyz: Float32Array, tol: number): FloorPlane | null {
  const n = xyz.length / 3;
  const stride = strideFor(n);
  const m = Math.ceil(n / stride);
  // robust z range: 0.1 / 99.9 percentiles of the sample (a few far strays must not stretch the histogram)
  const zs = new Float64Array(m);
  for (let j = 0; j < m; j++) zs[j] = xyz[3 * j * stride + 2]!;
  zs.sort();
  const zLo = zs[Math.floor(0.001 * (m - 1))]!,
    zHi = zs[Math.ceil(0.999 * (m - 1))]!;
  const bin = FLOOR_HISTOGRAM_BIN_M;
  const nb = Math.max(1, Math.min(200_000, Math.floor((zHi - zLo) / bin) + 1));
  const hist = new Int32Array(nb);
  for (let j = 0; j < m; j++) {
    const b = Math.floor((zs[j]! - zLo) / bin);
    if (b >= 0 && b < nb) hist[b]!++;
  }
  let maxCount = 0;
  for (let b = 0; b < nb; b++) if (hist[b]! > maxCount) maxCount = hist[b]!;
  let peak = -1;
  for (let b = 0; b < nb; b++) {
    const c = hist[b]!;
    if (c < FLOOR_PEAK_FRACTION * maxCount || c < FLOOR_MIN_FRACTION * m) continue;
    // local maximum of a layer spread over neighbouring bins: take the fullest bin of the run
    let e = b;
    while (e + 1 < nb && hist[e + 1]! >= FLOOR_PEAK_FRACTION * maxCount) e++;
    peak = b;
    for (let t = b; t <= e; t++) if (hist[t]! > hist[peak]!) peak = t;
    break;
  }
  if (peak < 0) return null;
  // iterated least-squares plane over the band around the peak, then around the fit
  let a = 0,
    bb = 0,
    c = zLo + (peak + 0.5) * bin;
  let band = tol + bin;
  for (let iter = 0; iter < 4; iter++) {
    let sx = 0,
      sy = 0,
      sz = 0,
      cnt = 0;
    const norm = Math.sqrt(1 + a * a + bb * bb);
    for (let i = 0; i < n; i += stride) {
      const x = xyz[3 * i]!,
        y = xyz[3 * i + 1]!,
        z = xyz[3 * i + 2]!;
      if (Math.abs(z - (a * x + bb * y + c)) / norm > band) continue;
      sx += x;
      sy += y;
      sz += z;
      cnt++;
    }
    if (cnt < 3) return null;
    const mx = sx / cnt,
      my = sy / cnt,
      mz = sz / cnt;
    let sxx = 0,
      sxy = 0,
      syy = 0,
      sxz = 0,
      syz = 0;
    for (let i = 0; i < n; i += stride) {
      const x = xyz[3 * i]!,
        y = xyz[3 * i + 1]!,
        z = xyz[3 * i + 2]!;
      if (Math.abs(z - (a * x + bb * y + c)) / norm > band) continue;
      const dx = x - mx,
        dy = y - my,
        dz = z - mz;
      sxx += dx * dx;
      sxy += dx * dy;
      syy += dy * dy;
      sxz += dx * dz;
      syz += dy * dz;
    }
    const det = sxx * syy - sxy * sxy;
    if (Math.abs(det) > 1e-12 * (sxx * syy + 1e-30)) {
      a = (sxz * syy - syz * sxy) / det;
      bb = (syz * sxx - sxz * sxy) / det;
    } else {
      a = 0;
      bb = 0;
    }
    c = mz - a * mx - bb * my;
    band = tol;
  }
  const tilt = Math.atan(Math.hypot(a, bb)) * (180 / Math.PI);
  if (tilt > FLOOR_MAX_TILT_DEG) return null;
  return { a, b: bb, c, count: 0 };
}

function findWalls(xyz: Float32Array, mask: Uint8Array, floor: FloorPlane | null, opts: StructureOptions): WallPlane[] {
  const n = xyz.length / 3;
  const tol = opts.wallToleranceM ?? WALL_TOLERANCE_M;
  const minHeight = opts.wallMinHeightM ?? WALL_MIN_HEIGHT_M;
  const minLength = opts.wallMinLengthM ?? WALL_MIN_LENGTH_M;
  // candidates: non-floor points (all of them above the floor band when there is a floor)
  let nonFloor = 0;
  for (let i = 0; i < n; i++) if (mask[i] === STRUCTURE_OBJECT) nonFloor++;
  if (nonFloor === 0) return [];
  const stride = Math.max(1, Math.floor(nonFloor / STRUCTURE_SAMPLE_POINTS));
  const sample: number[] = [];
  for (let i = 0, k = 0; i < n; i++) {
    if (mask[i] !== STRUCTURE_OBJECT) continue;
    if (k++ % stride === 0) sample.push(i);
  }
  const m = sample.length;
  const sx = new Float64Array(m),
    sy = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    sx[j] = xyz[3 * sample[j]!]!;
    sy[j] = xyz[3 * sample[j]! + 1]!;
  }
  const alive = new Uint8Array(m).fill(1);
  const b = computeBounds(xyz);
  const span = Math.hypot(b.max[0] - b.min[0], b.max[1] - b.min[1]);
  const bin = tol; // slab = 2 bins = the +-tol band
  const nb = Math.max(2, Math.ceil(span / bin) + 2);
  const hist = new Int32Array(nb);
  const proj = new Float64Array(m);
  const steps = Math.round(180 / WALL_ANGLE_STEP_DEG);
  const walls: WallPlane[] = [];
  const maxOutsideSample = WALL_MAX_OUTSIDE_FRACTION * m;

  let rejects = 0;
  for (let attempt = 0; attempt < 2 * MAX_WALLS && walls.length < MAX_WALLS && rejects < WALL_MAX_CONSECUTIVE_REJECTS; attempt++) {
    // best slab over all directions and both ends
    let bestCount = 0,
      bestAngle = 0,
      bestLo = 0,
      bestHi = 0;
    for (let s = 0; s < steps; s++) {
      const th = (s * Math.PI) / steps;
      const cx = Math.cos(th),
        cy = Math.sin(th);
      let pmin = Infinity;
      for (let j = 0; j < m; j++) {
        if (!alive[j]) continue;
        const v = sx[j]! * cx + sy[j]! * cy;
        proj[j] = v;
        if (v < pmin) pmin = v;
      }
      if (pmin === Infinity) break;
      hist.fill(0);
      for (let j = 0; j < m; j++) {
        if (!alive[j]) continue;
        hist[Math.min(nb - 1, Math.floor((proj[j]! - pmin) / bin))]!++;
      }
      // low end: slabs [k, k+2) with at most maxOutside points below them
      let below = 0;
      for (let k = 0; k + 1 < nb && below <= maxOutsideSample; k++) {
        const c = hist[k]! + hist[k + 1]!;
        if (c > bestCount) {
          bestCount = c;
          bestAngle = th;
          bestLo = pmin + k * bin;
          bestHi = pmin + (k + 2) * bin;
        }
        below += hist[k]!;
      }
      // high end
      let above = 0;
      for (let k = nb - 1; k >= 1 && above <= maxOutsideSample; k--) {
        const c = hist[k]! + hist[k - 1]!;
        if (c > bestCount) {
          bestCount = c;
          bestAngle = th;
          bestLo = pmin + (k - 1) * bin;
          bestHi = pmin + (k + 1) * bin;
        }
        above += hist[k]!;
      }
    }
    if (bestCount < WALL_MIN_FRACTION * m) break;
    // refine: 2D line fit (PCA) of the slab's sample points, twice
    let nx = Math.cos(bestAngle),
      ny = Math.sin(bestAngle),
      off = (bestLo + bestHi) / 2,
      band = (bestHi - bestLo) / 2;
    for (let iter = 0; iter < 3; iter++) {
      let cnt = 0,
        mx = 0,
        my = 0;
      for (let j = 0; j < m; j++) {
        if (!alive[j] || Math.abs(sx[j]! * nx + sy[j]! * ny - off) > band) continue;
        mx += sx[j]!;
        my += sy[j]!;
        cnt++;
      }
      if (cnt < 2) break;
      mx /= cnt;
      my /= cnt;
      let cxx = 0,
        cxy = 0,
        cyy = 0;
      for (let j = 0; j < m; j++) {
        if (!alive[j] || Math.abs(sx[j]! * nx + sy[j]! * ny - off) > band) continue;
        const dx = sx[j]! - mx,
          dy = sy[j]! - my;
        cxx += dx * dx;
        cxy += dx * dy;
        cyy += dy * dy;
      }
      const phi = 0.5 * Math.atan2(2 * cxy, cxx - cyy); // direction along the wall
      let tx = -Math.sin(phi),
        ty = Math.cos(phi); // normal
      if (tx * nx + ty * ny < 0) {
        tx = -tx;
        ty = -ty;
      }
      nx = tx;
      ny = ty;
      off = mx * nx + my * ny;
      band = tol;
    }
    // evaluate on every non-floor point: inliers, extent, and which side the rest lies on
    let inl = 0,
      pos = 0,
      neg = 0,
      zMin = 0,
      zMax = 0,
      tMin = 0,
      tMax = 0;
    const inliers: number[] = [];
    for (let i = 0; i < n; i++) {
      if (mask[i] !== STRUCTURE_OBJECT) continue;
      const x = xyz[3 * i]!,
        y = xyz[3 * i + 1]!;
      const d = x * nx + y * ny - off;
      if (Math.abs(d) <= tol) {
        inl++;
        inliers.push(i);
      } else if (d > 0) pos++;
      else neg++;
    }
    // the room is on the side with more points; the other side must be nearly empty
    if (neg > pos) {
      nx = -nx;
      ny = -ny;
      off = -off;
      const t = pos;
      pos = neg;
      neg = t;
    }
    if (inl > 0) {
      // robust extents (1st-99th percentile) of height above the floor and position along the wall
      const zs = new Float64Array(inl),
        ts = new Float64Array(inl);
      for (let k = 0; k < inl; k++) {
        const i = inliers[k]!;
        const x = xyz[3 * i]!,
          y = xyz[3 * i + 1]!;
        zs[k] = xyz[3 * i + 2]! - (floor ? floor.a * x + floor.b * y + floor.c : 0);
        ts[k] = -x * ny + y * nx;
      }
      zs.sort();
      ts.sort();
      zMin = zs[Math.floor(0.01 * (inl - 1))]!;
      zMax = zs[Math.ceil(0.99 * (inl - 1))]!;
      tMin = ts[Math.floor(0.01 * (inl - 1))]!;
      tMax = ts[Math.ceil(0.99 * (inl - 1))]!;
    }
    const ok = inl >= WALL_MIN_FRACTION * nonFloor && neg <= WALL_MAX_OUTSIDE_FRACTION * nonFloor && zMax - zMin >= minHeight && tMax - tMin >= minLength;
    // retire the slab's sample points either way, so the next search finds something else
    for (let j = 0; j < m; j++) if (alive[j] && Math.abs(sx[j]! * nx + sy[j]! * ny - off) <= tol) alive[j] = 0;
    if (!ok) {
      rejects++;
      continue;
    }
    rejects = 0;
    // label the wall's points: within the band and within the wall's extent (plus the band)
    for (const i of inliers) {
      const x = xyz[3 * i]!,
        y = xyz[3 * i + 1]!;
      const t = -x * ny + y * nx;
      if (t >= tMin - tol && t <= tMax + tol) mask[i] = STRUCTURE_WALL;
    }
    walls.push({ normal: [nx, ny], offset: off, count: inl, zMin, zMax, lengthM: tMax - tMin });
  }
  return walls;
}
