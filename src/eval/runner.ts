/**
 * `esi3d run`: the evaluation runner. Generates (or reads) the tasks, then evaluates every task in every
 * paradigm: CPU-heavy stages (render, reconstruct, graph, diagnosis, offline reasoners) on a pool of
 * worker threads, model calls in the main thread under a concurrency limit. Every finished item is
 * appended to items.jsonl at once; Ctrl-C finishes (or, pressed twice, abandons) the items in flight and
 * leaves a run that --resume completes. At the end: summary.json, report.md, report.html.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Piscina } from "piscina";
import pLimit from "p-limit";
import type { Task } from "../../bridge/task/schema.js";
import { readTaskFile } from "../../bridge/task/io.js";
import { isSkippedUnit, planSuiteDirectory, type SkippedItem } from "./suite.js";
import { InputError } from "../core/errors.js";
import { generateTask } from "../../bridge/sim/generate/suite.js";
import type { Paradigm } from "../../bridge/bundle/schema.js";
import { resolveVggtModel } from "../../reconstruct/vggt/index.js";
import { createReasoner } from "../reason/index.js";
import type { Reasoner } from "../reason/types.js";
import { threeDArms, type RunConfig } from "./config.js";
import { makeRecord, qualityFigures, runUnit, type UnitJob, type UnitResult } from "./pipeline.js";
import { renderBundle } from "../../bridge/sim/capture.js";
import { itemKey, readRecords, RecordWriter, type ItemRecord } from "./records.js";
import { summarizeRun, type RunSummary } from "./summary.js";
import { reportHtml, reportMarkdown } from "./report.js";
import type { WorkerJob } from "./worker.js";
import { sceneGraphFile } from "./files.js";
import { writeFileAtomic, writeJsonAtomic } from "../core/fs.js";

export interface RunOptions {
  config: RunConfig;
  out: string;
  resume: boolean;
  version: string;
  log: (line: string) => void;
  progress?: { setTotal(n: number): void; tick(n?: number, failed?: number): void; line(text: string): void; finish(): void };
  /** Use worker threads (default); false runs units in this thread (tests, debugging). */
  workers?: boolean;
  signal?: AbortSignal;
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
export function planTasks(config: RunConfig, generate: (sub: RunConfig["subcategories"][number], index: number) => Promise<Task>, cached: (id: string) => Task | null, skipped: SkippedItem[] = []): Promise<Task[]> {
  if (config.suite !== "default") {
    const planned = planSuiteDirectory(config.suite, config);
    skipped.push(...planned.skipped);
    return Promise.resolve(config.limit ? planned.tasks.slice(0, config.limit) : planned.tasks);
  }
  const plan: Array<[RunConfig["subcategories"][number], number]> = [];
  for (let i = 0; i < config.perSubcategory; i++) for (const s of config.subcategories) plan.push([s, i]);
  const chosen = config.limit ? plan.slice(0, config.limit) : plan;
  return Promise.all(chosen.map(([s, i]) => cached(`${s}-${String(i).padStart(3, "0")}`) ?? generate(s, i)));
}

/** Checks that a run directory being resumed was made with the same configuration. */
function checkResume(out: string, config: RunConfig): void {
  const file = join(out, "config.json");
  if (!existsSync(file)) return;
  const prev = JSON.parse(readFileSync(file, "utf8")) as { config: RunConfig };
  const a = JSON.stringify({ ...prev.config, concurrency: 0, maxConnections: 0 }), b = JSON.stringify({ ...config, concurrency: 0, maxConnections: 0 });
  if (a !== b) throw new InputError(`${file}: this run directory was made with a different configuration; use another --out, or the same options to resume`);
}

export async function runEvaluation(opts: RunOptions): Promise<RunOutcome> {
  const { config, out, log } = opts;
  const t0 = Date.now();
  if (config.sources.includes("vggt")) resolveVggtModel({ modelPath: config.vggt.modelPath ?? undefined }); // fail fast, before any work
  if (existsSync(join(out, "items.jsonl")) && !opts.resume) throw new InputError(`${out}: a run already exists here; pass --resume to complete it, or choose another --out`);
  if (opts.resume) checkResume(out, config);
  mkdirSync(join(out, "tasks"), { recursive: true });
  mkdirSync(join(out, "graphs"), { recursive: true });
  writeJsonAtomic(join(out, "config.json"), { format: "esi3d-run/1", package_version: opts.version, node: process.version, started_at: new Date().toISOString(), config });
  const { records: previous, tornBytes } = readRecords(join(out, "items.jsonl"));
  if (tornBytes) log(`resume: dropping a torn last line (${tornBytes} bytes) from items.jsonl`);
  const doneKeys = new Set(previous.map((r) => r.key));
  const writer = new RecordWriter(join(out, "items.jsonl"));
  const records: ItemRecord[] = [...previous];
  // vggt holds one ONNX Runtime session of ~5 GB weights per process: one worker only
  const threads = config.sources.includes("vggt") ? 1 : config.concurrency;
  if (threads !== config.concurrency) log(`run: --source vggt uses one worker (one ONNX Runtime session)`);
  const pool = opts.workers === false ? null : new Piscina({ filename: new URL("./worker.js", import.meta.url).href, minThreads: threads, maxThreads: threads, idleTimeout: 1000 });
  const exec = async (job: WorkerJob, signal?: AbortSignal): Promise<unknown> => {
    if (pool) return pool.run(job, { signal });
    if (job.kind === "generate") return generateTask(job.subcategory, job.seed, job.index);
    return runUnit(job);
  };
  let interrupted = false;
  const skipped: SkippedItem[] = [];
  try {
    // tasks: generated from the seed on the pool, stored in the run directory (reused on resume)
    const taskFile = (id: string) => join(out, "tasks", `${id}.json`);
    const tasks = await planTasks(
      config,
      async (s, i) => {
        const t = (await exec({ kind: "generate", subcategory: s, seed: config.seed, index: i })) as Task;
        writeJsonAtomic(taskFile(t.task_id), t);
        return t;
      },
      (id) => (existsSync(taskFile(id)) ? readTaskFile(taskFile(id)) : null),
      skipped,
    );
    if (skipped.length) {
      writeJsonAtomic(join(out, "skipped.json"), skipped);
      log(`run: ${skipped.length} task(s) or paradigm(s) skipped (reasons in ${join(out, "skipped.json")})`);
    }
    if (tasks.length === 0) throw new InputError(`${config.suite}: no task of this suite can run here (${skipped.length} skipped, reasons in ${join(out, "skipped.json")})`);
    if (config.suite !== "default") for (const t of tasks) if (!existsSync(taskFile(t.task_id))) writeJsonAtomic(taskFile(t.task_id), t);
    const arms = (t: Task, p: string) => [...threeDArms(config).map((a) => itemKey(t.task_id, p, "3d", a.label)), ...(config.baseline === "2d" ? [itemKey(t.task_id, p, "2d", null)] : [])];
    const allUnits = tasks.flatMap((task) => config.paradigms.map((paradigm) => ({ task, paradigm: paradigm as Paradigm }))).filter((u) => !isSkippedUnit(skipped, u.task.task_id, u.paradigm));
    const units = allUnits.filter((u) => arms(u.task, u.paradigm).some((k) => !doneKeys.has(k)));
    const totalItems = allUnits.length * (threeDArms(config).length + (config.baseline === "2d" ? 1 : 0));
    opts.progress?.setTotal(totalItems);
    opts.progress?.tick(previous.length);
    log(`run: ${tasks.length} tasks x ${config.paradigms.length} paradigms = ${totalItems} items (${previous.length} already done), ${threads} worker(s), reasoner ${config.reasoner}`);
    const llm: Reasoner | null = config.reasoner === "symbolic" ? null : createReasoner(config.reasoner, { baseUrl: config.llm.baseUrl ?? undefined, cache: config.llm.cachePath, timeoutMs: config.llm.timeoutMs, maxRetries: config.llm.maxRetries, maxConcurrency: config.maxConnections, temperature: config.llm.temperature, format: config.format, uncertainty: config.uncertainty, maxImages: config.maxImages });
    const limit = pLimit(config.maxConnections);
    const stop = new AbortController();
    const abandon = new AbortController();
    const onSignal = () => {
      if (!stop.signal.aborted) {
        interrupted = true;
        stop.abort();
        opts.progress?.line("interrupted: finishing the items in flight (Ctrl-C again to abandon them); --resume completes the run");
      } else abandon.abort();
    };
    process.on("SIGINT", onSignal);
    opts.signal?.addEventListener("abort", onSignal);
    const commit = (r: ItemRecord) => {
      if (abandon.signal.aborted) return;
      writer.append(r);
      records.push(r);
      doneKeys.add(r.key);
      opts.progress?.tick(1, r.status === "parsed" ? 0 : 1);
    };
    const saveGraphs = (task: Task, paradigm: string, res: UnitResult) => {
      for (const g of res.graphs) writeJsonAtomic(sceneGraphFile(out, task.task_id, paradigm, g.source), { graph: g.graph, diagnosis: g.diagnosis });
    };
    const answerPending = async (task: Task, paradigm: Paradigm, res: UnitResult) => {
      if (!llm || res.pending.length === 0) return;
      const bundle = res.pending.some((p) => p.arm === "2d") ? renderBundle(task, paradigm) : undefined;
      await Promise.all(
        res.pending.map((p) =>
          limit(async () => {
            if (stop.signal.aborted && abandon.signal.aborted) return;
            const g = res.graphs.find((x) => x.source === p.source);
            const a = await llm.answer(p.arm === "2d" ? { task, bundle, images: config.images, maxImages: config.maxImages } : { task, graph: g!.graph, format: config.format, uncertainty: config.uncertainty }, abandon.signal);
            const arm = threeDArms(config).find((x) => x.label === p.source);
            commit(makeRecord({ task, paradigm, arm: p.arm, source: arm?.source ?? null, level: arm?.level ?? null, config, reasoner: config.reasoner, answer: a, views: res.views, quality: g ? qualityFigures(g.diagnosis.metrics) : null, timings: { ...res.timings }, key: p.key }));
          }),
        ),
      );
    };
    const inflight = new Set<Promise<void>>();
    for (const u of units) {
      if (stop.signal.aborted) break;
      while (inflight.size >= threads * 2) await Promise.race(inflight);
      if (stop.signal.aborted) break;
      const job: UnitJob = { task: u.task, paradigm: u.paradigm, config, done: arms(u.task, u.paradigm).filter((k) => doneKeys.has(k)) };
      const p: Promise<void> = (async () => {
        try {
          const res = (await exec({ kind: "unit", ...job }, abandon.signal)) as UnitResult;
          if (abandon.signal.aborted) return;
          saveGraphs(u.task, u.paradigm, res);
          for (const r of res.records) commit(r);
          await answerPending(u.task, u.paradigm, res);
        } catch (e) {
          if (abandon.signal.aborted) return;
          throw e;
        }
      })().finally(() => inflight.delete(p));
      inflight.add(p);
    }
    await Promise.all(inflight);
    process.off("SIGINT", onSignal);
  } finally {
    writer.close();
    await pool?.destroy();
  }
  const summary = summarizeRun(records);
  const wallSeconds = (Date.now() - t0) / 1000;
  const meta = { runId: out.split("/").filter(Boolean).pop() ?? out, version: opts.version, wallSeconds, skipped, proxies: new Set(records.filter((r) => r.proxy).map((r) => r.task_id)).size };
  writeJsonAtomic(join(out, "summary.json"), { ...summary, complete: !interrupted, wall_seconds: wallSeconds });
  writeFileAtomic(join(out, "report.md"), reportMarkdown(summary, config, meta));
  writeFileAtomic(join(out, "report.html"), reportHtml(summary, config, meta));
  opts.progress?.finish();
  return { summary, records, interrupted, wallSeconds };
}

