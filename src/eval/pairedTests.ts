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
import { exactMcNemarP, pairedDifference } from "./mcNemar.js";
import { signFlipTotalsP } from "./signFlip.js";
import { clusteredBootstrap, clusterTotals, type Pair } from "./taskBootstrap.js";

/** The tests a paired row can carry; "newcombe" is the fallback for arms that share no item (independent samples). */
export const PAIRED_TESTS = ["mcnemar-exact", "signflip-task", "newcombe"] as const;
export type PairedTest = (typeof PAIRED_TESTS)[number];

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
