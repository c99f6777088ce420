/**
 * A synthetic, VGGT-like per-pixel confidence: conf = 1 + exp(L), VGGT's own activation for depth_conf
 * (VGGT's source), so conf ≥ 1 and an easy pixel sits near 1 + e^CONF_LOG_BASE ≈ 21.
 *
 *   L = CONF_LOG_BASE − CONF_EDGE_PENALTY·[within CONF_EDGE_BAND_PX of a depth discontinuity]
 *       − CONF_DEPTH_PENALTY_PER_M·depth − CONF_DARK_PENALTY·max(0, 1 − luma / CONF_DARK_LUMA)
 *       − CONF_TEXTURELESS_PENALTY·max(0, 1 − gradient / CONF_TEXTURE_GRAD) − CONF_GLASS_PENALTY·[transparent object]
 *       + CONF_JITTER_STD·N(0, 1)
 *
 * Every cue is read from the ground-truth view (depth, RGB, instance ids) and the task record (which
 * objects are transparent), so the confidence does not depend on which other noise components run.
 */
import type { ViewData } from "../../core/bundle/io.js";
import type { Rng } from "../../core/math/rng.js";
import { boxMean, dilate, fillNormals, lumaGradient } from "./filters.js";
import {
  CONF_DARK_LUMA,
  CONF_DARK_PENALTY,
  CONF_DEPTH_PENALTY_PER_M,
  CONF_EDGE_BAND_PX,
  CONF_EDGE_PENALTY,
  CONF_GLASS_PENALTY,
  CONF_JITTER_STD,
  CONF_LOG_BASE,
  CONF_TEXTURE_GRAD,
  CONF_TEXTURE_RADIUS_PX,
  CONF_TEXTURELESS_PENALTY,
} from "./params.js";

export interface ConfidenceScratch {
  luma: Float32Array;
  grad: Float32Array;
  /** After viewConfidence: the view's lumaGradient (the textureless maps reuse it). */
  tmp: Float32Array;
  band: Uint8Array;
  bandTmp: Uint8Array;
  jitter: Float32Array;
}

export function confidenceScratch(n: number): ConfidenceScratch {
  return {
    luma: new Float32Array(n),
    grad: new Float32Array(n),
    tmp: new Float32Array(n),
    band: new Uint8Array(n),
    bandTmp: new Uint8Array(n),
    jitter: new Float32Array(n),
  };
}

/**
 * Log-confidence L of every pixel of one view (NaN where the view has no depth): the pixel's confidence is
 * confidenceOfLog(L). `disc` is the view's depth discontinuity mask (filters.depthDiscontinuities of its
 * ground-truth depth); `transparent[id]` is 1 for the instance ids of transparent objects (65536 entries),
 * null when the task has none (the loop then reads no ids).
 * The dropout ranks pixels by L and takes exp only where a confidence is kept (dropout.ts).
 */
export function viewLogConfidence(v: ViewData, disc: Uint8Array, transparent: Uint8Array | null, rng: Rng, s: ConfidenceScratch, out: Float64Array): void {
  const { width: W, height: H, depth, rgb, ids } = v;
  const N = W * H;
  const { luma, grad, tmp, band, bandTmp, jitter } = s;
  lumaGradient(rgb, W, H, luma, tmp);
  boxMean(tmp, W, H, CONF_TEXTURE_RADIUS_PX, grad, jitter);
  dilate(disc, W, H, CONF_EDGE_BAND_PX, band, bandTmp);
  fillNormals(rng, jitter, N);
  logConfidences(depth, ids, luma, grad, band, jitter, transparent, out);
}

/**
 * 1 / CONF_TEXTURE_GRAD. CONF_TEXTURE_GRAD is a power of two (test/reconstruct/noisyFilters.test.ts holds it
 * to one), so g · TEXTURE_GRAD_INV is exactly g / CONF_TEXTURE_GRAD: a multiplication where 94 % of a
 * bundle's pixels paid a division.
 */
const TEXTURE_GRAD_INV = 1 / CONF_TEXTURE_GRAD;

/**
 * L of every pixel from its cues (viewLogConfidence's loop, in a function of its own: docs/design.md, hot
 * loops and the JIT). The constants are read into locals first: V8 loads an imported binding again at every
 * use. isValid is written out (its call was not always inlined here), and the glass penalty is a pass of its
 * own that a task without glass skips: subtracting it after the store is the same double (NaN stays NaN),
 * and the main loop has no test of `transparent` per pixel. 0.53 instead of 0.58 ms per view.
 */
function logConfidences(
  depth: Float32Array,
  ids: Uint16Array,
  luma: Float32Array,
  grad: Float32Array,
  band: Uint8Array,
  jitter: Float32Array,
  transparent: Uint8Array | null,
  out: Float64Array,
): void {
  const base = CONF_LOG_BASE,
    perMetre = CONF_DEPTH_PENALTY_PER_M,
    jitterStd = CONF_JITTER_STD,
    edge = CONF_EDGE_PENALTY;
  const darkLuma = CONF_DARK_LUMA,
    dark = CONF_DARK_PENALTY,
    textureGrad = CONF_TEXTURE_GRAD,
    textureless = CONF_TEXTURELESS_PENALTY;
  const textureGradInv = TEXTURE_GRAD_INV,
    glass = CONF_GLASS_PENALTY,
    maxDepth = Number.MAX_VALUE;
  const n = depth.length;
  for (let p = 0; p < n; p++) {
    const d = depth[p]!;
    if (!(d > 0 && d <= maxDepth)) {
      out[p] = NaN;
      continue;
    }
    let L = base - perMetre * d + jitterStd * jitter[p]!;
    if (band[p] !== 0) L -= edge;
    const Y = luma[p]!;
    if (Y < darkLuma) L -= dark * (1 - Y / darkLuma);
    const g = grad[p]!;
    if (g < textureGrad) L -= textureless * (1 - g * textureGradInv);
    out[p] = L;
  }
  if (transparent !== null) for (let p = 0; p < n; p++) if (transparent[ids[p]!]) out[p] = out[p]! - glass;
}

/** The confidence of a log-confidence, before its float32 store (VGGT's activation). */
export const confidenceOfLog = (L: number): number => 1 + Math.exp(L);

/**
 * Confidence of every pixel of one view (0 where the view has no depth), as float32: viewLogConfidence's
 * L through confidenceOfLog. `logScratch` holds the view's L.
 */
export function viewConfidence(
  v: ViewData,
  disc: Uint8Array,
  transparent: Uint8Array | null,
  rng: Rng,
  s: ConfidenceScratch,
  out: Float32Array,
  logScratch = new Float64Array(v.width * v.height),
): void {
  viewLogConfidence(v, disc, transparent, rng, s, logScratch);
  for (let p = 0; p < out.length; p++) {
    const L = logScratch[p]!;
    out[p] = L === L ? confidenceOfLog(L) : 0;
  }
}
