/**
 * createLlmClient("openai:<model>" | "gemini:<model>", options): one LlmClient with our retry layer, a
 * per-attempt timeout, a concurrency limit, the on-disk response cache, usage and latency.
 *
 * Keys come only from the environment: OPENAI_API_KEY, GEMINI_API_KEY. An OpenAI-compatible server given with an
 * explicit base URL may run without a key (a placeholder is sent). No key ever appears in an error message, a
 * retry event or a cache entry.
 */
import pLimit from "p-limit";
import { Rng } from "../../core/math/rng.js";
import { DEFAULT_TIMEOUT_MS } from "./options.js";
import { DEFAULT_MAX_REPLY_BYTES } from "./replyLimit.js";
import { ResponseCache, cacheKey, isCacheable } from "./cache.js";
import { GEMINI_DEFAULT_API_VERSION, GEMINI_DEFAULT_BASE_URL, createGeminiTransport } from "./gemini.js";
import { OPENAI_DEFAULT_BASE_URL, OPENAI_PLACEHOLDER_KEY, createOpenAiTransport, type MaxTokensParam } from "./openai.js";
import { displayUrl, redact } from "./redact.js";
import {
  DEFAULT_BACKOFF_BASE_MS,
  DEFAULT_BACKOFF_CAP_MS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_AFTER_MS,
  backoffDelayMs,
  isRetryableStatus,
  sleep,
} from "./retry.js";
import type { RequestGate } from "./gate.js";
import { TransportError, type Transport, type TransportReply } from "./transport.js";
import { LlmConfigError, LlmError, type ChatRequest, type ChatResult, type LlmClient, type LlmErrorKind } from "./types.js";

/** In-flight requests per client: the harnesses' usual 8–10 (Inspect AI's --max-connections
 * default is 10); we take the lower end for rate-limited accounts. */
const DEFAULT_MAX_CONCURRENCY = 8;
/** Seed of the jitter stream when none is injected (jitter never changes results, only timing). */
const DEFAULT_JITTER_SEED = "esi3d/llm/jitter";

interface RetryEvent {
  clientId: string;
  /** the attempt that just failed (1 = the first) */
  attempt: number;
  kind: LlmErrorKind;
  status?: number;
  /** how long we wait before the next attempt */
  delayMs: number;
  /** true when the delay is the server's Retry-After / retry-after-ms */
  serverRequested: boolean;
  /** redacted */
  message: string;
}

export interface LlmClientOptions {
  /** the response cache: an open ResponseCache, a file path to open, or null for none (`--no-cache`) */
  cache: ResponseCache | string | null;
  /** an OpenAI-compatible server (vLLM, Ollama, llama.cpp) or a Gemini endpoint; default: the provider's own */
  baseUrl?: string;
  /** per-attempt timeout in ms (default DEFAULT_TIMEOUT_MS) */
  timeoutMs?: number;
  /** retries after the first attempt (default DEFAULT_MAX_RETRIES) */
  maxRetries?: number;
  /** requests in flight at once for this client (default DEFAULT_MAX_CONCURRENCY); cache hits do not wait */
  maxConcurrency?: number;
  /** first backoff step in ms (default DEFAULT_BACKOFF_BASE_MS) */
  backoffBaseMs?: number;
  /** backoff cap in ms (default DEFAULT_BACKOFF_CAP_MS) */
  backoffCapMs?: number;
  /** longest server-requested wait honoured, in ms (default DEFAULT_MAX_RETRY_AFTER_MS); longer ones are clamped */
  maxRetryAfterMs?: number;
  /** jitter source, uniform in [0, 1); default a seeded stream */
  random?: () => number;
  /** where keys are read from (default process.env); tests pass their own */
  env?: Readonly<Record<string, string | undefined>>;
  /** called before each backoff wait, e.g. to log */
  onRetry?: (e: RetryEvent) => void;
  /** OpenAI only: which field carries maxOutputTokens (default: max_completion_tokens for api.openai.com, max_tokens elsewhere) */
  maxTokensParam?: MaxTokensParam;
  /** Gemini only: API version path segment (default "v1beta") */
  apiVersion?: string;
  /** rate limits every attempt passes (src/llm/gate.ts); a 429 with Retry-After pauses it */
  gate?: RequestGate;
  /** the most bytes a reply's body may have (default DEFAULT_MAX_REPLY_BYTES); a larger one fails as reply_too_large */
  maxReplyBytes?: number;
}

export const SUPPORTED_PROVIDERS = ["openai", "gemini"] as const;

/** Splits "provider:model"; throws a config LlmError naming the accepted forms. */
export function parseModelSpec(spec: string): { provider: (typeof SUPPORTED_PROVIDERS)[number]; model: string } {
  const m = /^([a-z]+):(.+)$/.exec(spec.trim());
  if (!m || !(SUPPORTED_PROVIDERS as readonly string[]).includes(m[1]!)) {
    throw new LlmConfigError(`unknown model "${spec}": expected "openai:<model>" or "gemini:<model>"`);
  }
  return { provider: m[1] as "openai" | "gemini", model: m[2]!.trim() };
}

export function createLlmClient(spec: string, opts: LlmClientOptions): LlmClient {
  const { provider, model } = parseModelSpec(spec);
  const env = opts.env ?? process.env;
  const timeoutMs = positive(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, "timeoutMs");
  const maxRetries = nonNegativeInt(opts.maxRetries ?? DEFAULT_MAX_RETRIES, "maxRetries");
  const maxConcurrency = nonNegativeInt(opts.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY, "maxConcurrency");
  if (maxConcurrency < 1) throw new LlmConfigError("maxConcurrency must be at least 1");
  const jitterRng = new Rng(DEFAULT_JITTER_SEED);
  const backoff = {
    baseMs: opts.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS,
    capMs: opts.backoffCapMs ?? DEFAULT_BACKOFF_CAP_MS,
    random: opts.random ?? (() => jitterRng.next()),
  };
  const maxRetryAfterMs = opts.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  const maxReplyBytes = positive(opts.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES, "maxReplyBytes");

  let transport: Transport;
  if (provider === "openai") {
    const baseUrl = (opts.baseUrl ?? env.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, "");
    const explicitServer = opts.baseUrl !== undefined || env.OPENAI_BASE_URL !== undefined;
    let apiKey = env.OPENAI_API_KEY;
    if (!apiKey) {
      if (!explicitServer) {
        throw new LlmConfigError(
          `${spec}: the environment variable OPENAI_API_KEY is not set (for a local OpenAI-compatible server without a key, pass its --base-url)`,
        );
      }
      apiKey = OPENAI_PLACEHOLDER_KEY;
    }
    const maxTokensParam = opts.maxTokensParam ?? (baseUrl === OPENAI_DEFAULT_BASE_URL ? "max_completion_tokens" : "max_tokens");
    transport = createOpenAiTransport({ model, apiKey, baseUrl, maxTokensParam, timeoutMs, maxReplyBytes });
  } else {
    const apiKey = env.GEMINI_API_KEY;
    if (!apiKey) throw new LlmConfigError(`${spec}: the environment variable GEMINI_API_KEY is not set`);
    transport = createGeminiTransport({
      model,
      apiKey,
      baseUrl: (opts.baseUrl ?? GEMINI_DEFAULT_BASE_URL).replace(/\/+$/, ""),
      apiVersion: opts.apiVersion ?? GEMINI_DEFAULT_API_VERSION,
      maxReplyBytes,
    });
  }

  const cache = typeof opts.cache === "string" ? ResponseCache.open(opts.cache) : opts.cache;
  const limit = pLimit(maxConcurrency);
  const id = `${provider}:${model}`;
  const where = displayUrl(transport.baseUrl);
  const clean = (s: string) => redact(s, transport.secrets);

  function fail(kind: LlmErrorKind, detail: string, attempts: number, status?: number, retryable = false, retryAfterMs?: number): LlmError {
    const tries = attempts > 0 ? ` (${attempts} attempt${attempts === 1 ? "" : "s"})` : "";
    return new LlmError(clean(`${id} at ${where}: ${detail}${tries}`), { kind, status, attempts, retryable, retryAfterMs });
  }

  async function attemptOnce(req: ChatRequest, signal: AbortSignal | undefined, attempt: number): Promise<TransportReply> {
    // the signal may have fired while this attempt waited for a connection slot
    if (signal?.aborted) throw fail("aborted", "cancelled by the caller", attempt - 1);
    const ctl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctl.abort(new Error("timeout"));
    }, timeoutMs);
    const onAbort = () => ctl.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await transport.send(req, ctl.signal);
    } catch (e) {
      if (signal?.aborted) throw fail("aborted", "cancelled by the caller", attempt);
      if (timedOut) throw fail("timeout", `no complete reply within ${timeoutMs} ms`, attempt, undefined, true);
      if (e instanceof TransportError) {
        if (e.kind === "http") {
          throw fail("http", `HTTP ${e.status}: ${e.message}`, attempt, e.status, isRetryableStatus(e.status ?? 0), e.retryAfterMs);
        }
        if (e.kind === "connection") throw fail("connection", `connection failed: ${e.message}`, attempt, undefined, true);
        // the same request gets the same reply: another attempt would only read it again
        if (e.kind === "reply_too_large") throw fail("reply_too_large", e.message, attempt);
        throw fail("bad_response", e.message, attempt, undefined, e.retryable);
      }
      throw fail("bad_response", `unexpected error: ${e instanceof Error ? e.message : String(e)}`, attempt);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  async function chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    if (typeof req?.user !== "string") throw new LlmConfigError(`${id}: ChatRequest.user must be a string`);
    const t0 = performance.now();
    const key =
      cache && isCacheable(req)
        ? cacheKey({
            provider,
            model,
            baseUrl: transport.baseUrl,
            params: transport.params(req),
            system: req.system,
            user: req.user,
            images: req.images,
            sample: req.sample,
          })
        : undefined;
    const fromCache = (): ChatResult | undefined => {
      if (!key || !cache) return undefined;
      const hit = cache.get(key);
      if (!hit) return undefined;
      const r: ChatResult = { text: hit.text, model: hit.model, attempts: 0, latencyMs: performance.now() - t0, cached: true };
      if (hit.usage) r.usage = hit.usage;
      if (hit.finishReason) r.finishReason = hit.finishReason;
      return r;
    };
    const early = fromCache();
    if (early) return early;

    // each attempt takes a connection slot and gives it back before any wait, so a request that waits
    // out a Retry-After does not keep others from their first attempt
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw fail("aborted", "cancelled by the caller", attempt - 1);
      let got: { hit: ChatResult } | { reply: TransportReply };
      try {
        got = await limit(async () => {
          // an identical request may have filled the cache while this one waited for a slot
          const late = attempt === 1 ? fromCache() : undefined;
          if (late) return { hit: late };
          await transport.ready?.();
          if (opts.gate)
            await opts.gate
              .acquire(signal)
              .catch(() => Promise.reject(fail("aborted", "cancelled by the caller while waiting for the rate limit", attempt - 1)));
          const reply = await attemptOnce(req, signal, attempt);
          await opts.gate?.settle((reply.usage?.inputTokens ?? 0) + (reply.usage?.outputTokens ?? 0));
          return { reply };
        });
      } catch (e) {
        const err = e as LlmError;
        const ra = err.retryAfterMs;
        // the provider's own wait holds for every request to it, not just this one
        if (ra !== undefined && err.status === 429) await opts.gate?.pause(Math.min(ra, maxRetryAfterMs));
        if (!err.retryable || attempt > maxRetries) throw err;
        const delayMs = ra !== undefined ? Math.min(ra, maxRetryAfterMs) : backoffDelayMs(attempt - 1, backoff);
        opts.onRetry?.({
          clientId: id,
          attempt,
          kind: err.kind,
          ...(err.status !== undefined ? { status: err.status } : {}),
          delayMs,
          serverRequested: ra !== undefined,
          message: err.message,
        });
        try {
          await sleep(delayMs, signal);
        } catch {
          throw fail("aborted", "cancelled by the caller while waiting to retry", attempt);
        }
        continue;
      }
      if ("hit" in got) return got.hit;
      const reply = got.reply;
      const result: ChatResult = {
        text: reply.text,
        model: reply.model ?? model,
        attempts: attempt,
        latencyMs: performance.now() - t0,
        cached: false,
      };
      if (reply.usage) result.usage = reply.usage;
      if (reply.finishReason) result.finishReason = reply.finishReason;
      if (key && cache) {
        cache.put(key, { provider, model, baseUrl: where }, { text: reply.text, model: result.model, usage: reply.usage, finishReason: reply.finishReason });
      }
      return result;
    }
  }

  return { id, chat };
}

function positive(v: number, name: string): number {
  if (!(Number.isFinite(v) && v > 0)) throw new LlmConfigError(`${name} must be a positive number, got ${v}`);
  return v;
}

function nonNegativeInt(v: number, name: string): number {
  if (!(Number.isInteger(v) && v >= 0)) throw new LlmConfigError(`${name} must be a non-negative integer, got ${v}`);
  return v;
}
