/**
 * `esi3d run`: the evaluation runner. Generates (or reads) the tasks, then evaluates every task in every
 * paradigm: CPU-heavy stages (render, reconstruct, graph, diagnosis, offline reasoners) on a pool of
 * worker threads, model calls in the main thread under a concurrency limit. Every finished item is
 * appended to items.jsonl at once. Stopping is the caller's: `signal` finishes the items in flight,
 * `abandon` drops them; either way the run resumes with --resume. At the end: summary.json, report.md,
 * report.html.
 *
 * The phases, in order: preflight (every check that needs no run directory: the VGGT model, the model
 * client, the suite), then the run directory (locked, created only once the configuration is known to
 * work), tasks, units, and the reports.
 */
import { cpSync, existsSync, mkdirSync, statSync } from "node:fs";
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { setMaxListeners } from "node:events";
import pLimit from "p-limit";
import type { Task } from "../../core/task/schema.js";
import { readTaskFile } from "../../core/task/io.js";
import { isSkippedUnit, planSuiteDirectory, type SkippedItem } from "./suite.js";
import { builtinTaskId } from "../../bridge/sim/generate/suite.js";
import { InputError } from "../../core/errors.js";
import { canonicalJson } from "../../core/hash.js";
import { noteOnce } from "../../core/noteOnce.js";
import { checkWritable, pathError, writeFileAtomic, writeJsonAtomic } from "../../core/fs.js";
import { pathBelow } from "../../core/paths.js";
import { checkOutputs, givenPath, type NamedPath } from "../../core/outputPaths.js";
import type { Paradigm } from "../../core/bundle/schema.js";
import { baselineArms, reasonerKeyPart, threeDArms, type RunConfig } from "./config.js";
import { runUnit } from "./unit.js";
import type { UnitGraph, UnitJob, UnitResult } from "./pipeline.js";
import { answerPending, makeRunModels, type RunModels } from "./answer.js";
import { itemKey, readRecords, RecordWriter, type ItemRecord } from "./records.js";
import { summarizeRun, type RunSummary } from "./summary.js";
import { reportMarkdown } from "./report.js";
import { reportHtml } from "./reportHtml.js";
import { fuzzyMatches } from "./fuzzyMatches.js";
import { generateJob, type GeneratedTask, type WorkerJob } from "./worker.js";
import { EVAL_WORKER_RESOURCE_LIMITS, EVAL_WORKER_URL } from "./workerFile.js";
import { readRunFile, runConfigFile, RUN_FORMAT, sceneGraphFile } from "./files.js";
import { lockRunDir } from "./runLock.js";
import { writePromptLog } from "./promptFiles.js";
import type { PromptLog } from "../reason/promptFile.js";
import type { PriceTable } from "./usage.js";
import { itemCountText } from "./itemCount.js";
import { isHttpStore } from "./queue/store.js";
import type { StoreServer } from "./queue/storeServer.js";
import type { QueueRunOptions } from "./queue/options.js";

interface RunProgress {
  setTotal(n: number): void;
  /** items a resumed run finished before this process: counted as done, never in the rate */
  resumeFrom?(n: number): void;
  tick(n?: number, failed?: number, invalid?: number): void;
  line(text: string): void;
  finish(interrupted?: boolean): void;
}

export interface RunOptions {
  config: RunConfig;
  out: string;
  resume: boolean;
  version: string;
  log: (line: string) => void;
  progress?: RunProgress;
  /** prices for the reports' cost totals (usage.ts); none: costs are unknown */
  prices?: PriceTable | null;
  /** Use worker threads (default); false runs units in this thread (tests, debugging). */
  workers?: boolean;
  /** Stop starting work; the items in flight finish and are recorded. */
  signal?: AbortSignal;
  /** Stop at once; the items in flight are dropped (they run again on --resume). */
  abandon?: AbortSignal;
  /** Evaluate the units on a BullMQ queue (src/eval/queue/) instead of this process's pool. */
  queue?: QueueRunOptions;
  /** Files the front-end read for this run (the --config file), checked with the suite against the outputs. */
  inputs?: readonly NamedPath[];
}

export interface RunOutcome {
  summary: RunSummary;
  records: ItemRecord[];
  interrupted: boolean;
  wallSeconds: number;
}

/**
 * The task list of a run: the built-in suite (round-robin over subcategories under --limit) or a directory
 * (src/eval/suite.ts: imported tasks as proxies; what cannot run is skipped with the reason).
 */
export function planTasks(
  config: RunConfig,
  generate: (sub: RunConfig["subcategories"][number], index: number) => Promise<Task>,
  cached: (id: string) => Task | null,
  skipped: SkippedItem[] = [],
): Promise<Task[]> {
  if (config.suite !== "default") {
    const planned = suitePlan(config);
    skipped.push(...planned.skipped);
    return Promise.resolve(planned.tasks);
  }
  return Promise.all(builtinPlan(config).map(({ subcategory: s, index: i, taskId }) => cached(taskId) ?? generate(s, i)));
}

/** The built-in suite's tasks a run draws, in order: round-robin over subcategories, cut at --limit. */
export function builtinPlan(
  config: Pick<RunConfig, "perSubcategory" | "subcategories" | "limit">,
): Array<{ subcategory: RunConfig["subcategories"][number]; index: number; taskId: string }> {
  const plan: Array<{ subcategory: RunConfig["subcategories"][number]; index: number; taskId: string }> = [];
  for (let i = 0; i < config.perSubcategory; i++) for (const s of config.subcategories) plan.push({ subcategory: s, index: i, taskId: builtinTaskId(s, i) });
  return config.limit ? plan.slice(0, config.limit) : plan;
}

/** The runnable tasks of a suite directory (limited as the config says) and what it skips. */
function suitePlan(config: RunConfig): { tasks: Task[]; skipped: SkippedItem[] } {
  const planned = planSuiteDirectory(config.suite, config);
  return { tasks: config.limit ? planned.tasks.slice(0, config.limit) : planned.tasks, skipped: planned.skipped };
}

/**
 * The output-path rule (core/outputPaths.ts) for a run: the run directory, the response cache and a shared
 * store apart from the run directory are outputs; the suite directory, the VGGT model and what the front-end
 * read are inputs. `run --suite T --out T` left run files in the suite, which then no longer read.
 */
function checkRunPaths(opts: RunOptions): void {
  const { config, out } = opts;
  const store =
    opts.queue?.url && opts.queue.store !== null && !isHttpStore(opts.queue.store) && resolve(opts.queue.store) !== resolve(out) ? opts.queue.store : null;
  checkOutputs(
    [
      ...(config.suite === "default" ? [] : [{ what: "--suite", path: config.suite }]),
      ...givenPath("--vggt-model", config.vggt.modelPath),
      ...(opts.inputs ?? []),
    ],
    [{ what: "--out", path: out }, ...givenPath("--cache", config.llm.cachePath), ...givenPath("--store", store)],
  );
}

/** Every check that needs no run directory, so a run that cannot work leaves nothing behind. */
async function preflight(config: RunConfig, out: string): Promise<RunModels> {
  if (existsSync(out) && !statSync(out).isDirectory()) throw new InputError(`${out}: exists and is not a directory (choose another --out)`, { file: out });
  checkWritable(out, "dir");
  // onnxruntime-node (a native library) loads only for a run that uses it
  if (config.sources.includes("vggt")) (await import("../../reconstruct/vggt/index.js")).resolveVggtModel({ modelPath: config.vggt.modelPath ?? undefined });
  if (config.suite !== "default") {
    const planned = suitePlan(config);
    if (planned.tasks.length === 0) {
      const why = [...new Set(planned.skipped.map((k) => k.reason))].slice(0, 3).join("; ");
      throw new InputError(`${config.suite}: no task of this suite can run here (${planned.skipped.length} skipped${why ? `: ${why}` : ""})`, {
        file: config.suite,
      });
    }
  }
  return makeRunModels(config);
}

/** The configuration a run directory was made with must be this one (worker counts aside) to resume it. */
function checkResume(out: string, config: RunConfig): void {
  if (!existsSync(runConfigFile(out))) return;
  const prev = readRunFile(out).config;
  // worker counts and rate limits change when items finish, never what they say
  const comparable = (c: RunConfig) =>
    canonicalJson({ ...c, concurrency: 0, maxConnections: 0, llm: { ...c.llm, requestsPerWindow: null, tokensPerWindow: null, rateWindowMs: 0 } });
  if (comparable(prev) !== comparable(config))
    throw new InputError(
      `${runConfigFile(out)}: this run directory was made with a different configuration; use another --out, or the same options to resume`,
      { file: runConfigFile(out) },
    );
}

/** Creates (or reopens, to resume) the run directory, locked for this process. */
function openRunDir(opts: RunOptions) {
  const { out, config } = opts;
  if (opts.resume && !existsSync(runConfigFile(out)))
    throw new InputError(`${out}: --resume: there is no run here to complete (no config.json); drop --resume to start one`, { file: out });
  if (existsSync(join(out, "items.jsonl")) && !opts.resume)
    throw new InputError(`${out}: a run already exists here; pass --resume to complete it, or choose another --out`, { file: out });
  try {
    mkdirSync(out, { recursive: true });
  } catch (e) {
    throw pathError(e, out, "create the run directory");
  }
  const lock = lockRunDir(out);
  try {
    if (opts.resume) checkResume(out, config);
    mkdirSync(join(out, "tasks"), { recursive: true });
    mkdirSync(join(out, "graphs"), { recursive: true });
    writeJsonAtomic(runConfigFile(out), {
      format: RUN_FORMAT,
      package_version: opts.version,
      node: process.version,
      started_at: new Date().toISOString(),
      config,
    });
    const previous = readRecords(join(out, "items.jsonl"));
    if (previous.tornBytes) opts.log(`resume: dropping a torn last line (${previous.tornBytes} bytes) from items.jsonl`);
    if (previous.duplicates) opts.log(`resume: items.jsonl holds ${previous.duplicates} duplicated item key(s); each is counted once (its first record)`);
    return { lock, previous: previous.records };
  } catch (e) {
    lock.release();
    throw e;
  }
}

/** How many items a run of `tasks` tasks plans over its paradigms (a service checks it against its limit before launching). */
export function plannedItems(config: RunConfig, tasks: number): number {
  const probe = { task_id: "t" } as Task;
  return tasks * config.paradigms.reduce((n, p) => n + unitKeys(config, probe, p).length, 0);
}

/**
 * The item keys of a unit (task × paradigm): per reasoner one per 3D arm and one for the 2D baseline, and one
 * shortcut item (question only: the same whatever the reasoner).
 */
export function unitKeys(config: RunConfig, task: Task, paradigm: string): string[] {
  // the shortcut takes no views: it answers once per passive paradigm, never as an active episode
  const baselines = baselineArms(config).filter((b) => !(b === "shortcut" && paradigm === "active"));
  const perReasoner = (r: string) => [
    ...threeDArms(config, paradigm).map((a) => itemKey(task.task_id, paradigm, "3d", a.label, reasonerKeyPart(config, r))),
    ...(baselines.includes("2d") ? [itemKey(task.task_id, paradigm, "2d", null, reasonerKeyPart(config, r))] : []),
  ];
  return [...config.reasoner.flatMap(perReasoner), ...(baselines.includes("shortcut") ? [itemKey(task.task_id, paradigm, "shortcut", null)] : [])];
}

function writeReports(opts: RunOptions, records: ItemRecord[], interrupted: boolean, wallSeconds: number, skipped: SkippedItem[], queue?: string): RunSummary {
  const { out, config } = opts;
  const summary = summarizeRun(records, opts.prices ?? null);
  const proxies = new Set(records.filter((r) => r.proxy).map((r) => r.task_id)).size;
  const scaleOracleItems = records.filter((r) => r.scale_oracle).length;
  const meta = {
    runId: out.split("/").filter(Boolean).pop() ?? out,
    version: opts.version,
    wallSeconds,
    skipped,
    proxies,
    scaleOracleItems,
    queue,
    fuzzyMatches: fuzzyMatches(records),
  };
  writeJsonAtomic(join(out, "summary.json"), { ...summary, complete: !interrupted, wall_seconds: wallSeconds });
  writeFileAtomic(join(out, "report.md"), reportMarkdown(summary, config, meta));
  writeFileAtomic(join(out, "report.html"), reportHtml(summary, config, meta));
  return summary;
}

export async function runEvaluation(opts: RunOptions): Promise<RunOutcome> {
  const { config, out, log } = opts;
  const t0 = Date.now();
  checkRunPaths(opts);
  const models = await preflight(config, out);
  // the queue's modules (bullmq, ioredis: ~0.3 s of CPU to load) only for a queue run
  const queueModule = opts.queue?.url ? await import("./queue/producer.js") : null;
  const queue = queueModule ? await queueModule.openQueue(opts.queue!.url!, opts.version, log, opts.queue!.redisWaitMs) : null;
  let opened: ReturnType<typeof openRunDir>;
  try {
    opened = openRunDir(opts);
  } catch (e) {
    await queue?.close();
    throw e;
  }
  const { lock, previous } = opened;
  let duplicates = 0;
  const doneKeys = new Set(previous.map((r) => r.key));
  const records: ItemRecord[] = [...previous];
  const writer = new RecordWriter(join(out, "items.jsonl"));
  // vggt holds one ONNX Runtime session of ~5 GB weights per process: one worker only
  const threads = config.sources.includes("vggt") ? 1 : config.concurrency;
  if (threads !== config.concurrency) log(`run: --source vggt uses one worker (one ONNX Runtime session)`);
  const note = noteOnce(log);
  // piscina loads with the pool: the commands that import the runner for its planning (`list`, `ask RUN --item`) start none
  const pool =
    opts.workers === false
      ? null
      : new (await import("piscina")).Piscina({
          filename: EVAL_WORKER_URL,
          minThreads: threads,
          maxThreads: threads,
          idleTimeout: 1000,
          resourceLimits: EVAL_WORKER_RESOURCE_LIMITS,
        });
  const exec = async (job: WorkerJob, signal?: AbortSignal): Promise<unknown> => {
    if (pool) return pool.run(job, { signal });
    if (job.kind === "generate") return generateJob(job);
    return runUnit(job);
  };
  const stopped = () => opts.signal?.aborted === true || abandoned();
  const abandoned = () => opts.abandon?.aborted === true;
  // a signal of the runner's own that follows the caller's: the listener limit below is then raised on ours only
  const abandonSignal = AbortSignal.any(opts.abandon ? [opts.abandon] : []);
  // generation stops at the first stop, as the units do: a run of many tasks must not generate them all first
  const stopSignal = AbortSignal.any([opts.signal, opts.abandon].filter((s): s is AbortSignal => s !== undefined));
  // the pool adds one abort listener per queued job to these signals (a suite's tasks are queued at once), so
  // more than Node's default 10 is the expected case, not a leak: without this every default run warned
  for (const s of [stopSignal, abandonSignal]) setMaxListeners(0, s);
  let totalItems = 0;
  let cutShort = false;
  let storeServer: StoreServer | null = null;
  const skipped: SkippedItem[] = [];
  try {
    // each generated task's generation time, for its records (timings_ms.generate)
    const generateMs = new Map<string, number>();
    let tasks: Task[] = [];
    try {
      tasks = await prepareTasks(opts, (job) => (stopped() ? Promise.reject(new Error("stopped")) : exec(job, stopSignal)), skipped, generateMs);
    } catch (e) {
      if (!stopped()) throw e;
      // stopped while generating: the tasks generated so far are kept in tasks/, --resume goes on from them
      cutShort = true;
    }
    const allUnits = tasks
      .flatMap((task) => config.paradigms.map((paradigm) => ({ task, paradigm: paradigm as Paradigm })))
      .filter((u) => !isSkippedUnit(skipped, u.task.task_id, u.paradigm));
    const units = allUnits.filter((u) => unitKeys(config, u.task, u.paradigm).some((k) => !doneKeys.has(k)));
    totalItems = allUnits.reduce((n, u) => n + unitKeys(config, u.task, u.paradigm).length, 0);
    opts.progress?.setTotal(totalItems);
    opts.progress?.resumeFrom?.(previous.length);
    // a unit's keys differ by paradigm, never by task
    const keysOf = (p: string) => (tasks.length ? unitKeys(config, tasks[0]!, p) : []);
    const planned = tasks.length * config.paradigms.reduce((n, p) => n + keysOf(p).length, 0);
    const count = itemCountText({
      tasks: tasks.length,
      paradigms: config.paradigms,
      keysOf,
      reasoners: config.reasoner.length,
      skippedUnits: tasks.length * config.paradigms.length - allUnits.length,
      skippedItems: planned - totalItems,
      total: totalItems,
    });
    // a resumed run says how much was done, 0 included; a fresh run has nothing to say
    log(
      `run: ${count}${opts.resume || previous.length ? ` (${previous.length} already done)` : ""}, ${threads} worker(s), reasoner${config.reasoner.length > 1 ? "s" : ""} ${config.reasoner.join(", ")}`,
    );
    const limit = pLimit(config.maxConnections);
    // idempotent by item key: a queue may deliver an item twice, the run records it once
    const commit = (r: ItemRecord): boolean => {
      if (abandoned() || doneKeys.has(r.key)) return false;
      writer.append(r);
      records.push(r);
      doneKeys.add(r.key);
      // a declined program is not a failure, and an unreadable reply is the model's, not a failed call
      opts.progress?.tick(1, r.status === "error" || r.status === "empty" ? 1 : 0, r.status === "invalid" ? 1 : 0);
      return true;
    };
    const saveGraphs = (task: Task, paradigm: string, res: UnitResult) => {
      for (const g of res.graphs) writeJsonAtomic(sceneGraphFile(out, task.task_id, paradigm, g.source), { graph: g.graph, diagnosis: g.diagnosis });
    };
    const answerCtx = models.size ? { config, models, limit, signal: abandonSignal, abandoned } : null;
    const sinkItem = (task: Task, r: ItemRecord, graph?: UnitGraph, prompts: readonly PromptLog[] = []) => {
      if (abandoned()) return;
      if (graph) writeJsonAtomic(sceneGraphFile(out, task.task_id, "active", graph.source), { graph: graph.graph, diagnosis: graph.diagnosis });
      for (const pr of prompts) writePromptLog(out, pr); // before the record that names them
      commit(r);
    };
    if (queue) {
      const given = opts.queue?.store ?? out;
      // an http store is this run directory, served to workers that share no disk with it
      storeServer = isHttpStore(given) ? await (await import("./queue/storeServer.js")).serveStore(out, given) : null;
      const store = storeServer ? storeServer.url : resolve(given);
      if (storeServer) log(`queue: serving the store at ${given} to the workers`);
      else if (store !== resolve(out)) shareRun(out, store);
      ({ duplicates } = await queueModule!.runUnitsOnQueue({
        queue,
        store,
        out,
        runId: createHash("sha256").update(resolve(out)).digest("hex").slice(0, 16),
        version: opts.version,
        config,
        units,
        doneKeys,
        unitKeys: (t, p) => unitKeys(config, t, p),
        generateMs,
        commit,
        log,
        note,
        stopped,
      }));
    }
    const inflight = new Set<Promise<void>>();
    for (const u of queue ? [] : units) {
      if (stopped()) break;
      while (inflight.size >= threads * 2) await Promise.race(inflight);
      if (stopped()) break;
      const job: UnitJob = {
        task: u.task,
        paradigm: u.paradigm,
        config,
        done: unitKeys(config, u.task, u.paradigm).filter((k) => doneKeys.has(k)),
        generateMs: generateMs.get(u.task.task_id),
      };
      const p: Promise<void> = (async () => {
        try {
          const res = (await exec({ kind: "unit", ...job }, abandonSignal)) as UnitResult;
          if (abandoned()) return;
          for (const n of res.notes) note(n);
          saveGraphs(u.task, u.paradigm, res);
          for (const r of res.records) commit(r);
          if (answerCtx) await answerPending(answerCtx, u.task, u.paradigm, res, (r, g, pr) => sinkItem(u.task, r, g, pr));
        } catch (e) {
          if (abandoned()) return;
          throw e;
        }
      })().finally(() => inflight.delete(p));
      inflight.add(p);
    }
    await Promise.all(inflight);
  } finally {
    writer.close();
    await pool?.destroy();
    await storeServer?.close();
    await queue?.close();
    lock.release();
  }
  // a stop that came after the last item changes nothing
  const interrupted = cutShort || (stopped() && records.length < totalItems);
  const wallSeconds = (Date.now() - t0) / 1000;
  const queueNote = queue ? `${(await import("./queue/connection.js")).redactUrl(queue.url)}, ${duplicates} duplicate deliveries dropped` : undefined;
  const summary = writeReports(opts, records, interrupted, wallSeconds, skipped, queueNote);
  opts.progress?.finish(interrupted);
  return { summary, records, interrupted, wallSeconds };
}

/** A --store apart from the run directory gets the files workers read: config.json and the tasks. */
function shareRun(out: string, store: string): void {
  mkdirSync(store, { recursive: true });
  cpSync(runConfigFile(out), runConfigFile(store));
  cpSync(join(out, "tasks"), join(store, "tasks"), { recursive: true });
}

/** Generates the built-in suite's tasks on the pool (or reads a suite directory), stored in the run (reused on resume). */
async function prepareTasks(
  opts: RunOptions,
  exec: (job: WorkerJob) => Promise<unknown>,
  skipped: SkippedItem[],
  generateMs: Map<string, number>,
): Promise<Task[]> {
  const { config, out } = opts;
  const taskFile = (id: string) => pathBelow(join(out, "tasks"), `${id}.json`);
  const options = config.generator;
  const tasks = await planTasks(
    config,
    async (s, i) => {
      const { task: t, ms } = (await exec({ kind: "generate", subcategory: s, seed: config.seed, index: i, options })) as GeneratedTask;
      generateMs.set(t.task_id, ms);
      writeJsonAtomic(taskFile(t.task_id), t);
      return t;
    },
    (id) => (existsSync(taskFile(id)) ? readTaskFile(taskFile(id)) : null),
    skipped,
  );
  if (skipped.length) {
    writeJsonAtomic(join(out, "skipped.json"), skipped);
    opts.log(`run: ${skipped.length} task(s) or paradigm(s) skipped (reasons in ${join(out, "skipped.json")})`);
  }
  if (config.suite !== "default") for (const t of tasks) if (!existsSync(taskFile(t.task_id))) writeJsonAtomic(taskFile(t.task_id), t);
  return tasks;
}
