/**
 * The options of a queue run (`esi3d run --queue`) and of a queue worker (`esi3d worker`), declared once:
 * the flags derive from these schemas (src/core/flags.ts).
 */
import { z } from "zod";
import type { FlagSpec } from "../../core/flags.js";

/** redis://[user:password@]HOST:PORT[/DB]: the port is required, so no worker silently talks to another Redis. */
export const QUEUE_URL_PATTERN = /^rediss?:\/\/(?:[^@/]*@)?[^:/@]+:\d{1,5}(?:\/\d{1,2})?$/;
/** --store http://HOST:PORT: the address the producer listens on, which is also what the workers fetch (port 0: a free one). */
export const STORE_URL_PATTERN = /^http:\/\/([^:/]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/;

export const QueueUrlSchema = z.string().regex(QUEUE_URL_PATTERN, "expected redis://HOST:PORT[/DB] (the port is required)");

/**
 * How long a worker holds a job before another may take it over (ms). BullMQ renews the lock every half
 * of it while the worker's event loop runs, so it only has to outlast a blocked loop; units run on worker
 * threads, so the loop stays free. BullMQ's default is 30 s; ours. */
export const DEFAULT_LOCK_DURATION_MS = 30_000;
/** A reconstruction is one ONNX Runtime call on the main thread of the reconstruct role (one session per
 * GPU): VGGT-1B on 20-80 frames takes 2-45 s on a V100 (reference/active-scale-data.md §4), so a lock of
 * 10 min covers the longest with room. */
export const RECONSTRUCT_LOCK_DURATION_MS = 600_000;

export const WORKER_ROLES = ["all", "cpu", "reconstruct", "llm"] as const;

export const QueueRunOptionsSchema = z
  .object({
    url: QueueUrlSchema.nullable().default(null).describe("evaluate on a BullMQ queue at this Redis (redis://HOST:PORT[/DB]); workers: esi3d worker --queue URL"),
    store: z
      .string()
      .min(1)
      .refine((s) => !/^https?:/.test(s) || STORE_URL_PATTERN.test(s), "expected a directory or http://HOST:PORT (an address of this machine that the workers reach)")
      .nullable()
      .default(null)
      .describe("shared store: a directory every worker reaches, or http://HOST:PORT to serve the run directory to the workers from this machine (default: the run directory)"),
  })
  .strict();
export type QueueRunOptions = z.infer<typeof QueueRunOptionsSchema>;

export const QUEUE_RUN_FLAGS: readonly FlagSpec[] = [
  { path: "url", flag: "--queue <url>" },
  { path: "store", flag: "--store <dir|url>" },
];

export const WorkerOptionsSchema = z
  .object({
    url: QueueUrlSchema.describe("the Redis of the queue (redis://HOST:PORT[/DB])"),
    role: z.enum(WORKER_ROLES).default("all").describe("which jobs: cpu (units), reconstruct (units with VGGT, on the GPU), llm (model answers), all (cpu + llm)"),
    concurrency: z.number().int().min(1).max(64).default(2).describe("jobs at once per role (reconstruct: always 1 per GPU)"),
    lockDurationMs: z.number().int().min(1000).max(3_600_000).nullable().default(null).describe("job lock (s on the command line); default 30 s, 600 s for reconstruct"),
  })
  .strict();
export type WorkerOptions = z.infer<typeof WorkerOptionsSchema>;

export const WORKER_FLAGS: readonly FlagSpec[] = [
  { path: "url", flag: "--queue <url>" },
  { path: "role", flag: "--role <role>" },
  { path: "concurrency", flag: "--concurrency <k>" },
  { path: "lockDurationMs", flag: "--lock-duration <s>", scale: 1000, help: "job lock (s): default 30, 600 for reconstruct" },
];
