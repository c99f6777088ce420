/**
 * Our retry policy for LLM calls. The SDKs' own retries are switched off (openai `maxRetries: 0`; @google/genai
 * retries only when `retryOptions` is set, and we never set it), so every retry decision is made here and is
 * testable.
 *
 * Policy (the openai SDK's documented retry choices, which we copy):
 * - retry HTTP 408, 409, 429 and every 5xx, connection errors and per-attempt timeouts;
 * - any other 4xx fails at once;
 * - wait what the server asks (`retry-after-ms`, then `Retry-After` in seconds or as an HTTP date), capped at
 *   `maxRetryAfterMs`; otherwise exponential backoff base·2ⁿ, capped, minus up to 25 % jitter.
 */

/** Retries after the first attempt. The openai SDK defaults to 2, @google/genai's retryOptions to 4 (5 attempts
 * including the first); a benchmark run prefers to ride out short rate-limit bursts, so we take genai's 4. */
export const DEFAULT_MAX_RETRIES = 4;
/** First backoff step: the openai SDK's INITIAL_RETRY_DELAY (0.5 s). */
export const DEFAULT_BACKOFF_BASE_MS = 500;
/** Backoff cap: the openai SDK's MAX_RETRY_DELAY (8 s). */
export const DEFAULT_BACKOFF_CAP_MS = 8_000;
/** Jitter: the delay is reduced by up to this fraction, as in the openai SDK (up to 25 %). */
const BACKOFF_JITTER_FRACTION = 0.25;
/** Longest server-requested wait we honour; the openai SDK ignores Retry-After above 60 s. Larger requests are
 * clamped to this value (ours: waiting the clamp and retrying beats falling back to a shorter blind backoff). */
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

/** HTTP statuses worth retrying: request timeout, conflict (lock timeouts), rate limit; 5xx is checked separately. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 409, 429]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status) || (status >= 500 && status <= 599);
}

/** Anything with a `get(name)` returning a header value, like fetch's Headers. */
export interface HeaderLookup {
  get(name: string): string | null | undefined;
}

/**
 * The server-requested wait in ms, or undefined when it names none: `retry-after-ms` (OpenAI's extension,
 * milliseconds) first, then `Retry-After` as delay-seconds (RFC 9110 §10.2.3; fractional values accepted) or as an
 * HTTP date. A date in the past gives 0.
 */
export function parseRetryAfterMs(headers: HeaderLookup | undefined, nowMs: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms != null && ms.trim() !== "") {
    const v = Number(ms.trim());
    if (Number.isFinite(v) && v >= 0) return v;
  }
  const ra = headers.get("retry-after");
  if (ra == null || ra.trim() === "") return undefined;
  const s = ra.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  // every HTTP-date form (IMF-fixdate, RFC 850, asctime) starts with a day name; anything else is not a date
  if (!/^[A-Za-z]{3}/.test(s)) return undefined;
  const date = Date.parse(s);
  if (Number.isFinite(date)) return Math.max(0, date - nowMs);
  return undefined;
}

export interface BackoffOptions {
  baseMs: number;
  capMs: number;
  /** uniform in [0, 1) */
  random: () => number;
}

/** Delay before retry number `retryIndex` (0 = the first retry): min(cap, base·2ⁿ)·(1 − 0.25·u). */
export function backoffDelayMs(retryIndex: number, o: BackoffOptions): number {
  const raw = Math.min(o.capMs, o.baseMs * 2 ** retryIndex);
  return raw * (1 - BACKOFF_JITTER_FRACTION * o.random());
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason ?? new Error("aborted"));
    };
    const t = setTimeout(
      () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
