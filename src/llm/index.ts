/** LLM clients and the response cache: see client.ts for the entry point. */
export { createLlmClient, parseModelSpec, DEFAULT_MAX_CONCURRENCY, SUPPORTED_PROVIDERS } from "./client.js";
export { DEFAULT_TIMEOUT_MS, DEFAULT_TEMPERATURE, LlmOptionsSchema, isHttpUrl } from "./options.js";
export type { LlmClientOptions, RetryEvent } from "./client.js";
export { ResponseCache, cacheKey, isCacheable, CACHE_SCHEMA_VERSION } from "./cache.js";
export type { CacheKeyInput, CachedReply } from "./cache.js";
export {
  DEFAULT_MAX_RETRIES,
  DEFAULT_BACKOFF_BASE_MS,
  DEFAULT_BACKOFF_CAP_MS,
  DEFAULT_MAX_RETRY_AFTER_MS,
  BACKOFF_JITTER_FRACTION,
  parseRetryAfterMs,
  backoffDelayMs,
  isRetryableStatus,
} from "./retry.js";
export { OPENAI_DEFAULT_BASE_URL, OPENAI_PLACEHOLDER_KEY } from "./openai.js";
export type { MaxTokensParam } from "./openai.js";
export { GEMINI_DEFAULT_BASE_URL, GEMINI_DEFAULT_API_VERSION } from "./gemini.js";
export { redact } from "./redact.js";
export { LlmConfigError, LlmError } from "./types.js";
export type { ChatImage, ChatRequest, ChatResult, ChatUsage, LlmClient, LlmErrorKind } from "./types.js";
