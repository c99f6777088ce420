/**
 * From VGGT's outputs for one chunk of views to points: decode cameras, filter by confidence, align to
 * the bundle's known cameras, unproject depth (or take the point map), and label every point with its
 * source pixel's colour and instance id.
 */
import type { Mat34 } from "../../src/core/math/vec.js";
import { matMul, matVec, transpose } from "../../src/core/math/vec.js";
import type { Intrinsics } from "../../src/core/math/camera.js";
import { extrinsicRotation, extrinsicTranslation } from "../../src/core/math/camera.js";
import type { ViewData } from "../../bridge/bundle/io.js";
import { alignCameras, alignExtrinsic, IDENTITY_SIM3, type CameraAlignment, type Sim3 } from "../align.js";
import { checkPoseEncoding, decodePoseEncoding } from "./pose.js";
import type { PreprocessPlan } from "./preprocess.js";
import type { PointCloud } from "../pointcloud.js";

/** Confidences at or below this are dropped whatever the rule (visual_util.py `predictions_to_glb`: `conf > 1e-5`). */
export const CONF_FLOOR = 1e-5;
/** Depths at or below this are invalid (geometry.py `depth_to_world_coords_points`: valid mask `depth > 1e-8`). */
export const MIN_DEPTH = 1e-8;
/** Default share of lowest-confidence points dropped, in % (demo_gradio.py slider default 50; vggt-onnx.md §1.8). */
export const DEFAULT_CONF_PERCENTILE = 50;
/** At most this many pixel pairs feed the depth-ratio median (a subsample keeps it fast; the median is robust). */
const DEPTH_RATIO_SAMPLES = 200_000;

// ---------------------------------------------------------------- fp16

let HALF_LUT: Float32Array | null = null;

/** IEEE 754 binary16 (as returned by onnxruntime-node: Uint16Array) to float32. */
export function halfToFloat(h: Uint16Array): Float32Array {
  if (!HALF_LUT) {
    HALF_LUT = new Float32Array(65536);
    for (let i = 0; i < 65536; i++) {
      const sign = i & 0x8000 ? -1 : 1, exp = (i >> 10) & 0x1f, mant = i & 0x3ff;
      let v: number;
      if (exp === 0) v = mant * 2 ** -24; // subnormal
      else if (exp === 31) v = mant ? NaN : Infinity;
      else v = (1 + mant / 1024) * 2 ** (exp - 15);
      HALF_LUT[i] = sign * v;
    }
  }
  const lut = HALF_LUT, out = new Float32Array(h.length);
  for (let i = 0; i < h.length; i++) out[i] = lut[h[i]!]!;
  return out;
}

// ---------------------------------------------------------------- percentile (numpy, method="linear")

/** k-th smallest (0-based) of a[lo..hi] in place (Hoare quickselect, median-of-three pivot). */
function select(a: Float32Array | Float64Array, k: number): number {
  let lo = 0, hi = a.length - 1;
  while (hi > lo) {
    const mid = (lo + hi) >> 1;
    // median of three to the middle
    if (a[mid]! < a[lo]!) swap(a, mid, lo);
    if (a[hi]! < a[lo]!) swap(a, hi, lo);
    if (a[hi]! < a[mid]!) swap(a, hi, mid);
    const pivot = a[mid]!;
    let i = lo, j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        swap(a, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k]!;
  }
  return a[k]!;
}
function swap(a: Float32Array | Float64Array, i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}

/**
 * `np.percentile(values, p)` with numpy's default linear interpolation: index (n−1)·(p/100) into the sorted
 * values, then numpy's `_lerp` (a + d·t, or b − d·(1−t) when t ≥ 0.5), with d = b − a rounded to float32 as
 * numpy does for float32 input (checked against numpy 1.24 on random float32 data). Values must be finite.
 * O(n) by selection; `values` is not modified.
 */
export function percentileLinear(values: Float32Array, p: number): number {
  const n = values.length;
  if (n === 0) throw new Error("percentile of an empty set");
  if (!(p >= 0 && p <= 100)) throw new Error(`percentile ${p} outside [0, 100]`);
  const a = values.slice();
  const v = (n - 1) * (p / 100);
  if (v >= n - 1) return select(a, n - 1);
  const lo = Math.floor(v);
  const A = select(a, lo);
  // After selection everything right of `lo` is ≥ A: the next order statistic is their minimum.
  let B = Infinity;
  for (let i = lo + 1; i < n; i++) if (a[i]! < B) B = a[i]!;
  const t = v - lo;
  const d = Math.fround(B - A);
  return t >= 0.5 ? B - d * (1 - t) : A + d * t;
}

function medianOf(a: Float64Array): number {
  const n = a.length;
  const hi = select(a, n >> 1);
  if (n % 2) return hi;
  let lo = -Infinity;
  for (let i = 0; i < n >> 1; i++) if (a[i]! > lo) lo = a[i]!;
  return (lo + hi) / 2;
}

// ---------------------------------------------------------------- chunk post-processing

export type PointsFrom = "depth" | "pointmap";
export type ConfRule = { kind: "percentile"; percentile: number } | { kind: "absolute"; threshold: number };

/** One chunk's model outputs as float32, frame-major, at model resolution H × W. */
export interface VggtChunkOutputs {
  /** Frames to use (a fixed-S model may have returned more: padding frames come last). */
  S: number;
  H: number;
  W: number;
  poseEnc: Float32Array; // [S,9]
  depth: Float32Array; // [S,H,W]
  depthConf: Float32Array; // [S,H,W]
  worldPoints?: Float32Array; // [S,H,W,3]
  worldPointsConf?: Float32Array; // [S,H,W]
}

export interface ChunkSettings {
  /** The chunk's views, in model frame order (frame 0 is VGGT's reference). */
  views: readonly ViewData[];
  plan: PreprocessPlan;
  /** modelToSourcePixel(plan). */
  pixelMap: Int32Array;
  points: PointsFrom;
  conf: ConfRule;
  align: "sim3" | "none";
}

export interface ChunkCamera {
  view: number;
  /** Predicted camera-from-world extrinsic in the output frame (aligned world, or VGGT's frame). */
  extrinsic: Mat34;
  /** Predicted intrinsics at the bundle's image resolution, our pixel convention. */
  intrinsics: Intrinsics;
  /** Predicted intrinsics at the model resolution, our pixel convention. */
  modelIntrinsics: Intrinsics;
}

export interface ChunkMeta {
  views: number[];
  /** Confidence cut applied (conf ≥ threshold and conf > CONF_FLOOR). */
  confThreshold: number;
  /** Model pixels that map to a source pixel (padding excluded), and how many became points. */
  pixels: number;
  kept: number;
  align: CameraAlignment | null;
  cameras: ChunkCamera[];
}

/** One chunk's points: the per-point arrays of the final PointCloud, concatenated over chunks later. */
export type ChunkPoints = Pick<PointCloud, "count" | "xyz" | "rgb" | "confidence" | "view" | "pixel" | "instance"> & { meta: ChunkMeta };

/**
 * Intrinsics at the source resolution from model-resolution ones (both in our pixel-centre convention).
 * A model pixel x has resized-image column x − padLeft, whose centre lies at source coordinate
 * (x − padLeft + 0.5)·sx − 0.5 with sx = srcWidth / resizedWidth; rows likewise with + cropTop.
 */
export function intrinsicsAtSource(K: Intrinsics, plan: PreprocessPlan): Intrinsics {
  const sx = plan.srcWidth / plan.resizedWidth, sy = plan.srcHeight / plan.resizedHeight;
  return {
    fx: K.fx * sx,
    fy: K.fy * sy,
    cx: (K.cx - plan.padLeft + 0.5) * sx - 0.5,
    cy: (K.cy - plan.padTop + plan.cropTop + 0.5) * sy - 0.5,
  };
}

export class VggtOutputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "VggtOutputError";
  }
}

export function postprocessChunk(set: ChunkSettings, out: VggtChunkOutputs): ChunkPoints {
  const { S, H, W } = out;
  const { views, plan, pixelMap } = set;
  if (views.length !== S) throw new Error(`postprocessChunk: ${views.length} views for ${S} frames`);
  if (plan.width !== W || plan.height !== H) throw new VggtOutputError(`model output is ${W}x${H}, expected the input size ${plan.width}x${plan.height}`);
  const P = H * W;
  const cams = Array.from({ length: S }, (_, s) => {
    const bad = checkPoseEncoding(out.poseEnc, s);
    if (bad) throw new VggtOutputError(`VGGT output for view ${views[s]!.index}: ${bad}`);
    return decodePoseEncoding(out.poseEnc, s, H, W);
  });
  const usePm = set.points === "pointmap";
  const conf = usePm ? out.worldPointsConf : out.depthConf;
  if (!conf) throw new Error("postprocessChunk: missing confidence output");
  if (usePm && !out.worldPoints) throw new Error("postprocessChunk: missing world_points output");

  // Geometric validity and the pool the percentile is taken over (padding excluded).
  const valid = new Uint8Array(S * P);
  let pool = 0;
  for (let s = 0; s < S; s++) {
    for (let m = 0; m < P; m++) {
      if (pixelMap[m]! < 0) continue;
      const i = s * P + m, c = conf[i]!;
      if (!Number.isFinite(c)) continue;
      pool++;
      if (usePm) {
        const wp = out.worldPoints!;
        if (!(Number.isFinite(wp[3 * i]!) && Number.isFinite(wp[3 * i + 1]!) && Number.isFinite(wp[3 * i + 2]!))) continue;
      } else {
        const d = out.depth[i]!;
        if (!(d > MIN_DEPTH && Number.isFinite(d))) continue;
      }
      valid[i] = 1;
    }
  }
  let threshold: number;
  if (set.conf.kind === "absolute") threshold = set.conf.threshold;
  else {
    const vals = new Float32Array(pool);
    let k = 0;
    for (let s = 0; s < S; s++) for (let m = 0; m < P; m++) {
      const c = conf[s * P + m]!;
      if (pixelMap[m]! >= 0 && Number.isFinite(c)) vals[k++] = c;
    }
    threshold = pool > 0 ? percentileLinear(vals, set.conf.percentile) : Infinity;
  }
  let count = 0;
  for (let i = 0; i < S * P; i++) {
    if (!valid[i]) continue;
    const c = conf[i]!;
    if (c >= threshold && c > CONF_FLOOR) count++;
    else valid[i] = 0;
  }

  // Alignment to the known cameras.
  let T: Sim3 = IDENTITY_SIM3;
  let align: CameraAlignment | null = null;
  if (set.align === "sim3") {
    align = alignCameras({
      predicted: cams.map((c) => c.E),
      known: views.map((v) => v.E),
      depthRatio: () => depthRatio(views, out, valid, pixelMap),
    });
    T = align;
  }

  const xyz = new Float32Array(count * 3), rgb = new Uint8Array(count * 3), confidence = new Float32Array(count);
  const view = new Uint16Array(count), pixel = new Uint32Array(count), instance = new Uint16Array(count);
  let k = 0;
  const wp = out.worldPoints, depth = out.depth;
  const rayX = new Float64Array(W), rayY = new Float64Array(H);
  for (let s = 0; s < S; s++) {
    const v = views[s]!, vrgb = v.rgb, vids = v.ids, vIndex = v.index;
    // x_out = s·R·x_vggt + t with x_vggt = Rvᵀ(x_cam − tv): x_out = M·x_cam + b (depth), or s·R·p + t (point map).
    const Rv = extrinsicRotation(cams[s]!.E), tv = extrinsicTranslation(cams[s]!.E);
    const M = usePm ? T.R.map((r) => r.map((x) => x * T.s)) : matMul(T.R, transpose(Rv)).map((r) => r.map((x) => x * T.s));
    const Mt = usePm ? [0, 0, 0] : matVec(M as typeof Rv, tv);
    // Scalars in locals: this loop runs once per model pixel.
    const m00 = M[0]![0]!, m01 = M[0]![1]!, m02 = M[0]![2]!, m10 = M[1]![0]!, m11 = M[1]![1]!, m12 = M[1]![2]!, m20 = M[2]![0]!, m21 = M[2]![1]!, m22 = M[2]![2]!;
    const b0 = T.t[0] - Mt[0]!, b1 = T.t[1] - Mt[1]!, b2 = T.t[2] - Mt[2]!;
    const { fx, fy, cx, cy } = cams[s]!.K;
    // Camera rays per column and row: x_cam = ((u − cx)/fx·d, (v − cy)/fy·d, d).
    for (let x = 0; x < W; x++) rayX[x] = (x - cx) / fx;
    for (let y = 0; y < H; y++) rayY[y] = (y - cy) / fy;
    for (let y = 0, m = 0; y < H; y++) {
      const ry = rayY[y]!;
      for (let x = 0; x < W; x++, m++) {
        const i = s * P + m;
        if (!valid[i]) continue;
        const src = pixelMap[m]!;
        let px: number, py: number, pz: number;
        if (usePm) {
          px = wp![3 * i]!;
          py = wp![3 * i + 1]!;
          pz = wp![3 * i + 2]!;
        } else {
          pz = depth[i]!;
          px = rayX[x]! * pz;
          py = ry * pz;
        }
        const k3 = 3 * k;
        xyz[k3] = m00 * px + m01 * py + m02 * pz + b0;
        xyz[k3 + 1] = m10 * px + m11 * py + m12 * pz + b1;
        xyz[k3 + 2] = m20 * px + m21 * py + m22 * pz + b2;
        const s3 = 3 * src;
        rgb[k3] = vrgb[s3]!;
        rgb[k3 + 1] = vrgb[s3 + 1]!;
        rgb[k3 + 2] = vrgb[s3 + 2]!;
        confidence[k] = conf[i]!;
        view[k] = vIndex;
        pixel[k] = src;
        instance[k] = vids[src]!;
        k++;
      }
    }
  }
  const cameras: ChunkCamera[] = cams.map((c, s) => ({
    view: views[s]!.index,
    extrinsic: alignExtrinsic(c.E, T),
    intrinsics: intrinsicsAtSource(c.K, plan),
    modelIntrinsics: c.K,
  }));
  let pixels = 0;
  for (let m = 0; m < P; m++) if (pixelMap[m]! >= 0) pixels++;
  return {
    count, xyz, rgb, confidence, view, pixel, instance,
    meta: { views: views.map((v) => v.index), confThreshold: threshold, pixels: pixels * S, kept: count, align, cameras },
  };
}

/** Median of known (bundle) depth / predicted depth over kept pixels with a known depth; null if none. */
function depthRatio(views: readonly ViewData[], out: VggtChunkOutputs, keep: Uint8Array, pixelMap: Int32Array): number | null {
  const P = out.H * out.W;
  let n = 0;
  for (let i = 0; i < out.S * P; i++) if (keep[i]) n++;
  const stride = Math.max(1, Math.ceil(n / DEPTH_RATIO_SAMPLES));
  const r = new Float64Array(Math.ceil(n / stride));
  let k = 0, seen = 0;
  for (let s = 0; s < out.S; s++) for (let m = 0; m < P; m++) {
    const i = s * P + m;
    if (!keep[i] || seen++ % stride) continue;
    const dk = views[s]!.depth[pixelMap[m]!]!;
    if (dk > 0 && Number.isFinite(dk)) r[k++] = dk / out.depth[i]!;
  }
  return k > 0 ? medianOf(r.subarray(0, k)) : null;
}
