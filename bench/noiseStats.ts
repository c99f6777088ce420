/**
 * The error statistics VGGT's own evaluations report, computed for a reconstruction against the
 * simulator's ground truth (bench/noiseCalibration.ts runs them over the noise scale):
 *
 * - depth: AbsRel = mean |d̂ − d| / d and δ<1.25 = share of pixels with max(d̂/d, d/d̂) < 1.25, per view
 *   then averaged over views, in two alignments: none beyond the pipeline's (one Sim(3) for the scene, as
 *   video-depth evaluations with per-sequence scale), and a per-view median scale (as monocular-depth
 *   evaluations align each image);
 * - pose: Sim(3) Umeyama fit of the predicted camera centres onto the true ones, then ATE (RMSE of the
 *   centres), RPE (error of the relative pose between consecutive views: translation m, rotation deg) as in
 *   the MonST3R / CUT3R / π³ protocol, the absolute rotation error per view, and VGGT's AUC@30 over every
 *   pair of views (area under the accuracy curve of max(relative rotation error, relative translation
 *   direction error) for thresholds 1..30°, VGGT Table 1);
 * - point map: Sim(3) Umeyama fit on pixel correspondences, then accuracy (nearest-neighbour distance
 *   prediction → truth) and completeness (truth → prediction), mean and median, metres (the DTU / ETH3D
 *   style used by the 7-Scenes and NRGBD evaluations of Spann3R, CUT3R and π³).
 */
import type { ViewData } from "../core/bundle/io.js";
import type { Mat3, Mat34, Vec3 } from "../core/math/vec.js";
import { cameraCentre, extrinsicRotation, invertExtrinsic } from "../core/math/camera.js";
import { applySim3, umeyama, MIN_BASELINE_M, type Sim3 } from "../reconstruct/align.js";
import { voxelDownsample } from "../scenegraph/primitives/voxelDownsample.js";
import { composeExtrinsics, rotationAngleDeg } from "../reconstruct/noisy/rigid.js";
import type { PointCloud } from "../reconstruct/pointcloud.js";
import { KdTree3 } from "../scenegraph/primitives/kdtree.js";
import { select } from "../reconstruct/vggt/percentile.js";

/** δ threshold of the depth accuracy (Eigen et al. 2014; every depth table VGGT is compared in). */
export const DELTA_THRESHOLD = 1.25;
/** AUC thresholds of VGGT's pose evaluation: 1..30 degrees (VGGT Table 1, AUC@30). */
export const AUC_MAX_DEG = 30;
/** Points sampled (evenly strided) for the nearest-neighbour distances, each way. */
export const POINT_SAMPLES = 50_000;
/** Correspondences sampled for the point-map Sim(3) fit. */
export const ALIGN_SAMPLES = 20_000;

const valid = (d: number) => d > 0 && d <= Number.MAX_VALUE;

/** Median of a (a copy is reordered, not a). */
function median(a: Float64Array | Float32Array): number {
  if (a.length === 0) return NaN;
  const s = a.slice();
  const m = s.length >> 1;
  return s.length % 2 ? select(s, m) : (select(s, m - 1) + select(s, m)) / 2;
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN);

export interface DepthStats {
  /** Pipeline frame (no further alignment). */
  absRel: number;
  delta: number;
  /** Per-view median scale. */
  absRelMedian: number;
  deltaMedian: number;
  views: number;
}

/** Depth statistics of predicted depth maps (`pred[i].depth`, in each view's predicted camera) against `truth[i].depth`. */
export function depthStats(truth: readonly ViewData[], pred: readonly ViewData[]): DepthStats {
  const a: number[] = [],
    b: number[] = [],
    c: number[] = [],
    e: number[] = [];
  truth.forEach((t, i) => {
    const g = t.depth,
      p = pred[i]!.depth;
    let n = 0;
    for (let q = 0; q < g.length; q++) if (valid(g[q]!) && valid(p[q]!)) n++;
    if (n === 0) return;
    const gs = new Float32Array(n),
      ps = new Float32Array(n);
    for (let q = 0, k = 0; q < g.length; q++) if (valid(g[q]!) && valid(p[q]!)) (gs[k] = g[q]!), (ps[k++] = p[q]!);
    const s = median(gs) / median(ps);
    let ar = 0,
      dl = 0,
      arm = 0,
      dlm = 0;
    for (let k = 0; k < n; k++) {
      const d = gs[k]!,
        x = ps[k]!,
        xm = x * s;
      ar += Math.abs(x - d) / d;
      arm += Math.abs(xm - d) / d;
      if (Math.max(x / d, d / x) < DELTA_THRESHOLD) dl++;
      if (Math.max(xm / d, d / xm) < DELTA_THRESHOLD) dlm++;
    }
    a.push(ar / n), b.push(dl / n), c.push(arm / n), e.push(dlm / n);
  });
  return { absRel: mean(a), delta: mean(b), absRelMedian: mean(c), deltaMedian: mean(e), views: a.length };
}

export interface PoseStats {
  /** RMSE (m) of the Sim(3)-aligned camera centres. */
  ate: number;
  /** Mean over consecutive pairs of the relative-pose error: translation (m) and rotation (deg). */
  rpeTrans: number;
  rpeRot: number;
  /** Mean absolute rotation error (deg) after the alignment's rotation. */
  rotErr: number;
  /** VGGT's AUC@30 (percent) over all pairs; pairs closer than MIN_BASELINE_M score rotation only. */
  auc30: number;
  views: number;
}

const mat3Mul = (A: Mat3, B: Mat3): Mat3 =>
  [0, 1, 2].map((i) => [0, 1, 2].map((j) => A[i]![0]! * B[0]![j]! + A[i]![1]! * B[1]![j]! + A[i]![2]! * B[2]![j]!)) as unknown as Mat3;
const mat3T = (A: Mat3): Mat3 => [0, 1, 2].map((i) => [0, 1, 2].map((j) => A[j]![i]!)) as unknown as Mat3;

/** The extrinsic of a camera after the world is moved by x ← s·R·x + t (metric, so the translation scales by s). */
function alignedExtrinsic(E: Mat34, T: Sim3): Mat34 {
  const R = mat3Mul(extrinsicRotation(E), mat3T(T.R));
  const c = applySim3(T, cameraCentre(E));
  const t = [0, 1, 2].map((i) => -(R[i]![0]! * c[0] + R[i]![1]! * c[1] + R[i]![2]! * c[2])) as Vec3;
  return [
    [R[0][0], R[0][1], R[0][2], t[0]],
    [R[1][0], R[1][1], R[1][2], t[1]],
    [R[2][0], R[2][1], R[2][2], t[2]],
  ];
}

function angleBetweenDeg(a: Vec3, b: Vec3): number {
  const na = Math.hypot(...a),
    nb = Math.hypot(...b);
  if (na === 0 || nb === 0) return 180;
  const c = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (na * nb);
  return (Math.acos(Math.max(-1, Math.min(1, c))) * 180) / Math.PI;
}

/** Pose statistics of predicted camera-from-world extrinsics against the true ones (null for fewer than 2 views). */
export function poseStats(truth: readonly Mat34[], pred: readonly Mat34[]): PoseStats | null {
  const n = truth.length;
  if (n < 2) return null;
  const ct = truth.map(cameraCentre),
    cp = pred.map(cameraCentre);
  const T = umeyama(cp, ct, true);
  const P = pred.map((E) => alignedExtrinsic(E, T));
  let se = 0,
    rot = 0;
  for (let i = 0; i < n; i++) {
    const c = cameraCentre(P[i]!);
    se += (c[0] - ct[i]![0]) ** 2 + (c[1] - ct[i]![1]) ** 2 + (c[2] - ct[i]![2]) ** 2;
    rot += rotationAngleDeg(mat3Mul(extrinsicRotation(P[i]!), mat3T(extrinsicRotation(truth[i]!))));
  }
  // RPE on world-from-camera poses: error = (Q_i⁻¹Q_{i+1})⁻¹ (P_i⁻¹P_{i+1})
  const Qw = truth.map(invertExtrinsic),
    Pw = P.map(invertExtrinsic);
  let rt = 0,
    rr = 0;
  for (let i = 0; i + 1 < n; i++) {
    const relQ = composeExtrinsics(truth[i]!, Qw[i + 1]!),
      relP = composeExtrinsics(P[i]!, Pw[i + 1]!);
    const err = composeExtrinsics(invertExtrinsic(relQ), relP);
    rt += Math.hypot(err[0][3], err[1][3], err[2][3]);
    rr += rotationAngleDeg(extrinsicRotation(err));
  }
  // AUC@30 over pairs (camera-from-world relative poses E_j·E_i⁻¹, as VGGT's evaluation)
  const hist = new Float64Array(AUC_MAX_DEG);
  let pairs = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const rq = composeExtrinsics(truth[j]!, Qw[i]!),
        rp = composeExtrinsics(P[j]!, Pw[i]!);
      const rErr = rotationAngleDeg(mat3Mul(extrinsicRotation(rp), mat3T(extrinsicRotation(rq))));
      const tq: Vec3 = [rq[0][3], rq[1][3], rq[2][3]],
        tp: Vec3 = [rp[0][3], rp[1][3], rp[2][3]];
      let tErr = 0;
      if (Math.hypot(...tq) >= MIN_BASELINE_M) {
        const a = angleBetweenDeg(tq, tp);
        tErr = Math.min(a, 180 - a); // VGGT's translation_angle with ambiguity
      }
      const e = Math.max(rErr, tErr);
      for (let th = 1; th <= AUC_MAX_DEG; th++) if (e < th) hist[th - 1]!++;
      pairs++;
    }
  }
  const auc = (hist.reduce((s, x) => s + x, 0) / (pairs * AUC_MAX_DEG)) * 100;
  return { ate: Math.sqrt(se / n), rpeTrans: rt / (n - 1), rpeRot: rr / (n - 1), rotErr: rot / n, auc30: auc, views: n };
}

export interface PointStats {
  accMean: number;
  accMedian: number;
  compMean: number;
  compMedian: number;
}

/**
 * Voxel (m) the reference side of each nearest-neighbour search is downsampled to. The clouds are dense
 * (every pixel of up to 30 overlapping views); a kd-tree answers a query 10 cm off such a surface only by
 * visiting every point within 10 cm. Voxel centroids bound that, and bias the distances by at most a few
 * millimetres (the level-0 row of the table shows the floor), well under the centimetres being measured.
 */
export const REFERENCE_VOXEL_M = 0.005;

function strided(count: number, k: number): number[] {
  const step = Math.max(1, Math.floor(count / k));
  const out: number[] = [];
  for (let i = 0; i < count; i += step) out.push(i);
  return out;
}

const pointOf = (c: PointCloud, i: number): Vec3 => [c.xyz[3 * i]!, c.xyz[3 * i + 1]!, c.xyz[3 * i + 2]!];

/** A nearest-neighbour reference: a cloud's voxel centroids and their kd-tree. */
export interface Reference {
  xyz: Float32Array;
  tree: KdTree3;
}

export function reference(xyz: Float32Array): Reference {
  const down = voxelDownsample(xyz, REFERENCE_VOXEL_M).xyz;
  return { xyz: down, tree: new KdTree3(down) };
}

function nnDistances(from: Float32Array, idx: readonly number[], ref: Reference): Float64Array {
  const out = new Float64Array(idx.length),
    to = ref.xyz;
  idx.forEach((i, k) => {
    const x = from[3 * i]!,
      y = from[3 * i + 1]!,
      z = from[3 * i + 2]!;
    const j = ref.tree.nearest(x, y, z);
    out[k] = Math.hypot(x - to[3 * j]!, y - to[3 * j + 1]!, z - to[3 * j + 2]!);
  });
  return out;
}

/**
 * Accuracy and completeness of `pred` against `truth`; the clouds must list the same pixels in the same
 * order (a noisy cloud without dropout against the gt cloud), which gives the correspondences of the fit.
 * `truthRef` may be passed in when the same truth is scored many times.
 */
export function pointStats(truth: PointCloud, pred: PointCloud, truthRef: Reference = reference(truth.xyz)): PointStats {
  if (truth.count !== pred.count) throw new Error(`pointStats: ${truth.count} true and ${pred.count} predicted points; they must correspond`);
  const fit = strided(pred.count, ALIGN_SAMPLES);
  const T = umeyama(
    fit.map((i) => pointOf(pred, i)),
    fit.map((i) => pointOf(truth, i)),
    true,
  );
  const xyz = new Float32Array(pred.count * 3);
  const [[r00, r01, r02], [r10, r11, r12], [r20, r21, r22]] = T.R;
  const [a, b, c, d, e, g, h, k, l] = [r00 * T.s, r01 * T.s, r02 * T.s, r10 * T.s, r11 * T.s, r12 * T.s, r20 * T.s, r21 * T.s, r22 * T.s] as const;
  const [tx, ty, tz] = T.t,
    src = pred.xyz;
  for (let i = 0; i < pred.count; i++) {
    const x = src[3 * i]!,
      y = src[3 * i + 1]!,
      z = src[3 * i + 2]!;
    xyz[3 * i] = a * x + b * y + c * z + tx;
    xyz[3 * i + 1] = d * x + e * y + g * z + ty;
    xyz[3 * i + 2] = h * x + k * y + l * z + tz;
  }
  const acc = nnDistances(xyz, strided(pred.count, POINT_SAMPLES), truthRef);
  const comp = nnDistances(truth.xyz, strided(truth.count, POINT_SAMPLES), reference(xyz));
  return { accMean: mean([...acc]), accMedian: median(acc), compMean: mean([...comp]), compMedian: median(comp) };
}
