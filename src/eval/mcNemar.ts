/**
 * McNemar's exact test and Bonett and Price's interval: the paired comparison of two arms when each task gives one
 * pair and every score is 0 or 1 (pairedTests.ts chooses it).
 */
import { Z_95 } from "../../core/math/proportion.js";

/** ln C(n, k), by summing logs (n is at most a few thousand items here). */
function logChoose(n: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log(n - k + i) - Math.log(i);
  return s;
}

/**
 * McNemar's exact test: under "no difference" each discordant pair is A-only with probability 1/2, so the
 * A-only count is Binomial(aOnly + bOnly, 1/2); two-sided p = min(1, 2·P(X <= min(aOnly, bOnly))). Exact for every
 * count, so no chi-square approximation is needed; computed in log space so large counts do not overflow.
 */
export function exactMcNemarP(aOnly: number, bOnly: number): number {
  if (!(Number.isInteger(aOnly) && Number.isInteger(bOnly) && aOnly >= 0 && bOnly >= 0))
    throw new RangeError(`exactMcNemarP: need counts, got ${aOnly}, ${bOnly}`);
  const n = aOnly + bOnly,
    k = Math.min(aOnly, bOnly);
  if (n === 0 || aOnly === bOnly) return 1;
  let tail = 0;
  for (let i = 0; i <= k; i++) tail += Math.exp(logChoose(n, i) - n * Math.LN2);
  return Math.min(1, 2 * tail);
}

/**
 * The 95 % interval for the difference of two paired proportions, Bonett and Price's adjusted Wald interval
 * (Bonett & Price 2012, J Educ Behav Stat 37:479; recommended for every sample size by Fagerland, Lydersen
 * and Laake 2014, Stat Methods Med Res 24:224): one pseudo-observation added to each discordant cell, so it
 * neither collapses to zero width when every pair agrees nor leaves [-1, 1]. aOnly / bOnly: the pairs only
 * A or only B answered right (the concordant pairs enter through n); the point estimate is (aOnly - bOnly) / n.
 */
export function pairedDifference(n: number, aOnly: number, bOnly: number, z: number = Z_95): { diff: number; lo: number; hi: number } {
  if (n === 0) return { diff: Number.NaN, lo: -1, hi: 1 };
  const p12 = (aOnly + 1) / (n + 2),
    p21 = (bOnly + 1) / (n + 2);
  const centre = p12 - p21;
  const half = z * Math.sqrt((p12 + p21 - centre * centre) / (n + 2));
  return { diff: (aOnly - bOnly) / n, lo: Math.max(-1, centre - half), hi: Math.min(1, centre + half) };
}
