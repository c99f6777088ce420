/**
 * Evaluation runs: POST /v1/runs validates a RunConfig (the `esi3d run --config` keys) and runs
 * runEvaluation in the background, with its worker threads, in runs/<id>/. The runner appends every
 * finished item to items.jsonl at once, so progress is read from there and survives a kill. A run the
 * server stopped (SIGTERM) or lost (SIGKILL, crash) is reported as `interrupted` and can be resumed.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod";
import { ZodError } from "zod";
import { readTasks } from "../../../core/task/io.js";
import { InputError } from "../../../core/errors.js";
import { redactStrings } from "../../../core/redact.js";
import { migrateRunConfig, modelReasoners, resolveRunConfig, StoredRunConfigSchema, type RunConfig } from "../../eval/config.js";
import { plannedItems, runEvaluation } from "../../eval/runner.js";
import { readRecords, type ItemRecord } from "../../eval/records.js";
import { SUMMARY_FORMAT, SummaryFileSchema, summarizeRun } from "../../eval/summary.js";
import { PACKAGE_VERSION } from "../../../core/version.js";
import { busy, fromZod, HttpError, notFound } from "./errors.js";
import { checkId, newId } from "./ids.js";
import { CANCEL_WAIT_MS, DEFAULT_PAGE_SIZE, MAX_ACTIVE_RUNS, MAX_PAGE_SIZE, MAX_RUN_ITEMS, MAX_RUN_TASKS, MAX_RUN_THREADS } from "./limits.js";
import { ItemsPageQuerySchema, RUN_STATUSES, RunRequestSchema } from "./schemas.js";
import type { ServerContext } from "./context.js";

/** Retry-After (s) when MAX_ACTIVE_RUNS are running: a small run takes tens of seconds, a full suite hours. */
const RUNS_FULL_RETRY_AFTER_S = 30;
/** The suite names a client may use: the built-in suite, or the tasks stored with PUT /v1/tasks. */
const RUN_SUITES = ["default", "tasks"] as const;

type RunStatus = (typeof RUN_STATUSES)[number];

const RunRecordSchema = z
  .object({
    format: z.literal("esi3d-served-run/1"),
    id: z.string(),
    status: z.enum(RUN_STATUSES),
    created_at: z.string(),
    finished_at: z.string().nullable(),
    config: StoredRunConfigSchema.describe('the configuration as the client sees it (suite "default" or "tasks"; server paths left out)'),
    total: z.number().int().nullable(),
    error: z.string().nullable(),
  })
  .strict();
export type RunRecord = z.infer<typeof RunRecordSchema>;

interface Active {
  stop: AbortController;
  done: Promise<void>;
  /** DELETE /v1/runs/:id asked it to stop: it ends as cancelled, not interrupted */
  cancelled: boolean;
}

/** What a stopped run's record says, by why it stopped. */
const STOPPED = {
  interrupted: "the server stopped during this run; POST /v1/runs/{id}/resume completes it",
  cancelled: "cancelled (DELETE /v1/runs/{id}); the finished items are kept, POST /v1/runs/{id}/resume completes it",
} as const;

/**
 * A run's planned size against the per-request limits: its tasks (the built-in suite's perSubcategory x
 * subcategories, or the stored tasks, cut at limit) and items (tasks x paradigms x arms). 400 naming the field.
 */
function checkRunSize(config: RunConfig, storedTasks: number): void {
  const all = config.suite === "tasks" ? storedTasks : config.perSubcategory * config.subcategories.length;
  const tasks = config.limit === null ? all : Math.min(all, config.limit);
  if (tasks > MAX_RUN_TASKS) {
    const what =
      config.suite === "tasks"
        ? `${all} stored tasks`
        : `perSubcategory ${config.perSubcategory} x ${config.subcategories.length} subcategories = ${all} tasks`;
    const field = config.limit === null ? "body.perSubcategory" : "body.limit";
    throw new HttpError(
      400,
      "invalid_request",
      `${field}: this run would plan ${tasks} tasks (${what}); a run on this server plans at most ${MAX_RUN_TASKS}: set limit (or lower perSubcategory)`,
      field,
    );
  }
  const items = plannedItems(config, tasks);
  if (items > MAX_RUN_ITEMS)
    throw new HttpError(
      400,
      "invalid_request",
      `body: this run would plan ${items} items (${tasks} tasks x ${config.paradigms.length} paradigm(s) x its arms); a run on this server plans at most ${MAX_RUN_ITEMS}: fewer tasks, paradigms, sources, label modes or noise levels`,
      "body",
    );
}

export class RunService {
  private active = new Map<string, Active>();
  /** items.jsonl parsed, keyed by run, reused while the file's size is unchanged. */
  private records = new Map<string, { size: number; records: ItemRecord[] }>();

  constructor(private readonly ctx: ServerContext) {}

  get activeCount(): number {
    return this.active.size;
  }

  private dir(id: string): string {
    return this.ctx.store.path("runs", id);
  }

  private load(id: string): RunRecord {
    checkId("run", id, "params.id");
    const r = this.ctx.store.readJson(join(this.dir(id), "run.json"), RunRecordSchema, "run");
    if (!r) throw notFound("run", id);
    return r;
  }

  private save(r: RunRecord): void {
    this.ctx.store.writeJson(join(this.dir(r.id), "run.json"), r);
  }

  /** At start-up: runs left `running` by a previous process are interrupted (no process is running them). */
  recover(): number {
    let n = 0;
    for (const id of readdirSync(this.ctx.store.path("runs"))) {
      if (!/^r-[0-9a-f]{24}$/.test(id)) continue;
      const r = this.ctx.store.readJson(join(this.dir(id), "run.json"), RunRecordSchema, "run");
      if (r?.status === "running") {
        this.save({ ...r, status: "interrupted", error: STOPPED.interrupted });
        n++;
      }
    }
    return n;
  }

  /** The configuration the runner gets: server paths filled in. */
  private internalConfig(c: RunConfig, dir: string): RunConfig {
    return resolveRunConfig(c, {
      suite: c.suite === "tasks" ? this.ctx.store.path("tasks") : "default",
      llm: { ...c.llm, cachePath: modelReasoners(c).length === 0 ? null : join(dir, "llm-cache.sqlite") },
      vggt: { ...c.vggt, modelPath: process.env.ESI3D_VGGT_MODEL ?? null },
    });
  }

  start(body: unknown) {
    // a body in the flat form of earlier versions is migrated to the nested one before it is parsed
    let migrated: unknown;
    const moves = new Map<string, string>();
    try {
      migrated = migrateRunConfig(body ?? {}, moves);
    } catch (e) {
      if (e instanceof InputError) throw new HttpError(400, "invalid_request", `body.${e.field ?? ""}: ${e.message}`, `body.${e.field ?? ""}`);
      throw e;
    }
    const parsed = RunRequestSchema.safeParse(migrated);
    if (!parsed.success) throw fromZod(namedAsSent(parsed.error, moves), "body");
    const b = parsed.data;
    if (b.suite !== undefined && !(RUN_SUITES as readonly string[]).includes(b.suite))
      throw new HttpError(
        400,
        "invalid_request",
        `body.suite: expected "default" (the built-in suite) or "tasks" (the tasks stored with PUT /v1/tasks); server paths cannot be named`,
        "body.suite",
      );
    for (const [k, v] of [
      ["llm.baseUrl", b.llm?.baseUrl],
      ["llm.cachePath", b.llm?.cachePath],
      ["vggt.modelPath", b.vggt?.modelPath],
    ] as const)
      if (v !== undefined && v !== null)
        throw new HttpError(400, "invalid_request", `body.${k}: set by the server (its environment and data directory), not by a request`, `body.${k}`);
    if (b.concurrency !== undefined && b.concurrency > MAX_RUN_THREADS)
      throw new HttpError(
        400,
        "invalid_request",
        `body.concurrency: at most ${MAX_RUN_THREADS} worker threads on this server, got ${b.concurrency}`,
        "body.concurrency",
      );
    let config: RunConfig;
    try {
      config = resolveRunConfig(b as Record<string, unknown>, { concurrency: b.concurrency ?? Math.min(MAX_RUN_THREADS, 2) });
    } catch (e) {
      if (e instanceof ZodError) throw fromZod(e, "body");
      throw e;
    }
    let stored = 0;
    if (config.suite === "tasks") {
      try {
        stored = readTasks(this.ctx.store.path("tasks")).length;
      } catch (e) {
        throw new HttpError(400, "invalid_request", `body.suite: "tasks": ${this.ctx.redact((e as Error).message)}`, "body.suite");
      }
    }
    checkRunSize(config, stored);
    if (this.active.size >= MAX_ACTIVE_RUNS) throw busy(`runs (${MAX_ACTIVE_RUNS} at a time)`, RUNS_FULL_RETRY_AFTER_S);
    const id = newId("run");
    const rec: RunRecord = {
      format: "esi3d-served-run/1",
      id,
      status: "running",
      created_at: new Date().toISOString(),
      finished_at: null,
      config,
      total: null,
      error: null,
    };
    this.launch(rec, false);
    return this.status(this.load(id));
  }

  resume(id: string) {
    const rec = this.load(id);
    if (rec.status !== "interrupted" && rec.status !== "cancelled" && rec.status !== "failed")
      throw new HttpError(409, "conflict", `run ${id} is ${rec.status}; only an interrupted, cancelled or failed run can be resumed`);
    if (this.active.size >= MAX_ACTIVE_RUNS) throw busy(`runs (${MAX_ACTIVE_RUNS} at a time)`, RUNS_FULL_RETRY_AFTER_S);
    this.launch({ ...rec, status: "running", finished_at: null, error: null }, true);
    return this.status(this.load(id));
  }

  private launch(rec: RunRecord, resume: boolean): void {
    const dir = this.dir(rec.id);
    mkdirSync(dir, { recursive: true });
    this.save(rec);
    const stop = new AbortController();
    const log = (line: string) => {
      try {
        appendFileSync(join(dir, "server.log"), `${new Date().toISOString()} ${line}\n`);
      } catch {
        // the log is a convenience; the run's state is in run.json and items.jsonl
      }
    };
    const t = performance.now();
    const active: Active = { stop, done: Promise.resolve(), cancelled: false };
    const done = (async () => {
      let status: RunStatus = "finished";
      let error: string | null = null;
      try {
        const out = await runEvaluation({
          config: this.internalConfig(rec.config, dir),
          out: dir,
          resume,
          version: PACKAGE_VERSION,
          log,
          workers: true,
          signal: stop.signal,
          progress: {
            setTotal: (n) => this.save({ ...this.load(rec.id), total: n }),
            tick: () => {},
            line: log,
            finish: () => {},
          },
        });
        if (out.interrupted) {
          status = active.cancelled ? "cancelled" : "interrupted";
          error = STOPPED[status];
        }
      } catch (e) {
        status = "failed";
        error = this.ctx.redact(e instanceof InputError ? e.message : `run failed: ${(e as Error)?.message ?? String(e)}`);
        log(`failed: ${(e as Error)?.stack ?? String(e)}`);
      } finally {
        this.ctx.metrics.stages.observe({ stage: "run" }, (performance.now() - t) / 1000);
        this.save({ ...this.load(rec.id), status, error, finished_at: new Date().toISOString() });
        this.active.delete(rec.id);
      }
    })();
    active.done = done;
    this.active.set(rec.id, active);
  }

  /**
   * DELETE /v1/runs/:id: the run starts no more items; those in flight finish and every finished item is kept
   * (POST .../resume completes it). Waits up to CANCEL_WAIT_MS for it to stop, then answers its status.
   */
  async cancel(id: string) {
    const rec = this.load(id);
    const active = this.active.get(id);
    if (rec.status !== "running" || !active) throw new HttpError(409, "conflict", `run ${id} is ${rec.status}; only a running run can be cancelled`);
    active.cancelled = true;
    active.stop.abort();
    await Promise.race([active.done, new Promise((r) => setTimeout(r, CANCEL_WAIT_MS).unref())]);
    return this.status(this.load(id));
  }

  private readItems(id: string): ItemRecord[] {
    const file = join(this.dir(id), "items.jsonl");
    if (!existsSync(file)) return [];
    const size = statSync(file).size;
    const hit = this.records.get(id);
    if (hit && hit.size === size) return hit.records;
    const { records } = readRecords(file);
    this.records.set(id, { size, records });
    return records;
  }

  status(rec: RunRecord) {
    const done = this.readItems(rec.id).length;
    const summary = rec.status === "running" ? null : this.summary(rec);
    return {
      id: rec.id,
      status: rec.status,
      created_at: rec.created_at,
      finished_at: rec.finished_at,
      config: rec.config,
      progress: { done, total: rec.total },
      summary,
      error: rec.error,
    };
  }

  /** summary.json; one an older esi3d wrote (another format) is summarised again from the run's items. */
  private summary(rec: RunRecord): z.infer<typeof SummaryFileSchema> | null {
    const file = join(this.dir(rec.id), "summary.json");
    const head = this.ctx.store.readJson(file, z.object({ format: z.string(), complete: z.boolean(), wall_seconds: z.number() }).passthrough(), "run summary");
    if (head === null || head.format === SUMMARY_FORMAT) return this.ctx.store.readJson(file, SummaryFileSchema, "run summary");
    return { ...summarizeRun(this.readItems(rec.id)), complete: head.complete, wall_seconds: head.wall_seconds };
  }

  get(id: string) {
    return this.status(this.load(id));
  }

  list() {
    const out: Array<{ id: string; status: RunStatus; created_at: string }> = [];
    for (const id of readdirSync(this.ctx.store.path("runs"))) {
      if (!/^r-[0-9a-f]{24}$/.test(id)) continue;
      const r = this.ctx.store.readJson(join(this.dir(id), "run.json"), RunRecordSchema, "run");
      if (r) out.push({ id: r.id, status: r.status, created_at: r.created_at });
    }
    return { runs: out.sort((a, b) => a.created_at.localeCompare(b.created_at)) };
  }

  items(id: string, query: unknown) {
    this.load(id);
    const q = ItemsPageQuerySchema.safeParse(query ?? {});
    if (!q.success) throw fromZod(q.error, "query");
    const limit = q.data.limit ?? DEFAULT_PAGE_SIZE;
    if (limit > MAX_PAGE_SIZE) throw new HttpError(400, "invalid_request", `query.limit: at most ${MAX_PAGE_SIZE}, got ${limit}`, "query.limit");
    const all = this.readItems(id);
    // an item's error names the model endpoint it failed on: the client sees <OPENAI_BASE_URL>
    return { run: id, offset: q.data.offset, limit, total: all.length, items: redactStrings(all.slice(q.data.offset, q.data.offset + limit), this.ctx.redact) };
  }

  /**
   * Asks every active run to stop (items in flight finish) and waits up to `graceMs`; a run still going then is
   * recorded as interrupted at once, so the record is right even if the process exits before the run ends.
   */
  async stopAll(graceMs: number): Promise<void> {
    const waits = [...this.active.values()].map((a) => {
      a.stop.abort();
      return a.done;
    });
    if (waits.length === 0) return;
    await Promise.race([Promise.allSettled(waits), new Promise((r) => setTimeout(r, graceMs).unref())]);
    this.markInterrupted();
  }

  /** Records every run still active as interrupted (the process is about to exit; resume completes it). */
  markInterrupted(): void {
    for (const [id, a] of this.active) {
      const rec = this.ctx.store.readJson(join(this.dir(id), "run.json"), RunRecordSchema, "run");
      if (rec?.status === "running")
        this.save({
          ...rec,
          status: a.cancelled ? "cancelled" : "interrupted",
          error: STOPPED[a.cancelled ? "cancelled" : "interrupted"],
          finished_at: new Date().toISOString(),
        });
    }
  }
}

/**
 * A flat body's option is reported where the client wrote it: `body.maxSteps`, not `body.active.maxSteps`
 * (the migration moved it there, `moves` says so, but the client never wrote that path).
 */
function namedAsSent(error: ZodError, moves: ReadonlyMap<string, string>): ZodError {
  const asSent = (path: PropertyKey[]): PropertyKey[] => {
    const sent = moves.get(path.slice(0, 2).join("."));
    return sent === undefined || path.length < 2 ? path : [sent, ...path.slice(2)];
  };
  return new ZodError(error.issues.map((issue) => ({ ...issue, path: asSent(issue.path) })));
}
