/**
 * Item pairs clustered by task, and the paired bootstrap that resamples whole tasks: the interval of a sign-flip row
 * (pairedTests.ts).
 */
import { Rng } from "../../core/math/rng.js";

/** One item of both arms: its task (the cluster) and each arm's score in [0, 1] (1 right, 0 wrong, chance credit when unanswered). */
export interface Pair {
  cluster: string;
  a: number;
  b: number;
}

/**
 * Resamples of the task bootstrap: the Monte Carlo error of a p-value near 0.05 is √(0.05·0.95/2000) ≈ 0.005, and
 * percentile intervals want at least 1000 (Efron & Tibshirani 1993, An Introduction to the Bootstrap, §13.3).
 */
export const BOOTSTRAP_RESAMPLES = 2000;
/** The bootstrap's seed: every row restarts the generator from it, so a row's result does not depend on the others. */
export const BOOTSTRAP_SEED = "esi3d-task-bootstrap";

/** Per task: the total of a's scores minus b's and the pairs, in cluster-name order (the bootstrap's fixed order). */
export function clusterTotals(pairs: readonly Pair[]): Array<{ d: number; n: number }> {
  const by = new Map<string, { d: number; n: number }>();
  for (const p of pairs) {
    const c = by.get(p.cluster) ?? { d: 0, n: 0 };
    c.d += p.a - p.b;
    c.n++;
    by.set(p.cluster, c);
  }
  return [...by.keys()].sort().map((k) => by.get(k)!);
}

/** The q-quantile of sorted values, linear between order statistics (R's type 7). */
function quantile(sorted: readonly number[], q: number): number {
  const h = (sorted.length - 1) * q,
    i = Math.floor(h);
  return i + 1 < sorted.length ? sorted[i]! + (h - i) * (sorted[i + 1]! - sorted[i]!) : sorted[i]!;
}

/**
 * Paired bootstrap clustered by task: draw as many tasks as there are, with replacement, and take every pair of each
 * drawn task. Interval: the 2.5 and 97.5 % percentiles of the resampled differences. With few tasks it is too narrow
 * (one task: [d̂, d̂]); the test of such a row is the sign flip's, and the table marks its n.
 */
export function clusteredBootstrap(
  pairs: readonly Pair[],
  resamples: number = BOOTSTRAP_RESAMPLES,
  seed: string = BOOTSTRAP_SEED,
): { diff: number; lo: number; hi: number } {
  const cs = clusterTotals(pairs);
  const D = cs.reduce((s, c) => s + c.d, 0),
    N = cs.reduce((s, c) => s + c.n, 0);
  if (N === 0) return { diff: Number.NaN, lo: -1, hi: 1 };
  const rng = new Rng(seed);
  const diffs: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let d = 0,
      n = 0;
    for (let i = 0; i < cs.length; i++) {
      const c = cs[rng.int(0, cs.length - 1)]!;
      d += c.d;
      n += c.n;
    }
    diffs.push(d / n);
  }
  diffs.sort((x, y) => x - y);
  return { diff: D / N, lo: quantile(diffs, 0.025), hi: quantile(diffs, 0.975) };
}
