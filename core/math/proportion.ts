/**
 * Confidence intervals for a proportion: shared by the run's tables (src/eval) and the ESI-Bench import audit
 * (bridge/esibench), which both report shares of items with their uncertainty.
 */

/** The two-sided 95 % normal quantile, Φ⁻¹(0.975). */
export const Z_95 = 1.959963984540054;

/** A proportion and its interval: p is NaN when there are no trials. */
export interface ProportionInterval {
  p: number;
  lo: number;
  hi: number;
}

/**
 * Wilson score interval for k successes in n trials (Wilson 1927): centre (p + z²/2n)/(1 + z²/n), half-width
 * z·√(p(1−p)/n + z²/4n²)/(1 + z²/n). n = 0 gives p = NaN and the uninformative [0, 1].
 */
export function wilsonInterval(k: number, n: number, z: number = Z_95): ProportionInterval {
  if (!(Number.isInteger(k) && Number.isInteger(n) && n >= 0 && k >= 0 && k <= n)) {
    throw new RangeError(`wilsonInterval: need integers 0 <= k <= n, got k=${k}, n=${n}`);
  }
  return meanCreditInterval(k, n, z);
}

/**
 * Wilson's interval for a mean of n credits in [0, 1] that are not all 0 or 1 (a declined item credited at
 * chance, 1/k): the score formula with p = total/n. Each credit's variance is at most a Bernoulli's of the same
 * mean (a fixed chance credit has none), so the interval errs wide. Integer totals give wilsonInterval exactly.
 */
export function meanCreditInterval(total: number, n: number, z: number = Z_95): ProportionInterval {
  if (!(Number.isFinite(total) && Number.isInteger(n) && n >= 0 && total >= 0 && total <= n + 1e-9)) {
    throw new RangeError(`meanCreditInterval: need 0 <= total <= n, got total=${total}, n=${n}`);
  }
  if (n === 0) return { p: Number.NaN, lo: 0, hi: 1 };
  const p = Math.min(1, total / n);
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return { p, lo: p === 0 ? 0 : Math.max(0, centre - half), hi: p === 1 ? 1 : Math.min(1, centre + half) };
}
