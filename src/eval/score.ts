/**
 * Scoring one answer against its task: exact match ("correct iff ŷ = y*", ESI-Bench §2.6) and, for integer
 * answers, VSI-Bench's mean relative accuracy (MRA). Like Inspect's scorers, this stage reads the reasoner's
 * answer; the reasoners never score themselves.
 */
import { isStructuredFormat, type AnswerFormat, type AnswerSpec } from "../../bridge/task/schema.js";
import { parseIntegerAnswer } from "../reason/numbers.js";
import { decodeStructured, scoreStructured, type StructuredValue } from "../reason/structured.js";

/**
 * VSI-Bench's confidence thresholds C = {0.50, 0.55, …, 0.95}, hard-coded (reference/vsi-spatialworld.md §C3: the
 * official linspace only gives 10 values by floating-point accident). Threshold k is k/20 for k = 10…19.
 */
export const MRA_THRESHOLDS: readonly number[] = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];
const MRA_STEPS = 20; // thresholds are multiples of 1/20

export interface MraOptions {
  /**
   * false (default): the paper's strict `|ŷ−y|/|y| < 1−θ`; true: the official code's `<=`. They differ only when the
   * relative error is exactly a multiple of 0.05.
   */
  inclusive?: boolean;
}

/**
 * Mean relative accuracy: (1/10)·Σ_θ 1[|ŷ−y|/|y| < 1−θ]. The comparison is done as 20·|ŷ−y| < (20−k)·|y|, exact for
 * integers, so a relative error of exactly 0.05·k is never misjudged by floating-point rounding of 1−θ.
 * - An unparseable prediction (null, undefined, NaN) scores the worst case, 0, as in VSI-Bench.
 * - y = 0 (never in VSI-Bench, where counts are >= 2): ours, 1 if ŷ = 0 and 0 otherwise.
 */
export function meanRelativeAccuracy(pred: number | null | undefined, truth: number, opts: MraOptions = {}): number {
  if (!Number.isFinite(truth)) throw new RangeError(`meanRelativeAccuracy: ground truth must be finite, got ${truth}`);
  if (pred === null || pred === undefined || !Number.isFinite(pred)) return 0;
  if (truth === 0) return pred === 0 ? 1 : 0;
  const err = MRA_STEPS * Math.abs(pred - truth);
  const y = Math.abs(truth);
  let hits = 0;
  for (let k = 10; k < MRA_STEPS; k++) {
    const bound = (MRA_STEPS - k) * y;
    if (opts.inclusive ? err <= bound : err < bound) hits++;
  }
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
 * reference/esi-spec.md §2.6) and, for integer answers, MRA. Anything not parsed is unscored.
 */
export function scoreAnswer(result: ScoredInput, task: ScoreTask, opts: MraOptions = {}): AnswerScore {
  if (result.status !== "parsed" || result.answer === null || result.answer === undefined) {
    const status = result.status === "parsed" ? "unparsed" : result.status;
    return task.answer_format === "integer" ? { scored: false, status, mraWorstCase: 0 } : { scored: false, status };
  }
  if (isStructuredFormat(task.answer_format)) {
    // ESI's runner scores these by exact match of the whole answer (stacking: any accepted order; action
    // order: both sub-answers), reference/esi-released.md §4.3; the part count is reported beside it
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
  return { scored: true, correct: pred === truth.value, mra: meanRelativeAccuracy(pred, truth.value, opts) };
}
