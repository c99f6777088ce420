/**
 * Scoring one answer against its task: exact match ("correct iff ŷ = y*", the ESI-Bench paper) and, for integer
 * answers, VSI-Bench's mean relative accuracy (MRA). Like Inspect's scorers, this stage reads the reasoner's
 * answer; the reasoners never score themselves.
 */
import { isStructuredFormat, type AnswerFormat, type AnswerSpec } from "../../core/task/schema.js";
import { parseIntegerAnswer } from "../reason/numbers.js";
import { meanRelativeAccuracy } from "./meanRelativeAccuracy.js";
import { decodeStructured, scoreStructured, type StructuredValue } from "../reason/structured.js";

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

/**
 * What a uniform guess scores on a structured answer (exact match of the whole): each step, part or pair guessed
 * among its own options, an ordering among every permutation of its items (of which `accepted` are right).
 */
export function structuredChance(spec: AnswerSpec): number {
  switch (spec.kind) {
    case "parts":
      return spec.parts.reduce((c, p) => c / p.options.length, 1);
    case "step_sequence":
      return spec.steps.reduce((c, st) => c / st.options.length, 1);
    case "assignment":
      return (1 / spec.targets.length) ** spec.pairs.length;
    case "any_ordering": {
      let perms = 1;
      for (let k = 2; k <= spec.items.length; k++) perms *= k;
      return Math.min(1, spec.accepted.length / perms);
    }
  }
}
