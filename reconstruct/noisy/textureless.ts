/**
 * The `textureless` component: depth collapse on surfaces without texture. Where an image region has no
 * texture a network has nothing to match or recognise, so its depth there is filled in from context:
 * smoothed towards the region's surroundings and shifted as a whole (walls bulge, uniform objects lose
 * their relief). Per view:
 *
 *   w = texturelessCollapse · clamp((e − E) / E, 0, 1)    e: distance (px) to the nearest image edge
 *   d ← d + w · (S(g) − g) + w · texturelessBiasRel · b(x, y) · g
 *
 * - an image edge is a pixel whose luma gradient is at least TEXTURE_EDGE_GRAD; E = texturelessEdgePx, so
 *   collapse starts E pixels inside a uniform region and is full at 2E;
 * - S(g): the true depth averaged over a (2R+1)² box twice (R = texturelessRadiusPx): planes stay planes,
 *   relief is flattened;
 * - b: a smooth zero-mean unit-RMS field (TEXTURELESS_BIAS_CELLS cells across), so different regions are
 *   biased differently.
 * Only the true view (its RGB and depth) decides where and how much; the cached maps depend on nothing
 * else (common random numbers across levels).
 */
import type { ViewData } from "../../core/bundle/io.js";
import type { Rng } from "../../core/math/rng.js";
import { chamferDistance, isValid, lumaGradient, scaled, smoothUnitField, validDepthSmooth, type FieldScale, type FieldScratch } from "./filters.js";
import { NOISY_DEPTH_MIN_RATIO, TEXTURE_EDGE_GRAD, TEXTURELESS_BIAS_CELLS, type NoiseParams } from "./params.js";

/** Level-free maps of one view: distance to the nearest edge, and the smoothed true depth. */
export interface TexturelessMaps {
  edgeDistance: Float32Array;
  smooth: Float32Array;
}

/**
 * The maps of a view, into `out` when given (fresh arrays otherwise). `gradient`: the view's lumaGradient
 * when the caller has it already (the confidence computes the same one).
 */
export function texturelessMaps(v: ViewData, radiusPx: number, scratch: FieldScratch, out?: TexturelessMaps, gradient?: Float32Array): TexturelessMaps {
  const { width: W, height: H } = v;
  const n = W * H;
  let grad = gradient;
  if (!grad) {
    grad = scratch.get(21, n);
    lumaGradient(v.rgb, W, H, scratch.get(20, n), grad);
  }
  const edge = scratch.getBytes(20, n);
  for (let q = 0; q < n; q++) edge[q] = grad[q]! >= TEXTURE_EDGE_GRAD ? 1 : 0;
  const edgeDistance = out?.edgeDistance ?? new Float32Array(n),
    smooth = out?.smooth ?? new Float32Array(n);
  chamferDistance(edge, W, H, edgeDistance, scratch.getInts(20, n));
  validDepthSmooth(v.depth, W, H, radiusPx, smooth, scratch);
  return { edgeDistance, smooth };
}

/** Collapse weight of a pixel at `edgeDistance` px from the nearest edge. */
function collapseWeight(p: NoiseParams, edgeDistance: number): number {
  const E = Math.max(1, p.texturelessEdgePx);
  return p.texturelessCollapse * Math.min(1, Math.max(0, (edgeDistance - E) / E));
}

/** The view's bias field b into `field` (level-free), stored under the FieldScale returned. */
export function texturelessBiasField(rng: Rng, W: number, H: number, field: Float32Array): FieldScale {
  return smoothUnitField(rng, W, H, TEXTURELESS_BIAS_CELLS, field);
}

/**
 * Applies the component in place to `d` (`field`: texturelessBiasField's stored values and scale, null without bias); returns the
 * number of pixels it moved (w > 0). With `need`, only the pixels where it is set change (all are counted).
 */
export function applyTextureless(
  v: ViewData,
  p: NoiseParams,
  maps: TexturelessMaps,
  field: { stored: Float32Array; scale: FieldScale } | null,
  d: Float32Array,
  need: Uint8Array | null = null,
): number {
  const { width: W, height: H, depth: g } = v;
  const bias = field ? p.texturelessBiasRel : 0;
  let moved = 0;
  for (let q = 0; q < W * H; q++) {
    const t = g[q]!;
    if (!isValid(t)) continue;
    const w = collapseWeight(p, maps.edgeDistance[q]!);
    if (w <= 0) continue;
    moved++;
    if (need && !need[q]) continue;
    const shift = w * (maps.smooth[q]! - t) + (bias > 0 ? w * bias * scaled(field!.stored[q]!, field!.scale) * t : 0);
    d[q] = Math.max(NOISY_DEPTH_MIN_RATIO * t, d[q]! + shift);
  }
  return moved;
}
