/**
 * What a node's points show that physics questions need (issue 45): its height and footprint, whether it stands
 * upright, and how far its top surface tilts from horizontal. Friction and mass are in no view: no attribute here
 * claims them. The same code measures predicted nodes (from their downsampled points) and true nodes (from points
 * sampled on their meshes); a true node's `upright` comes from its recorded orientation instead (trueUpAxis).
 */
import type { Quat } from "../core/math/quat.js";
import { quatToMat } from "../core/math/quat.js";
import type { Vec3 } from "../core/math/vec.js";
import { symmetricEigen } from "../reconstruct/principalAxes.js";
import type { GraphNode } from "./types.js";

/**
 * `upright`: the node's up axis makes a dot product with world +Z above this: ESI-Bench's stacking check
 * (its released stacking.py TILT_DOT_TOL 0.9, the spec's "world-up . +Z > 0.9"), a tilt under about 26 degrees.
 */
export const UPRIGHT_MIN_DOT = 0.9;
/** The tilt (degrees) at which `upright` flips: acos(UPRIGHT_MIN_DOT). */
export const UPRIGHT_MAX_TILT_DEG = (Math.acos(UPRIGHT_MIN_DOT) * 180) / Math.PI;
/**
 * Two principal spreads (standard deviations) whose ratio is at least this are one symmetric pair: a can's two
 * radial axes, a ball's three. Ours: surface points of a cylinder seen from all sides give 1.0, one view's half
 * of it about 0.9; a 3:4 box face (0.75) stays two axes.
 */
const SYMMETRIC_SPREAD_RATIO = 0.85;
/**
 * The top surface is fitted to the highest point of each square cell of this side (m) seen from above: the
 * graph's 2.5 cm voxels (scenegraph/options.ts) hold one downsampled point each, so a cell of 2 cm keeps about one
 * point per column of the surface. Ours.
 */
export const TOP_CELL_M = 0.02;
/** Fewer top cells than this fit no plane (`top_tilt_deg` null): 3 points always fit one exactly. Ours. */
export const MIN_TOP_CELLS = 6;

const DEG = 180 / Math.PI;
const r4 = (x: number) => Math.round(x * 10000) / 10000;
const r1 = (x: number) => Math.round(x * 10) / 10;

export type NodePhysics = NonNullable<GraphNode["physics"]>;

/** The up axis's verdict: upright or not, and how many degrees its tilt is from UPRIGHT_MAX_TILT_DEG. */
function uprightOf(up: Vec3, symmetric: boolean): { upright: boolean; upright_margin_deg: number } {
  // signed: an object upside down has its up along -Z (ESI's dot product); an axis from points points up
  const d = Math.max(-1, Math.min(1, up[2]));
  // all three spreads alike (a ball, a cube's surface): the points show no axis, so nothing decides
  if (symmetric) return { upright: true, upright_margin_deg: 0 };
  return { upright: d > UPRIGHT_MIN_DOT, upright_margin_deg: r1(Math.abs(Math.acos(d) * DEG - UPRIGHT_MAX_TILT_DEG)) };
}

/**
 * The up axis of a point set from its principal axes. An axis whose spread stands apart from a symmetric pair is
 * the shape's axis of symmetry (a can's, a bottle's, a plate's or a board's normal), and that is its up, lying or
 * standing. With three distinct spreads (a box) the axis nearest world +Z; with three alike, none (null).
 * @internal Tests call it on shapes whose axis they know; the graph reads it through nodePhysics.
 */
export function pointsUpAxis(xyz: Float32Array): Vec3 | null {
  const n = xyz.length / 3;
  if (n < 3) return null;
  let mx = 0,
    my = 0,
    mz = 0;
  for (let i = 0; i < n; i++) (mx += xyz[3 * i]!), (my += xyz[3 * i + 1]!), (mz += xyz[3 * i + 2]!);
  (mx /= n), (my /= n), (mz /= n);
  const C = [
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 0],
  ] as [Vec3, Vec3, Vec3];
  for (let i = 0; i < n; i++) {
    const d = [xyz[3 * i]! - mx, xyz[3 * i + 1]! - my, xyz[3 * i + 2]! - mz];
    for (let r = 0; r < 3; r++) for (let k = r; k < 3; k++) C[r]![k]! += d[r]! * d[k]!;
  }
  (C[1][0] = C[0][1]), (C[2][0] = C[0][2]), (C[2][1] = C[1][2]);
  const { values, vectors } = symmetricEigen(C);
  const s = values.map((v) => Math.sqrt(Math.max(0, v)));
  const alike = (a: number, b: number) => a > 0 && b / a >= SYMMETRIC_SPREAD_RATIO;
  const pair01 = alike(s[0]!, s[1]!),
    pair12 = alike(s[1]!, s[2]!);
  if (pair01 && pair12) return null;
  const axes = vectors.map((v) => (v[2]! < 0 ? [-v[0]!, -v[1]!, -v[2]!] : [v[0]!, v[1]!, v[2]!]) as Vec3);
  if (pair01) return axes[2]!;
  if (pair12) return axes[0]!;
  return axes.reduce((best, a) => (Math.abs(a[2]) > Math.abs(best[2]) ? a : best));
}

/** A true object's up axis: its own +Z turned into the world by its orientation (ESI's `tilt_check`). */
export function trueUpAxis(orientation: Quat): Vec3 {
  const R = quatToMat(orientation);
  return [R[0][2], R[1][2], R[2][2]];
}

/**
 * The top surface's tilt from horizontal (degrees): the least-squares plane z = a x + b y + c through the highest
 * point of each TOP_CELL_M cell seen from above, and the RMS of its residuals (m); null with fewer than
 * MIN_TOP_CELLS cells or cells on one line.
 * @internal Tests call it on boards of known tilt; the graph reads it through nodePhysics.
 */
export function topTilt(xyz: Float32Array): { tiltDeg: number; rmsM: number } | null {
  const top = new Map<string, number>();
  for (let i = 0; i < xyz.length; i += 3) {
    const key = `${Math.floor(xyz[i]! / TOP_CELL_M)},${Math.floor(xyz[i + 1]! / TOP_CELL_M)}`;
    const k = top.get(key);
    if (k === undefined || xyz[i + 2]! > xyz[k + 2]!) top.set(key, i);
  }
  const m = top.size;
  if (m < MIN_TOP_CELLS) return null;
  // normal equations of the plane fit, centred for conditioning
  let cx = 0,
    cy = 0,
    cz = 0;
  for (const i of top.values()) (cx += xyz[i]!), (cy += xyz[i + 1]!), (cz += xyz[i + 2]!);
  (cx /= m), (cy /= m), (cz /= m);
  let sxx = 0,
    sxy = 0,
    syy = 0,
    sxz = 0,
    syz = 0;
  for (const i of top.values()) {
    const x = xyz[i]! - cx,
      y = xyz[i + 1]! - cy,
      z = xyz[i + 2]! - cz;
    (sxx += x * x), (sxy += x * y), (syy += y * y), (sxz += x * z), (syz += y * z);
  }
  const det = sxx * syy - sxy * sxy;
  // cells on one line (a rod seen from above) leave the plane's turn about that line free
  if (det <= 1e-9 * (sxx + syy) ** 2) return null;
  const a = (sxz * syy - syz * sxy) / det,
    b = (syz * sxx - sxz * sxy) / det;
  let ss = 0;
  for (const i of top.values()) {
    const r = xyz[i + 2]! - cz - a * (xyz[i]! - cx) - b * (xyz[i + 1]! - cy);
    ss += r * r;
  }
  return { tiltDeg: Math.atan(Math.hypot(a, b)) * DEG, rmsM: Math.sqrt(ss / m) };
}

/**
 * A node's physical attributes from its points, its yaw box and its axis-aligned bounds; `up` overrides the axis
 * the points give (a true node's recorded orientation).
 */
export function nodePhysics(xyz: Float32Array, box: GraphNode["box"], bounds: GraphNode["aabb"], up?: Vec3): NodePhysics {
  const axis = up ?? pointsUpAxis(xyz);
  const tilt = topTilt(xyz);
  const shown: Vec3 = axis ?? [0, 0, 1];
  return {
    height_m: r4(bounds.max[2] - bounds.min[2]),
    footprint_m2: Math.round(box.extent[0] * box.extent[1] * 1e6) / 1e6,
    up: shown.map(r4) as Vec3,
    ...uprightOf(shown, axis === null),
    top_tilt_deg: tilt ? r1(tilt.tiltDeg) : null,
    top_fit_rms_m: tilt ? r4(tilt.rmsM) : null,
  };
}
