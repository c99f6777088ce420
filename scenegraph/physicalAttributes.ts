/**
 * What a node's points show that physics questions need (issue 45): its height and footprint, whether it stands
 * upright, and how far its top surface tilts from horizontal. Friction and mass are in no view: no attribute here
 * claims them. The same code measures predicted nodes (from their downsampled points) and true nodes (from points
 * sampled on their meshes); a true node's `upright` comes from its recorded orientation instead (trueUpAxis).
 */
import type { Quat } from "../core/math/quat.js";
import { quatToMat } from "../core/math/quat.js";
import type { Vec3 } from "../core/math/vec.js";
import { UPRIGHT_MIN_DOT } from "../core/task/rules.js";
import type { GraphNode } from "./types.js";

// `upright`: the node's up axis makes a dot product with world +Z above UPRIGHT_MIN_DOT (core/task/rules.ts):
// ESI-Bench's stacking check, the spec's "world-up . +Z > 0.9", a tilt under about 26 degrees
/** The tilt (degrees) at which `upright` flips: acos(UPRIGHT_MIN_DOT). */
export const UPRIGHT_MAX_TILT_DEG = (Math.acos(UPRIGHT_MIN_DOT) * 180) / Math.PI;
/**
 * The top surface is fitted to the highest point of each square cell of this side (m) seen from above: the
 * graph's 2.5 cm voxels (scenegraph/options.ts) hold one downsampled point each, so a cell of 2 cm keeps about one
 * point per column of the surface. Ours.
 */
export const TOP_CELL_M = 0.02;
/** Fewer top cells than this fit no plane (`top_tilt_deg` null): 3 points always fit one exactly. Ours. */
export const MIN_TOP_CELLS = 6;
/**
 * Top cells whose spread across (the smaller standard deviation of their x, y) is under this (m) are an edge, not a
 * face: a strip under about 3.5 cm wide, such as the rim of a box's front face seen from below its top, fits any
 * plane through it. Ours: half a TOP_CELL_M.
 */
const MIN_TOP_SPREAD_M = TOP_CELL_M / 2;
/**
 * A predicted node's up is its top plane's normal when the top is a plane: its highest points within this RMS (m)
 * of the fitted plane. Ours, measured on `run --limit 19` (default seed), GT-depth graphs of upright objects only: at
 * 0.005 m no top read tilted past 26 degrees, at 0.01 m 5 of 58 did (small round tops seen from one side). Inclined
 * Plane's boards on GT-depth graphs fit within it in 7 of 8 graphs (4 tasks, single and gt views); on noisy graphs
 * (0.013-0.054 m) none does, so a noisy board shows its tilt but no up axis.
 */
export const TOP_PLANE_MAX_RMS_M = 0.005;

const DEG = 180 / Math.PI;
const r4 = (x: number) => Math.round(x * 10000) / 10000;
const r1 = (x: number) => Math.round(x * 10) / 10;

export type NodePhysics = NonNullable<GraphNode["physics"]>;

/** The up axis's verdict: upright or not, and how many degrees its tilt is from UPRIGHT_MAX_TILT_DEG. */
function uprightOf(up: Vec3 | null): { upright: boolean; upright_margin_deg: number } {
  // no axis shown (a round top, an edge): nothing decides, and the margin says so
  if (up === null) return { upright: true, upright_margin_deg: 0 };
  // signed: an object upside down has its up along -Z (ESI's dot product); a top's normal points up
  const d = Math.max(-1, Math.min(1, up[2]));
  return { upright: d > UPRIGHT_MIN_DOT, upright_margin_deg: r1(Math.abs(Math.acos(d) * DEG - UPRIGHT_MAX_TILT_DEG)) };
}

/** A true object's up axis: its own +Z turned into the world by its orientation (ESI's `tilt_check`). */
export function trueUpAxis(orientation: Quat): Vec3 {
  const R = quatToMat(orientation);
  return [R[0][2], R[1][2], R[2][2]];
}

/**
 * The top surface's tilt from horizontal (degrees): the least-squares plane z = a x + b y + c through the highest
 * point of each TOP_CELL_M cell seen from above, and the RMS of its residuals (m); null with fewer than
 * MIN_TOP_CELLS cells or cells spread less than MIN_TOP_SPREAD_M across (an edge, not a face). `normal` is the
 * plane's unit normal, pointing up.
 * @internal Tests call it on boards of known tilt; the graph reads it through nodePhysics.
 */
export function topTilt(xyz: Float32Array): { tiltDeg: number; rmsM: number; normal: Vec3 } | null {
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
  // the smaller variance of the cells' x, y (the 2 x 2 covariance's smaller eigenvalue): an edge turns the plane freely about itself
  const across = (sxx + syy) / 2 - Math.sqrt(((sxx - syy) / 2) ** 2 + sxy * sxy);
  if (det <= 0 || Math.sqrt(Math.max(0, across) / m) < MIN_TOP_SPREAD_M) return null;
  const a = (sxz * syy - syz * sxy) / det,
    b = (syz * sxx - sxz * sxy) / det;
  let ss = 0;
  for (const i of top.values()) {
    const r = xyz[i + 2]! - cz - a * (xyz[i]! - cx) - b * (xyz[i + 1]! - cy);
    ss += r * r;
  }
  const len = Math.hypot(a, b, 1);
  return { tiltDeg: Math.atan(Math.hypot(a, b)) * DEG, rmsM: Math.sqrt(ss / m), normal: [-a / len, -b / len, 1 / len] };
}

/**
 * A node's physical attributes from its points, its yaw box and its axis-aligned bounds; `up` overrides the axis
 * the points give (a true node's recorded orientation). From points alone the up axis is the top plane's normal
 * where the top is a plane (TOP_PLANE_MAX_RMS_M): a box's top, a board's face. A round top (a ball, a fruit, a can
 * lying) shows no axis: such a node reads upright with margin 0. A box tipped onto its side has a level top too:
 * which face was its top is in no point, so it reads upright.
 */
export function nodePhysics(xyz: Float32Array, box: GraphNode["box"], bounds: GraphNode["aabb"], up?: Vec3): NodePhysics {
  const tilt = topTilt(xyz);
  const axis = up ?? (tilt && tilt.rmsM <= TOP_PLANE_MAX_RMS_M ? tilt.normal : null);
  const shown: Vec3 = axis ?? [0, 0, 1];
  return {
    height_m: r4(bounds.max[2] - bounds.min[2]),
    footprint_m2: Math.round(box.extent[0] * box.extent[1] * 1e6) / 1e6,
    up: shown.map(r4) as Vec3,
    ...uprightOf(axis),
    top_tilt_deg: tilt ? r1(tilt.tiltDeg) : null,
    top_fit_rms_m: tilt ? r4(tilt.rmsM) : null,
  };
}
