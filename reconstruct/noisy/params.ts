/**
 * Parameters of the `noisy` point-cloud source: the `vggt-like` preset at level 1, how `level`,
 * `components` and `overrides` combine into the effective parameters, and every threshold of the model
 * as a named constant. docs/noise-model.md has the same table with the reasoning behind each value.
 *
 * Two kinds of parameter:
 * - amplitudes (how much error): scaled by `level` (linearly, or compounded for fractions, see
 *   ParamScaling), zero at level 0 and for a component that is not listed in `components`. Level 0
 *   therefore always reproduces the `gt` source exactly.
 * - shapes (what the error looks like: a correlation length, a band width, a blob size): not scaled by
 *   level; they only matter when the component's amplitude is non-zero.
 */
import * as z from "zod";
import { InputError } from "../../core/errors.js";

import type { ViewData } from "../../core/bundle/io.js";

export const NOISE_COMPONENTS = ["depth", "pose", "flying", "dropout", "blobs", "mono", "warp", "drift", "scale", "textureless", "labels", "mirror"] as const;
export type NoiseComponent = (typeof NOISE_COMPONENTS)[number];
type NoisePreset = "vggt-like";

/**
 * Highest accepted `level`. Level 1 is the preset; the scale reaches past it so an ablation can sweep to
 * at least twice VGGT's published errors (docs/noise-model.md, "The scale and vggt-typical").
 */
export const MAX_NOISE_LEVEL = 3;

/**
 * The level whose measured error statistics best match VGGT's published indoor figures
 * (`npm run bench -- noiseCalibration`, docs/noise-model.md): the default `--noise-level` and the level the
 * ablation marks `vggt-typical`.
 */
export const VGGT_TYPICAL_LEVEL = 1.25;

export interface NoiseParams {
  // ---- depth
  /** Amplitude. Per-pixel depth noise std as a fraction of the depth: σ(d) = depthNoiseRel · d. */
  depthNoiseRel: number;
  /** Shape (px). Radius of the box filter (applied twice) that correlates the per-pixel noise; 0 = white. */
  depthNoiseCorrPx: number;
  /** Amplitude. Std of each coefficient of the per-view low-frequency depth-scale field (tilt x, tilt y, bowl), as a fraction of depth at the image border. */
  depthLowFreqRel: number;
  // ---- pose (independent per view)
  /** Amplitude (degrees). RMS rotation error of each perturbed view, about its camera centre. */
  poseRotDeg: number;
  /** Amplitude (metres). RMS camera-centre error of each perturbed view. */
  poseTransM: number;
  // ---- flying pixels
  /** Fraction amplitude (0..1). Share of the pixels in the depth-edge band that become flying pixels. */
  flyingFraction: number;
  /** Shape (px). Half-width of the band around a depth discontinuity where flying pixels occur. */
  flyingBandPx: number;
  // ---- confidence and dropout
  /** Fraction amplitude (0..1). Share of all points, lowest synthetic confidence first, that are removed. 0 also switches the synthetic confidence off (confidence 1, as gt). */
  dropoutFraction: number;
  // ---- spurious blobs
  /** Amplitude (blobs per view, expected). floor(λ) blobs per view plus one more with probability frac(λ). */
  blobsPerView: number;
  /** Shape (points). Points per blob (a square image patch of about this many pixels). */
  blobPoints: number;
  /** Shape (metres). Largest distance a blob floats in front of the surface it came from; each blob draws U[BLOB_OFFSET_MIN_FRACTION, 1] of it. */
  blobOffsetM: number;
  // ---- mono: single-view depth and shape error
  /** Amplitude. RMS of a smooth per-view multiplicative shape field (fraction of depth), interpolated from a coarse grid of independent normals. */
  monoShapeRel: number;
  /** Shape (cells). Cells of that grid across the image width (rows in proportion): the field's wavelength is about W / monoGridCells. */
  monoGridCells: number;
  /** Shape (power ≥ 1). Tail of the shape field: f ← sign(f)·|f|^power, renormalised (1 = Gaussian; larger = most pixels nearly right, a few regions far off). */
  monoShapeTail: number;
  /** Amplitude. Std of the per-view relief exponent γ: d ← d · (d / median d)^γ, a depth-dependent stretch or flattening that no scale alignment removes. */
  monoReliefStd: number;
  // ---- warp: a shape error every view agrees on
  /** Amplitude (metres). RMS depth displacement of a smooth field over the room's world points, the same for every view. */
  warpM: number;
  /** Shape (metres). Wavelength of that field. */
  warpWavelengthM: number;
  /** Shape (waves). Random Fourier waves summed into it. */
  warpWaves: number;
  // ---- drift: pose error correlated along the trajectory
  /** Amplitude (degrees). RMS rotation error of each step between consecutive views, accumulated along the trajectory (a random walk). */
  driftRotDeg: number;
  /** Amplitude (metres). RMS translation error of each step between consecutive views, accumulated the same way. */
  driftTransM: number;
  // ---- scale: per-view depth-scale inconsistency
  /** Amplitude. Std of the log of each view's depth scale (every view, view 0 included): the scale of a view's depth against its camera, which a Sim(3) to the cameras cannot see. */
  viewScaleRel: number;
  // ---- textureless: depth collapse on surfaces without texture
  /** Fraction amplitude (0..1). Weight of the collapse (depth pulled to its wide local average, plus the bias field) deep inside a textureless region. */
  texturelessCollapse: number;
  /** Amplitude. RMS of a smooth per-view relative depth bias applied to textureless regions (weighted by the collapse). */
  texturelessBiasRel: number;
  /** Shape (px). Radius of the depth average a collapsed pixel is pulled to (a box, applied twice). */
  texturelessRadiusPx: number;
  /** Shape (px). Distance from the nearest image edge (luma gradient ≥ TEXTURE_EDGE_GRAD) at which collapse starts; it is full at twice this distance. */
  texturelessEdgePx: number;
  // ---- labels: mask-label corruption of fragments
  /** Fraction amplitude (0..1). Probability that an object's mask fragment in one view gets another category. */
  labelSwapRate: number;
  /** Shape (fraction 0..1). Share of those swaps that go to a look-alike (the category's confusables, core/objects/library.ts) rather than a random library category. */
  labelLookalikeShare: number;
  /** Amplitude (fragments per view, expected). Patches of floor or wall given an object's label: floor(λ) per view plus one with probability frac(λ). */
  labelPhantomsPerView: number;
  /** Shape (px). Pixels per phantom patch (a square). */
  labelPhantomPx: number;
  // ---- mirror: reflections reconstructed as geometry behind the mirror
  /** Fraction amplitude (0..1). How far a mirror pixel's depth moves from the mirror's surface towards the reflected path's depth (its mirror image, behind the mirror): 1 = all the way. */
  mirrorDepthShare: number;
}

/**
 * The noisy source's options (docs/noise-model.md), declared once: CLI flags, a run's `noise` object, `esi3d graph`
 * and the service's bodies derive from this schema, and the error model takes its output as it is (`noiseLevel`
 * is the level that scales the preset, checked here and nowhere else).
 */
export const NoiseOptionsSchema = z
  .object({
    noiseLevel: z
      .number()
      .min(0)
      .max(MAX_NOISE_LEVEL)
      .default(VGGT_TYPICAL_LEVEL)
      .describe(
        `noisy: error level 0..${MAX_NOISE_LEVEL} scaling the vggt-like preset (0 = gt exactly; ${VGGT_TYPICAL_LEVEL} = vggt-typical: VGGT's published indoor errors, docs/noise-model.md)`,
      ),
    noiseSeed: z.string().min(1).max(200).default("0").describe("noisy: seed of the error model"),
    noiseComponents: z
      .array(z.enum(NOISE_COMPONENTS))
      .min(1)
      .default([...NOISE_COMPONENTS])
      .describe(`noisy: error components switched on (${NOISE_COMPONENTS.join(", ")})`),
  })
  .strict();
export type NoiseSettings = z.infer<typeof NoiseOptionsSchema>;

/** What the error model is given: the schema's options (components default to all) and how to build the cloud. */
export interface NoiseOptions extends Pick<NoiseSettings, "noiseLevel" | "noiseSeed">, Partial<Pick<NoiseSettings, "noiseComponents">> {
  preset?: NoisePreset;
  /**
   * Leave out points whose pixel has one of these instance ids (room structure, when only objects
   * matter). The error model still runs on every pixel; only the back-projection skips them (except the
   * pixels of phantom label patches, which are objects to the graph builder).
   */
  excludeIds?: ReadonlySet<number>;
  /** Reusable storage for the back-projection (see reconstruct/pointcloud.ts CloudArena). */
  arena?: import("../pointcloud.js").CloudArena;
  /** Replace preset values (the level-1 values) before `level` scales the amplitudes; shapes are used as given. */
  overrides?: Partial<NoiseParams>;
  /**
   * The trajectory the bundle's views belong to, in capture order, ending with them (default: the bundle's
   * own views). `drift` accumulates and is aligned along it, so a memory that lifts one view at a time
   * gives that view the pose error it has after every view so far.
   */
  trajectory?: readonly ViewData[];
}

/**
 * How `level` acts on a parameter:
 * - linear: amplitude × level;
 * - fraction: a probability or share p, compounded as 1 − (1 − p)^level (p at level 1, 0 at level 0,
 *   growing with level and never reaching 1, so level 2 drops 75 % where level 1 drops 50 %);
 * - shape: not scaled.
 */
type ParamScaling = "linear" | "fraction" | "shape";

/** Which component each parameter belongs to, how `level` scales it, its unit and largest accepted value. */
const PARAM_INFO: Record<keyof NoiseParams, { component: NoiseComponent; scaling: ParamScaling; unit: string; min?: number; max?: number; integer?: true }> = {
  depthNoiseRel: { component: "depth", scaling: "linear", unit: "fraction of depth", max: 1 },
  depthNoiseCorrPx: { component: "depth", scaling: "shape", unit: "px", integer: true },
  depthLowFreqRel: { component: "depth", scaling: "linear", unit: "fraction of depth", max: 1 },
  poseRotDeg: { component: "pose", scaling: "linear", unit: "deg", max: 180 },
  poseTransM: { component: "pose", scaling: "linear", unit: "m" },
  flyingFraction: { component: "flying", scaling: "fraction", unit: "fraction", max: 1 },
  flyingBandPx: { component: "flying", scaling: "shape", unit: "px", integer: true },
  dropoutFraction: { component: "dropout", scaling: "fraction", unit: "fraction", max: 1 },
  blobsPerView: { component: "blobs", scaling: "linear", unit: "blobs/view" },
  blobPoints: { component: "blobs", scaling: "shape", unit: "points", integer: true },
  blobOffsetM: { component: "blobs", scaling: "shape", unit: "m" },
  monoShapeRel: { component: "mono", scaling: "linear", unit: "fraction of depth", max: 1 },
  monoGridCells: { component: "mono", scaling: "shape", unit: "cells", max: 64, integer: true },
  monoShapeTail: { component: "mono", scaling: "shape", unit: "power", min: 1, max: 8 },
  monoReliefStd: { component: "mono", scaling: "linear", unit: "exponent", max: 1 },
  warpM: { component: "warp", scaling: "linear", unit: "m", max: 10 },
  warpWavelengthM: { component: "warp", scaling: "shape", unit: "m", min: 0.01, max: 100 },
  warpWaves: { component: "warp", scaling: "shape", unit: "waves", min: 1, max: 256, integer: true },
  driftRotDeg: { component: "drift", scaling: "linear", unit: "deg/step", max: 45 },
  driftTransM: { component: "drift", scaling: "linear", unit: "m/step" },
  viewScaleRel: { component: "scale", scaling: "linear", unit: "log scale", max: 1 },
  texturelessCollapse: { component: "textureless", scaling: "fraction", unit: "fraction", max: 1 },
  texturelessBiasRel: { component: "textureless", scaling: "linear", unit: "fraction of depth", max: 1 },
  texturelessRadiusPx: { component: "textureless", scaling: "shape", unit: "px", max: 256, integer: true },
  texturelessEdgePx: { component: "textureless", scaling: "shape", unit: "px", max: 256, integer: true },
  labelSwapRate: { component: "labels", scaling: "fraction", unit: "fraction", max: 1 },
  labelLookalikeShare: { component: "labels", scaling: "shape", unit: "fraction", max: 1 },
  labelPhantomsPerView: { component: "labels", scaling: "linear", unit: "patches/view" },
  labelPhantomPx: { component: "labels", scaling: "shape", unit: "px", max: 65536, integer: true },
  mirrorDepthShare: { component: "mirror", scaling: "fraction", unit: "fraction", max: 1 },
};

/**
 * The `vggt-like` preset at level 1, for ~1–5 m indoor scenes (metric, after the Sim(3) alignment to the
 * known cameras that the `vggt` source does). The amplitudes were set so that the error statistics the
 * bench measures (bench/noiseCalibration.ts: AbsRel, δ<1.25, ATE, AUC@30, point-map accuracy and
 * completeness) land on VGGT's published indoor figures (docs/noise-model.md); the reasoning per value is
 * in the comments.
 */
const VGGT_LIKE_PRESET: Readonly<NoiseParams> = Object.freeze({
  // Feed-forward depth errors are roughly proportional to depth (the benchmarks report AbsRel, a relative
  // error). 0.5 % is fine bumpiness (2.5 mm at 0.5 m, 1.5 cm at 3 m); the larger, smoother errors belong to
  // mono and warp (calibrated against VGGT's AbsRel and point-map accuracy in the bench).
  depthNoiseRel: 0.005,
  // VGGT's DPT head predicts at 1/14 patch resolution and upsamples, so its errors are smooth over a few
  // pixels (bumpy surfaces, not per-pixel salt). Two passes of a radius-2 box ≈ Gaussian σ 2 px.
  depthNoiseCorrPx: 2,
  // Planes slightly tilted or bent within one view: 1 % of depth at the image border (5 cm at 5 m). Our
  // calibration, part of the per-view AbsRel budget.
  depthLowFreqRel: 0.01,
  // Independent per-view pose error on top of drift: VGGT's relative rotation error between consecutive
  // ScanNet frames is 0.38° (π³ Table 2); 0.4° RMS with the drift's 0.25° per step puts the pairwise AUC@30
  // in the range of VGGT's (85.3 on RealEstate10K, VGGT Table 1; measured in the bench).
  poseRotDeg: 0.4,
  // Camera-centre jitter of 1.5 cm RMS, which with the drift gives an ATE near VGGT's 0.035 m on ScanNet
  // (π³ Table 2; measured in the bench).
  poseTransM: 0.015,
  // DPT-style heads interpolate across depth discontinuities: a large share of the pixels right at an
  // edge land between foreground and background (our calibration: half of the band).
  flyingFraction: 0.5,
  // The smear spans a few pixels on each side of an edge (≈ the 14-px patch upsampled ×14 with a smooth
  // kernel, seen at 518 px width): 2 px each side.
  flyingBandPx: 2,
  // VGGT's demo (demo_gradio.py) and our `vggt` source drop the lowest 50 % of depth confidences by
  // default (VggtOptionsSchema's confPercentile); level 0.5 gives Viser's default of 25 %.
  dropoutFraction: 0.5,
  // Occasional spurious clusters (hallucination seeds): about one every three views (our calibration).
  blobsPerView: 0.3,
  // Big enough to survive a ConceptGraphs-style pipeline as an object proposal (2.5 cm voxels, DBSCAN
  // min_points 10, min_points_threshold 16): 150 pixels ≈ a 12×13 patch, ~10 cm
  // across at 3 m, ~30 voxels with its depth jitter.
  blobPoints: 150,
  // Far enough off the surface to be a separate cluster for DBSCAN eps 0.05–0.1 m: 15–30 cm.
  blobOffsetM: 0.3,
  // Single-view shape error (docs/noise-model.md, "mono"): calibrated in the bench against VGGT's
  // single-image depth error on NYU-v2 (AbsRel 0.056, δ<1.25 0.951, π³ Table 6).
  monoShapeRel: 0.04,
  // About a 130 px wavelength at 518 px: smooth over objects, varying across the room (a monocular
  // network's errors follow scene layout, not pixels; our choice of shape).
  monoGridCells: 4,
  // VGGT's NYU-v2 errors are heavy-tailed: AbsRel 0.056 with δ<1.25 at 0.951 (π³ Table 6) means ~5 % of
  // pixels are off by more than 25 %, while a Gaussian error of that AbsRel leaves under 0.1 % there.
  // Power 3 makes the field's tail match (filters.heavyTail).
  monoShapeTail: 3,
  // The affine ambiguity of monocular depth (Ranftl et al., MiDaS, TPAMI 2022) leaves a depth-dependent
  // distortion that scale alignment cannot remove; π³ Table 5 shows VGGT's error falling from 0.299 to 0.230
  // (Sintel) when a shift is also fitted. Calibrated in the bench.
  monoReliefStd: 0.05,
  // A shape error shared by all views (docs/noise-model.md, "warp"): calibrated in the bench against
  // VGGT's point-map completeness on 7-Scenes / NRGBD (π³ Table 4). The wavelength is our choice: about the
  // size of a piece of furniture, so objects shift and tilt rather than crumple.
  warpM: 0.03,
  warpWavelengthM: 1.5,
  warpWaves: 8,
  // Relative pose error between consecutive frames, accumulated: VGGT's RPE on ScanNet is 0.382° and
  // 0.015 m against an ATE of 0.035 m (π³ Table 2). Calibrated in the bench (our views are farther apart
  // than ScanNet's frames).
  driftRotDeg: 0.25,
  driftTransM: 0.015,
  // Per-view depth-scale inconsistency: no published figure isolates it; calibrated in the bench so
  // depth error in the pipeline's frame (one Sim(3) for the scene) stays near VGGT's per-sequence-aligned
  // video depth error (Bonn AbsRel 0.057, π³ Table 5).
  viewScaleRel: 0.02,
  // Textureless-surface collapse (docs/noise-model.md, "textureless"): our calibration.
  texturelessCollapse: 0.5,
  texturelessBiasRel: 0.02,
  texturelessRadiusPx: 16,
  texturelessEdgePx: 12,
  // Label corruption of mask fragments (docs/noise-model.md, "labels"): no published rate for a
  // VGGT + open-vocabulary-segmenter pipeline; our calibration, reported with node label accuracy.
  labelSwapRate: 0.03,
  labelLookalikeShare: 0.7,
  labelPhantomsPerView: 0.05,
  labelPhantomPx: 400,
  // A multi-view network matches what a mirror shows across views as it matches any surface: the reflection
  // moves with the camera as a scene behind the glass would, so triangulation and learned depth put it at its
  // mirror image, the reflected path's length behind the mirror (docs/noise-model.md, "mirror"). Nothing in an
  // RGB view says where the glass is, so all the way.
  mirrorDepthShare: 1,
});

const PRESETS: Record<NoisePreset, Readonly<NoiseParams>> = { "vggt-like": VGGT_LIKE_PRESET };

// ---------------------------------------------------------------- thresholds of the model

/** Noisy depth is clamped to at least this fraction of the true depth (guards against ≤ 0 depth under large overrides). */
export const NOISY_DEPTH_MIN_RATIO = 0.1;
/** View whose camera is never perturbed: VGGT's reference frame is view 0 (its extrinsic is the identity by construction, VGGT's source). */
export const POSE_ANCHOR_VIEW = 0;

/**
 * Two neighbouring pixels form a depth discontinuity when their depths differ by more than this fraction of
 * the nearer one... (read on the true depth. A 1-px step along the floor is ~1 % of depth at 5 m for a
 * camera 1.5 m high with the 70° built-in camera (f ≈ 370 px); object silhouettes against the room are
 * far above. For comparison, Pi3's demo drops depth-edge pixels at rtol 0.03.)
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

/**
 * A pixel is an image edge for the textureless component when its luma gradient (|∂x| + |∂y|, grey levels
 * per pixel) is at least this: the confidence's texture threshold (CONF_TEXTURE_GRAD), on the raw gradient.
 */
export const TEXTURE_EDGE_GRAD = 4;
/**
 * Warp: the smallest |ray · normal| the depth change is divided by (≈ 70°). A surface seen at a grazing
 * angle, or a pixel at a depth edge, would otherwise get an unbounded depth change for a small normal shift.
 */
export const WARP_MIN_COS = 0.35;
/** Cells across the width of the textureless bias field (a few regions per view, each biased its own way). */
export const TEXTURELESS_BIAS_CELLS = 3;

/**
 * Label corruption: fake instance ids for relabelled fragments start here (reconstruct/noisy/labels.ts);
 * a bundle whose own ids reach this range cannot take label corruption.
 */
export const FAKE_LABEL_ID_BASE = 60000;

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

/** The effective value of a parameter at `level` (see ParamScaling). */
function scaleByLevel(scaling: ParamScaling, v: number, level: number): number {
  if (scaling === "linear") return v * level;
  // level 1 returns p itself (1 − (1 − p) can differ from p in the last bit)
  if (scaling === "fraction") return level === 0 ? 0 : level === 1 ? v : 1 - Math.pow(1 - v, level);
  return v;
}

/** The effective parameters: the preset with overrides, amplitudes scaled by level, components not listed at zero amplitude. */
export function resolveNoiseParams(opts: NoiseOptions): NoiseParams {
  const presetName = opts.preset ?? "vggt-like";
  const preset = PRESETS[presetName];
  if (!preset) throw new InputError(`noise: unknown preset "${String(presetName)}" (known: ${Object.keys(PRESETS).join(", ")})`);
  const components = new Set<NoiseComponent>(opts.noiseComponents ?? NOISE_COMPONENTS);
  const out = { ...preset } as NoiseParams;
  for (const [k, v] of Object.entries(opts.overrides ?? {})) {
    if (!(k in PARAM_INFO)) throw new InputError(`noise: unknown parameter "${k}" in overrides (known: ${Object.keys(PARAM_INFO).join(", ")})`);
    if (v === undefined) continue;
    const key = k as keyof NoiseParams;
    out[key] = checkNumber(k, v, PARAM_INFO[key].max, PARAM_INFO[key].integer === true);
    const min = PARAM_INFO[key].min;
    if (min !== undefined && out[key] < min) throw new InputError(`noise: ${k} must be at least ${min}, not ${out[key]}`);
  }
  for (const key of Object.keys(PARAM_INFO) as (keyof NoiseParams)[]) {
    const info = PARAM_INFO[key];
    if (info.scaling === "shape") continue;
    out[key] = components.has(info.component) ? scaleByLevel(info.scaling, out[key], opts.noiseLevel) : 0;
  }
  if (out.blobPoints < 1) out.blobsPerView = 0;
  if (out.labelPhantomPx < 1) out.labelPhantomsPerView = 0;
  return out;
}

/** Components with a non-zero amplitude under these effective parameters. */
export function activeComponents(p: NoiseParams): NoiseComponent[] {
  const on = new Set<NoiseComponent>();
  for (const key of Object.keys(PARAM_INFO) as (keyof NoiseParams)[]) {
    const info = PARAM_INFO[key];
    if (info.scaling !== "shape" && p[key] > 0) on.add(info.component);
  }
  return NOISE_COMPONENTS.filter((c) => on.has(c));
}
