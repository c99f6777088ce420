/**
 * The options of a queue run (`esi3d run --queue`) and of a queue worker (`esi3d worker`), declared once:
 * the flags derive from these schemas (core/flags.ts).
 */
import * as z from "zod";
import type { FlagSpec } from "../../../core/flags.js";
import { REDIS_OUTAGE_LIMIT_MS } from "./outage.js";

/** redis://[user:password@]HOST:PORT[/DB]: the port is required, so no worker silently talks to another Redis. */
const QUEUE_URL_PATTERN = /^rediss?:\/\/(?:[^@/]*@)?[^:/@]+:\d{1,5}(?:\/\d{1,2})?$/;
/** --store http://HOST:PORT: the address the producer listens on, which is also what the workers fetch (port 0: a free one). */
export const STORE_URL_PATTERN = /^http:\/\/([^:/]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/;

export const QueueUrlSchema = z.string().regex(QUEUE_URL_PATTERN, "expected redis://HOST:PORT[/DB] (the port is required)");

/**
 * How long a worker holds a job before another may take it over (ms). BullMQ renews the lock every half of
 * it while the job runs, and every role runs its work off the event loop that renews it (units and VGGT on
 * worker threads, model calls as async I/O), so a reconstruction of any length keeps its lock: the lock
 * only bounds how long a dead worker's job waits before another takes it. BullMQ's default, 30 s. */
const DEFAULT_LOCK_DURATION_MS = 30_000;

export const WORKER_ROLES = ["all", "cpu", "reconstruct", "llm"] as const;

/** How long a producer or worker waits for Redis to come back (ms; src/eval/queue/outage.ts). */
function redisWait() {
  return z
    .number()
    .int()
    .min(1000)
    .max(3_600_000)
    .default(REDIS_OUTAGE_LIMIT_MS)
    .describe("how long to wait for Redis to come back after a restart or outage (s on the command line); longer, the process stops with one line");
}

export const QueueRunOptionsSchema = z
  .object({
    url: QueueUrlSchema.nullable()
      .default(null)
      .describe("evaluate on a BullMQ queue at this Redis (redis://HOST:PORT[/DB]); workers: esi3d worker --queue URL"),
    store: z
      .string()
      .min(1)
      .refine(
        (s) => !/^https?:/.test(s) || STORE_URL_PATTERN.test(s),
        "expected a directory or http://HOST:PORT (an address of this machine that the workers reach)",
      )
      .nullable()
      .default(null)
      .describe(
        "shared store: a directory every worker reaches, or http://HOST:PORT to serve the run directory to the workers from this machine (default: the run directory)",
      ),
    redisWaitMs: redisWait(),
  })
  .strict();
export type QueueRunOptions = z.infer<typeof QueueRunOptionsSchema>;

export const QUEUE_RUN_FLAGS: readonly FlagSpec[] = [
  { path: "url", flag: "--queue <url>" },
  { path: "store", flag: "--store <dir|url>" },
  {
    path: "redisWaitMs",
    flag: "--redis-wait <s>",
    scale: 1000,
    help: "how long to wait for Redis to come back after it goes away (s); longer, the process stops with one line",
  },
];

export const WorkerOptionsSchema = z
  .object({
    url: QueueUrlSchema.describe("the Redis of the queue (redis://HOST:PORT[/DB])"),
    role: z
      .enum(WORKER_ROLES)
      .default("all")
      .describe("which jobs: cpu (units), reconstruct (units with VGGT, on the GPU), llm (model answers), all (cpu + llm)"),
    concurrency: z.number().int().min(1).max(64).default(2).describe("jobs at once per role (reconstruct: always 1 per GPU)"),
    lockDurationMs: z
      .number()
      .int()
      .min(1000)
      .max(3_600_000)
      .default(DEFAULT_LOCK_DURATION_MS)
      .describe("job lock (s on the command line): how long a dead worker's job waits before another takes it; renewed while the job runs"),
    redisWaitMs: redisWait(),
  })
  .strict();
export type WorkerOptions = z.infer<typeof WorkerOptionsSchema>;

export const WORKER_FLAGS: readonly FlagSpec[] = [
  { path: "url", flag: "--queue <url>" },
  { path: "role", flag: "--role <role>" },
  { path: "concurrency", flag: "--concurrency <k>" },
  { path: "lockDurationMs", flag: "--lock-duration <s>", scale: 1000, help: "job lock (s), renewed while a job runs: how long a dead worker's job waits" },
  {
    path: "redisWaitMs",
    flag: "--redis-wait <s>",
    scale: 1000,
    help: "how long to wait for Redis to come back after it goes away (s); longer, the worker stops with one line",
  },
];
