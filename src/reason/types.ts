/**
 * Reasoners: everything that turns a question (plus a scene graph, or images/masks for the 2D
 * baselines) into `{answer, confidence}`. Offline programs (`symbolic`, `symbolic-2d`) and language
 * models (`openai:<model>`, `gemini:<model>`) share this interface, so the runner treats them alike.
 */
import type { AnswerMatch } from "../prompt/formats.js";
import type { PromptInput } from "../prompt/input.js";
import type { PromptLog } from "./promptFile.js";

/** What a reasoner is given: the prompt stage's input (src/prompt/input.ts), whatever the reasoner is. */
export type ReasonerInput = PromptInput;

/**
 * How an answer ended: `parsed` (an answer, scored), `invalid` (a reply that could not be read, after the
 * re-prompt), `empty` (an empty reply), `error` (the call failed), `unanswerable` (an offline program whose
 * graph lacks what the question needs: it declines rather than guesses). Only `parsed` is scored.
 */
export const ANSWER_STATUSES = ["parsed", "invalid", "empty", "error", "unanswerable"] as const;
export type AnswerStatus = (typeof ANSWER_STATUSES)[number];

/**
 * Why an item has no answer, as a record keeps it (error items stored no cause). `class` is the
 * error's kind in a stable form: `LlmError:<kind>` (with the HTTP status, e.g. `LlmError:http:401`) for a
 * failed model call, the error's name for anything else thrown, `empty_reply` or `invalid_reply` for a
 * reply that came but could not be used, `truncated_reply` for one cut by the output limit.
 */
interface AnswerFailure {
  class: string;
  /** the message, redacted (no key, no server path) */
  message: string;
}

export interface ReasonerAnswer {
  status: AnswerStatus;
  /** Canonical answer (one of the options, or the integer as a string), null unless parsed. */
  answer: string | null;
  confidence: number | null;
  /** Raw replies (LLMs) or the program's trace (offline reasoners), kept for records. */
  raw: string[];
  /** How the answer was obtained: the program name, or the parse path ("json", "rule-option", ...). */
  method: string;
  /**
   * How a parsed answer was matched to its option: `text` (the option's own text, or an integer's value: what
   * offline programs give), `letter` (a lettered option's letter), `fuzzy` (a tolerant rule: a yes/no synonym, an
   * option's text inside a longer reply). Unset when there is no answer.
   */
  match?: AnswerMatch;
  /** The exact prompt text (LLMs), for records and the inspection page. */
  prompt?: string;
  /** sha256 of everything that determines the reply. */
  promptHash?: string;
  reprompted?: boolean;
  /** Why the answer is what it is, or why there is none. */
  reason?: string;
  /** Set when the reply stated a confidence that could not be read (e.g. 1.7): the confidence is null, never rescaled. */
  confidenceProblem?: string;
  /** Set when there is no answer because something failed (status error, empty or invalid): what failed, and how. */
  failure?: AnswerFailure;
  latencyMs: number;
  cached?: boolean;
  usage?: { inputTokens?: number; outputTokens?: number };
  /** LLMs: the first request as sent (src/reason/promptFile.ts), which a run stores as prompts/<promptHash>.json. */
  promptLog?: PromptLog;
  /** LLMs: the text the re-prompt appended to the first user text, when there was a re-prompt. */
  reprompt?: string;
  /** LLMs: what each model call reported, in order (none when the first call failed). */
  calls?: ModelCall[];
  /** Repeated sampling (k > 1): each sample's answer and the majority's share (src/reason/vote.ts); the answer is the majority's. */
  sampling?: { k: number; answers: Array<string | null>; agreement: number };
  /**
   * Circular evaluation (src/reason/circular.ts): each rotation's own answer, rotation r listing the options from
   * index r; the fields above combine them (rotation 0's answer, the first failure's status).
   */
  rotations?: ReasonerAnswer[];
}

/** One model call of an answer, as the client reported it. */
export interface ModelCall {
  /** the model that answered, as the server names it (OpenAI `model`, Gemini `modelVersion`) */
  servedModel: string;
  /** wall time of the call, retries and backoff included */
  latencyMs: number;
  /** HTTP attempts (0: a response-cache hit) */
  attempts: number;
  cached: boolean;
  finishReason: string | null;
  /** OpenAI usage.prompt_tokens / Gemini usageMetadata.promptTokenCount; null when the server reported none */
  inputTokens: number | null;
  /** OpenAI usage.completion_tokens / Gemini candidatesTokenCount + thoughtsTokenCount */
  outputTokens: number | null;
}

export interface Reasoner {
  readonly id: string;
  /** What the reasoner needs: a scene graph (3D arms) or the bundle (2D arms). */
  readonly needs: "graph" | "bundle";
  answer(input: ReasonerInput, signal?: AbortSignal): Promise<ReasonerAnswer>;
}
