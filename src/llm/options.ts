/**
 * How model calls are made, declared once (the `run` and `ask` flags, a run's config.json and the service
 * derive from this): endpoint, cache, timeout, retries, temperature. None of it is secret: keys come from
 * the environment only (src/llm/client.ts).
 */
import * as z from "zod";
import type { FlagSpec } from "../../core/flags.js";
import { DEFAULT_MAX_RETRIES } from "./retry.js";

/** Per-attempt timeout (ms). The openai SDK defaults to 10 min, which hides a hung connection for too long; 5 min
 * (undici's default headers timeout) still leaves room for slow reasoning models. Ours. */
export const DEFAULT_TIMEOUT_MS = 300_000;
/**
 * Overall limit for one item's model calls: every attempt, every wait before a retry, and the re-prompt
 * (ms). Without it a hung endpoint held an item for up to 25 minutes at the default timeout and retries.
 * Ten minutes is two default per-attempt timeouts: room for a slow reasoning model's reply and
 * its re-prompt, never a stall of a run. Ours.
 */
const DEFAULT_ITEM_DEADLINE_MS = 600_000;
/** Greedy decoding, as VSI-Bench evaluates (Thinking in Space, its paper), and the only setting the response cache stores. */
const DEFAULT_TEMPERATURE = 0;
/**
 * Most samples of one item (`--samples`): a bound against a typo that multiplies a run's bill; ours. lm-eval's
 * repeats and Inspect's epochs are typically 5 to 10 in published evaluations.
 */
const MAX_SAMPLES = 100;
/** Largest output token limit accepted: the largest output window of current models (Gemini 2.5: 65,536) with room to grow; ours. */
const MAX_OUTPUT_TOKENS = 1_000_000;
/** Providers state their limits per minute (requests and tokens per minute), so the default window is one. */
const DEFAULT_RATE_WINDOW_MS = 60_000;

/** True for an absolute http(s) URL: the only endpoints a client can talk to. */
function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
  } catch {
    return false;
  }
}

const BaseUrlSchema = z.string().refine(isHttpUrl, "expected an absolute http(s) URL, e.g. http://127.0.0.1:8000/v1");

export const LlmOptionsSchema = z
  .object({
    baseUrl: BaseUrlSchema.nullable().default(null).describe("OpenAI-compatible server (vLLM, Ollama, llama.cpp) or Gemini endpoint"),
    cachePath: z.string().min(1).nullable().default(null).describe("response cache (SQLite); null: none"),
    timeoutMs: z.number().int().min(1000).max(3_600_000).default(DEFAULT_TIMEOUT_MS).describe("per-request timeout for model calls (s on the command line)"),
    maxRetries: z.number().int().min(0).max(20).default(DEFAULT_MAX_RETRIES).describe("retries of a failed model call"),
    itemDeadlineMs: z
      .number()
      .int()
      .min(1000)
      .max(86_400_000)
      .default(DEFAULT_ITEM_DEADLINE_MS)
      .describe(
        "overall time for one item's model calls, retries, waits and re-prompt included (s on the command line); past it the item is recorded as an error",
      ),
    temperature: z.number().min(0).max(2).default(DEFAULT_TEMPERATURE).describe("sampling temperature (0: greedy)"),
    maxOutputTokens: z
      .number()
      .int()
      .min(1)
      .max(MAX_OUTPUT_TOKENS)
      .nullable()
      .default(null)
      .describe("output token limit of each model call (null: the provider's default)"),
    systemPrompt: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe("the system text of the answer prompts, replacing src/prompt's (null: src/prompt's; on the command line a file: --system-prompt FILE)"),
    samples: z
      .number()
      .int()
      .min(1)
      .max(MAX_SAMPLES)
      .default(1)
      .describe("answers sampled per item; the item's answer is their majority vote, with the agreement recorded (1: one answer)"),
    requestsPerWindow: z
      .number()
      .int()
      .min(1)
      .nullable()
      .default(null)
      .describe("rate limit of the model: requests started per window, across every worker of a queue run (null: none)"),
    tokensPerWindow: z
      .number()
      .int()
      .min(1)
      .nullable()
      .default(null)
      .describe("rate limit of the model: prompt + completion tokens per window, as replies report them (null: none)"),
    rateWindowMs: z.number().int().min(100).max(3_600_000).default(DEFAULT_RATE_WINDOW_MS).describe("the rate limits' window (s on the command line)"),
  })
  .strict();
export type LlmOptions = z.infer<typeof LlmOptionsSchema>;

/** `--cache` and `--no-cache` are the front-end's (their default location depends on the command). */
export const LLM_FLAGS: readonly FlagSpec[] = [
  { path: "baseUrl", flag: "--base-url <url>" },
  { path: "timeoutMs", flag: "--timeout <s>", scale: 1000, help: "per-request timeout for model calls (s)" },
  { path: "maxRetries", flag: "--max-retries <n>" },
  { path: "itemDeadlineMs", flag: "--item-deadline <s>", scale: 1000, help: "overall time for one item's model calls, retries and waits included (s)" },
  { path: "temperature", flag: "--temperature <t>" },
  { path: "maxOutputTokens", flag: "--max-tokens <n>" },
  {
    path: "systemPrompt",
    flag: "--system-prompt <file>",
    kind: "file",
    help: "a text file whose content replaces the answer prompts' system text (recorded in config.json)",
  },
  { path: "samples", flag: "--samples <k>" },
  { path: "requestsPerWindow", flag: "--rate-requests <n>" },
  { path: "tokensPerWindow", flag: "--rate-tokens <n>" },
  { path: "rateWindowMs", flag: "--rate-window <s>", scale: 1000, help: "the rate limits' window (s)" },
];
