/**
 * The producer side of a queue run (`esi3d run --queue`): checks the queue before any work, enqueues the
 * units that still have items to do, and collects the finished jobs' records. It is the only writer of
 * items.jsonl; the runner's commit drops a record whose item key is already there, so a job delivered
 * twice (a stalled worker, a restarted collector) is recorded once and counted as a duplicate.
 */
import { cpSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { FlowProducer, Job, Queue, type JobsOptions } from "bullmq";
import type { Redis } from "ioredis";
import type { Task } from "../../../core/task/schema.js";
import type { Paradigm } from "../../../core/bundle/schema.js";
import { InputError } from "../../../core/errors.js";
import { sleep } from "../../llm/retry.js";
import { baselineArms, modelReasoners, threeDArms, type RunConfig } from "../config.js";
import type { ItemRecord } from "../records.js";
import { openQueueRedis, redactUrl, redisConnection } from "./connection.js";
import { answerJobId, QUEUES, unitJobId, type AnswerJobResult, type QueueJobData, type UnitJobData, type UnitJobResult } from "./jobs.js";
import { liveWorkers, startHeartbeat, workersByRole } from "./liveness.js";
import { REDIS_OUTAGE_LIMIT_MS, watchOutages, within, type OutageWatch } from "./outage.js";
import { isHttpStore, shownStore } from "./store.js";

/** How often the collector looks at the jobs it waits for (ms). */
const POLL_MS = 200;
/** How often a queue run logs its workers and queue depth (ms). */
const STATUS_MS = 10_000;
/** Attempts of a job that throws (a stalled job is retried apart from these: maxStalledCount in worker.ts). */
const JOB_ATTEMPTS = 2;

/** The longest a producer waits for its connections to close (ms): during a Redis outage they never would. */
const CLOSE_WAIT_MS = 2_000;

export interface QueueHandle {
  redis: Redis;
  url: string;
  /** the process's Redis outages: said once each, fatal after REDIS_OUTAGE_LIMIT_MS */
  watch: OutageWatch;
  close(): Promise<void>;
}

/** Connects and checks the queue (reachable, noeviction, every live worker on this version): before any work. */
export async function openQueue(
  url: string,
  version: string,
  log: (line: string) => void = () => {},
  redisWaitMs = REDIS_OUTAGE_LIMIT_MS,
): Promise<QueueHandle> {
  const watch = watchOutages("queue", redactUrl(url), log, redisWaitMs);
  const redis = await openQueueRedis(url, "--queue", watch);
  const other = (await liveWorkers(redis)).find((w) => w.version !== version);
  if (other) {
    redis.disconnect();
    watch.close();
    throw new InputError(
      `--queue: worker ${other.host}:${other.pid} (${other.role}) runs esi3d ${other.version}, this run is esi3d ${version}: run one version on every machine of a queue`,
      { field: "queue" },
    );
  }
  const stopBeat = startHeartbeat(redis, "producer", () => ({ role: "producer", version, processed: 0 }));
  return {
    redis,
    url,
    watch,
    close: async () => {
      await within(CLOSE_WAIT_MS, stopBeat());
      redis.disconnect();
      watch.close();
    },
  };
}

export interface QueueUnitsInput {
  queue: QueueHandle;
  /** the shared store: an absolute directory (the run directory unless --store says otherwise) or the served store's URL */
  store: string;
  out: string;
  runId: string;
  version: string;
  config: RunConfig;
  units: Array<{ task: Task; paradigm: Paradigm }>;
  doneKeys: ReadonlySet<string>;
  unitKeys: (task: Task, paradigm: string) => string[];
  /** each task's generation time (ms) where this run generated it */
  generateMs: ReadonlyMap<string, number>;
  /** records one item (dropping one already recorded); returns false for a duplicate */
  commit: (r: ItemRecord) => boolean;
  log: (line: string) => void;
  /** prints a unit's note the first time the run sees it */
  note: (line: string) => void;
  stopped: () => boolean;
}

/** A unit job's generation time, when the producer generated its task (a JSON job has no undefined fields). */
function generateTimingOf(generateMs: ReadonlyMap<string, number>, taskId: string): Pick<UnitJobData, "generateMs"> {
  const ms = generateMs.get(taskId);
  return ms === undefined ? {} : { generateMs: ms };
}

/** Enqueues the units and collects their records until all are in, or the run is stopped. */
export async function runUnitsOnQueue(input: QueueUnitsInput): Promise<{ duplicates: number }> {
  const { queue, config, store, runId } = input;
  const { watch } = queue;
  const connection = redisConnection(queue.url, watch);
  const unitQueueName = config.sources.includes("vggt") ? QUEUES.reconstruct : QUEUES.cpu;
  const withModel = modelReasoners(config).length > 0;
  const terminalQueue = new Queue(withModel ? QUEUES.llm : unitQueueName, { connection });
  const flows = new FlowProducer({ connection });
  watch.watch(terminalQueue);
  watch.watch(flows);
  const arms = [...threeDArms(config).map((a) => a.label), ...baselineArms(config)];
  const opts: JobsOptions = { attempts: JOB_ATTEMPTS, removeOnComplete: false, removeOnFail: false };
  const waiting = new Map<string, { task: Task; paradigm: Paradigm }>();
  let duplicates = 0;
  try {
    for (const u of input.units) {
      const base: QueueJobData = { version: input.version, runId, store, taskId: u.task.task_id, paradigm: u.paradigm };
      const unitId = unitJobId(runId, u.task.task_id, u.paradigm, arms, config.seed);
      const unit = {
        name: "unit",
        queueName: unitQueueName,
        data: {
          ...base,
          done: input.unitKeys(u.task, u.paradigm).filter((k) => input.doneKeys.has(k)),
          ...generateTimingOf(input.generateMs, u.task.task_id),
        } satisfies UnitJobData,
        opts: { ...opts, jobId: unitId },
      };
      const id = withModel ? answerJobId(runId, u.task.task_id, u.paradigm, arms, config.reasoner.join(","), config.seed) : unitId;
      waiting.set(id, u);
      // a job already on the queue (a resumed run, a restarted collector) is left as it is
      if (await watch.race(Job.fromId(terminalQueue, id))) continue;
      if (withModel) await watch.race(flows.add({ name: "answer", queueName: QUEUES.llm, data: base, opts: { ...opts, jobId: id }, children: [unit] }));
      else await watch.race(terminalQueue.add("unit", unit.data, unit.opts));
    }
    input.log(
      `queue: ${waiting.size} unit job(s) on ${redactUrl(queue.url)} (${withModel ? `${unitQueueName} -> ${QUEUES.llm}` : unitQueueName}), store ${shownStore(store)}`,
    );
    let lastStatus = Date.now();
    while (waiting.size > 0 && !input.stopped()) {
      const ids = [...waiting.keys()];
      // during a Redis restart these wait for the reconnection, bounded by the outage watch
      const jobs = await watch.race(Promise.all(ids.map((id) => Job.fromId(terminalQueue, id))));
      for (const [i, job] of jobs.entries()) {
        const id = ids[i]!;
        if (!job) throw new Error(`queue: job ${id} vanished from Redis (was the queue flushed?); rerun with --resume`);
        if (job.finishedOn && job.failedReason && job.attemptsMade >= (job.opts.attempts ?? 1))
          throw new Error(`queue: ${job.data.taskId} ${job.data.paradigm} failed on a worker: ${job.failedReason}`);
        if (!job.finishedOn || job.failedReason) continue;
        const result = job.returnvalue as UnitJobResult | AnswerJobResult;
        const u = waiting.get(id)!;
        if (!isHttpStore(store) && resolve(store) !== resolve(input.out)) copyGraphs(store, input.out, u.task.task_id);
        for (const n of result.notes) input.note(n);
        for (const r of result.records) if (!input.commit(r)) duplicates++;
        waiting.delete(id);
      }
      if (Date.now() - lastStatus >= STATUS_MS) {
        lastStatus = Date.now();
        input.log(await watch.race(queueStatus(queue.redis, terminalQueue)));
      }
      if (waiting.size > 0) await sleep(POLL_MS);
    }
    if (waiting.size === 0) {
      // a finished run's jobs are of no more use; removing them keeps Redis small
      for (const u of input.units) {
        const id = withModel
          ? answerJobId(runId, u.task.task_id, u.paradigm, arms, config.reasoner.join(","), config.seed)
          : unitJobId(runId, u.task.task_id, u.paradigm, arms, config.seed);
        await watch.race(terminalQueue.remove(id, { removeChildren: true }).catch(() => 0));
      }
    }
  } finally {
    await within(CLOSE_WAIT_MS, flows.close());
    await within(CLOSE_WAIT_MS, terminalQueue.close());
    connection.disconnect();
  }
  if (duplicates) input.log(`queue: dropped ${duplicates} duplicate record(s) (items delivered twice)`);
  return { duplicates };
}

/** One line: live workers per role and the depth of each queue. */
async function queueStatus(redis: Redis, q: Queue): Promise<string> {
  const roles = workersByRole(await liveWorkers(redis));
  const counts = await q.getJobCounts("waiting", "active", "waiting-children", "completed");
  return `queue: workers ${
    Object.entries(roles)
      .map(([r, n]) => `${r} ${n}`)
      .join(", ") || "none"
  }; ${q.name}: ${Object.entries(counts)
    .map(([s, n]) => `${s} ${n}`)
    .join(", ")}`;
}

/** Copies a task's graphs from the shared store into the run directory. */
function copyGraphs(store: string, out: string, taskId: string): void {
  const from = join(store, "graphs", taskId);
  if (!existsSync(from)) return;
  mkdirSync(join(out, "graphs", taskId), { recursive: true });
  for (const f of readdirSync(from)) cpSync(join(from, f), join(out, "graphs", taskId, f));
}
