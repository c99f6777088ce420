/**
 * Admission control for bounded work: at most `concurrency` jobs run, at most `queue` wait; any more are
 * refused at once with a 503 and a Retry-After estimated from recent job durations. Refusing early keeps
 * the server answering (and its memory flat) however many requests arrive.
 */
import { busy } from "./errors.js";
import { MAX_RETRY_AFTER_S, MIN_RETRY_AFTER_S } from "./limits.js";

/** Weight of the newest duration in the moving average behind Retry-After. */
const DURATION_EMA_WEIGHT = 0.2;
/** Assumed job duration before any job finished (s): a scene graph takes about that long here. */
const INITIAL_JOB_SECONDS = 2;

export class JobLimiter {
  running = 0;
  private waiters: Array<() => void> = [];
  rejected = 0;
  private avgSeconds = INITIAL_JOB_SECONDS;

  constructor(
    readonly name: string,
    readonly concurrency: number,
    readonly queue: number,
  ) {}

  get queued(): number {
    return this.waiters.length;
  }

  /** Seconds until a slot is likely free for one more job. */
  retryAfterSeconds(): number {
    const ahead = this.queued + 1;
    const s = Math.ceil((this.avgSeconds * ahead) / this.concurrency);
    return Math.min(MAX_RETRY_AFTER_S, Math.max(MIN_RETRY_AFTER_S, s));
  }

  /** Runs `fn` when a slot is free; throws a 503 HttpError when running and waiting are both full. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiters.length >= this.queue) {
        this.rejected++;
        throw busy(this.name, this.retryAfterSeconds());
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    } else this.running++;
    const t = performance.now();
    try {
      return await fn();
    } finally {
      const s = (performance.now() - t) / 1000;
      this.avgSeconds = (1 - DURATION_EMA_WEIGHT) * this.avgSeconds + DURATION_EMA_WEIGHT * s;
      const next = this.waiters.shift();
      // hand the slot straight to the next waiter (running stays the same), or free it
      if (next) next();
      else this.running--;
    }
  }
}
