/**
 * Circular evaluation (`--circular`), after VLMEvalKit's CircularEval: an item whose options are one list of 2 or
 * more (choice, yes_no, integer with options, ordering) is asked once per rotation of that list, rotation r listing
 * the options from index r and wrapping, and it counts as right only when every rotation is right (the scoring is
 * src/eval's). An answerer that follows a position rather than the content (always the first option, a position
 * prior) is right in at most one rotation of k, so it cannot score above chance.
 *
 * Each rotation is a question of its own for the reasoner: a model gets a prompt of its own (its own prompt hash
 * and response-cache entry), an offline program runs again on the rotated options. Answers are canonical option
 * texts, never positions, so the rotations compare directly. The structured formats (several lists of options)
 * are asked once, as is.
 */
import type { Task } from "../../core/task/schema.js";
import type { AnswerMatch } from "../prompt/formats.js";
import type { PromptLog } from "./promptFile.js";
import type { Reasoner, ReasonerAnswer, ReasonerInput } from "./types.js";
import { sumUsage } from "./vote.js";

/** The formats whose options are the one list a reply picks from. */
const ROTATED_FORMATS: ReadonlySet<Task["answer_format"]> = new Set(["choice", "yes_no", "integer", "ordering"]);

/** How many times a circular run asks a question: once per option for a rotatable list of 2 or more, else once. */
function circularRotations(task: Pick<Task, "answer_format" | "options">): number {
  return ROTATED_FORMATS.has(task.answer_format) && task.options.length >= 2 ? task.options.length : 1;
}

/** The list from index r, wrapping: rotateOptions([a, b, c], 1) = [b, c, a]. */
export function rotateOptions<T>(options: readonly T[], r: number): T[] {
  const k = ((r % options.length) + options.length) % options.length;
  return [...options.slice(k), ...options.slice(0, k)];
}

/** The task with its options rotated by r: the same question and answer (a text, so it is still the answer). */
function rotatedTask<T extends Pick<Task, "options">>(task: T, r: number): T {
  return r === 0 ? task : { ...task, options: rotateOptions(task.options, r) };
}

/** The loosest of the rotations' matches: a circular item read fuzzily in any rotation is listed as fuzzy. */
const MATCH_LOOSENESS: readonly AnswerMatch[] = ["text", "letter", "fuzzy"];
function loosest(matches: ReadonlyArray<AnswerMatch | undefined>): AnswerMatch | undefined {
  const known = matches.filter((m): m is AnswerMatch => m !== undefined);
  return known.length ? known.reduce((a, b) => (MATCH_LOOSENESS.indexOf(b) > MATCH_LOOSENESS.indexOf(a) ? b : a)) : undefined;
}

/**
 * One answer from the rotations' answers (rotation 0 first): `parsed` only when every rotation gave an answer,
 * else the status, reason and failure of the first rotation that did not (its reason names the rotation). The
 * answer, confidence, prompt and method are rotation 0's; replies, calls and usage are every rotation's.
 */
function combineRotations(answers: readonly ReasonerAnswer[], latencyMs: number): ReasonerAnswer {
  if (answers.length === 0) throw new RangeError("combineRotations: no rotation");
  const first = answers[0]!;
  const failedAt = answers.findIndex((a) => a.status !== "parsed" || a.answer === null);
  const failed = failedAt >= 0 ? answers[failedAt]! : null;
  const usage = sumUsage(answers);
  const calls = answers.flatMap((a) => a.calls ?? []);
  const match = failed ? undefined : loosest(answers.map((a) => a.match));
  const { rotations: _nested, match: _firstMatch, usage: _firstUsage, calls: _firstCalls, ...lead } = first;
  const out: ReasonerAnswer = {
    ...lead,
    raw: answers.flatMap((a) => a.raw),
    reprompted: answers.some((a) => a.reprompted === true),
    cached: answers.every((a) => a.cached === true),
    latencyMs,
    ...(match ? { match } : {}),
    ...(usage ? { usage } : {}),
    ...(calls.length ? { calls } : {}),
    rotations: [...answers],
  };
  if (!failed) return out;
  const where = `rotation ${failedAt} of ${answers.length}`;
  const reason = `${where}: ${failed.reason ?? failed.status}`;
  return {
    ...out,
    status: failed.status,
    answer: null,
    confidence: null,
    method: failed.method,
    reason,
    ...(failed.failure ? { failure: { class: failed.failure.class, message: `${where}: ${failed.failure.message}` } } : {}),
  };
}

/** Every prompt an answer sent first (one per rotation of a circular answer): a run stores each as a prompt file. */
export function promptLogsOf(a: ReasonerAnswer): PromptLog[] {
  return (a.rotations ?? [a]).flatMap((r) => (r.promptLog ? [r.promptLog] : []));
}

/**
 * The reasoner asking every rotation of a question (in parallel: a model client's connection limit paces them);
 * questions with fewer than 2 options, or structured ones, are asked once, as the inner reasoner would.
 */
function circularReasoner(inner: Reasoner): Reasoner {
  return {
    id: inner.id,
    needs: inner.needs,
    async answer(input: ReasonerInput, signal?: AbortSignal): Promise<ReasonerAnswer> {
      const n = circularRotations(input.task);
      if (n < 2) return inner.answer(input, signal);
      const t0 = performance.now();
      const answers = await Promise.all(Array.from({ length: n }, (_, r) => inner.answer({ ...input, task: rotatedTask(input.task, r) }, signal)));
      return combineRotations(answers, Math.round((performance.now() - t0) * 100) / 100);
    },
  };
}

/** The reasoner as a run's `circular` option says: itself, or asking every rotation. */
export const withCircular = (inner: Reasoner, circular: boolean): Reasoner => (circular ? circularReasoner(inner) : inner);
