/**
 * What a provider adapter does: one HTTP attempt, no retries, no timeout of its own (the caller's signal carries
 * both the per-attempt timeout and the caller's abort). Failures are thrown as TransportError so that the retry
 * layer (client.ts) can decide what to do without knowing any SDK.
 */
import type { ChatRequest, ChatUsage } from "./types.js";

export interface TransportReply {
  text: string;
  /** the model the server says answered, when it says */
  model?: string;
  usage?: ChatUsage;
  finishReason?: string;
}

export type TransportErrorKind = "http" | "connection" | "bad_response" | "reply_too_large";

export class TransportError extends Error {
  readonly kind: TransportErrorKind;
  readonly status: number | undefined;
  /** the wait the server asked for (Retry-After / retry-after-ms), in ms */
  readonly retryAfterMs: number | undefined;
  /** a bad_response worth another attempt: a body cut short (malformed JSON), not a well-formed refusal */
  readonly retryable: boolean;
  constructor(kind: TransportErrorKind, message: string, opts: { status?: number; retryAfterMs?: number; retryable?: boolean } = {}) {
    super(message);
    this.name = "TransportError";
    this.kind = kind;
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
    this.retryable = opts.retryable ?? false;
  }
}

export interface Transport {
  readonly provider: "openai" | "gemini";
  readonly model: string;
  /** the endpoint requests go to (for messages and the cache key) */
  readonly baseUrl: string;
  /** values that must never appear in any output (the API key) */
  readonly secrets: readonly string[];
  /** generation parameters as they shape the request, for the cache key */
  params(req: ChatRequest): Record<string, unknown>;
  send(req: ChatRequest, signal: AbortSignal): Promise<TransportReply>;
  /**
   * Loads what a request needs before it can go out (the SDK, loaded on first use): client.ts awaits it
   * before a request's rate-limit admission, so no admitted request waits for it on its way to the server.
   */
  ready?(): Promise<void>;
}

/** The server's own message from an error body: `{error: {message}}` (OpenAI and Google style) or the text itself. */
export function serverMessage(body: unknown, fallback: string): string {
  let b: unknown = body;
  if (typeof body === "string") {
    try {
      b = JSON.parse(body);
    } catch {
      return truncate(body.trim() || fallback);
    }
  }
  if (b && typeof b === "object") {
    const err = (b as { error?: unknown }).error;
    if (err && typeof err === "object" && typeof (err as { message?: unknown }).message === "string") {
      return truncate((err as { message: string }).message);
    }
    if (typeof err === "string") return truncate(err);
    if (typeof (b as { message?: unknown }).message === "string") return truncate((b as { message: string }).message);
  }
  return truncate(fallback);
}

/** Longest server message we quote in an error (characters); ours, to keep one-line errors readable. */
const MAX_SERVER_MESSAGE_CHARS = 500;

function truncate(s: string): string {
  return s.length > MAX_SERVER_MESSAGE_CHARS ? `${s.slice(0, MAX_SERVER_MESSAGE_CHARS)}…` : s;
}

/** True for errors thrown by fetch when it cannot reach the server (undici's "fetch failed" with a socket cause). */
export function isConnectionFailure(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  if (e.name === "TypeError" && /fetch failed|network|socket|terminated/i.test(e.message)) return true;
  const code = (e as { code?: unknown }).code ?? (e as { cause?: { code?: unknown } }).cause?.code;
  return typeof code === "string" && /^(ECONNREFUSED|ECONNRESET|EPIPE|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|UND_ERR_\w+)$/.test(code);
}

/** A 2xx body that does not parse: most often a connection dropped mid-body, so another attempt may well work. */
export function malformedBody(e: SyntaxError): TransportError {
  return new TransportError("bad_response", `malformed JSON in the response body (${e.message})`, { retryable: true });
}

export function base64(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64");
}
