/**
 * LLM reasoners: `openai:<model>` (OpenAI and OpenAI-compatible servers) and `gemini:<model>`.
 *
 * Without images an LLM reasoner is ESI-Bench's "3D + LLM" arm: it gets the serialized scene graph (src/prompt) and no
 * images. With `images` ("single" | "multi", set per reasoner or per input) it is the "2D + VLM" baseline: images of
 * the frame bundle, no graph (the ESI-Bench paper's model families).
 *
 * One answer = buildPrompt → client.chat through `answerWithReprompt` (src/reason/protocol.ts: one re-prompt with a
 * format reminder, then `invalid`). Model failures never throw: they come back as status `error` (the client failed
 * after its retries, or the input lacked what the arm needs), `invalid` (two unreadable replies) or `empty` (no text).
 * Only a cancellation is re-thrown (AbortError, or an LlmError of kind "aborted"), as protocol.ts does, so that a
 * cancelled run records nothing for the sample.
 *
 * What each answer records:
 * - `prompt`: the prompt record of src/prompt/templates.ts `promptRecord`: `=== system ===`, the system text,
 *   `=== user ===`, the exact user text of the first request (the re-prompt is that text plus protocol.ts's reminder),
 *   and for the VLM arm `=== images ===` with one line per image (view index, MIME type, sha256);
 * - `promptHash`: sha256 of the canonical JSON of {prompt version, provider, model, resolved base URL, generation
 *   parameters (temperature, maxOutputTokens), system, user, images (MIME type + sha256, in order)}: everything that
 *   determines the first reply;
 * - `raw`: the replies, in order; `method`: the parse path ("json", "rule-option", "rule-text", "numeric"), or "none"
 *   when nothing was parsed; `reprompted`, `cached` (every reply came from the response cache), summed `usage`, and
 *   `latencyMs` (the whole answer, prompt building included).
 */
import { GEMINI_DEFAULT_API_VERSION, GEMINI_DEFAULT_BASE_URL } from "../llm/gemini.js";
import type { ResponseCache } from "../llm/cache.js";
import { createLlmClient, parseModelSpec, type LlmClientOptions } from "../llm/client.js";
import { OPENAI_DEFAULT_BASE_URL } from "../llm/openai.js";
import type { LlmOptions } from "../llm/options.js";
import type { ChatResult, LlmClient } from "../llm/types.js";
import { buildPrompt, promptRecord, type BuildOptions, type BuiltPrompt } from "../prompt/templates.js";
import { REPROMPT_SEPARATOR } from "../prompt/reminder.js";
import { promptHash, promptLogOf, type PromptHashIdentity, type PromptTarget } from "./promptFile.js";
import { answerWithReprompt, TRUNCATED_FINISH_REASONS, type AnswerOutcome, type AskedReply } from "./protocol.js";
import type { ModelCall, Reasoner, ReasonerAnswer, ReasonerInput } from "./types.js";
import { majorityVote, sumUsage } from "./vote.js";
import { answerMatchOf } from "./parse.js";
import type { ImageOptions, OptionPresentation, PromptFormat } from "../prompt/formats.js";

/** `method` of an answer that was not parsed. */
const NO_PARSE_METHOD = "none";

/** What a prompt of an LLM reasoner is built with: the graph serialization and the option labels (src/prompt/formats.ts). */
type LlmPromptOptions = PromptFormat & Pick<OptionPresentation, "optionLabels">;

/**
 * An LLM reasoner's options: the parsed model-call, prompt and image options, taken whole (their schemas' defaults
 * are the only ones; a null field is "not set": the provider's default, src/prompt's system text).
 */
export interface LlmReasonerOptions {
  /** model calls: endpoint, timeouts, retries, temperature, output limit, system text, samples, item deadline */
  llm: LlmOptions;
  prompt: LlmPromptOptions;
  /** make this reasoner a VLM 2D baseline: images instead of a graph (an input's own `images` and `maxImages` win) */
  images?: ImageOptions;
  /** an existing client to use (e.g. one shared by several reasoners); its id must be `spec` */
  client?: LlmClient;
  /** without `client`: the response cache, an open ResponseCache, a file path, or null for none (default `llm.cachePath`) */
  cache?: ResponseCache | string | null;
  /** without `client`: the client's settings no schema holds (keys' environment, Gemini API version, connection limit) */
  clientOptions?: Partial<Omit<LlmClientOptions, "cache" | "baseUrl" | "timeoutMs" | "maxRetries">>;
}

/** The endpoint of a model spec with these client options, as prompt files and hashes name it. */
export function promptTarget(spec: string, opts: EndpointOptions): PromptTarget {
  const { provider, model } = parseModelSpec(spec);
  return { provider, model, baseUrl: resolvedBaseUrl(provider, opts) };
}

/** What the endpoint of a model spec depends on: the configured base URL (null: the provider's) and, for tests, the environment and API version. */
interface EndpointOptions {
  baseUrl: string | null;
  env?: Readonly<Record<string, string | undefined>>;
  apiVersion?: string;
}

/** The base URL the client talks to, resolved as src/llm/client.ts does (for the prompt hash). */
function resolvedBaseUrl(provider: "openai" | "gemini", opts: EndpointOptions): string {
  const env = opts.env ?? process.env;
  if (provider === "openai") return (opts.baseUrl ?? env.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, "");
  return `${(opts.baseUrl ?? GEMINI_DEFAULT_BASE_URL).replace(/\/+$/, "")}/${opts.apiVersion ?? GEMINI_DEFAULT_API_VERSION}`;
}

/** What one model call reported, for the record. */
export function modelCallOf(c: ChatResult): ModelCall {
  return {
    servedModel: c.model,
    latencyMs: c.latencyMs,
    attempts: c.attempts,
    cached: c.cached,
    finishReason: c.finishReason ?? null,
    inputTokens: c.usage?.inputTokens ?? null,
    outputTokens: c.usage?.outputTokens ?? null,
  };
}

/** The text the re-prompt appended to the first user text (protocol.ts: the prompt, a separator, the reminder). */
function repromptOf(reprompted: boolean, user: string, asked: readonly string[]): { reprompt?: string } {
  const second = asked[1];
  if (!reprompted || second === undefined) return {};
  return { reprompt: second.startsWith(user + REPROMPT_SEPARATOR) ? second.slice(user.length + REPROMPT_SEPARATOR.length) : second };
}

/**
 * `createLlmReasoner("openai:<model>" | "gemini:<model>", options)`. Throws (an LlmError of kind "config") only
 * when the reasoner cannot be built: an unknown spec, a missing API key, bad client options.
 */
export function createLlmReasoner(spec: string, opts: LlmReasonerOptions): Reasoner {
  const { provider, model } = parseModelSpec(spec);
  const { llm, prompt, images, client: given, clientOptions = {} } = opts;
  const { temperature, maxOutputTokens, systemPrompt, samples, itemDeadlineMs } = llm;
  const client =
    given ??
    createLlmClient(spec, {
      ...clientOptions,
      ...(llm.baseUrl !== null ? { baseUrl: llm.baseUrl } : {}),
      timeoutMs: llm.timeoutMs,
      maxRetries: llm.maxRetries,
      cache: opts.cache === undefined ? llm.cachePath : opts.cache,
    });
  if (given && given.id !== `${provider}:${model}`) throw new RangeError(`createLlmReasoner("${spec}"): the given client is "${given.id}"`);
  const buildOpts: BuildOptions = {
    format: prompt.format,
    uncertainty: prompt.uncertainty,
    optionLabels: prompt.optionLabels,
    ...(images ? { maxImages: images.maxImages } : {}),
  };
  const identity: PromptHashIdentity = {
    provider,
    model,
    baseUrl: resolvedBaseUrl(provider, {
      baseUrl: llm.baseUrl,
      ...(clientOptions.env ? { env: clientOptions.env } : {}),
      ...(clientOptions.apiVersion ? { apiVersion: clientOptions.apiVersion } : {}),
    }),
    params: { temperature, maxOutputTokens },
  };

  /** One answer; `sample` numbers it among an input's k > 1 samples (it keys the response cache). */
  async function answerOnce(input: ReasonerInput, signal: AbortSignal | undefined, sample: number | undefined): Promise<ReasonerAnswer> {
    const t0 = performance.now();
    const elapsed = () => performance.now() - t0;
    let built: BuiltPrompt;
    try {
      const mode = input.images ?? images?.images;
      built = buildPrompt(mode ? { ...input, images: mode } : input, buildOpts);
      if (systemPrompt !== null) built = { ...built, system: systemPrompt };
    } catch (e) {
      const reason = `no prompt: ${(e as Error).message}`;
      return {
        status: "error",
        answer: null,
        confidence: null,
        raw: [],
        method: NO_PARSE_METHOD,
        reason,
        failure: { class: (e as Error).name || "Error", message: reason },
        latencyMs: elapsed(),
      };
    }
    const calls: ChatResult[] = [];
    const replies: string[] = [];
    // the item's deadline aborts whatever call or wait is under way; the caller's own abort still cancels
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error("item deadline")), itemDeadlineMs);
    const callSignal = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
    const asked: string[] = [];
    const ask = async (user: string): Promise<AskedReply> => {
      asked.push(user);
      const req = {
        system: built.system,
        user,
        temperature,
        ...(built.images ? { images: built.images } : {}),
        ...(maxOutputTokens !== null ? { maxOutputTokens } : {}),
        ...(sample !== undefined ? { sample } : {}),
      };
      const r = await client.chat(req, callSignal);
      calls.push(r);
      replies.push(r.text);
      return { text: r.text, truncated: r.finishReason !== undefined && TRUNCATED_FINISH_REASONS.has(r.finishReason) };
    };
    let out: AnswerOutcome;
    try {
      // a letter is read as an answer only when this prompt lettered the options
      const question = {
        answer_format: input.task.answer_format,
        options: input.task.options,
        answer_spec: input.task.answer_spec,
        optionLabels: built.optionLabels ?? ("none" as const),
      };
      out = await answerWithReprompt(ask, built.user, question); // re-throws a cancellation
    } catch (e) {
      if (!deadline.signal.aborted || signal?.aborted) throw e;
      const reason = `${client.id}: no answer within the item deadline of ${Math.round(itemDeadlineMs / 1000)} s (every attempt, wait and re-prompt included)`;
      return {
        status: "error",
        answer: null,
        confidence: null,
        raw: replies,
        method: NO_PARSE_METHOD,
        reprompted: replies.length > 0,
        reason,
        failure: { class: "LlmError:deadline", message: reason },
        latencyMs: elapsed(),
        promptHash: promptHash(identity, built),
        promptLog: promptLogOf(identity, built),
        calls: calls.map(modelCallOf),
        ...repromptOf(asked.length > 1, built.user, asked),
      };
    } finally {
      clearTimeout(timer);
    }

    const base = {
      raw: out.replies,
      prompt: promptRecord(built),
      promptHash: promptHash(identity, built),
      promptLog: promptLogOf(identity, built),
      calls: calls.map(modelCallOf),
      ...repromptOf(out.reprompted, built.user, asked),
      reprompted: out.reprompted,
      latencyMs: elapsed(),
      cached: calls.length > 0 && calls.every((c) => c.cached),
    };
    const usage = sumUsage(calls);
    const withUsage = <T extends object>(a: T) => (usage ? { ...a, usage } : a);
    const first = out.firstFailure ? ` (first reply: ${out.firstFailure})` : "";
    switch (out.status) {
      case "parsed": {
        const notes = [out.reprompted ? `re-prompted${first}` : null, out.parsed.confidenceProblem ?? null].filter((x): x is string => x !== null);
        return withUsage({
          status: "parsed",
          answer: out.parsed.answer,
          confidence: out.parsed.confidence ?? null,
          method: out.parsed.method,
          match: answerMatchOf(out.parsed.match),
          ...base,
          ...(notes.length ? { reason: notes.join("; ") } : {}),
          ...(out.parsed.confidenceProblem ? { confidenceProblem: out.parsed.confidenceProblem } : {}),
        });
      }
      case "invalid": {
        const reason = `${out.reason}${first}`;
        return withUsage({
          status: "invalid",
          answer: null,
          confidence: null,
          method: NO_PARSE_METHOD,
          ...base,
          reason,
          failure: { class: out.truncated ? "truncated_reply" : "invalid_reply", message: reason },
        });
      }
      case "empty": {
        const fr = calls[calls.length - 1]?.finishReason;
        const reason = `${out.reason}${fr ? ` (finish reason ${fr})` : ""}${first}`;
        return withUsage({
          status: "empty",
          answer: null,
          confidence: null,
          method: NO_PARSE_METHOD,
          ...base,
          reason,
          failure: { class: "empty_reply", message: reason },
        });
      }
      case "error": {
        const reason = `${out.message}${first}`;
        return withUsage({
          status: "error",
          answer: null,
          confidence: null,
          method: NO_PARSE_METHOD,
          ...base,
          reason,
          failure: { class: out.errorClass, message: reason },
        });
      }
    }
  }

  async function answer(input: ReasonerInput, signal?: AbortSignal): Promise<ReasonerAnswer> {
    if (samples === 1) return answerOnce(input, signal, undefined);
    const t0 = performance.now();
    // the samples go out together; the client's connection limit paces them
    const all = await Promise.all(Array.from({ length: samples }, (_, i) => answerOnce(input, signal, i)));
    const vote = majorityVote(all);
    return { ...vote.answer, latencyMs: performance.now() - t0, sampling: { k: samples, answers: vote.answers, agreement: vote.agreement } };
  }

  return { id: client.id, needs: images ? "bundle" : "graph", answer };
}
