/**
 * The model half of a unit: answers the arms a unit left pending (LLM reasoners) from its graphs, or runs
 * the active episodes with LLM agents. One function for the in-process runner and the queue's llm workers,
 * so both make the same records.
 */
import type { LimitFunction } from "p-limit";
import type { Task } from "../../core/task/schema.js";
import type { Paradigm } from "../../core/bundle/schema.js";
import { renderBundle } from "../../bridge/sim/capture.js";
import { createReasoner } from "../reason/index.js";
import { promptLogsOf, withCircular } from "../reason/circular.js";
import type { Reasoner } from "../reason/types.js";
import { createLlmClient, type LlmClientOptions } from "../llm/client.js";
import type { LlmClient } from "../llm/types.js";
import { createRequestGate, memoryWindowStore, type RateLimits, type WindowStore } from "../llm/gate.js";
import { createLlmAgent } from "../reason/active/llmAgent.js";
import { modelReasoners, threeDArms, type RunConfig } from "./config.js";
import { ResponseCache } from "../llm/cache.js";
import { makeRecord, qualityFigures, type UnitGraph, type UnitResult } from "./pipeline.js";
import type { ItemRecord } from "./records.js";
import { activeRecord, llmAgentOptions, runActiveEpisode } from "./active.js";
import type { PromptLog } from "../reason/promptFile.js";
import { promptTarget } from "../reason/llm.js";

interface RunModel {
  reasoner: Reasoner;
  client: LlmClient;
}

/** The model reasoners of a run, by name (`openai:<model>`, `gemini:<model>`); empty for offline runs. */
export type RunModels = ReadonlyMap<string, RunModel>;

/**
 * The run's model clients, one per model reasoner: made before any work, so a bad key or URL fails at once.
 * They share one response cache (one open SQLite file) and each has its own rate limits (limits are per model).
 */
export function makeRunModels(config: RunConfig, extra: Partial<LlmClientOptions> = {}, store: WindowStore = memoryWindowStore()): RunModels {
  const specs = modelReasoners(config);
  const limits = runRateLimits(config);
  const cache = specs.length && config.llm.cachePath !== null ? ResponseCache.open(config.llm.cachePath) : null;
  const models = new Map<string, RunModel>();
  for (const spec of specs) {
    const gate = limits.requests !== null || limits.tokens !== null ? { gate: createRequestGate(spec, limits, store) } : {};
    // one client (one connection limit) for the passive answers and the active agents alike
    const client = createLlmClient(spec, {
      baseUrl: config.llm.baseUrl ?? undefined,
      cache,
      timeoutMs: config.llm.timeoutMs,
      maxRetries: config.llm.maxRetries,
      maxConcurrency: config.maxConnections,
      ...gate,
      ...extra,
    });
    // with a shared client, a run's passive prompt hashes and prompt files have named the environment's endpoint
    // (OPENAI_BASE_URL or the provider's), not --base-url; kept (baseUrl null) so that they stay those of earlier runs
    const reasoner = createReasoner(spec, { llm: { ...config.llm, baseUrl: null }, prompt: config.prompt, client });
    models.set(spec, { client, reasoner: withCircular(reasoner, config.prompt.circular) });
  }
  return models;
}

/** The model's rate limits from the run's configuration. */
function runRateLimits(config: RunConfig): RateLimits {
  return { requests: config.llm.requestsPerWindow, tokens: config.llm.tokensPerWindow, windowMs: config.llm.rateWindowMs };
}

export interface AnswerContext {
  config: RunConfig;
  models: RunModels;
  /** model calls in flight at once (the run's --max-connections) */
  limit: LimitFunction;
  signal: AbortSignal;
  /** true once the caller drops the items in flight */
  abandoned: () => boolean;
}

/**
 * Called once per finished item; `graph` is an active episode's final graph, `prompts` the item's requests
 * (src/reason/promptFile.ts: an LLM answer's first one, or every step's of an LLM agent): all to be stored
 * with the run before the record that names them.
 */
export type ItemSink = (record: ItemRecord, graph?: UnitGraph, prompts?: readonly PromptLog[]) => void;

/** Answers every pending arm of a unit with the model, passing each record to `sink` as it finishes. */
export async function answerPending(ctx: AnswerContext, task: Task, paradigm: Paradigm, res: UnitResult, sink: ItemSink): Promise<void> {
  if (res.pending.length === 0) return;
  if (paradigm === "active") return answerActive(ctx, task, res, sink);
  const { config, models, limit } = ctx;
  const bundle = res.pending.some((p) => p.arm === "2d") ? renderBundle(task, paradigm) : undefined;
  await Promise.all(
    res.pending.map((p) =>
      limit(async () => {
        if (ctx.abandoned()) return;
        const g = res.graphs.find((x) => x.source === p.source);
        const a = await modelOf(models, p.reasoner).reasoner.answer(
          p.arm === "2d" ? { task, bundle, ...config.images } : { task, graph: g!.graph, uncertainty: config.prompt.uncertainty },
          ctx.signal,
        );
        if (ctx.abandoned()) return;
        const arm = threeDArms(config, paradigm).find((x) => x.label === p.source);
        sink(
          makeRecord({
            task,
            paradigm,
            arm: p.arm,
            source: arm?.source ?? null,
            noise: arm?.noise,
            labels: arm?.labels,
            config,
            reasoner: p.reasoner,
            answer: a,
            views: res.views,
            quality: g ? qualityFigures(g.diagnosis.metrics) : null,
            timings: { ...res.timings },
            key: p.key,
            scaleOracle: g?.scaleOracle,
          }),
          undefined,
          promptLogsOf(a),
        );
      }),
    ),
  );
}

function modelOf(models: RunModels, reasoner: string): RunModel {
  const m = models.get(reasoner);
  if (!m) throw new Error(`answer: no model client for ${reasoner}`);
  return m;
}

/** LLM agents explore in the caller's thread (they hold the model client); one episode per pending arm. */
async function answerActive(ctx: AnswerContext, task: Task, res: UnitResult, sink: ItemSink): Promise<void> {
  const { config, models, limit } = ctx;
  await Promise.all(
    res.pending.map((p) =>
      limit(async () => {
        if (ctx.abandoned()) return;
        const arm = threeDArms(config, "active").find((x) => x.label === p.source) ?? null;
        const target = promptTarget(p.reasoner, { baseUrl: config.llm.baseUrl });
        const out = await runActiveEpisode({
          task,
          config,
          arm,
          agent: createLlmAgent(modelOf(models, p.reasoner).client, task, { ...llmAgentOptions(config), target }, p.arm),
          signal: ctx.signal,
        });
        if (ctx.abandoned()) return;
        sink(activeRecord(task, config, arm, p.reasoner, out, p.key), out.graph ?? undefined, out.prompts);
      }),
    ),
  );
}
