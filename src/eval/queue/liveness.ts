/**
 * Who is on a queue: each worker and each producer keeps a key that expires unless refreshed (a
 * heartbeat), so a killed process drops out within HEARTBEAT_TTL_MS. The run's progress, the service's
 * /metrics and the version check read them.
 */
import { hostname } from "node:os";
import type { Redis } from "ioredis";
import * as z from "zod";
import { WORKER_ROLES } from "./options.js";

/** A heartbeat is refreshed every HEARTBEAT_MS and lives HEARTBEAT_TTL_MS: three missed beats mark a process gone. */
const HEARTBEAT_MS = 2_000;
const HEARTBEAT_TTL_MS = 6_000;

const WORKER_PREFIX = "esi3d:worker:";
const PRODUCER_PREFIX = "esi3d:producer:";

const HeartbeatSchema = z
  .object({ role: z.enum([...WORKER_ROLES, "producer"]), version: z.string(), host: z.string(), pid: z.number().int(), processed: z.number().int().min(0) })
  .strict();
export type Heartbeat = z.infer<typeof HeartbeatSchema>;

/** Starts beating; `processed` is read at each beat. Returns the stop function (which deletes the key). */
export function startHeartbeat(redis: Redis, kind: "worker" | "producer", beat: () => Omit<Heartbeat, "host" | "pid">): () => Promise<void> {
  const key = `${kind === "worker" ? WORKER_PREFIX : PRODUCER_PREFIX}${hostname()}:${process.pid}`;
  const write = () => redis.set(key, JSON.stringify({ ...beat(), host: hostname(), pid: process.pid }), "PX", HEARTBEAT_TTL_MS).catch(() => undefined);
  void write();
  const timer = setInterval(write, HEARTBEAT_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await redis.del(key).catch(() => undefined);
  };
}

async function read(redis: Redis, prefix: string): Promise<Heartbeat[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== "0");
  if (keys.length === 0) return [];
  const values = await redis.mget(...keys);
  return values.flatMap((v) => {
    const r = v ? HeartbeatSchema.safeParse(JSON.parse(v)) : null;
    return r?.success ? [r.data] : [];
  });
}

export const liveWorkers = (redis: Redis) => read(redis, WORKER_PREFIX);
export const liveProducers = (redis: Redis) => read(redis, PRODUCER_PREFIX);

/** Live workers per role, e.g. {cpu: 2, llm: 1}. */
export function workersByRole(beats: Heartbeat[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const b of beats) out[b.role] = (out[b.role] ?? 0) + 1;
  return out;
}
