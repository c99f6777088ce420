/**
 * POST /v1/answers: a question over a stored graph or bundle, with the reasoners of `--reasoner`.
 * Offline programs (symbolic over the graph, symbolic-2d over the bundle's masks) run in a worker under the
 * CPU limiter; LLM reasoners run here under their own limit (they wait on the network, not the CPU). Keys
 * and OPENAI_BASE_URL come from the server's environment only: a client cannot make the server send its
 * key elsewhere.
 */
import { join } from "node:path";
import { readBundle, readManifest } from "../../../core/bundle/io.js";
import type { Task } from "../../../core/task/schema.js";
import { ResponseCache } from "../../llm/cache.js";
import { canonicalJson } from "../../../core/hash.js";
import { Lru } from "../../../core/lru.js";
import { InputError } from "../../../core/errors.js";
import { createReasoner } from "../../reason/index.js";
import { LlmOptionsSchema } from "../../llm/options.js";
import { OptionPresentationSchema, PromptFormatSchema } from "../../prompt/formats.js";
import { OFFLINE_REASONERS, REASONER_FORMS, type OfflineReasoner } from "../../reason/spec.js";
import { scoreAnswer, scoreCircular } from "../../eval/score.js";
import { withCircular } from "../../reason/circular.js";
import type { Reasoner, ReasonerAnswer, ReasonerInput } from "../../reason/types.js";
import { fromZod, HttpError } from "./errors.js";
import { LLM_DEFAULT_TIMEOUT_MS, LLM_MAX_IN_FLIGHT, LLM_QUEUE } from "./limits.js";
import { JobLimiter } from "./limiter.js";
import { AnswerRequestSchema, type AnswerRequest } from "./schemas.js";
import type { ServerContext } from "./context.js";
import type { GraphRecord, GraphService } from "./graphs.js";
import type { AnswerResult } from "./serviceWorker.js";

/** LLM reasoners kept for reuse (each holds a client with its connection limit); least recently used go first. */
const MAX_CACHED_REASONERS = 16;

export class AnswerService {
  readonly llm = new JobLimiter("model calls", LLM_MAX_IN_FLIGHT, LLM_QUEUE);
  private reasoners = new Lru<string, Reasoner>(MAX_CACHED_REASONERS);
  private responseCache: ResponseCache | null = null;

  constructor(
    private readonly ctx: ServerContext,
    private readonly graphs: GraphService,
  ) {}

  private cache(): ResponseCache {
    this.responseCache ??= ResponseCache.open(join(this.ctx.store.root, "llm-cache.sqlite"));
    return this.responseCache;
  }

  private llmReasoner(b: AnswerRequest): Reasoner {
    // the body's fields are the schemas' own, so parsing them here only fills in the defaults
    const llm = LlmOptionsSchema.parse({ timeoutMs: b.timeoutMs ?? LLM_DEFAULT_TIMEOUT_MS, maxRetries: b.maxRetries, temperature: b.temperature });
    const prompt = {
      ...PromptFormatSchema.parse({ format: b.format, uncertainty: b.uncertainty }),
      optionLabels: OptionPresentationSchema.shape.optionLabels.parse(b.optionLabels),
    };
    const key = canonicalJson({ spec: b.reasoner, llm, prompt, cache: b.cache });
    const hit = this.reasoners.get(key);
    if (hit) return hit;
    let r: Reasoner;
    try {
      r = createReasoner(b.reasoner, { llm, prompt, cache: b.cache ? this.cache() : null, clientOptions: { maxConcurrency: LLM_MAX_IN_FLIGHT } });
    } catch (e) {
      if (e instanceof InputError) throw new HttpError(400, "invalid_request", `body.reasoner: ${e.message}`, "body.reasoner");
      throw e;
    }
    this.reasoners.set(key, r);
    return r;
  }

  async answer(body: unknown) {
    const parsed = AnswerRequestSchema.safeParse(body ?? {});
    if (!parsed.success) throw fromZod(parsed.error, "body");
    const b = parsed.data;
    const offline = (OFFLINE_REASONERS as readonly string[]).includes(b.reasoner);
    if (!offline && !/^(openai|gemini):.+$/.test(b.reasoner))
      throw new HttpError(400, "invalid_request", `body.reasoner: expected ${REASONER_FORMS}, got ${JSON.stringify(b.reasoner.slice(0, 60))}`, "body.reasoner");
    if (offline && b.question !== undefined)
      throw new HttpError(
        400,
        "invalid_request",
        "body.question: the offline reasoners answer the task's own question (a program per subcategory); a custom question needs an LLM reasoner",
        "body.question",
      );
    const needsGraph = b.reasoner === "symbolic" || (!offline && b.images === undefined);
    // where the graph and the bundle come from
    let graph: GraphRecord | null = null;
    let bundle: string;
    if (b.graph !== undefined) {
      graph = this.graphs.load(b.graph, "body.graph");
      bundle = graph.bundle;
    } else {
      bundle = b.bundle!;
      this.ctx.store.bundleDir(bundle, "body.bundle");
      if (needsGraph) graph = (await this.graphs.get(bundle, b.graph_options ?? {}, "body.bundle")).record;
    }
    const bundleDir = this.ctx.store.bundleDir(bundle, "body.bundle");
    const task0 = readManifest(bundleDir).task;
    if (!task0)
      throw new HttpError(
        400,
        "invalid_request",
        "body.bundle: this bundle has no task record (a scene of one's own, esi3d import); the service answers a bundle's task question: ask a scene of one's own with esi3d ask BUNDLE --question",
        "body.bundle",
      );
    const task: Task = b.question !== undefined ? { ...task0, question: b.question } : task0;
    let a: ReasonerAnswer;
    if (offline) {
      const res = (await this.ctx.cpuJob("answer", {
        kind: "answer",
        reasoner: b.reasoner as OfflineReasoner,
        task,
        graph: b.reasoner === "symbolic" ? graph!.graph : undefined,
        bundleDir,
        circular: b.circular === true,
      })) as AnswerResult;
      if (!res.ok) throw new HttpError(res.status, res.code, res.message, res.field);
      a = res.answer;
    } else {
      const reasoner = withCircular(this.llmReasoner(b), b.circular === true);
      a = await this.llm.run("answer_llm", async () => {
        const t = performance.now();
        try {
          const input: ReasonerInput = b.images
            ? { task, bundle: readBundle(bundleDir), images: b.images, maxImages: b.maxImages }
            : { task, graph: graph!.graph, uncertainty: b.uncertainty };
          return await reasoner.answer(input);
        } finally {
          this.ctx.metrics.stages.observe({ stage: "answer_llm" }, (performance.now() - t) / 1000);
        }
      });
    }
    const scored = b.question === undefined;
    const score = a.status === "parsed" && a.answer !== null && scored ? scoreAnswer(a, task) : null;
    // a circular answer is right only when every rotation is (src/eval/score.ts scoreCircular)
    const rotations = a.rotations && scored ? scoreCircular(a.rotations, task) : null;
    return {
      reasoner: b.reasoner,
      task_id: task.task_id,
      graph: graph?.id ?? null,
      bundle,
      question: task.question,
      status: a.status,
      answer: a.answer,
      confidence: a.confidence,
      truth: task0.answer,
      correct: rotations ? (score ? rotations.all : null) : score && score.scored ? score.correct : null,
      method: a.method,
      match: a.status === "parsed" ? (a.match ?? null) : null,
      circular: a.rotations
        ? {
            rotations: a.rotations.length,
            answers: a.rotations.map((r) => (r.status === "parsed" ? r.answer : null)),
            correct: rotations ? rotations.correct : a.rotations.map(() => null),
          }
        : null,
      // the reason of a failed model call names the endpoint: the client sees it as <OPENAI_BASE_URL>
      reason: a.reason == null ? null : this.ctx.redact(a.reason),
      raw: a.raw,
      latency_ms: Math.round(a.latencyMs * 10) / 10,
    };
  }

  close(): void {
    this.responseCache?.close();
    this.responseCache = null;
  }
}
