/**
 * Parameters of the `noisy` point-cloud source: the `vggt-like` preset at level 1, how `level`,
 * `components` and `overrides` combine into the effective parameters, and every threshold of the model
 * as a named constant. docs/noise-model.md has the same table with the reasoning behind each value.
 *
 * Two kinds of parameter:
 * - amplitudes (how much error): scaled linearly by `level`, zero at level 0 and for a component that
 *   is not listed in `components`. Level 0 therefore always reproduces the `gt` source exactly.
 * - shapes (what the error looks like: a correlation length, a band width, a blob size): not scaled by
 *   level; they only matter when the component's amplitude is non-zero.
 */
import { InputError } from "../../src/core/errors.js";

export const NOISE_COMPONENTS = ["depth", "pose", "flying", "dropout", "blobs"] as const;
export type NoiseComponent = (typeof NOISE_COMPONENTS)[number];
export type NoisePreset = "vggt-like";

export interface NoiseParams {
  // ---- depth
  /** Amplitude. Per-pixel depth noise std as a fraction of the depth: σ(d) = depthNoiseRel · d. */
  depthNoiseRel: number;
  /** Shape (px). Radius of the box filter (applied twice) that correlates the per-pixel noise; 0 = white. */
  depthNoiseCorrPx: number;
  /** Amplitude. Std of each coefficient of the per-view low-frequency depth-scale field (tilt x, tilt y, bowl), as a fraction of depth at the image border. */
  depthLowFreqRel: number;
  // ---- pose
  /** Amplitude (degrees). RMS rotation error of each perturbed view, about its camera centre. */
  poseRotDeg: number;
  /** Amplitude (metres). RMS camera-centre error of each perturbed view. */
  poseTransM: number;
  /** Amplitude (%). Std of each perturbed view's scale drift (its whole depth map scaled about the camera centre). */
  poseScalePct: number;
  // ---- flying pixels
  /** Amplitude (fraction 0..1). Share of the pixels in the depth-edge band that become flying pixels. */
  flyingFraction: number;
  /** Shape (px). Half-width of the band around a depth discontinuity where flying pixels occur. */
  flyingBandPx: number;
  // ---- confidence and dropout
  /** Amplitude (fraction 0..1). Share of all points, lowest synthetic confidence first, that are removed. 0 also switches the synthetic confidence off (confidence 1, as gt). */
  dropoutFraction: number;
  // ---- spurious blobs
  /** Amplitude (blobs per view, expected). floor(λ) blobs per view plus one more with probability frac(λ). */
  blobsPerView: number;
  /** Shape (points). Points per blob (a square image patch of about this many pixels). */
  blobPoints: number;
  /** Shape (metres). Largest distance a blob floats in front of the surface it came from; each blob draws U[BLOB_OFFSET_MIN_FRACTION, 1] of it. */
  blobOffsetM: number;
}

export interface NoiseOptions {
  /** 0..1, scales the preset's amplitudes; 0 = ground truth exactly. */
  level: number;
  preset?: NoisePreset;
  /** Components to apply (default all); the others get zero amplitude. */
  components?: NoiseComponent[];
  seed: string;
  /**
   * Leave out points whose pixel has one of these instance ids (room structure, when only objects
   * matter). The error model still runs on every pixel; only the back-projection skips them.
   */
  excludeIds?: ReadonlySet<number>;
  /** Reusable storage for the back-projection (see reconstruct/pointcloud.ts CloudArena). */
  arena?: import("../pointcloud.js").CloudArena;
  /** Replace preset values (the level-1 values) before `level` scales the amplitudes; shapes are used as given. */
  overrides?: Partial<NoiseParams>;
}

/** Which component each parameter belongs to, and whether `level` scales it. */
export const PARAM_INFO: Record<keyof NoiseParams, { component: NoiseComponent; amplitude: boolean; unit: string; max?: number }> = {
  depthNoiseRel: { component: "depth", amplitude: true, unit: "fraction of depth", max: 1 },
  depthNoiseCorrPx: { component: "depth", amplitude: false, unit: "px" },
  depthLowFreqRel: { component: "depth", amplitude: true, unit: "fraction of depth", max: 1 },
  poseRotDeg: { component: "pose", amplitude: true, unit: "deg", max: 180 },
  poseTransM: { component: "pose", amplitude: true, unit: "m" },
  poseScalePct: { component: "pose", amplitude: true, unit: "%", max: 100 },
  flyingFraction: { component: "flying", amplitude: true, unit: "fraction", max: 1 },
  flyingBandPx: { component: "flying", amplitude: false, unit: "px" },
  dropoutFraction: { component: "dropout", amplitude: true, unit: "fraction", max: 1 },
  blobsPerView: { component: "blobs", amplitude: true, unit: "blobs/view" },
  blobPoints: { component: "blobs", amplitude: false, unit: "points" },
  blobOffsetM: { component: "blobs", amplitude: false, unit: "m" },
};

/** Shape parameters that must be whole numbers. */
const INTEGER_PARAMS: ReadonlySet<keyof NoiseParams> = new Set(["depthNoiseCorrPx", "flyingBandPx", "blobPoints"]);

/**
 * The `vggt-like` preset at level 1, for ~1–5 m indoor scenes (metric, after the Sim(3) alignment to the
 * known cameras that the `vggt` source does). Values are our calibration; the reasoning is in the comments
 * and in docs/noise-model.md.
 */
export const VGGT_LIKE_PRESET: Readonly<NoiseParams> = Object.freeze({
  // Feed-forward depth errors are roughly proportional to depth (the benchmarks report AbsRel, a relative
  // error). 1 % gives 1 cm at 1 m and 5 cm at 5 m: centimetre-level bumps, as VGGT depth maps of
  // synthetic indoor renders look after alignment (our calibration).
  depthNoiseRel: 0.01,
  // VGGT's DPT head predicts at 1/14 patch resolution and upsamples, so its errors are smooth over a few
  // pixels (bumpy surfaces, not per-pixel salt). Two passes of a radius-2 box ≈ Gaussian σ 2 px.
  depthNoiseCorrPx: 2,
  // Monocular-style low-frequency warps (planes slightly tilted or bent within one view): 2 % of depth at
  // the image border, i.e. up to ~10 cm at 5 m. Our calibration.
  depthLowFreqRel: 0.02,
  // VGGT predicts all cameras jointly; relative pose errors of a few degrees are typical on real
  // benchmarks (feed-forward AUC@30 of roughly 85–90 on RealEstate10K / CO3Dv2 in the VGGT paper, from
  // memory, not re-checked here). 2° RMS moves a point 3 m away by ~10 cm, four times ConceptGraphs'
  // 2.5 cm association voxel (scenegraph-anchors.md): enough to duplicate objects, as in ESI §3.
  poseRotDeg: 2,
  // A few centimetres of camera-centre error after Sim(3) alignment in a room-sized scene (our calibration).
  poseTransM: 0.05,
  // Per-view scale inconsistency: VGGT normalises scale per scene, and per-view depth scales disagree
  // by a few percent (our calibration: 2 %, i.e. 6 cm at 3 m).
  poseScalePct: 2,
  // DPT-style heads interpolate across depth discontinuities: a large share of the pixels right at an
  // edge land between foreground and background (our calibration: half of the band).
  flyingFraction: 0.5,
  // The smear spans a few pixels on each side of an edge (≈ the 14-px patch upsampled ×14 with a smooth
  // kernel, seen at 518 px width): 2 px each side.
  flyingBandPx: 2,
  // VGGT's demo (demo_gradio.py) and our `vggt` source drop the lowest 50 % of depth confidences by
  // default (vggt-onnx.md §1.8, DEFAULT_CONF_PERCENTILE); level 0.5 gives Viser's default of 25 %.
  dropoutFraction: 0.5,
  // Occasional spurious clusters (hallucination seeds): about one every three views (our calibration).
  blobsPerView: 0.3,
  // Big enough to survive a ConceptGraphs-style pipeline as an object proposal (2.5 cm voxels, DBSCAN
  // min_points 10, min_points_threshold 16; scenegraph-anchors.md): 150 pixels ≈ a 12×13 patch, ~10 cm
  // across at 3 m, ~30 voxels with its depth jitter.
  blobPoints: 150,
  // Far enough off the surface to be a separate cluster for DBSCAN eps 0.05–0.1 m: 15–30 cm.
  blobOffsetM: 0.3,
});

export const PRESETS: Record<NoisePreset, Readonly<NoiseParams>> = { "vggt-like": VGGT_LIKE_PRESET };

// ---------------------------------------------------------------- thresholds of the model

/** Noisy depth is clamped to at least this fraction of the true depth (guards against ≤ 0 depth under large overrides). */
export const NOISY_DEPTH_MIN_RATIO = 0.1;
/** View whose camera is never perturbed: VGGT's reference frame is view 0 (its extrinsic is the identity by construction, vggt-onnx.md §1.7). */
export const POSE_ANCHOR_VIEW = 0;
/** Scale drift is clamped to at least this factor (guards against non-positive scale under large overrides). */
export const POSE_SCALE_MIN = 0.5;

/**
 * Two neighbouring pixels form a depth discontinuity when their depths differ by more than this fraction of
 * the nearer one... (read on the true depth. A 1-px step along the floor is ~1 % of depth at 5 m for a
 * camera 1.5 m high with the 70° built-in camera (f ≈ 370 px); object silhouettes against the room are
 * far above. For comparison, Pi3's demo drops depth-edge pixels at rtol 0.03, vggt-onnx.md §6.)
 */
export const EDGE_REL_JUMP = 0.1;
/** ...and by more than this many metres. */
export const EDGE_MIN_JUMP_M = 0.05;
/** A flying pixel's depth is foreground + t · (background − foreground) with t in [margin, 1 − margin]: strictly between. */
export const FLYING_T_MARGIN = 0.05;

/*
 * Confidence cues (confidence.ts). The penalties are our calibration, set so that at level 1 (half the
 * points dropped, like VGGT's demo) on built-in scenes about 55 % of pixels nearer than 2 m survive,
 * 30 % beyond 4 m, 25 % of flying pixels (noticeable smears, as in VGGT's filtered clouds) and 5 % of glass.
 */
/** VGGT-like confidence: conf = 1 + exp(L) (VGGT's own activation, so conf ≥ 1); L for an easy pixel. exp(3) ≈ 20. */
export const CONF_LOG_BASE = 3;
/** L penalty for pixels within CONF_EDGE_BAND_PX of a depth discontinuity (VGGT is least sure at edges). */
export const CONF_EDGE_PENALTY = 0.8;
/** Half-width (px) of the edge band the confidence penalises. */
export const CONF_EDGE_BAND_PX = 2;
/** L penalty per metre of depth (far pixels are less certain). */
export const CONF_DEPTH_PENALTY_PER_M = 0.15;
/** Pixels darker than this luma (0..255) are penalised, linearly up to CONF_DARK_PENALTY at black. */
export const CONF_DARK_LUMA = 50;
export const CONF_DARK_PENALTY = 1.5;
/** Mean absolute luma gradient (grey levels / px) in a (2r+1)² window below which a pixel counts as textureless... */
export const CONF_TEXTURE_GRAD = 4;
/** ...with r = this radius (px)... */
export const CONF_TEXTURE_RADIUS_PX = 3;
/** ...penalised linearly up to this at zero gradient. */
export const CONF_TEXTURELESS_PENALTY = 0.5;
/** L penalty on transparent objects (task objects with `transparent: true`): glass is VGGT's worst case. */
export const CONF_GLASS_PENALTY = 1.5;
/** Std of per-pixel log-normal jitter of the confidence (VGGT's confidence is noisy, not a clean function of these cues). */
export const CONF_JITTER_STD = 0.7;

/** A blob floats between this fraction of blobOffsetM and blobOffsetM in front of the nearest surface of its patch. */
export const BLOB_OFFSET_MIN_FRACTION = 0.5;
/** Half-range of the per-point depth jitter in a blob, as a fraction of its lateral size (so blobs are clusters, not flat sheets); capped at half the blob's offset. */
export const BLOB_JITTER_RATIO = 0.25;
/** Blobs are never placed closer to the camera than this (m). */
export const BLOB_MIN_DEPTH_M = 0.2;
/** Seeds tried per blob before giving up (a patch needs valid depth on all its pixels and no other blob). */
export const BLOB_SEED_ATTEMPTS = 30;

// ---------------------------------------------------------------- resolving the effective parameters

function checkNumber(name: string, v: unknown, max?: number, integer = false): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw new InputError(`noise: ${name} must be a finite number ≥ 0, not ${String(v)}`);
  if (max !== undefined && v > max) throw new InputError(`noise: ${name} must be at most ${max}, not ${v}`);
  if (integer && !Number.isInteger(v)) throw new InputError(`noise: ${name} must be a whole number, not ${v}`);
  return v;
}

/** The effective parameters: the preset with overrides, amplitudes × level, components not listed at zero amplitude. */
export function resolveNoiseParams(opts: NoiseOptions): NoiseParams {
  const level = checkNumber("level", opts.level, 1);
  const presetName = opts.preset ?? "vggt-like";
  const preset = PRESETS[presetName];
  if (!preset) throw new InputError(`noise: unknown preset "${String(presetName)}" (known: ${Object.keys(PRESETS).join(", ")})`);
  const components = new Set<NoiseComponent>(opts.components ?? NOISE_COMPONENTS);
  for (const c of components) if (!NOISE_COMPONENTS.includes(c)) throw new InputError(`noise: unknown component "${String(c)}" (known: ${NOISE_COMPONENTS.join(", ")})`);
  const out = { ...preset } as NoiseParams;
  for (const [k, v] of Object.entries(opts.overrides ?? {})) {
    if (!(k in PARAM_INFO)) throw new InputError(`noise: unknown parameter "${k}" in overrides (known: ${Object.keys(PARAM_INFO).join(", ")})`);
    if (v === undefined) continue;
    const key = k as keyof NoiseParams;
    out[key] = checkNumber(k, v, PARAM_INFO[key].max, INTEGER_PARAMS.has(key));
  }
  for (const key of Object.keys(PARAM_INFO) as (keyof NoiseParams)[]) {
    const info = PARAM_INFO[key];
    if (!info.amplitude) continue;
    out[key] = components.has(info.component) ? out[key] * level : 0;
  }
  if (out.blobPoints < 1) out.blobsPerView = 0;
  return out;
}

/** Components with a non-zero amplitude under these effective parameters. */
export function activeComponents(p: NoiseParams): NoiseComponent[] {
  const on = new Set<NoiseComponent>();
  for (const key of Object.keys(PARAM_INFO) as (keyof NoiseParams)[]) {
    const info = PARAM_INFO[key];
    if (info.amplitude && p[key] > 0) on.add(info.component);
  }
  return NOISE_COMPONENTS.filter((c) => on.has(c));
}
