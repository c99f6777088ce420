/**
 * Paired comparisons of two arms (or two runs) on the items they share: which test, its p-value and its 95 %
 * interval. Items of one task are not independent (its three paradigms ask the same question of the same
 * scene), so the unit of resampling is the task:
 * - one pair per task (a single paradigm): McNemar's exact test on the discordant pairs, with Bonett and Price's
 *   paired interval;
 * - several pairs per task (paradigms pooled): an exact sign-flip (randomization) test on the tasks' totals, with
 *   the interval of a paired bootstrap that resamples whole tasks, seeded. The bootstrap's own p was dropped:
 *   with few tasks it is far too small (one task gave p = 1/2001, "significant", on a --limit 20 run).
 * docs/statistics.md says why each, and what they do not correct for.
 */
import { z } from "zod";
import { Rng } from "../core/math/rng.js";
import { Z_95 } from "../core/math/proportion.js";

/** One item both arms scored: its task (the cluster) and whether each arm was right. */
export interface Pair {
  cluster: string;
  a: boolean;
  b: boolean;
}

/** The tests a paired row can carry; "newcombe" is the fallback for arms that share no item (independent samples). */
export const PAIRED_TESTS = ["mcnemar-exact", "signflip-task", "newcombe"] as const;
export type PairedTest = (typeof PAIRED_TESTS)[number];

/**
 * Resamples of the task bootstrap: the Monte Carlo error of a p-value near 0.05 is √(0.05·0.95/2000) ≈ 0.005, and
 * percentile intervals want at least 1000 (Efron & Tibshirani 1993, An Introduction to the Bootstrap, §13.3).
 */
export const BOOTSTRAP_RESAMPLES = 2000;
/** The bootstrap's seed: every row restarts the generator from it, so a row's result does not depend on the others. */
export const BOOTSTRAP_SEED = "esi3d-task-bootstrap";
/** Two-sided significance level for "A better" / "B better" marks and headlines (matches the 95 % intervals). */
export const SIGNIFICANCE_ALPHA = 0.05;

export const PairedSummarySchema = z
  .object({
    n: z.number().int().min(0).describe("items both arms scored"),
    clusters: z.number().int().min(0).describe("tasks those items come from"),
    aOnly: z.number().int().min(0).describe("pairs only arm a answered right"),
    bOnly: z.number().int().min(0).describe("pairs only arm b answered right"),
  })
  .strict();
export type PairedSummary = z.infer<typeof PairedSummarySchema>;

export interface PairedResult {
  test: PairedTest;
  pairs: PairedSummary;
  /** (aOnly − bOnly) / n: accuracy of a minus accuracy of b on the shared items */
  diff: number;
  lo: number;
  hi: number;
  /** two-sided p-value of "no difference" */
  p: number;
}

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
  if (!(Number.isInteger(aOnly) && Number.isInteger(bOnly) && aOnly >= 0 && bOnly >= 0)) throw new RangeError(`exactMcNemarP: need counts, got ${aOnly}, ${bOnly}`);
  const n = aOnly + bOnly, k = Math.min(aOnly, bOnly);
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
  const p12 = (aOnly + 1) / (n + 2), p21 = (bOnly + 1) / (n + 2);
  const centre = p12 - p21;
  const half = z * Math.sqrt((p12 + p21 - centre * centre) / (n + 2));
  return { diff: (aOnly - bOnly) / n, lo: Math.max(-1, centre - half), hi: Math.min(1, centre + half) };
}

/** Per task: the A-only minus B-only count and the pairs, in cluster-name order (the bootstrap's fixed order). */
function clusterTotals(pairs: readonly Pair[]): Array<{ d: number; n: number }> {
  const by = new Map<string, { d: number; n: number }>();
  for (const p of pairs) {
    const c = by.get(p.cluster) ?? { d: 0, n: 0 };
    c.d += (p.a ? 1 : 0) - (p.b ? 1 : 0);
    c.n++;
    by.set(p.cluster, c);
  }
  return [...by.keys()].sort().map((k) => by.get(k)!);
}

/** The q-quantile of sorted values, linear between order statistics (R's type 7). */
function quantile(sorted: readonly number[], q: number): number {
  const h = (sorted.length - 1) * q, i = Math.floor(h);
  return i + 1 < sorted.length ? sorted[i]! + (h - i) * (sorted[i + 1]! - sorted[i]!) : sorted[i]!;
}

/**
 * Paired bootstrap clustered by task: draw as many tasks as there are, with replacement, and take every pair of each
 * drawn task. Interval: the 2.5 and 97.5 % percentiles of the resampled differences. With few tasks it is too narrow
 * (one task: [d̂, d̂]); the test of such a row is the sign flip's, and the table marks its n.
 */
export function clusteredBootstrap(pairs: readonly Pair[], resamples: number = BOOTSTRAP_RESAMPLES, seed: string = BOOTSTRAP_SEED): { diff: number; lo: number; hi: number } {
  const cs = clusterTotals(pairs);
  const D = cs.reduce((s, c) => s + c.d, 0), N = cs.reduce((s, c) => s + c.n, 0);
  if (N === 0) return { diff: Number.NaN, lo: -1, hi: 1 };
  const rng = new Rng(seed);
  const diffs: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let d = 0, n = 0;
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

/**
 * Exact two-sided p of the sign-flip (randomization) test on the tasks' A-only minus B-only counts: with no
 * difference between the arms, a and b are exchangeable within a task, so each task's count is as likely negated
 * (Fisher 1935; the paired permutation test of Dror et al. 2018, with the task as the unit). p is the share of the
 * 2^K sign vectors whose |sum| is at least the observed |sum|, computed exactly as a distribution over integer sums.
 * It needs no minimum number of tasks: one task gives p = 1, ten tasks all one way 2/1024.
 */
export function signFlipP(taskCounts: readonly number[]): number {
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

/**
 * The paired comparison of a row: McNemar's exact test when every task gives one pair; when some task gives several,
 * the sign-flip test on task totals with the task bootstrap's interval. null when the arms share no item.
 */
export function comparePaired(pairs: readonly Pair[]): PairedResult | null {
  if (!pairs.length) return null;
  const aOnly = pairs.filter((p) => p.a && !p.b).length, bOnly = pairs.filter((p) => p.b && !p.a).length;
  const clusters = new Set(pairs.map((p) => p.cluster)).size;
  const summary: PairedSummary = { n: pairs.length, clusters, aOnly, bOnly };
  if (clusters === pairs.length) return { test: "mcnemar-exact", pairs: summary, ...pairedDifference(pairs.length, aOnly, bOnly), p: exactMcNemarP(aOnly, bOnly) };
  return { test: "signflip-task", pairs: summary, ...clusteredBootstrap(pairs), p: signFlipP(clusterTotals(pairs).map((c) => c.d)) };
}
