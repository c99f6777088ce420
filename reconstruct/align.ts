/**
 * Similarity (Sim(3)) alignment of a reconstruction to known cameras.
 *
 * `umeyama` is the general least-squares fit dst ≈ s·R·src + t (Umeyama 1991, "Least-squares estimation of
 * transformation parameters between two point patterns"). The rotation comes from Horn's quaternion
 * method (Horn 1987), which gives the same optimum as Umeyama's SVD with the reflection correction and
 * needs only a symmetric 4x4 eigenproblem.
 *
 * `alignCameras` chooses how to align a set of predicted cameras (e.g. VGGT's, in the first camera's
 * frame at arbitrary scale) to the same cameras' known poses (the agent's odometry), falling back to
 * camera-0-based alignments when the camera centres cannot fix a rotation.
 */
import type { Mat3, Mat34, Vec3 } from "../core/math/vec.js";
import { add, dist, dot, matMul, matVec, scale, sub, transpose } from "../core/math/vec.js";
import { cameraCentre, extrinsicRotation, extrinsicTranslation } from "../core/math/camera.js";
import { quatToMat } from "../core/math/quat.js";
import { centroid, principalSpreads, symmetricEigen } from "./principalAxes.js";

/** x_dst = s · R · x_src + t. */
export interface Sim3 {
  R: Mat3;
  t: Vec3;
  s: number;
}

export interface UmeyamaResult extends Sim3 {
  /** Root-mean-square of |s·R·src_i + t − dst_i| over the correspondences (units of dst). */
  rmse: number;
}

export function applySim3(T: Sim3, p: Vec3): Vec3 {
  return add(scale(matVec(T.R, p), T.s), T.t);
}

/** A∘B: x ↦ A(B(x)) = sA·sB·RA·RB·x + (sA·RA·tB + tA). */
export function composeSim3(A: Sim3, B: Sim3): Sim3 {
  return { R: matMul(A.R, B.R), s: A.s * B.s, t: add(scale(matVec(A.R, B.t), A.s), A.t) };
}

/** RMS distance between the transformed sources and the destinations. */
function sim3Rmse(T: Sim3, src: readonly Vec3[], dst: readonly Vec3[]): number {
  if (src.length === 0) return 0;
  let acc = 0;
  for (let i = 0; i < src.length; i++) {
    const d = dist(applySim3(T, src[i]!), dst[i]!);
    acc += d * d;
  }
  return Math.sqrt(acc / src.length);
}

/**
 * Least-squares similarity (or rigid, withScale = false) transform taking `src` onto `dst`:
 * minimises Σ |s·R·src_i + t − dst_i|² over proper rotations R (det +1), s > 0 and t.
 * Needs ≥ 3 non-collinear points for a unique rotation; with fewer the rotation about the degenerate axis
 * is arbitrary (callers check, see `alignCameras`). A single point or coincident sources give R = I, s = 1.
 */
export function umeyama(src: readonly Vec3[], dst: readonly Vec3[], withScale: boolean): UmeyamaResult {
  if (src.length !== dst.length) throw new Error(`umeyama: ${src.length} source points but ${dst.length} destination points`);
  if (src.length === 0) throw new Error("umeyama: no points");
  const ms = centroid(src),
    md = centroid(dst);
  // S[a][b] = Σ src'_a · dst'_b over centred points (Horn 1987, eq. for M).
  const S = [
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 0],
  ] as Mat3;
  let varSrc = 0;
  for (let i = 0; i < src.length; i++) {
    const a = sub(src[i]!, ms),
      b = sub(dst[i]!, md);
    varSrc += dot(a, a);
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) S[r]![c]! += a[r]! * b[c]!;
  }
  if (varSrc === 0) {
    const R: Mat3 = [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ];
    const T = { R, s: 1, t: sub(md, ms) };
    return { ...T, rmse: sim3Rmse(T, src, dst) };
  }
  const [[xx, xy, xz], [yx, yy, yz], [zx, zy, zz]] = S;
  const N = [
    [xx + yy + zz, yz - zy, zx - xz, xy - yx],
    [yz - zy, xx - yy - zz, xy + yx, zx + xz],
    [zx - xz, xy + yx, -xx + yy - zz, yz + zy],
    [xy - yx, zx + xz, yz + zy, -xx - yy + zz],
  ];
  const q = symmetricEigen(N).vectors[0]!; // (w, x, y, z) of the best rotation
  const R = quatToMat({ w: q[0]!, x: q[1]!, y: q[2]!, z: q[3]! });
  let s = 1;
  if (withScale) {
    // s = tr(Rᵀ Σ_dst,src) / σ²_src (Umeyama eq. 42), written as Σ dst'·(R src') / Σ |src'|².
    let num = 0;
    for (let i = 0; i < src.length; i++) num += dot(sub(dst[i]!, md), matVec(R, sub(src[i]!, ms)));
    s = num / varSrc;
  }
  const t = sub(md, scale(matVec(R, ms), s));
  const T = { R, s, t };
  return { ...T, rmse: sim3Rmse(T, src, dst) };
}

/**
 * Umeyama needs the camera centres to span a plane: the spread across the trajectory's main axis must be
 * at least this fraction of the spread along it. Chosen, not from a paper: the rotation about the main
 * axis is fixed only by the lateral spread, so its error is about (centre noise)/(lateral spread); VGGT's
 * centres are good to roughly 1% of the scene, so below 10% the fit could tilt by several degrees, while
 * camera 0's pose (VGGT's reference frame, predicted as the identity by construction) is exact.
 */
const MIN_LATERAL_SPREAD_RATIO = 0.1;
/** Known camera centres closer than this (m) give no usable baseline (an agent turning in place). Chosen. */
export const MIN_BASELINE_M = 0.05;
/** Height of the floor in the world frame: bundles are z-up metres with the floor at z = 0 (core/task/schema.ts, room.size). */
const WORLD_FLOOR_Z = 0;
/** A known camera lower than this above the floor (m) gives no usable height for the scale. Chosen. */
const MIN_CAMERA_HEIGHT_M = 0.05;
/**
 * The floor estimate uses the lowest FLOOR_SHARE of the points along the up direction: when the floor is in
 * view it is the lowest large surface, and in a forward-looking indoor view it covers well over a tenth of
 * the image. Chosen.
 */
const FLOOR_SHARE = 0.1;
/** Those lowest points must lie within this fraction of the camera's height above them (p10–p90 spread), i.e. on a plane. Chosen. */
const FLOOR_FLATNESS = 0.1;
/** Fewest points the floor estimate accepts. Chosen. */
const MIN_FLOOR_POINTS = 100;

export type AlignMethod =
  /** Umeyama with scale on the camera centres (≥ 3 non-collinear cameras). */
  | "umeyama"
  /** Rotation and position from camera 0's pose; scale = median ratio of known to predicted pairwise camera distances. */
  | "camera0+baseline"
  /**
   * Rotation and position from camera 0's pose; scale = camera 0's known height above the floor over its
   * predicted height above the predicted floor (no usable baseline; what an agent knows: its camera height).
   */
  | "camera0+height"
  /**
   * Rotation and position from camera 0's pose; scale = median ratio of the bundle's (simulator's) depth to
   * the predicted depth. A scale oracle: a real agent has no such depth. Used only when the floor is not found.
   */
  | "camera0+depth"
  /** Rotation and position from camera 0's pose; scale unknown, left at 1 (no baseline and no known depth). */
  | "camera0-unscaled";

export interface CameraAlignment extends Sim3 {
  method: AlignMethod;
  /** RMS distance (m) between the aligned predicted camera centres and the known ones. */
  rmsM: number;
  cameras: number;
  /** The scale came from ground truth a real agent would not have (the bundle's depth): method camera0+depth. */
  scaleOracle: boolean;
  /** Why a fallback was used, in words. */
  note?: string;
}

export interface AlignCamerasInput {
  /** Predicted camera-from-world extrinsics, in the prediction's frame. */
  predicted: readonly Mat34[];
  /** Known camera-from-world extrinsics of the same views (metric world frame). */
  known: readonly Mat34[];
  /**
   * Heights along `up` (a unit vector in the predicted frame) of a sample of the predicted points, computed
   * on demand when the cameras give no baseline: they locate the floor for the camera-height scale.
   */
  pointHeights?: (up: Vec3) => Float64Array;
  /** Median ratio known/predicted z-depth, computed on demand (only when neither baseline nor floor gives a scale); null = not available. */
  depthRatio?: () => number | null;
}

interface FloorScale {
  scale: number;
  /** Camera 0's predicted height above the predicted floor (predicted units) and its known height (m). */
  predictedHeight: number;
  knownHeightM: number;
  floorPoints: number;
}

/**
 * Scale from camera 0's height: its known height above the floor (world z − WORLD_FLOOR_Z) over its height
 * above the floor found in the prediction (the median of the lowest FLOOR_SHARE of the points along the
 * world's up direction, which R maps into the predicted frame). Null when the camera is on the floor, or the
 * lowest points are too few or not flat (no floor in view).
 */
function scaleFromCameraHeight(R: Mat3, predictedCentre0: Vec3, knownCentre0: Vec3, pointHeights: (up: Vec3) => Float64Array): FloorScale | null {
  const knownHeightM = knownCentre0[2] - WORLD_FLOOR_Z;
  if (!(knownHeightM >= MIN_CAMERA_HEIGHT_M)) return null;
  const up = matVec(transpose(R), [0, 0, 1]); // R maps predicted to world directions: up_pred = Rᵀ·e_z
  const h = pointHeights(up).slice().sort();
  const n = Math.floor(h.length * FLOOR_SHARE);
  if (n < MIN_FLOOR_POINTS) return null;
  const low = h.subarray(0, n);
  const floor = low[n >> 1]!;
  const predictedHeight = dot(up, predictedCentre0) - floor;
  if (!(predictedHeight > 0)) return null;
  const spread = low[Math.floor(0.9 * (n - 1))]! - low[Math.floor(0.1 * (n - 1))]!;
  if (spread > FLOOR_FLATNESS * predictedHeight) return null;
  return { scale: knownHeightM / predictedHeight, predictedHeight, knownHeightM, floorPoints: n };
}

function median(xs: number[]): number {
  const a = xs.slice().sort((p, q) => p - q);
  const m = a.length >> 1;
  return a.length % 2 ? a[m]! : (a[m - 1]! + a[m]!) / 2;
}

/**
 * Sim(3) taking the predicted frame to the known world frame (x_world = s·R·x_pred + t):
 * - ≥ 3 cameras whose known and predicted centres both span a plane (MIN_LATERAL_SPREAD_RATIO): Umeyama
 *   with scale on the camera centres;
 * - otherwise camera 0's pose fixes rotation and position exactly (R = R_k0ᵀ·R_p0, which maps camera 0's
 *   predicted pose onto its known one) and the scale is the median ratio of known to predicted pairwise
 *   camera distances, or, when no pair is MIN_BASELINE_M apart, camera 0's known height above the floor
 *   over its predicted height above the predicted floor (scaleFromCameraHeight); only when no floor is
 *   found, the median ratio of known (simulator) to predicted depth, flagged as a scale oracle.
 */
export function alignCameras(input: AlignCamerasInput): CameraAlignment {
  const { predicted, known } = input;
  if (predicted.length !== known.length || predicted.length === 0)
    throw new Error(`alignCameras: ${predicted.length} predicted and ${known.length} known cameras`);
  const cp = predicted.map(cameraCentre),
    ck = known.map(cameraCentre);
  const n = cp.length;
  // `minM`: the known (metric) centres must spread at least a baseline; cameras turning in place differ
  // only by rounding, and a Umeyama fit to that spread would shrink the scene to a point
  const planar = (ps: Vec3[], minM: number): boolean => {
    const [s1, s2] = principalSpreads(ps);
    return s1 > 0 && s2 >= minM * MIN_LATERAL_SPREAD_RATIO && s2 / s1 >= MIN_LATERAL_SPREAD_RATIO;
  };
  if (n >= 3 && planar(ck, MIN_BASELINE_M) && planar(cp, 0)) {
    const u = umeyama(cp, ck, true);
    return { R: u.R, t: u.t, s: u.s, method: "umeyama", rmsM: u.rmse, cameras: n, scaleOracle: false };
  }
  // Camera-0 alignment. Camera frames agree up to the scale s: R_k0·x_w + t_k0 = s·(R_p0·x_p + t_p0), so
  // x_w = s·R_k0ᵀR_p0·x_p + R_k0ᵀ(s·t_p0 − t_k0).
  const R = matMul(transpose(extrinsicRotation(known[0]!)), extrinsicRotation(predicted[0]!));
  const ratios: number[] = [];
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const dk = dist(ck[i]!, ck[j]!),
        dp = dist(cp[i]!, cp[j]!);
      if (dk >= MIN_BASELINE_M && dp > 0) ratios.push(dk / dp);
    }
  let s: number,
    method: AlignMethod,
    note: string,
    scaleOracle = false;
  const why = n < 3 ? `${n} camera(s)` : "camera centres nearly collinear";
  const floor = ratios.length === 0 && input.pointHeights ? scaleFromCameraHeight(R, cp[0]!, ck[0]!, input.pointHeights) : null;
  if (ratios.length > 0) {
    s = median(ratios);
    method = "camera0+baseline";
    note = `${why}: rotation from camera 0, scale from the median of ${ratios.length} camera-distance ratio(s)`;
  } else if (floor) {
    s = floor.scale;
    method = "camera0+height";
    note = `${why}, no baseline of ${MIN_BASELINE_M} m: rotation from camera 0, scale from its known height above the floor (${floor.knownHeightM.toFixed(3)} m) over its predicted height above the predicted floor (${floor.floorPoints} lowest points)`;
  } else {
    const r = input.depthRatio?.() ?? null;
    if (r !== null && Number.isFinite(r) && r > 0) {
      s = r;
      method = "camera0+depth";
      scaleOracle = true;
      note = `${why}, no baseline of ${MIN_BASELINE_M} m and no floor found: rotation from camera 0, scale from the median ratio of the bundle's depth to the predicted depth (SCALE ORACLE: ground truth a real agent would not have)`;
    } else {
      s = 1;
      method = "camera0-unscaled";
      note = `${why}, no baseline, no floor and no known depth: rotation from camera 0, scale unknown (left at 1)`;
    }
  }
  const tp0 = extrinsicTranslation(predicted[0]!),
    tk0 = extrinsicTranslation(known[0]!);
  const t = matVec(transpose(extrinsicRotation(known[0]!)), sub(scale(tp0, s), tk0));
  const T = { R, s, t };
  return { ...T, method, rmsM: sim3Rmse(T, cp, ck), cameras: n, scaleOracle, note };
}

/**
 * A predicted camera-from-world extrinsic re-expressed in the aligned world: with x_pred = Rᵀ(x_w − t)/s and
 * metric camera coordinates s·(R_p·x_pred + t_p), the extrinsic is [R_p·Rᵀ | s·t_p − R_p·Rᵀ·t].
 */
export function alignExtrinsic(E: Mat34, T: Sim3): Mat34 {
  const Rn = matMul(extrinsicRotation(E), transpose(T.R));
  const tn = sub(scale(extrinsicTranslation(E), T.s), matVec(Rn, T.t));
  return [
    [Rn[0][0], Rn[0][1], Rn[0][2], tn[0]],
    [Rn[1][0], Rn[1][1], Rn[1][2], tn[1]],
    [Rn[2][0], Rn[2][1], Rn[2][2], tn[2]],
  ];
}

export const IDENTITY_SIM3: Sim3 = {
  R: [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ],
  t: [0, 0, 0],
  s: 1,
};
