/**
 * `esi3d worker`: takes jobs from a queue run's Redis, anywhere that reaches it and the shared store.
 * Roles: cpu (units on worker threads, so the event loop keeps renewing job locks), reconstruct (units of
 * runs with a VGGT source: one job at a time, VGGT on CUDA), llm (a unit's model answers, under the
 * run's rate limits shared through Redis). A killed worker's jobs stall and go to another worker; the
 * collector records each item once whatever runs twice.
 */
import { Piscina } from "piscina";
import pLimit, { type LimitFunction } from "p-limit";
import { Job, UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { InputError } from "../../../core/errors.js";
import { noteOnce } from "../../../core/noteOnce.js";
import type { RunConfig } from "../config.js";
import type { UnitJobFor } from "../worker.js";
import { EVAL_WORKER_RESOURCE_LIMITS, EVAL_WORKER_URL } from "../workerFile.js";
import type { UnitResult } from "../pipeline.js";
import type { ItemRecord } from "../records.js";
import { answerPending, makeRunModels, type RunModels } from "../answer.js";
import { openQueueRedis, redactUrl, redisConnection } from "./connection.js";
import { watchOutages, within } from "./outage.js";
import { QUEUES, type AnswerJobResult, type QueueJobData, type UnitJobData, type UnitJobResult } from "./jobs.js";
import { liveProducers, startHeartbeat } from "./liveness.js";
import { redisWindowStore } from "./limiter.js";
import { openStore, type SharedStore } from "./store.js";
import type { WorkerOptions } from "./options.js";

/** A job that stalls (its worker died or froze) is handed to another worker this many times before it fails. */
const MAX_STALLED_COUNT = 3;

export interface WorkerHandle {
  /** stops taking jobs, finishes those in flight */
  close(): Promise<void>;
  /** rejects once Redis has been unreachable for REDIS_OUTAGE_LIMIT_MS (src/eval/queue/outage.ts) */
  failed: Promise<never>;
}

/** The longest a worker's close waits for its queues (ms) once Redis is gone; jobs in flight are retried elsewhere. */
const CLOSE_WAIT_AFTER_OUTAGE_MS = 2_000;

/** Starts the roles' workers after checking the queue (exit 2 before any work on a bad configuration). */
export async function startQueueWorker(o: WorkerOptions, version: string, log: (line: string) => void): Promise<WorkerHandle> {
  const watch = watchOutages("worker", redactUrl(o.url), log, o.redisWaitMs);
  const redis = await openQueueRedis(o.url, "--queue", watch);
  const other = (await liveProducers(redis)).find((p) => p.version !== version);
  if (other) {
    redis.disconnect();
    watch.close();
    throw new InputError(
      `--queue: the run on ${other.host}:${other.pid} is esi3d ${other.version}, this worker is esi3d ${version}: run one version on every machine of a queue`,
      { field: "queue" },
    );
  }
  const roles = o.role === "all" ? (["cpu", "llm"] as const) : ([o.role] as const);
  let processed = 0;
  const stopBeat = startHeartbeat(redis, "worker", () => ({ role: o.role, version, processed }));
  const connection = redisConnection(o.url, watch);
  const workers: Worker[] = [];
  const pools: Piscina[] = [];
  const checkVersion = (job: Job<QueueJobData>) => {
    if (job.data.version !== version) throw new UnrecoverableError(`job enqueued by esi3d ${job.data.version}, this worker is esi3d ${version}`);
  };
  // one reconstruction at a time: one ONNX Runtime session holds the GPU
  const concurrencyOf = (role: (typeof roles)[number]) => (role === "reconstruct" ? 1 : o.concurrency);
  for (const role of roles) {
    const concurrency = concurrencyOf(role);
    const lockDuration = o.lockDurationMs;
    const common = { connection, concurrency, lockDuration, stalledInterval: Math.max(1000, Math.round(lockDuration / 2)), maxStalledCount: MAX_STALLED_COUNT };
    if (role === "llm") {
      const answer = answerProcessor(redis);
      workers.push(new Worker(QUEUES.llm, async (job: Job<QueueJobData>) => (checkVersion(job), answer(job)), common));
    } else {
      const pool = new Piscina({ filename: EVAL_WORKER_URL, minThreads: concurrency, maxThreads: concurrency, resourceLimits: EVAL_WORKER_RESOURCE_LIMITS });
      pools.push(pool);
      const units = unitProcessor(pool, role === "reconstruct", noteOnce(log));
      workers.push(new Worker(role === "cpu" ? QUEUES.cpu : QUEUES.reconstruct, async (job: Job<UnitJobData>) => (checkVersion(job), units(job)), common));
    }
  }
  for (const w of workers) {
    w.on("completed", () => processed++);
    w.on("failed", (job, e) => log(`worker: ${job?.data.taskId ?? "?"} ${job?.data.paradigm ?? ""} failed: ${e.message}`));
    // a lost connection is one line per outage, not one per reconnection attempt
    watch.watch(w);
  }
  let gone = false;
  watch.failed.catch(() => (gone = true));
  log(`worker: ${roles.join(" + ")} on ${redactUrl(o.url)}, concurrency ${roles.map(concurrencyOf).join(" + ")}`);
  return {
    failed: watch.failed,
    close: async () => {
      // with Redis gone a worker's close would wait for it forever: its jobs' locks lapse and another worker retries them
      const closing = Promise.all(workers.map((w) => w.close(gone)));
      if (gone) await within(CLOSE_WAIT_AFTER_OUTAGE_MS, closing);
      else await closing;
      await Promise.all(pools.map((p) => p.destroy()));
      await within(CLOSE_WAIT_AFTER_OUTAGE_MS, stopBeat());
      connection.disconnect();
      redis.disconnect();
      watch.close();
    },
  };
}

/** The run's store and configuration, opened once per run in this worker. */
const runStores = new Map<string, { store: SharedStore; config: Promise<RunConfig> }>();
function storeOf(location: string): { store: SharedStore; config: Promise<RunConfig> } {
  let s = runStores.get(location);
  if (!s) {
    const store = openStore(location);
    s = { store, config: store.config() };
    // a failed read is the job's error, retried: it must not stay cached
    s.config.catch(() => runStores.delete(location));
    runStores.set(location, s);
  }
  return s;
}

function unitProcessor(pool: Piscina, reconstruct: boolean, note: (line: string) => void) {
  return async (job: Job<UnitJobData>): Promise<UnitJobResult> => {
    const { taskId, paradigm, done, generateMs } = job.data;
    const { store, config: storedConfig } = storeOf(job.data.store);
    const stored = await storedConfig;
    // the reconstruct role runs VGGT on the GPU (the device option changes no record)
    const config: RunConfig = reconstruct ? { ...stored, vggt: { ...stored.vggt, device: "cuda" } } : stored;
    const task = await store.task(taskId);
    const unitJob: UnitJobFor = { kind: "unit", task, paradigm, config, done, generateMs };
    const res = (await pool.run(unitJob)) as UnitResult;
    for (const n of res.notes) note(n);
    for (const g of res.graphs) await store.writeGraph(taskId, paradigm, g.source, { graph: g.graph, diagnosis: g.diagnosis });
    return {
      records: res.records,
      pending: res.pending,
      graphs: res.graphs.map((g) => ({ source: g.source, scaleOracle: g.scaleOracle })),
      timings: res.timings,
      views: res.views,
      notes: res.notes,
    };
  };
}

function answerProcessor(redis: Redis) {
  // one set of model clients per run in this worker: its connection limit is the run's --max-connections
  const runs = new Map<string, { models: RunModels; limit: LimitFunction }>();
  const windows = redisWindowStore(redis);
  return async (job: Job<QueueJobData>): Promise<AnswerJobResult> => {
    const { taskId, paradigm, runId } = job.data;
    const { store, config: storedConfig } = storeOf(job.data.store);
    const config = await storedConfig;
    let m = runs.get(runId);
    if (!m) {
      const cache = config.llm.cachePath === null ? null : store.llmCachePath();
      m = { models: makeRunModels({ ...config, llm: { ...config.llm, cachePath: cache } }, {}, windows), limit: pLimit(config.maxConnections) };
      runs.set(runId, m);
    }
    const [child] = Object.values(await job.getChildrenValues<UnitJobResult>());
    if (!child) throw new Error(`${taskId} ${paradigm}: the unit's result is missing`);
    const task = await store.task(taskId);
    const graphs = await Promise.all(
      child.graphs.map(async (g) => ({ ...(await store.readGraph(taskId, paradigm, g.source)), source: g.source, scaleOracle: g.scaleOracle })),
    );
    const res: UnitResult = { records: child.records, graphs, pending: child.pending, timings: child.timings, views: child.views, notes: child.notes };
    const records: ItemRecord[] = [...child.records];
    const never = new AbortController().signal;
    const writes: Array<Promise<void>> = [];
    await answerPending({ config, models: m.models, limit: m.limit, signal: never, abandoned: () => false }, task, paradigm, res, (r, g, prompts = []) => {
      if (g) writes.push(store.writeGraph(taskId, "active", g.source, { graph: g.graph, diagnosis: g.diagnosis }));
      for (const pr of prompts) writes.push(store.writePrompt(pr));
      records.push(r);
    });
    await Promise.all(writes);
    return { records, notes: child.notes };
  };
}
