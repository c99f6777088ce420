/**
 * The answer protocol (ESI-Bench Appendix N, reference/esi-spec.md §2.5, applied to answers): ask once; if the reply
 * cannot be read as an answer, ask **once** more with the same inputs plus a reminder of the required JSON form; a
 * second failure is `invalid`: kept with both raw replies, reported separately, never scored wrong and never
 * replaced by a guess.
 *
 * Other outcomes, each distinct from `invalid` (reference/ecosystem.md §0.3: a failed call is never a wrong answer):
 * - `empty`: the model returned no text (typically a thinking model that spent its whole output budget, or a
 *   blocked prompt). Ours: an empty first reply is not re-prompted, since a format reminder does not fix a budget
 *   or a block; an empty reply to the re-prompt is also `empty`.
 * - `error`: the client threw (after its own retries); the message is recorded. A cancellation (AbortError, or an
 *   LlmError of kind "aborted") is re-thrown instead, so that a cancelled run does not record finished samples.
 */
import { repromptText } from "../prompt/reminder.js";
import { parseAnswer, type AnswerQuestion, type ParsedAnswer } from "./parse.js";

export type AnswerOutcome =
  | {
      status: "parsed";
      parsed: ParsedAnswer;
      /** raw replies in order: one, or two when the first needed the re-prompt */
      replies: string[];
      reprompted: boolean;
      /** why the first reply was not readable, when it was re-prompted */
      firstFailure?: string;
    }
  | { status: "invalid"; reason: string; firstFailure: string; replies: [string, string]; reprompted: true }
  | { status: "empty"; reason: string; replies: string[]; reprompted: boolean; firstFailure?: string }
  | { status: "error"; message: string; replies: string[]; reprompted: boolean; firstFailure?: string };

function isCancellation(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  return e.name === "AbortError" || (e as { kind?: unknown }).kind === "aborted";
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Asks `ask(prompt)`, parses, and re-prompts at most once. `ask` returns the reply text (an LlmClient's
 * `chat(...).text` with the system text and images bound by the caller).
 */
export async function answerWithReprompt(ask: (userText: string) => Promise<string>, prompt: string, question: AnswerQuestion): Promise<AnswerOutcome> {
  let first: string;
  try {
    first = await ask(prompt);
  } catch (e) {
    if (isCancellation(e)) throw e;
    return { status: "error", message: errorMessage(e), replies: [], reprompted: false };
  }
  if (first.trim() === "") return { status: "empty", reason: "the reply was empty", replies: [first], reprompted: false };
  const p1 = parseAnswer(first, question);
  if (p1.status === "parsed") return { status: "parsed", parsed: p1, replies: [first], reprompted: false };

  let second: string;
  try {
    second = await ask(repromptText(prompt, question));
  } catch (e) {
    if (isCancellation(e)) throw e;
    return { status: "error", message: errorMessage(e), replies: [first], reprompted: true, firstFailure: p1.reason };
  }
  if (second.trim() === "") {
    return { status: "empty", reason: "the reply to the re-prompt was empty", replies: [first, second], reprompted: true, firstFailure: p1.reason };
  }
  const p2 = parseAnswer(second, question);
  if (p2.status === "parsed") return { status: "parsed", parsed: p2, replies: [first, second], reprompted: true, firstFailure: p1.reason };
  return { status: "invalid", reason: p2.reason, firstFailure: p1.reason, replies: [first, second], reprompted: true };
}
