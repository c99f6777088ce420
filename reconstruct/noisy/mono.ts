/**
 * The `mono` component: the depth and shape error of one view seen on its own, as a monocular network
 * makes it. Two parts, both per view and both left in place by a per-view scale alignment:
 *
 *   d ← d · (1 + monoShapeRel · f(x, y)) · (g / m)^γ
 *
 * - f: a smooth zero-mean unit-RMS field (filters.smoothUnitField, monoGridCells cells across the width)
 *   given heavy tails (filters.heavyTail, power monoShapeTail): surfaces bend and objects lean, by
 *   monoShapeRel RMS of their depth, most regions a little and a few a lot;
 * - γ ~ N(0, monoReliefStd): a depth-dependent stretch (γ > 0) or flattening (γ < 0) of the view's relief
 *   about its median true depth m (g: the true depth), the distortion left by the affine (scale and shift)
 *   ambiguity of monocular depth (Ranftl et al., TPAMI 2022).
 */
import type { ViewData } from "../../core/bundle/io.js";
import type { Rng } from "../../core/math/rng.js";
import { heavyTail, isValid, kthSmallestValid, scaled, smoothUnitField, type FieldScale } from "./filters.js";
import { NOISY_DEPTH_MIN_RATIO, type NoiseParams } from "./params.js";

export interface MonoRecord {
  view: number;
  /** Relief exponent γ. */
  gamma: number;
  /** Median true depth (m) the relief is taken about. */
  medianM: number;
}

/** Median of the valid depths of a view (0 when it has none): two order statistics, not a sort. */
export function medianDepth(depth: Float32Array): number {
  let n = 0;
  for (let q = 0; q < depth.length; q++) if (isValid(depth[q]!)) n++;
  if (n === 0) return 0;
  const m = n >> 1;
  if (n % 2) return kthSmallestValid(depth, [m])[0]!;
  const [a, b] = kthSmallestValid(depth, [m - 1, m]);
  return (a! + b!) / 2;
}

/**
 * The view's shape field into `field`: smooth, zero-mean, unit-RMS, heavy-tailed (level-free), stored under
 * the FieldScale returned (filters.scaled gives a pixel's value).
 */
export function monoField(rng: Rng, W: number, H: number, p: NoiseParams, field: Float32Array): FieldScale {
  return heavyTail(field, smoothUnitField(rng, W, H, p.monoGridCells, field), p.monoShapeTail);
}

/**
 * Applies the component in place to `d` (the view's depth so far; pixels without true depth are left):
 * d ← d · max(NOISY_DEPTH_MIN_RATIO, (1 + monoShapeRel·field) · (g/m)^γ). `field` is monoField's (null when
 * monoShapeRel is 0: its stored values and scale), γ the view's relief exponent, m its median true depth. With `need`, only the pixels
 * where it is set (the cloud reads no others).
 */
export function applyMono(
  v: ViewData,
  p: NoiseParams,
  field: { stored: Float32Array; scale: FieldScale } | null,
  gamma: number,
  d: Float32Array,
  medianM: number,
  need: Uint8Array | null = null,
): MonoRecord {
  const { width: W, height: H, depth: g } = v;
  const shape = field ? p.monoShapeRel : 0;
  const logM = Math.log(medianM);
  for (let q = 0; q < W * H; q++) {
    const t = g[q]!;
    if (!isValid(t) || (need && !need[q])) continue;
    const relief = gamma !== 0 ? Math.exp(gamma * (Math.log(t) - logM)) : 1;
    const f = shape > 0 ? 1 + shape * scaled(field!.stored[q]!, field!.scale) : 1;
    d[q] = d[q]! * Math.max(NOISY_DEPTH_MIN_RATIO, f * relief);
  }
  return { view: v.index, gamma, medianM };
}
