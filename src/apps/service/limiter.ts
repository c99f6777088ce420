/**
 * Admission control for bounded work: at most `concurrency` jobs run, at most `queue` wait; any more are
 * refused at once with a 503 and a Retry-After. Refusing early keeps the server answering (and its memory
 * flat) however many requests arrive.
 *
 * Retry-After is the time the work already admitted needs to drain, estimated per job kind: a
 * moving average of durations for each kind (graph builds take seconds, symbolic answers milliseconds), so
 * many quick jobs do not make a refused graph build retry long before the builds ahead of it are done.
 */
import { busy } from "./errors.js";
import { MAX_RETRY_AFTER_S, MIN_RETRY_AFTER_S } from "./limits.js";

/** Weight of the newest duration in each kind's moving average. */
const DURATION_EMA_WEIGHT = 0.2;
/** Assumed duration of a kind no job of which has finished yet (s): a scene graph takes about that long here. */
const INITIAL_JOB_SECONDS = 2;

interface Running {
  kind: string;
  startedMs: number;
}

export class JobLimiter {
  private readonly active = new Set<Running>();
  /** Slots in use: a finishing job hands its slot straight to the next waiter, so this only drops when none waits. */
  private taken = 0;
  private waiters: Array<{ kind: string; start: () => void }> = [];
  private readonly avgSeconds = new Map<string, number>();
  rejected = 0;

  constructor(
    readonly name: string,
    readonly concurrency: number,
    readonly queue: number,
  ) {}

  get running(): number {
    return this.taken;
  }

  get queued(): number {
    return this.waiters.length;
  }

  /** The moving average of `kind`'s durations (s), or the initial assumption. */
  averageSeconds(kind: string): number {
    return this.avgSeconds.get(kind) ?? INITIAL_JOB_SECONDS;
  }

  /**
   * Seconds until the work admitted now has likely drained: what the running jobs have left by their
   * kind's average, plus the queued jobs' averages, shared by the slots.
   */
  retryAfterSeconds(nowMs = performance.now()): number {
    let work = 0;
    for (const r of this.active) work += Math.max(0, this.averageSeconds(r.kind) - (nowMs - r.startedMs) / 1000);
    for (const w of this.waiters) work += this.averageSeconds(w.kind);
    const s = Math.ceil(work / this.concurrency);
    return Math.min(MAX_RETRY_AFTER_S, Math.max(MIN_RETRY_AFTER_S, s));
  }

  /** Runs `fn` (a job of `kind`) when a slot is free; throws a 503 HttpError when running and waiting are both full. */
  async run<T>(kind: string, fn: () => Promise<T>): Promise<T> {
    if (this.taken >= this.concurrency) {
      if (this.waiters.length >= this.queue) {
        this.rejected++;
        throw busy(this.name, this.retryAfterSeconds());
      }
      await new Promise<void>((start) => this.waiters.push({ kind, start }));
    } else this.taken++;
    const job: Running = { kind, startedMs: performance.now() };
    this.active.add(job);
    try {
      return await fn();
    } finally {
      this.active.delete(job);
      this.record(kind, (performance.now() - job.startedMs) / 1000);
      // hand the slot straight to the next waiter (taken stays the same), or free it
      const next = this.waiters.shift();
      if (next) next.start();
      else this.taken--;
    }
  }

  private record(kind: string, seconds: number): void {
    const prev = this.avgSeconds.get(kind);
    this.avgSeconds.set(kind, prev === undefined ? seconds : (1 - DURATION_EMA_WEIGHT) * prev + DURATION_EMA_WEIGHT * seconds);
  }
}
