/**
 * The Redis of a queue: connects, and checks before any work what would break a run later, each as an
 * input error naming the option: the server is reachable, keeps every key (maxmemory-policy noeviction,
 * BullMQ's requirement: docs.bullmq.io/guide/going-to-production), and is new enough for BullMQ.
 */
import { Redis } from "ioredis";
import { InputError } from "../../core/errors.js";

/** How long to try to reach Redis before giving up (ms): a live Redis answers in milliseconds. */
const CONNECT_TIMEOUT_MS = 3_000;
/** BullMQ 6 needs Redis >= 6.2 (docs.bullmq.io/guide/going-to-production). */
const MIN_REDIS = [6, 2] as const;

/** A connection for BullMQ (its workers need maxRetriesPerRequest null). */
export function redisConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, lazyConnect: true, connectTimeout: CONNECT_TIMEOUT_MS });
}

/** Connects and checks the server; `flag` names the option in every message. */
export async function openQueueRedis(url: string, flag = "--queue"): Promise<Redis> {
  const r = new Redis(url, { lazyConnect: true, connectTimeout: CONNECT_TIMEOUT_MS, maxRetriesPerRequest: 1, retryStrategy: () => null, enableOfflineQueue: false });
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
    if (policy !== "noeviction") throw new InputError(`${flag}: Redis at ${redactUrl(url)} has maxmemory-policy ${policy}; a queue needs noeviction (redis-cli CONFIG SET maxmemory-policy noeviction), or Redis may drop jobs`, { field: "queue" });
    const info = await r.info("server");
    const version = /redis_version:(\d+)\.(\d+)/.exec(info);
    if (version && (Number(version[1]) < MIN_REDIS[0] || (Number(version[1]) === MIN_REDIS[0] && Number(version[2]) < MIN_REDIS[1]))) throw new InputError(`${flag}: Redis at ${redactUrl(url)} is ${version[1]}.${version[2]}; BullMQ needs ${MIN_REDIS.join(".")} or later`, { field: "queue" });
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
