/**
 * A read-only look at a queue's Redis for dashboards (the service's /metrics): the jobs of each esi3d queue
 * by state, and the live workers and producers (their heartbeats, liveness.ts). It takes no job and
 * writes nothing, so any number of services may watch one queue.
 */
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { redisConnection } from "./connection.js";
import { QUEUES } from "./jobs.js";
import { liveProducers, liveWorkers, type Heartbeat } from "./liveness.js";

/** The job states a dashboard shows (BullMQ's names). */
const JOB_STATES = ["waiting", "waiting-children", "active", "delayed", "prioritized", "completed", "failed"] as const;

interface QueueSnapshot {
  /** jobs per queue name and state */
  jobs: Record<string, Record<string, number>>;
  workers: Heartbeat[];
  producers: Heartbeat[];
}

export interface QueueMonitor {
  snapshot(): Promise<QueueSnapshot>;
  close(): Promise<void>;
}

/** Watches the queue on `redis` (already checked by openQueueRedis); `url` gives BullMQ its own connection. */
export function watchQueue(redis: Redis, url: string): QueueMonitor {
  const connection = redisConnection(url);
  // a Redis that goes away shows as a failed snapshot (esi3d_queue_up 0), not as log noise per retry
  connection.on("error", () => {});
  const queues = Object.values(QUEUES).map((name) => new Queue(name, { connection }));
  return {
    async snapshot() {
      const jobs: QueueSnapshot["jobs"] = {};
      for (const q of queues) jobs[q.name] = await q.getJobCounts(...JOB_STATES);
      return { jobs, workers: await liveWorkers(redis), producers: await liveProducers(redis) };
    },
    async close() {
      await Promise.all(queues.map((q) => q.close()));
      connection.disconnect();
    },
  };
}
