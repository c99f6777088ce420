/**
 * Paired comparisons of two arms (or two runs) on the items they share: which test, its p-value and its 95 %
 * interval. Each item of a pair carries its score: 1 right, 0 wrong, and an item without an answer its chance
 * credit (1/k of its options), so arms are compared on every item, not on the ones both happened to answer.
 * Items of one task are not independent (its three paradigms ask the same question of the same scene), so the
 * unit of resampling is the task:
 * - one pair per task, every score 0 or 1: McNemar's exact test on the discordant pairs, with Bonett and Price's
 *   paired interval;
 * - several pairs per task (paradigms pooled), or a chance credit among the scores: a sign-flip (randomization)
 *   test on the tasks' total differences, exact when the totals are multiples of a small common fraction (as
 *   chance credits of 1/2, 1/3, 1/4 are), else over SIGNFLIP_RESAMPLES seeded flips; with the interval of a
 *   paired bootstrap that resamples whole tasks, seeded. The bootstrap's own p was dropped: with few tasks it is
 *   far too small (one task gave p = 1/2001, "significant", on a --limit 20 run).
 * docs/statistics.md says why each, and what they do not correct for.
 */
import * as z from "zod";
import { Rng } from "../../core/math/rng.js";
import { Z_95 } from "../../core/math/proportion.js";

/** One item of both arms: its task (the cluster) and each arm's score in [0, 1] (1 right, 0 wrong, chance credit when unanswered). */
export interface Pair {
  cluster: string;
  a: number;
  b: number;
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
    n: z.number().int().min(0).describe("items of both arms (every item of the cell: an unanswered one scores its chance credit)"),
    clusters: z.number().int().min(0).describe("tasks those items come from"),
    aBetter: z.number().int().min(0).describe("pairs where arm a scored more than arm b (a right and b wrong, or a right and b unanswered, ...)"),
    bBetter: z.number().int().min(0).describe("pairs where arm b scored more than arm a"),
  })
  .strict();
export type PairedSummary = z.infer<typeof PairedSummarySchema>;

export interface PairedResult {
  test: PairedTest;
  pairs: PairedSummary;
  /** mean score of a minus mean score of b over the pairs */
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

/** Per task: the total of a's scores minus b's and the pairs, in cluster-name order (the bootstrap's fixed order). */
function clusterTotals(pairs: readonly Pair[]): Array<{ d: number; n: number }> {
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

/** The largest common denominator tried when turning task totals into integers for the exact sign flip. */
const SIGNFLIP_MAX_DENOMINATOR = 5040;
/** The exact sign flip's work bound (distribution length times tasks); beyond it the flips are sampled. */
const SIGNFLIP_EXACT_WORK = 5e7;
/** Sampled sign flips when the exact distribution is too large: the p-value's Monte Carlo error near 0.05 is about 0.0015. */
export const SIGNFLIP_RESAMPLES = 20000;
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

/**
 * The paired comparison of a row: McNemar's exact test when every task gives one pair and every score is 0 or 1;
 * otherwise the sign-flip test on task totals with the task bootstrap's interval. null when there is no pair.
 */
export function comparePaired(pairs: readonly Pair[]): PairedResult | null {
  if (!pairs.length) return null;
  const aBetter = pairs.filter((p) => p.a > p.b).length,
    bBetter = pairs.filter((p) => p.b > p.a).length;
  const clusters = new Set(pairs.map((p) => p.cluster)).size;
  const summary: PairedSummary = { n: pairs.length, clusters, aBetter, bBetter };
  const binary = pairs.every((p) => (p.a === 0 || p.a === 1) && (p.b === 0 || p.b === 1));
  if (binary && clusters === pairs.length)
    return { test: "mcnemar-exact", pairs: summary, ...pairedDifference(pairs.length, aBetter, bBetter), p: exactMcNemarP(aBetter, bBetter) };
  return { test: "signflip-task", pairs: summary, ...clusteredBootstrap(pairs), p: signFlipTotalsP(clusterTotals(pairs).map((c) => c.d)) };
}
