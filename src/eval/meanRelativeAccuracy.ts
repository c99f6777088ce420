/** VSI-Bench's mean relative accuracy (MRA) of a numeric answer, as its official code computes it (score.ts scores integer answers by it). */
/**
 * VSI-Bench's confidence thresholds C = {0.50, 0.55, …, 0.95} as the official code holds them: the float64 values of
 * numpy's `linspace(0.5, 0.95, 10)` (thinking-in-space, lmms-eval tasks/vsibench/utils.py `mean_relative_accuracy`),
 * hard-coded because that call only gives 10 points by floating-point accident (VSI-Bench's findings).
 * The ninth is 0.8999999999999999, not 0.9: numpy's own rounding, and it changes the verdict at a relative error
 * of exactly 0.1 (1 − 0.9 = 0.09999999999999998 would fail it; the official code passes it).
 */
const MRA_THRESHOLDS: readonly number[] = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.8999999999999999, 0.95];

/**
 * Mean relative accuracy, the official VSI-Bench rule exactly: (1/10)·Σ_θ 1[|ŷ−y|/y <= 1−θ], in float64 as numpy
 * computes it. The code's `<=` is the rule, not the paper's `<` (they differ at relative errors of exactly 0.05·k),
 * so scores match published VSI-Bench numbers item for item. Being float64, it inherits the official code's
 * rounding too: a relative error of exactly 0.2 fails θ = 0.80 (1 − 0.8 = 0.19999999999999996), and 0.45 fails
 * θ = 0.55; test/src/eval/meanRelativeAccuracy.test.ts checks every such case against numpy itself.
 * - An unparseable prediction (null, undefined, NaN) scores the worst case, 0, as in VSI-Bench.
 * - y = 0 (never in VSI-Bench, where counts are >= 2): ours, 1 if ŷ = 0 and 0 otherwise.
 * - y < 0 (never for counts): ours, divided by |y|; the official code would pass every threshold.
 */
export function meanRelativeAccuracy(pred: number | null | undefined, truth: number): number {
  if (!Number.isFinite(truth)) throw new RangeError(`meanRelativeAccuracy: ground truth must be finite, got ${truth}`);
  if (pred === null || pred === undefined || !Number.isFinite(pred)) return 0;
  if (truth === 0) return pred === 0 ? 1 : 0;
  const relativeError = Math.abs(pred - truth) / Math.abs(truth);
  let hits = 0;
  for (const theta of MRA_THRESHOLDS) if (relativeError <= 1 - theta) hits++;
  return hits / MRA_THRESHOLDS.length;
}
