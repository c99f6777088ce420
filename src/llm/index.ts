/** LLM clients and the response cache: see client.ts for the entry point. */
export { createLlmClient } from "./client.js";
export type { LlmClientOptions, RetryEvent } from "./client.js";
export { ResponseCache, cacheKey, isCacheable } from "./cache.js";
export { redact } from "./redact.js";
export { LlmError } from "./types.js";
export type { LlmClient } from "./types.js";
