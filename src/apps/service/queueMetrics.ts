/**
 * `esi3d serve --queue-url`: the queue of distributed runs in /metrics. Each scrape reads the queue once
 * (src/eval/queue/monitor.ts): jobs per queue and state, live workers per role, and each worker's
 * processed count, so a dashboard sees depth, throughput and a worker that dropped out (its heartbeat
 * expires within HEARTBEAT_TTL_MS). esi3d_queue_up says whether Redis answered this scrape.
 */
import { openQueueRedis } from "../../eval/queue/connection.js";
import { workersByRole } from "../../eval/queue/liveness.js";
import { watchQueue } from "../../eval/queue/monitor.js";
import { WORKER_ROLES } from "../../eval/queue/options.js";
import type { GaugeFamily, Metrics } from "./metrics.js";

/** How long a scrape waits for the queue's Redis (ms): BullMQ's connection retries forever, a scrape must not. */
const QUEUE_SCRAPE_TIMEOUT_MS = 2_000;

/** `p`, or a rejection after `ms`. */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export interface QueueWatch {
  close(): Promise<void>;
}

/** Connects (exit 2 before the server starts on an unreachable or misconfigured Redis) and adds the gauges. */
export async function watchQueueInMetrics(url: string, metrics: Metrics): Promise<QueueWatch> {
  const redis = await openQueueRedis(url, "--queue-url");
  const monitor = watchQueue(redis, url);
  metrics.asyncGauges(async (): Promise<GaugeFamily[]> => {
    const up: GaugeFamily = { name: "esi3d_queue_up", help: "1 when the queue's Redis answered this scrape, else 0", samples: [{ labels: {}, value: 0 }] };
    try {
      const s = await within(monitor.snapshot(), QUEUE_SCRAPE_TIMEOUT_MS);
      up.samples[0]!.value = 1;
      // every role shows, 0 when none is live
      const byRole = { ...Object.fromEntries(WORKER_ROLES.map((r) => [r, 0])), ...workersByRole(s.workers) };
      return [
        up,
        {
          name: "esi3d_queue_jobs",
          help: "jobs of each esi3d queue by state (BullMQ's states)",
          samples: Object.entries(s.jobs).flatMap(([queue, states]) => Object.entries(states).map(([state, value]) => ({ labels: { queue, state }, value }))),
        },
        {
          name: "esi3d_queue_workers",
          help: "live queue workers by role (a heartbeat younger than its TTL)",
          samples: Object.entries(byRole).map(([role, value]) => ({ labels: { role }, value })),
        },
        { name: "esi3d_queue_producers", help: "live queue runs collecting results (esi3d run --queue)", samples: [{ labels: {}, value: s.producers.length }] },
        {
          name: "esi3d_queue_worker_jobs_processed",
          help: "jobs each live worker has finished since it started",
          samples: s.workers.map((w) => ({ labels: { host: w.host, pid: String(w.pid), role: w.role, version: w.version }, value: w.processed })),
        },
      ];
    } catch {
      return [up];
    }
  });
  return {
    async close() {
      await monitor.close();
      redis.disconnect();
    },
  };
}
