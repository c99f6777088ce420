/**
 * Riding out a Redis restart. Every connection of a producer or a worker reconnects on its own (ioredis); this
 * watches them: the first connection error of an outage is said in one line, its end in another, and an outage
 * longer than REDIS_OUTAGE_LIMIT_MS fails the process with one line. A 5-second restart used to kill the
 * producer with 14-24 raw ECONNREFUSED stack traces and no summary.
 */
import type { Redis } from "ioredis";

/**
 * How long a producer or worker waits for Redis to come back (ms): a restart of a server with its data on disk
 * takes seconds; a minute covers one that loads a large snapshot, and still ends a run whose Redis is gone.
 */
export const REDIS_OUTAGE_LIMIT_MS = 60_000;

/** Something that reports connection trouble: an ioredis client, a BullMQ Queue, Worker or FlowProducer. */
interface Emitter {
  on(event: "error", listener: (e: Error) => void): unknown;
}

/** `p`, or nothing once `ms` have passed: a close that waits on a Redis that is gone must not hold the process. */
export function within(ms: number, p: Promise<unknown>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise((r) => (timer = setTimeout(r, ms)));
  return Promise.race([p.catch(() => undefined), timeout]).finally(() => clearTimeout(timer));
}

class RedisOutage extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RedisOutage";
  }
}

export interface OutageWatch {
  /** Routes `emitter`'s errors here (a connection error starts an outage; others are logged once each). */
  watch(emitter: Emitter): void;
  /** Marks the end of an outage: a connection is ready again. */
  watchReady(client: Redis): void;
  /** Rejects with RedisOutage once an outage has lasted `limitMs`; never resolves. */
  readonly failed: Promise<never>;
  /** Runs `work`, failing as soon as `failed` does. */
  race<T>(work: Promise<T>): Promise<T>;
  close(): void;
}

/** Errors of a lost connection (as ioredis and BullMQ report them), not of a command. */
const CONNECTION_ERROR =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|Connection is closed|connect ETIMEDOUT|Socket closed unexpectedly/i;

/**
 * One watch per process and Redis. `who` names the process in its lines ("queue", "worker"), `where` the
 * Redis (its URL without the password).
 */
export function watchOutages(who: string, where: string, log: (line: string) => void, limitMs = REDIS_OUTAGE_LIMIT_MS): OutageWatch {
  let downSince: number | null = null;
  let timer: NodeJS.Timeout | null = null;
  let fail: (e: Error) => void = () => {};
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => {}); // a rejection nobody races is not an unhandled one
  const seen = new Set<string>();
  const down = (e: Error) => {
    if (downSince !== null) return;
    downSince = Date.now();
    log(`${who}: Redis at ${where} unreachable (${e.message}); waiting up to ${limitMs / 1000} s for it to come back`);
    timer = setTimeout(
      () =>
        fail(
          new RedisOutage(
            `${who}: Redis at ${where} unreachable for ${limitMs / 1000} s; giving up (what finished is kept: rerun with --resume once Redis is back)`,
          ),
        ),
      limitMs,
    );
    timer.unref();
  };
  const up = () => {
    if (downSince === null) return;
    log(`${who}: Redis at ${where} is back after ${((Date.now() - downSince) / 1000).toFixed(1)} s; carrying on`);
    downSince = null;
    if (timer) clearTimeout(timer);
    timer = null;
  };
  return {
    watch(emitter) {
      emitter.on("error", (e: Error) => {
        if (CONNECTION_ERROR.test(e?.message ?? "")) return down(e);
        // any other error once: a loop of the same error must not flood the log
        if (!seen.has(e?.message)) {
          seen.add(e?.message);
          log(`${who}: ${e?.message ?? String(e)}`);
        }
      });
    },
    watchReady(client) {
      client.on("ready", up);
    },
    failed,
    race: (work) => Promise.race([work, failed]),
    close() {
      if (timer) clearTimeout(timer);
    },
  };
}
