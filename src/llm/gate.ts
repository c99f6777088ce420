/**
 * A gate every model request passes before it is sent: the requests-and-tokens limits of a provider and
 * model, per fixed window, and the pause a 429 with Retry-After asks for. The window state lives in a
 * WindowStore: this process's memory for a local run, Redis for a queue run (src/eval/queue/limiter.ts),
 * so one limit holds across every worker of a run.
 */
import { sleep } from "./retry.js";

export interface RateLimits {
  /** requests started per window (null: unlimited) */
  requests: number | null;
  /** prompt + completion tokens per window, as the replies report them (null: unlimited) */
  tokens: number | null;
  windowMs: number;
}

/**
 * The shared state of the windows: a sliding log of request starts (no window of `windowMs`, wherever it
 * begins, holds more than the limit: a fixed window would let twice the limit through across a boundary),
 * token counters that expire with their window, and one pause deadline.
 */
export interface WindowStore {
  /** records a request start in log `key` if fewer than `limit` started in the last `windowMs`: 0; else the ms until one leaves the log */
  admit(key: string, limit: number, windowMs: number): Promise<number>;
  /** adds `by` to counter `key` (expiring after `ttlMs`) and returns the new value */
  add(key: string, by: number, ttlMs: number): Promise<number>;
  get(key: string): Promise<number>;
  /** sets the pause deadline (epoch ms) of `key` unless a later one is set */
  pauseUntil(key: string, untilMs: number): Promise<void>;
  pausedUntil(key: string): Promise<number>;
}

export interface RequestGate {
  /** waits until a request may start (not paused, window not full) and counts it */
  acquire(signal?: AbortSignal): Promise<void>;
  /** counts the tokens a reply used */
  settle(tokens: number): Promise<void>;
  /** the provider asked to wait `ms` (429 + Retry-After): every request of every process waits */
  pause(ms: number): Promise<void>;
}

/** Longest single wait between two looks at the window state (ms): short, so a lifted pause is seen soon. */
const MAX_POLL_MS = 250;

export function createRequestGate(id: string, limits: RateLimits, store: WindowStore, now: () => number = Date.now): RequestGate {
  const prefix = `esi3d:rate:${id}`;
  const pauseKey = `${prefix}:pause`;
  const windowOf = (t: number) => Math.floor(t / limits.windowMs);
  const ttl = limits.windowMs * 2;
  return {
    async acquire(signal) {
      for (;;) {
        const t = now();
        const paused = await store.pausedUntil(pauseKey);
        if (paused > t) {
          await sleep(Math.min(paused - t, MAX_POLL_MS), signal);
          continue;
        }
        const w = windowOf(t);
        const untilNext = (w + 1) * limits.windowMs - t;
        if (limits.tokens !== null && (await store.get(`${prefix}:tok:${w}`)) >= limits.tokens) {
          await sleep(Math.min(untilNext, MAX_POLL_MS), signal);
          continue;
        }
        if (limits.requests !== null) {
          const wait = await store.admit(`${prefix}:req`, limits.requests, limits.windowMs);
          if (wait > 0) {
            await sleep(Math.min(wait, MAX_POLL_MS), signal);
            continue;
          }
        }
        return;
      }
    },
    async settle(tokens) {
      if (limits.tokens !== null && tokens > 0) await store.add(`${prefix}:tok:${windowOf(now())}`, tokens, ttl);
    },
    pause: (ms) => store.pauseUntil(pauseKey, now() + ms),
  };
}

/** The window state of one process. */
export function memoryWindowStore(now: () => number = Date.now): WindowStore {
  const counters = new Map<string, { value: number; expires: number }>();
  const logs = new Map<string, number[]>();
  const pauses = new Map<string, number>();
  const live = (key: string) => {
    const c = counters.get(key);
    if (c && c.expires <= now()) counters.delete(key);
    return counters.get(key);
  };
  return {
    admit: (key, limit, windowMs) => {
      const t = now();
      const log = (logs.get(key) ?? []).filter((x) => x > t - windowMs);
      logs.set(key, log);
      if (log.length < limit) {
        log.push(t);
        return Promise.resolve(0);
      }
      return Promise.resolve(Math.max(1, log[0]! + windowMs - t));
    },
    add: (key, by, ttlMs) => {
      const c = live(key) ?? { value: 0, expires: now() + ttlMs };
      c.value += by;
      counters.set(key, c);
      return Promise.resolve(c.value);
    },
    get: (key) => Promise.resolve(live(key)?.value ?? 0),
    pauseUntil: (key, until) => {
      pauses.set(key, Math.max(pauses.get(key) ?? 0, until));
      return Promise.resolve();
    },
    pausedUntil: (key) => Promise.resolve(pauses.get(key) ?? 0),
  };
}

/** The limits as the report prints them. */
export function describeLimits(id: string, l: RateLimits): string {
  const parts = [l.requests !== null ? `${l.requests} requests` : null, l.tokens !== null ? `${l.tokens} tokens` : null].filter(Boolean);
  return parts.length ? `${id}: ${parts.join(" and ")} per ${l.windowMs / 1000} s` : `${id}: unlimited`;
}
