/**
 * Evaluation metrics: Wilson intervals for accuracies, calibration of the reported confidences (ECE, Brier,
 * mean confidence when right vs wrong), and accuracy per group with and without the unscored items.
 *
 * The ESI-Bench paper reports only accuracy; it collects a confidence but never uses it. Calibration is ours,
 * on the scored items that gave a confidence.
 */
import * as z from "zod";
import { meanCreditInterval, wilsonInterval } from "../../core/math/proportion.js";

// ---------------------------------------------------------------------------------------------------------------
// intervals (Wilson's: core/math/proportion.ts)

/** A number that is NaN when undefined (an empty group): `null` in JSON files, NaN in memory. */
const nanable = () =>
  z
    .number()
    .nullable()
    .transform((v) => v ?? Number.NaN);

const IntervalSchema = z
  .object({
    p: nanable().describe("point estimate k/n; NaN (null in JSON) when n = 0"),
    lo: z.number(),
    hi: z.number(),
  })
  .strict();
export type Interval = z.infer<typeof IntervalSchema>;

// ---------------------------------------------------------------------------------------------------------------
// calibration

/** Equal-width confidence bins over [0, 1] for ECE: the common choice (Guo et al. 2017; Naeini et al. 2015). */
const ECE_BINS = 10;

export interface CalibrationItem {
  /** in [0, 1]; items without one are left out of every calibration number (and counted) */
  confidence?: number;
  correct: boolean;
}

const CalibrationBinSchema = z
  .object({
    lo: z.number().describe("bin i covers [i/B, (i+1)/B); the last bin also holds 1.0"),
    hi: z.number(),
    n: z.number().int().min(0),
    meanConfidence: nanable().describe("NaN (null) for an empty bin"),
    accuracy: nanable(),
  })
  .strict();
type CalibrationBin = z.infer<typeof CalibrationBinSchema>;

const MeanWithNSchema = z.object({ mean: nanable().describe("NaN (null) when n = 0"), n: z.number().int().min(0) }).strict();
type MeanWithN = z.infer<typeof MeanWithNSchema>;

export const CalibrationSchema = z
  .object({
    n: z.number().int().min(0).describe("items that gave a confidence"),
    nWithoutConfidence: z.number().int().min(0).describe("items left out because they gave none (or one outside [0, 1])"),
    ece: nanable().describe("Σ_b (n_b/n)·|accuracy_b − meanConfidence_b|; NaN when n = 0"),
    brier: nanable().describe("mean (c − 1[correct])²; NaN when n = 0"),
    meanConfidenceRight: MeanWithNSchema,
    meanConfidenceWrong: MeanWithNSchema,
    bins: z.array(CalibrationBinSchema),
  })
  .strict();
export type Calibration = z.infer<typeof CalibrationSchema>;

function withConfidence(items: readonly CalibrationItem[]): { c: number; correct: boolean }[] {
  const out: { c: number; correct: boolean }[] = [];
  for (const it of items) {
    const c = it.confidence;
    if (c !== undefined && Number.isFinite(c) && c >= 0 && c <= 1) out.push({ c, correct: it.correct });
  }
  return out;
}

/** Expected calibration error with `bins` equal-width bins (default 10), and the bins themselves. */
function expectedCalibrationError(items: readonly CalibrationItem[], bins: number = ECE_BINS): { ece: number; bins: CalibrationBin[] } {
  if (!(Number.isInteger(bins) && bins >= 1)) throw new RangeError(`bins must be a positive integer, got ${bins}`);
  const xs = withConfidence(items);
  const acc = Array.from({ length: bins }, () => ({ n: 0, conf: 0, right: 0 }));
  for (const x of xs) {
    const b = acc[Math.min(Math.floor(x.c * bins), bins - 1)]!;
    b.n++;
    b.conf += x.c;
    if (x.correct) b.right++;
  }
  const out: CalibrationBin[] = acc.map((b, i) => ({
    lo: i / bins,
    hi: (i + 1) / bins,
    n: b.n,
    meanConfidence: b.n ? b.conf / b.n : Number.NaN,
    accuracy: b.n ? b.right / b.n : Number.NaN,
  }));
  if (xs.length === 0) return { ece: Number.NaN, bins: out };
  let ece = 0;
  for (const b of out) if (b.n > 0) ece += (b.n / xs.length) * Math.abs(b.accuracy - b.meanConfidence);
  return { ece, bins: out };
}

/** Brier score of the confidences against correctness: mean (c − 1[correct])². */
function brierScore(items: readonly CalibrationItem[]): number {
  const xs = withConfidence(items);
  if (xs.length === 0) return Number.NaN;
  return xs.reduce((s, x) => s + (x.c - (x.correct ? 1 : 0)) ** 2, 0) / xs.length;
}

/** Mean confidence over the right answers and over the wrong ones. */
function meanConfidenceByOutcome(items: readonly CalibrationItem[]): { right: MeanWithN; wrong: MeanWithN } {
  const xs = withConfidence(items);
  const mean = (ys: { c: number }[]): MeanWithN => ({ mean: ys.length ? ys.reduce((s, y) => s + y.c, 0) / ys.length : Number.NaN, n: ys.length });
  return { right: mean(xs.filter((x) => x.correct)), wrong: mean(xs.filter((x) => !x.correct)) };
}

/** Every calibration number at once. Pass scored items only (an unscored item has no correctness). */
export function calibration(items: readonly CalibrationItem[], bins: number = ECE_BINS): Calibration {
  const n = withConfidence(items).length;
  const { ece, bins: b } = expectedCalibrationError(items, bins);
  const { right, wrong } = meanConfidenceByOutcome(items);
  return { n, nWithoutConfidence: items.length - n, ece, brier: brierScore(items), meanConfidenceRight: right, meanConfidenceWrong: wrong, bins: b };
}

// ---------------------------------------------------------------------------------------------------------------
// accuracy aggregation

export interface ScoredRecord {
  /** scored = an answer was given; unscored = declined, invalid, empty or error (credited at chance, never as wrong) */
  scored: boolean;
  /** required when scored */
  correct?: boolean;
  /** what a uniform guess between the item's options would score (1/k; 0 without options): an unscored item's credit */
  chance: number;
  /** MRA of the item, when it has one (integer answers); include 0 for unscored items to follow VSI-Bench's worst case */
  mra?: number;
  /** structured answers: parts right and parts asked (diagnostic beside exact match) */
  parts?: { correct: number; total: number };
}

export const GroupSummarySchema = z
  .object({
    group: z.string(),
    n: z.number().int().min(0).describe("all items"),
    nScored: z.number().int().min(0),
    nUnscored: z.number().int().min(0),
    k: z.number().int().min(0).describe("correct items"),
    score: IntervalSchema.describe(
      "the headline: accuracy over all n items, an item without an answer (declined, invalid, failed) credited at chance (1/k of its options; a structured answer: each part among its own), with Wilson's interval on the mean credit; every arm is scored on the same items",
    ),
    coverage: IntervalSchema.describe("nScored of n, with its Wilson interval: the share of items answered"),
    accuracy: IntervalSchema.describe("k of nScored, with its Wilson interval: the accuracy on the answered items only"),
    mra: MeanWithNSchema.optional().describe("mean MRA over the items that carry one"),
    parts: z
      .object({ correct: z.number().int().min(0), total: z.number().int().min(0), items: z.number().int().min(0) })
      .optional()
      .describe(
        "structured answers (assignment, step_sequence, parts): parts right of parts asked over the scored items that have parts; accuracy stays ESI's exact match of the whole",
      ),
  })
  .strict();
export type GroupSummary = z.infer<typeof GroupSummarySchema>;

/** One summary over all records. */
export function summarize<R extends ScoredRecord>(records: readonly R[], group = "all"): GroupSummary {
  let nScored = 0;
  let k = 0;
  let unscoredCredit = 0;
  let mraSum = 0;
  let mraN = 0;
  const parts = { correct: 0, total: 0, items: 0 };
  for (const r of records) {
    if (r.scored && r.parts) {
      parts.correct += r.parts.correct;
      parts.total += r.parts.total;
      parts.items++;
    }
    if (r.scored) {
      if (typeof r.correct !== "boolean") throw new TypeError(`summarize: a scored record in group "${group}" has no boolean 'correct'`);
      nScored++;
      if (r.correct) k++;
    } else unscoredCredit += r.chance;
    if (r.mra !== undefined && Number.isFinite(r.mra)) {
      mraSum += r.mra;
      mraN++;
    }
  }
  const out: GroupSummary = {
    group,
    n: records.length,
    nScored,
    nUnscored: records.length - nScored,
    k,
    score: meanCreditInterval(k + unscoredCredit, records.length),
    coverage: wilsonInterval(nScored, records.length),
    accuracy: wilsonInterval(k, nScored),
  };
  if (mraN > 0) out.mra = { mean: mraSum / mraN, n: mraN };
  if (parts.items > 0) out.parts = parts;
  return out;
}
