/**
 * Provider-neutral LLM client types. Every provider (OpenAI Chat Completions and OpenAI-compatible servers,
 * Gemini) is reached through this one interface; retries, timeouts, concurrency and the response cache are
 * ours (src/llm/client.ts), not the SDKs'.
 */
import { InputError } from "../../core/errors.js";

export interface ChatImage {
  /** e.g. "image/png" */
  mimeType: string;
  /** raw encoded image bytes (PNG, JPEG, ...); sent base64-encoded */
  data: Uint8Array;
}

export interface ChatRequest {
  system?: string;
  user: string;
  images?: ChatImage[];
  /** undefined = the provider's default. Cached when 0 or undefined, or when the request is a numbered sample (see cache.ts). */
  temperature?: number;
  maxOutputTokens?: number;
  /**
   * Which of an item's repeated samples this request is (0-based; `esi3d run --samples`). Never sent: it only keys
   * the cache, so that sample i of a request is stored and replayed apart from every other sample.
   */
  sample?: number;
}

export interface ChatUsage {
  inputTokens?: number;
  outputTokens?: number;
}

export interface ChatResult {
  /** the reply text; "" when the model returned no text (e.g. thinking used the whole output budget) */
  text: string;
  /** the model that answered, as the server reports it (falls back to the requested model) */
  model: string;
  /** HTTP attempts made for this result (0 for a cache hit) */
  attempts: number;
  /** wall time of this call in ms, including retries and backoff (cache lookup time for a hit) */
  latencyMs: number;
  cached: boolean;
  usage?: ChatUsage;
  /** the provider's finish / stop reason when it gives one ("stop", "length", "STOP", "MAX_TOKENS", "SAFETY", ...) */
  finishReason?: string;
}

export interface LlmClient {
  /** "openai:<model>" or "gemini:<model>" */
  readonly id: string;
  chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResult>;
}

/**
 * How a call failed.
 * - `config`: the client cannot be built or used (missing key, bad spec); never retried.
 * - `http`: the server answered with a non-2xx status (`status` set).
 * - `connection`: no HTTP answer (refused, reset, DNS).
 * - `timeout`: the per-attempt timeout ran out.
 * - `bad_response`: a 2xx answer whose body is not the provider's wire format (malformed JSON, no choices).
 * - `aborted`: the caller's AbortSignal fired.
 * - `reply_too_large`: the reply's body exceeded the client's byte bound (src/llm/replyLimit.ts); never retried.
 */
export type LlmErrorKind = "http" | "connection" | "timeout" | "bad_response" | "aborted" | "reply_too_large";

/**
 * The one error type the clients throw. Its message names the provider, model, status and the server's own
 * message, and never contains an API key (every message passes through `redact`).
 */
export class LlmError extends Error {
  readonly kind: LlmErrorKind;
  readonly status: number | undefined;
  readonly attempts: number;
  readonly retryable: boolean;
  /** the wait the server asked for (Retry-After / retry-after-ms), in ms, when it asked */
  readonly retryAfterMs: number | undefined;
  constructor(message: string, opts: { kind: LlmErrorKind; status?: number; attempts?: number; retryable?: boolean; retryAfterMs?: number }) {
    super(message);
    this.name = "LlmError";
    this.kind = opts.kind;
    this.status = opts.status;
    this.attempts = opts.attempts ?? 0;
    this.retryable = opts.retryable ?? false;
    this.retryAfterMs = opts.retryAfterMs;
  }
}

/** A client that cannot be made as configured (unknown model, missing API key, malformed base URL): the user's to fix. */
export class LlmConfigError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = "LlmConfigError";
  }
}
