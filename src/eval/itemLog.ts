/**
 * What an item record keeps to audit a model's answer beyond the answer itself (issue 18): where its prompt
 * file is, the re-prompt's text, token usage and the model that answered (each call's latency is in timings_ms). The fields
 * are optional in the schema, so records written before them still read; offline reasoners (symbolic,
 * symbolic-2d, shortcut) call no model and write null, never 0.
 */
import * as z from "zod";
import type { ReasonerAnswer } from "../reason/types.js";
import { promptFilePath } from "./promptFiles.js";

const tokens = () => z.number().int().min(0).nullable();

const ModelCallRecordSchema = z
  .object({
    served_model: z
      .string()
      .describe("the model that answered, as the server named it (OpenAI `model`, Gemini `modelVersion`; the requested name when it named none)"),
    attempts: z.number().int().min(0).describe("HTTP attempts (0: a response-cache hit)"),
    cached: z.boolean(),
    finish_reason: z.string().nullable(),
    input_tokens: tokens().describe("OpenAI usage.prompt_tokens, Gemini usageMetadata.promptTokenCount; null when the server reported none"),
    output_tokens: tokens().describe("OpenAI usage.completion_tokens, Gemini candidatesTokenCount + thoughtsTokenCount"),
  })
  .strict();

/** The record fields of this file, spread into ItemRecordSchema (records.ts). */
export const ITEM_LOG_FIELDS = {
  prompt_file: z
    .string()
    .nullable()
    .optional()
    .describe("the first request as sent, relative to the run directory: prompts/<prompt_hash>.json (src/reason/promptFile.ts); null for offline reasoners"),
  reprompt: z.string().nullable().optional().describe("the text the re-prompt appended to the first user text (null: no re-prompt)"),
  served_model: z
    .string()
    .nullable()
    .optional()
    .describe("the model that gave the last reply, as the server named it; null when no call returned (offline reasoners, failed calls)"),
  usage: z
    .object({ input_tokens: tokens(), output_tokens: tokens() })
    .strict()
    .nullable()
    .optional()
    .describe(
      "tokens summed over the item's model calls (a field is null when no call reported it); null when no call returned: offline reasoners, failed calls",
    ),
  calls: z
    .array(ModelCallRecordSchema)
    .nullable()
    .optional()
    .describe(
      "each model call that returned, in order; null for offline reasoners. Call k's wall time is timings_ms.model_call_<k>, the whole answer's timings_ms.reason",
    ),
};

type LogFields = { [K in keyof typeof ITEM_LOG_FIELDS]: z.infer<(typeof ITEM_LOG_FIELDS)[K]> };

/** The audit fields of a record from its answer. */
export function itemLogFields(a: ReasonerAnswer): LogFields {
  const calls = a.calls ?? null;
  const returned = calls ?? [];
  const sum = (k: "inputTokens" | "outputTokens") => {
    const v = returned.map((c) => c[k]).filter((x): x is number => x !== null);
    return v.length ? v.reduce((s, x) => s + x, 0) : null;
  };
  return {
    prompt_file: a.promptLog ? promptFilePath(a.promptLog.file.prompt_hash) : null,
    reprompt: a.reprompt ?? null,
    served_model: returned.at(-1)?.servedModel ?? null,
    usage: returned.length ? { input_tokens: sum("inputTokens"), output_tokens: sum("outputTokens") } : null,
    calls: calls
      ? calls.map((c) => ({
          served_model: c.servedModel,
          attempts: c.attempts,
          cached: c.cached,
          finish_reason: c.finishReason,
          input_tokens: c.inputTokens,
          output_tokens: c.outputTokens,
        }))
      : null,
  };
}

/**
 * Each returned call's wall time (retries and backoff included), as timings_ms.model_call_<k> (1-based): with
 * the other measurements, so records compared across runs drop them together.
 */
export function callTimings(a: ReasonerAnswer): Record<string, number> {
  return Object.fromEntries((a.calls ?? []).map((c, k) => [`model_call_${k + 1}`, c.latencyMs]));
}
