/**
 * The answer protocol (the ESI-Bench paper, Appendix N, applied to answers): ask once; if the reply
 * cannot be read as an answer, ask **once** more with the same inputs plus a reminder of the required JSON form; a
 * second failure is `invalid`: kept with both raw replies, reported separately, never scored wrong and never
 * replaced by a guess.
 *
 * Other outcomes, each distinct from `invalid` (a failed call is never a wrong answer: the harnesses that score it as one mix outages into accuracy):
 * - `empty`: the model returned no text (typically a thinking model that spent its whole output budget, or a
 *   blocked prompt). Ours: an empty first reply is not re-prompted, since a format reminder does not fix a budget
 *   or a block; an empty reply to the re-prompt is also `empty`.
 * - `error`: the client threw (after its own retries); the message is recorded. A cancellation (AbortError, or an
 *   LlmError of kind "aborted") is re-thrown instead, so that a cancelled run does not record finished samples.
 */
import { repromptText } from "../prompt/reminder.js";
import type { AnswerQuestion, ParsedAnswer } from "./parse.js";
import { parseReply } from "./structured.js";

/**
 * Finish reasons that mean the reply was cut by the output token limit: OpenAI's `length`, Gemini's
 * `MAX_TOKENS`. Such a reply is never parsed as if complete (`{"answer": "y` was scored "yes").
 */
export const TRUNCATED_FINISH_REASONS: ReadonlySet<string> = new Set(["length", "MAX_TOKENS"]);

/** What `ask` returns: the reply text, and whether the provider says the output limit cut it. */
export interface AskedReply {
  text: string;
  truncated?: boolean;
}

/** The reason given for a reply cut by the output limit. */
const TRUNCATED_REASON = "the reply was cut by the output token limit (finish reason length / MAX_TOKENS), so it is not read as an answer";

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
  | { status: "invalid"; reason: string; firstFailure: string; replies: [string, string]; reprompted: true; truncated: boolean }
  | { status: "empty"; reason: string; replies: string[]; reprompted: boolean; firstFailure?: string }
  | { status: "error"; message: string; errorClass: string; replies: string[]; reprompted: boolean; firstFailure?: string };

function isCancellation(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  return e.name === "AbortError" || (e as { kind?: unknown }).kind === "aborted";
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The stable class of a thrown error (see AnswerFailure): `LlmError:<kind>[:<status>]`, else the error's name. */
function errorClassOf(e: unknown): string {
  if (!(e instanceof Error)) return typeof e;
  const kind = (e as { kind?: unknown }).kind,
    status = (e as { status?: unknown }).status;
  if (typeof kind === "string") return `${e.name}:${kind}${typeof status === "number" ? `:${status}` : ""}`;
  return e.name || "Error";
}

/**
 * Asks `ask(prompt)`, parses, and re-prompts at most once. `ask` returns the reply text (an LlmClient's
 * `chat(...).text` with the system text and images bound by the caller).
 */
export async function answerWithReprompt(
  ask: (userText: string) => Promise<string | AskedReply>,
  prompt: string,
  question: AnswerQuestion,
): Promise<AnswerOutcome> {
  const asked = async (text: string): Promise<AskedReply> => {
    const r = await ask(text);
    return typeof r === "string" ? { text: r } : r;
  };
  // a truncated reply is unreadable whatever it holds: the re-prompt asks for the bare JSON, which may fit
  const read = (r: AskedReply) => (r.truncated ? { status: "unparsed" as const, reason: TRUNCATED_REASON } : parseReply(r.text, question));
  let r1: AskedReply;
  try {
    r1 = await asked(prompt);
  } catch (e) {
    if (isCancellation(e)) throw e;
    return { status: "error", message: errorMessage(e), errorClass: errorClassOf(e), replies: [], reprompted: false };
  }
  const first = r1.text;
  if (first.trim() === "") return { status: "empty", reason: "the reply was empty", replies: [first], reprompted: false };
  const p1 = read(r1);
  if (p1.status === "parsed") return { status: "parsed", parsed: p1, replies: [first], reprompted: false };

  let r2: AskedReply;
  try {
    r2 = await asked(repromptText(prompt, question));
  } catch (e) {
    if (isCancellation(e)) throw e;
    return { status: "error", message: errorMessage(e), errorClass: errorClassOf(e), replies: [first], reprompted: true, firstFailure: p1.reason };
  }
  const second = r2.text;
  if (second.trim() === "") {
    return { status: "empty", reason: "the reply to the re-prompt was empty", replies: [first, second], reprompted: true, firstFailure: p1.reason };
  }
  const p2 = read(r2);
  if (p2.status === "parsed") return { status: "parsed", parsed: p2, replies: [first, second], reprompted: true, firstFailure: p1.reason };
  return { status: "invalid", reason: p2.reason, firstFailure: p1.reason, replies: [first, second], reprompted: true, truncated: r2.truncated === true };
}
