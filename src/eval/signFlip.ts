/**
 * The sign-flip (randomization) test over tasks: the paired comparison of two arms when a task gives several pairs or a
 * score is a chance credit (pairedTests.ts chooses it).
 */
import { Rng } from "../../core/math/rng.js";

/**
 * Exact two-sided p of the sign-flip (randomization) test on the tasks' A-only minus B-only counts: with no
 * difference between the arms, a and b are exchangeable within a task, so each task's count is as likely negated
 * (Fisher 1935; the paired permutation test of Dror et al. 2018, with the task as the unit). p is the share of the
 * 2^K sign vectors whose |sum| is at least the observed |sum|, computed exactly as a distribution over integer sums.
 * It needs no minimum number of tasks: one task gives p = 1, ten tasks all one way 2/1024.
 */
function signFlipP(taskCounts: readonly number[]): number {
  const span = taskCounts.reduce((s, d) => s + Math.abs(d), 0);
  const observed = Math.abs(taskCounts.reduce((s, d) => s + d, 0));
  let dist = new Float64Array(2 * span + 1);
  dist[span] = 1;
  for (const d of taskCounts) {
    if (d === 0) continue;
    const next = new Float64Array(dist.length);
    for (let s = 0; s < dist.length; s++) {
      const w = dist[s]!;
      if (w === 0) continue;
      next[s + d]! += w / 2;
      next[s - d]! += w / 2;
    }
    dist = next;
  }
  let p = 0;
  for (let s = 0; s < dist.length; s++) if (Math.abs(s - span) >= observed) p += dist[s]!;
  return Math.min(1, p);
}

/** The largest common denominator tried when turning task totals into integers for the exact sign flip. */
const SIGNFLIP_MAX_DENOMINATOR = 5040;
/** The exact sign flip's work bound (distribution length times tasks); beyond it the flips are sampled. */
const SIGNFLIP_EXACT_WORK = 5e7;
/** Sampled sign flips when the exact distribution is too large: the p-value's Monte Carlo error near 0.05 is about 0.0015. */
const SIGNFLIP_RESAMPLES = 20000;
/** The sampled sign flips' seed (fixed, so a summary is byte-identical run to run). */
const SIGNFLIP_SEED = "esi3d-sign-flip";

/** The smallest q <= SIGNFLIP_MAX_DENOMINATOR with x·q an integer (to 1e-9), or null. */
function denominatorOf(x: number): number | null {
  for (let q = 1; q <= SIGNFLIP_MAX_DENOMINATOR; q++) if (Math.abs(x * q - Math.round(x * q)) < 1e-9) return q;
  return null;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * Two-sided p of the sign-flip test on tasks' total score differences, real-valued: exact (signFlipP) on the
 * totals times their common denominator when that is small enough, else over SIGNFLIP_RESAMPLES seeded flips,
 * p = (1 + flips at least as extreme) / (1 + flips).
 */
export function signFlipTotalsP(totals: readonly number[]): number {
  let scale = 1;
  for (const d of totals) {
    const q = denominatorOf(d);
    if (q === null) {
      scale = Infinity;
      break;
    }
    scale = (scale / gcd(scale, q)) * q;
    if (scale > SIGNFLIP_MAX_DENOMINATOR) break;
  }
  if (scale <= SIGNFLIP_MAX_DENOMINATOR) {
    const counts = totals.map((d) => Math.round(d * scale));
    const span = counts.reduce((s, d) => s + Math.abs(d), 0);
    if ((2 * span + 1) * counts.length <= SIGNFLIP_EXACT_WORK) return signFlipP(counts);
  }
  const observed = Math.abs(totals.reduce((s, d) => s + d, 0));
  const rng = new Rng(SIGNFLIP_SEED);
  let extreme = 0;
  for (let r = 0; r < SIGNFLIP_RESAMPLES; r++) {
    let s = 0;
    for (const d of totals) s += rng.next() < 0.5 ? d : -d;
    if (Math.abs(s) >= observed - 1e-9) extreme++;
  }
  return (1 + extreme) / (1 + SIGNFLIP_RESAMPLES);
}
