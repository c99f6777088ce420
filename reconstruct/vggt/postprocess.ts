/**
 * From VGGT's outputs for one chunk of views to points in that chunk's VGGT frame: decode cameras (dropping
 * degenerate ones), filter by confidence, unproject depth (or take the point map), and label every point
 * with its source pixel's colour and instance id. Chaining chunks and aligning them to the known cameras
 * is chunks.ts's job.
 */
import { matVec, transpose } from "../../core/math/vec.js";
import type { Intrinsics } from "../../core/math/camera.js";
import { extrinsicRotation, extrinsicTranslation } from "../../core/math/camera.js";
import type { ViewData } from "../../core/bundle/io.js";
import { checkPoseEncoding, decodePoseEncoding, type DecodedCamera } from "./pose.js";
import type { PreprocessPlan } from "./preprocess.js";
import { percentileLinear, select } from "./percentile.js";

/** Confidences at or below this are dropped whatever the rule (visual_util.py `predictions_to_glb`: `conf > 1e-5`). */
const CONF_FLOOR = 1e-5;
/** Depths at or below this are invalid (geometry.py `depth_to_world_coords_points`: valid mask `depth > 1e-8`). */
const MIN_DEPTH = 1e-8;

// ---------------------------------------------------------------- fp16

let HALF_LUT: Float32Array | null = null;

/** IEEE 754 binary16 (as returned by onnxruntime-node: Uint16Array) to float32. */
export function halfToFloat(h: Uint16Array): Float32Array {
  if (!HALF_LUT) {
    HALF_LUT = new Float32Array(65536);
    for (let i = 0; i < 65536; i++) {
      const sign = i & 0x8000 ? -1 : 1,
        exp = (i >> 10) & 0x1f,
        mant = i & 0x3ff;
      let v: number;
      if (exp === 0)
        v = mant * 2 ** -24; // subnormal
      else if (exp === 31) v = mant ? NaN : Infinity;
      else v = (1 + mant / 1024) * 2 ** (exp - 15);
      HALF_LUT[i] = sign * v;
    }
  }
  const lut = HALF_LUT,
    out = new Float32Array(h.length);
  for (let i = 0; i < h.length; i++) out[i] = lut[h[i]!]!;
  return out;
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
}

/** A view whose camera could not be decoded (checkPoseEncoding): it gives no points and no camera. */
export interface DroppedView {
  view: number;
  reason: string;
}

/**
 * One chunk (window) decoded: cameras and kept points in the chunk's own VGGT frame (its frame 0's camera,
 * its own scale). Per-point arrays are parallel; `frame` and `modelPixel` say where each point came from,
 * so windows that share a view can be matched pixel by pixel.
 */
export interface DecodedChunk {
  /** Bundle view indices in model frame order. */
  views: number[];
  /** Decoded camera per frame; null for a dropped view. */
  cams: (DecodedCamera | null)[];
  dropped: DroppedView[];
  /** Confidence cut applied (conf ≥ threshold and conf > CONF_FLOOR). */
  confThreshold: number;
  /** Model pixels of usable frames that map to a source pixel (padding excluded). */
  pixels: number;
  count: number;
  xyz: Float32Array;
  /** Predicted z-depth of each point (VGGT units of this chunk). */
  depth: Float32Array;
  frame: Uint16Array;
  modelPixel: Uint32Array;
  rgb: Uint8Array;
  confidence: Float32Array;
  view: Uint16Array;
  pixel: Uint32Array;
  instance: Uint16Array;
}

/**
 * Intrinsics at the source resolution from model-resolution ones (both in our pixel-centre convention).
 * A model pixel x has resized-image column x − padLeft, whose centre lies at source coordinate
 * (x − padLeft + 0.5)·sx − 0.5 with sx = srcWidth / resizedWidth; rows likewise with + cropTop.
 */
export function intrinsicsAtSource(K: Intrinsics, plan: PreprocessPlan): Intrinsics {
  const sx = plan.srcWidth / plan.resizedWidth,
    sy = plan.srcHeight / plan.resizedHeight;
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

/**
 * Decodes one chunk's outputs: cameras (a view whose camera is degenerate is dropped and reported), the
 * confidence cut over the usable frames' non-padding pixels, and every kept pixel's point in the chunk's
 * VGGT frame — the depth unprojected with the frame's predicted camera (x = Rᵀ(K⁻¹·(u, v, 1)·d − t)), or
 * the point-map head's point — labelled with its source pixel's colour and instance id.
 */
export function decodeChunk(set: ChunkSettings, out: VggtChunkOutputs): DecodedChunk {
  const { S, H, W } = out;
  const { views, plan, pixelMap } = set;
  if (views.length !== S) throw new Error(`decodeChunk: ${views.length} views for ${S} frames`);
  if (plan.width !== W || plan.height !== H) throw new VggtOutputError(`model output is ${W}x${H}, expected the input size ${plan.width}x${plan.height}`);
  const P = H * W;
  const dropped: DroppedView[] = [];
  const cams = Array.from({ length: S }, (_, s) => {
    const bad = checkPoseEncoding(out.poseEnc, s);
    if (!bad) return decodePoseEncoding(out.poseEnc, s, H, W);
    dropped.push({ view: views[s]!.index, reason: bad });
    return null;
  });
  const usePm = set.points === "pointmap";
  const conf = usePm ? out.worldPointsConf : out.depthConf;
  if (!conf) throw new Error("decodeChunk: missing confidence output");
  if (usePm && !out.worldPoints) throw new Error("decodeChunk: missing world_points output");

  // Geometric validity and the pool the percentile is taken over (padding and dropped views excluded).
  const valid = new Uint8Array(S * P);
  const pool = new Int32Array(S * P);
  let nPool = 0;
  for (let s = 0; s < S; s++) {
    if (!cams[s]) continue;
    for (let m = 0; m < P; m++) {
      if (pixelMap[m]! < 0) continue;
      const i = s * P + m,
        c = conf[i]!;
      if (!Number.isFinite(c)) continue;
      pool[nPool++] = i;
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
    const vals = new Float32Array(nPool);
    for (let j = 0; j < nPool; j++) vals[j] = conf[pool[j]!]!;
    threshold = nPool > 0 ? percentileLinear(vals, set.conf.percentile) : Infinity;
  }
  let count = 0;
  for (let i = 0; i < S * P; i++) {
    if (!valid[i]) continue;
    const c = conf[i]!;
    if (c >= threshold && c > CONF_FLOOR) count++;
    else valid[i] = 0;
  }

  const xyz = new Float32Array(count * 3),
    depthOut = new Float32Array(count),
    rgb = new Uint8Array(count * 3),
    confidence = new Float32Array(count);
  const frame = new Uint16Array(count),
    modelPixel = new Uint32Array(count);
  const view = new Uint16Array(count),
    pixel = new Uint32Array(count),
    instance = new Uint16Array(count);
  let k = 0;
  const wp = out.worldPoints,
    depth = out.depth;
  const rayX = new Float64Array(W),
    rayY = new Float64Array(H);
  for (let s = 0; s < S; s++) {
    const cam = cams[s];
    if (!cam) continue;
    const v = views[s]!,
      vrgb = v.rgb,
      vids = v.ids,
      vIndex = v.index;
    // x_vggt = Rᵀ(x_cam − t) = M·x_cam + b (depth), or the point map as is. Scalars in locals: this loop runs per pixel.
    const Rt = transpose(extrinsicRotation(cam.E)),
      b = matVec(Rt, extrinsicTranslation(cam.E));
    const m00 = Rt[0][0],
      m01 = Rt[0][1],
      m02 = Rt[0][2],
      m10 = Rt[1][0],
      m11 = Rt[1][1],
      m12 = Rt[1][2],
      m20 = Rt[2][0],
      m21 = Rt[2][1],
      m22 = Rt[2][2];
    const b0 = -b[0],
      b1 = -b[1],
      b2 = -b[2];
    const { fx, fy, cx, cy } = cam.K;
    // Camera rays per column and row: x_cam = ((u − cx)/fx·d, (v − cy)/fy·d, d).
    for (let x = 0; x < W; x++) rayX[x] = (x - cx) / fx;
    for (let y = 0; y < H; y++) rayY[y] = (y - cy) / fy;
    for (let y = 0, m = 0; y < H; y++) {
      const ry = rayY[y]!;
      for (let x = 0; x < W; x++, m++) {
        const i = s * P + m;
        if (!valid[i]) continue;
        const src = pixelMap[m]!,
          k3 = 3 * k,
          d = depth[i]!;
        if (usePm) {
          xyz[k3] = wp![3 * i]!;
          xyz[k3 + 1] = wp![3 * i + 1]!;
          xyz[k3 + 2] = wp![3 * i + 2]!;
        } else {
          const px = rayX[x]! * d,
            py = ry * d;
          xyz[k3] = m00 * px + m01 * py + m02 * d + b0;
          xyz[k3 + 1] = m10 * px + m11 * py + m12 * d + b1;
          xyz[k3 + 2] = m20 * px + m21 * py + m22 * d + b2;
        }
        depthOut[k] = d;
        const s3 = 3 * src;
        rgb[k3] = vrgb[s3]!;
        rgb[k3 + 1] = vrgb[s3 + 1]!;
        rgb[k3 + 2] = vrgb[s3 + 2]!;
        confidence[k] = conf[i]!;
        frame[k] = s;
        modelPixel[k] = m;
        view[k] = vIndex;
        pixel[k] = src;
        instance[k] = vids[src]!;
        k++;
      }
    }
  }
  let pixels = 0;
  for (let m = 0; m < P; m++) if (pixelMap[m]! >= 0) pixels++;
  return {
    views: views.map((v) => v.index),
    cams,
    dropped,
    confThreshold: threshold,
    pixels: pixels * (S - dropped.length),
    count,
    xyz,
    depth: depthOut,
    frame,
    modelPixel,
    rgb,
    confidence,
    view,
    pixel,
    instance,
  };
}

/** Median of a non-empty set (modified in place). */
export function medianOf(a: Float64Array): number {
  const n = a.length;
  const hi = select(a, n >> 1);
  if (n % 2) return hi;
  let lo = -Infinity;
  for (let i = 0; i < n >> 1; i++) if (a[i]! > lo) lo = a[i]!;
  return (lo + hi) / 2;
}
