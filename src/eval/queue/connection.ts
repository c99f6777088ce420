/**
 * The Redis of a queue: connects, and checks before any work what would break a run later, each as an
 * input error naming the option: the server is reachable, keeps every key (maxmemory-policy noeviction,
 * BullMQ's requirement: docs.bullmq.io/guide/going-to-production), and is new enough for BullMQ.
 */
import { Redis } from "ioredis";
import { InputError } from "../../../core/errors.js";
import type { OutageWatch } from "./outage.js";

/** How long to try to reach Redis before giving up (ms): a live Redis answers in milliseconds. */
const CONNECT_TIMEOUT_MS = 3_000;
/** BullMQ 6 needs Redis >= 6.2 (docs.bullmq.io/guide/going-to-production). */
const MIN_REDIS = [6, 2] as const;
/** Reconnection attempts back off by this much per attempt (ms), to at most RECONNECT_MAX_DELAY_MS: ioredis' defaults. */
const RECONNECT_STEP_MS = 50;
const RECONNECT_MAX_DELAY_MS = 2_000;

/**
 * A connection that reconnects after a Redis restart (commands wait meanwhile: maxRetriesPerRequest null, as
 * BullMQ's workers need), its errors given to `watch` (src/eval/queue/outage.ts), never printed raw.
 */
export function redisConnection(url: string, watch?: OutageWatch): Redis {
  const r = new Redis(url, {
    maxRetriesPerRequest: null,
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: (times) => Math.min(times * RECONNECT_STEP_MS, RECONNECT_MAX_DELAY_MS),
  });
  if (watch) {
    watch.watch(r);
    watch.watchReady(r);
  } else r.on("error", () => {});
  return r;
}

/**
 * Connects, checks the server, and returns a connection for the process's own use (heartbeats, rate-limit
 * windows, status) that outlives a Redis restart; `flag` names the option in every message.
 */
export async function openQueueRedis(url: string, flag = "--queue", watch?: OutageWatch): Promise<Redis> {
  const checked = await checkQueueRedis(url, flag);
  checked.disconnect();
  const live = redisConnection(url, watch);
  await live.connect().catch(() => undefined); // reconnects on its own; the watch says so
  return live;
}

/** Connects once (no reconnection: a Redis that is not there fails at once) and checks the server. */
async function checkQueueRedis(url: string, flag: string): Promise<Redis> {
  const r = new Redis(url, {
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  r.on("error", () => {}); // reported by connect() below
  try {
    await r.connect();
    await r.ping();
  } catch (e) {
    r.disconnect();
    throw new InputError(`${flag}: cannot reach Redis at ${redactUrl(url)} (${(e as Error).message})`, { field: "queue" });
  }
  try {
    const policy = ((await r.config("GET", "maxmemory-policy")) as string[])[1];
    if (policy !== "noeviction")
      throw new InputError(
        `${flag}: Redis at ${redactUrl(url)} has maxmemory-policy ${policy}; a queue needs noeviction (redis-cli CONFIG SET maxmemory-policy noeviction), or Redis may drop jobs`,
        { field: "queue" },
      );
    const info = await r.info("server");
    const version = /redis_version:(\d+)\.(\d+)/.exec(info);
    if (version && (Number(version[1]) < MIN_REDIS[0] || (Number(version[1]) === MIN_REDIS[0] && Number(version[2]) < MIN_REDIS[1])))
      throw new InputError(`${flag}: Redis at ${redactUrl(url)} is ${version[1]}.${version[2]}; BullMQ needs ${MIN_REDIS.join(".")} or later`, {
        field: "queue",
      });
  } catch (e) {
    r.disconnect();
    throw e;
  }
  return r;
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
}
