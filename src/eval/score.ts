/**
 * Scoring one answer against its task: exact match ("correct iff ŷ = y*", the ESI-Bench paper) and, for integer
 * answers, VSI-Bench's mean relative accuracy (MRA). Like Inspect's scorers, this stage reads the reasoner's
 * answer; the reasoners never score themselves.
 */
import { isStructuredFormat, type AnswerFormat, type AnswerSpec } from "../../core/task/schema.js";
import { parseIntegerAnswer } from "../reason/numbers.js";
import { decodeStructured, scoreStructured, type StructuredValue } from "../reason/structured.js";

/**
 * VSI-Bench's confidence thresholds C = {0.50, 0.55, …, 0.95} as the official code holds them: the float64 values of
 * numpy's `linspace(0.5, 0.95, 10)` (thinking-in-space, lmms-eval tasks/vsibench/utils.py `mean_relative_accuracy`),
 * hard-coded because that call only gives 10 points by floating-point accident (VSI-Bench's findings).
 * The ninth is 0.8999999999999999, not 0.9: numpy's own rounding, and it changes the verdict at a relative error
 * of exactly 0.1 (1 − 0.9 = 0.09999999999999998 would fail it; the official code passes it).
 */
export const MRA_THRESHOLDS: readonly number[] = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.8999999999999999, 0.95];

/**
 * Mean relative accuracy, the official VSI-Bench rule exactly: (1/10)·Σ_θ 1[|ŷ−y|/y <= 1−θ], in float64 as numpy
 * computes it. The code's `<=` is the rule, not the paper's `<` (they differ at relative errors of exactly 0.05·k),
 * so scores match published VSI-Bench numbers item for item. Being float64, it inherits the official code's
 * rounding too: a relative error of exactly 0.2 fails θ = 0.80 (1 − 0.8 = 0.19999999999999996), and 0.45 fails
 * θ = 0.55; test/src/eval/metrics.test.ts checks every such case against numpy itself.
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

/** What scoring needs from an answer: a reasoner's answer, a parse result and a protocol outcome all carry it. */
export interface ScoredInput {
  status: "parsed" | "unparsed" | "invalid" | "empty" | "error" | "unanswerable";
  /** the canonical answer, when parsed */
  answer?: string | null;
}

/** What scoring needs from a task: a Task has these fields. */
export interface ScoreTask {
  answer: string;
  answer_format: AnswerFormat;
  options: readonly string[];
  answer_spec?: AnswerSpec | undefined;
}

export type AnswerScore =
  | {
      scored: true;
      /** exact match of the canonical answer with the task's answer (integers compared by value) */
      correct: boolean;
      /** VSI-Bench mean relative accuracy, integer answers only */
      mra?: number;
      /** structured answers: the parsed answer and how many of its parts are right (diagnostic: ESI scores the whole) */
      structured?: { value: StructuredValue; parts_correct: number | null; parts_total: number | null };
    }
  | {
      scored: false;
      status: Exclude<ScoredInput["status"], "parsed">;
      /** VSI-Bench's worst case for an unreadable numeric answer, integer answers only; report it separately */
      mraWorstCase?: 0;
    };

/**
 * Scores a parse result or a protocol outcome against the task: exact match ("correct iff ŷ = y*",
 * the ESI-Bench paper's answer rule) and, for integer answers, MRA. Anything not parsed is unscored.
 */
export function scoreAnswer(result: ScoredInput, task: ScoreTask): AnswerScore {
  if (result.status !== "parsed" || result.answer === null || result.answer === undefined) {
    const status = result.status === "parsed" ? "unparsed" : result.status;
    return task.answer_format === "integer" ? { scored: false, status, mraWorstCase: 0 } : { scored: false, status };
  }
  if (isStructuredFormat(task.answer_format)) {
    // ESI's runner scores these by exact match of the whole answer (stacking: any accepted order; action
    // order: both sub-answers), ESI-Bench's released runner's scoring; the part count is reported beside it
    if (!task.answer_spec) throw new RangeError(`a ${task.answer_format} task has no answer_spec`);
    const value = decodeStructured(result.answer, task.answer_spec);
    if (!value) throw new RangeError(`answer "${result.answer}" is not a canonical ${task.answer_format} answer`);
    const s = scoreStructured(value, task.answer_spec);
    return { scored: true, correct: s.correct, structured: { value, parts_correct: s.parts_correct, parts_total: s.parts_total } };
  }
  if (task.answer_format !== "integer") return { scored: true, correct: result.answer === task.answer };
  const truth = parseIntegerAnswer(task.answer);
  if ("error" in truth) throw new RangeError(`task answer "${task.answer}" is not an integer (${truth.error})`);
  const pred = Number(result.answer);
  return { scored: true, correct: pred === truth.value, mra: meanRelativeAccuracy(pred, truth.value) };
}

/** A circular item's rotations as a record keeps them (src/reason/circular.ts asks them). */
export interface CircularScore {
  rotations: number;
  /** each rotation's canonical answer (an option's text), null when it gave none */
  answers: Array<string | null>;
  /** whether each rotation's answer is right, null when it gave none */
  correct: Array<boolean | null>;
  /** the item: right only when every rotation is right; null when a rotation gave no answer */
  all: boolean | null;
  /** integer items: the lowest rotation's MRA (what holds in every rotation); null otherwise */
  mra: number | null;
}

/** Scores each rotation of a circular answer against the task (the answer is a text, so the rotation does not matter). */
export function scoreCircular(rotations: readonly ScoredInput[], task: ScoreTask): CircularScore {
  const scores = rotations.map((r) => scoreAnswer(r, task));
  const correct = scores.map((s) => (s.scored ? s.correct : null));
  const mras = scores.map((s) => (s.scored ? (s.mra ?? null) : 0));
  return {
    rotations: rotations.length,
    answers: rotations.map((r, i) => (scores[i]!.scored ? (r.answer ?? null) : null)),
    correct,
    all: correct.some((c) => c === null) ? null : correct.every((c) => c === true),
    mra: task.answer_format === "integer" ? Math.min(...mras.map((m) => m ?? 0)) : null,
  };
}
