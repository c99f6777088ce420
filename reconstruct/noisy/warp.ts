/**
 * The `warp` component: a shape error all views agree on. VGGT predicts every view jointly, so much of its
 * geometric error is shared: a wall bowed the same way in every view, a table top a few centimetres low in
 * all of them. The evidence is in its point-map statistics: on 7-Scenes and NRGBD with dense views its
 * completeness error (truth → prediction, 0.027 / 0.015 m) is as large as its accuracy error (0.022 /
 * 0.017 m, π³ Table 4); had the views erred independently, their union would straddle the true surface and
 * completeness would fall far below accuracy (it does in this model without `warp`: bench/noiseCalibration.ts).
 *
 *   the true surface at X moves by h(X) = warpM · s(X) along its normal n, so the pixel's depth moves by
 *   d ← d + h(X) / max(|r̂·n|, WARP_MIN_COS)     (r̂ the pixel's unit ray: where the ray meets the moved surface)
 *   s(X) = √(2/K) Σ_k cos(ω_k·X + φ_k),  |ω_k| = 2π / warpWavelengthM, random directions and phases
 *
 * (K = warpWaves random Fourier waves: a stationary, unit-variance, smooth field over the room). Every view
 * moves the same surface by the same h, so the views agree on the wrong geometry; s depends on the seed
 * and the task only, never on the view. The normal comes from the true depth (central differences of the
 * back-projected pixels); WARP_MIN_COS bounds the depth change at grazing angles and at depth edges.
 */
import type { ViewData } from "../../core/bundle/io.js";
import type { Rng } from "../../core/math/rng.js";
import { isValid } from "./filters.js";
import { NOISY_DEPTH_MIN_RATIO, WARP_MIN_COS, type NoiseParams } from "./params.js";
import { normalCos32At, rayTables } from "./rayNormalCos.js";

export interface WarpField {
  /** Per wave: ωx, ωy, ωz, φ (a plain array, so the field survives JSON in the cloud's meta). */
  waves: number[];
  amplitude: number;
}

/** The task's field (the same for every view). Draws 4 numbers per wave whatever the amplitude. */
export function warpField(p: NoiseParams, rng: Rng): WarpField {
  const K = Math.max(1, Math.round(p.warpWaves));
  const k = (2 * Math.PI) / p.warpWavelengthM;
  const waves = new Array<number>(4 * K).fill(0);
  for (let i = 0; i < K; i++) {
    // a uniform direction: a normalised Gaussian vector
    let x = rng.normal(),
      y = rng.normal(),
      z = rng.normal();
    const n = Math.hypot(x, y, z) || 1;
    (x /= n), (y /= n), (z /= n);
    waves[4 * i] = k * x;
    waves[4 * i + 1] = k * y;
    waves[4 * i + 2] = k * z;
    waves[4 * i + 3] = 2 * Math.PI * rng.next();
  }
  return { waves, amplitude: Math.sqrt(2 / K) };
}

/**
 * The depth change per metre of warp at every pixel of a view: s(X) / max(|r̂·n|, WARP_MIN_COS) at its true
 * world point X (0 without depth). Level-free: the component adds warpM times it. With `need`, only the
 * pixels where it is set (the others get 0): the rest of the cloud never reads them.
 */
export function warpPerMetre(
  v: ViewData,
  f: WarpField,
  need: Uint8Array | null = null,
  out: Float32Array = new Float32Array(v.width * v.height),
): Float32Array {
  const { width: W, height: H, depth: g, K, E } = v;
  const { xn, yn } = rayTables(v);
  const r00 = E[0][0],
    r01 = E[0][1],
    r02 = E[0][2],
    r10 = E[1][0],
    r11 = E[1][1],
    r12 = E[1][2],
    r20 = E[2][0],
    r21 = E[2][1],
    r22 = E[2][2];
  const tx = E[0][3],
    ty = E[1][3],
    tz = E[2][3];
  const Cx = -(r00 * tx + r10 * ty + r20 * tz),
    Cy = -(r01 * tx + r11 * ty + r21 * tz),
    Cz = -(r02 * tx + r12 * ty + r22 * tz);
  const waves = f.waves,
    amplitude = f.amplitude;
  for (let j = 0; j < H; j++) {
    const yr = (j - K.cy) / K.fy;
    for (let i = 0, q = j * W; i < W; i++, q++) {
      const t = g[q]!;
      if (!isValid(t) || (need && !need[q])) {
        out[q] = 0;
        continue;
      }
      const X = ((i - K.cx) / K.fx) * t,
        Y = yr * t;
      const wx = r00 * X + r10 * Y + r20 * t + Cx,
        wy = r01 * X + r11 * Y + r21 * t + Cy,
        wz = r02 * X + r12 * Y + r22 * t + Cz;
      let s = 0; // s(X)
      for (let k = 0; k < waves.length; k += 4) s += Math.cos(waves[k]! * wx + waves[k + 1]! * wy + waves[k + 2]! * wz + waves[k + 3]!);
      // the ray-normal cosine as a float32
      out[q] = (amplitude * s) / Math.max(WARP_MIN_COS, normalCos32At(g, W, H, xn, yn, i, j, q));
    }
  }
  return out;
}

/** Applies the component in place to `d` (the view's depth so far): d ← d + warpM · perMetre (warpPerMetre's). */
export function applyWarp(v: ViewData, p: NoiseParams, perMetre: Float32Array, d: Float32Array, need: Uint8Array | null = null): void {
  const g = v.depth,
    a = p.warpM;
  for (let q = 0; q < g.length; q++) {
    const t = g[q]!;
    if (!isValid(t) || (need && !need[q])) continue;
    d[q] = Math.max(NOISY_DEPTH_MIN_RATIO * t, d[q]! + a * perMetre[q]!);
  }
}
