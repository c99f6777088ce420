/**
 * What the services share: the data store, the metrics, the CPU worker pool behind its admission
 * limiter, and the redaction of client-visible text. CPU jobs run in worker threads (piscina,
 * src/apps/service/serviceWorker.ts), at most `cpuJobs` at once, at most `cpuQueue` waiting; more get a 503 with a
 * Retry-After estimated per job kind (limiter.ts).
 */
import { Piscina } from "piscina";
import { redactor } from "../../../core/redact.js";
import { displayUrl } from "../../llm/redact.js";
import { HttpError } from "./errors.js";
import { CPU_JOB_TIMEOUT_MS, WORKER_IDLE_MS } from "./limits.js";
import { JobLimiter } from "./limiter.js";
import type { Metrics } from "./metrics.js";
import type { DataStore } from "./store.js";
import type { ServerJob } from "./serviceWorker.js";

/** Server places a client must not see: the data directory, OPENAI_BASE_URL, the VGGT model file. */
function clientRedactor(dataDir: string, env: NodeJS.ProcessEnv): (text: string) => string {
  const url = (v: string | undefined) => (v ? [v, v.replace(/\/+$/, ""), displayUrl(v)] : []);
  return redactor([
    [dataDir, "<data>"],
    ...url(env.OPENAI_BASE_URL).map((v) => [v, "<OPENAI_BASE_URL>"] as const),
    [env.ESI3D_VGGT_MODEL, "<ESI3D_VGGT_MODEL>"],
  ]);
}

export class ServerContext {
  readonly cpu: JobLimiter;
  /** Removes server places from text a client is sent (error messages, answer reasons, run errors). */
  readonly redact: (text: string) => string;
  private pool: Piscina | null = null;

  constructor(
    readonly store: DataStore,
    readonly metrics: Metrics,
    readonly cpuJobs: number,
    cpuQueue: number,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.cpu = new JobLimiter("CPU jobs (graphs, bundle finishing, offline answers)", cpuJobs, cpuQueue);
    this.redact = clientRedactor(store.root, env);
  }

  private getPool(): Piscina {
    // the worker file sits next to this module's file, in the tsc build (dist/src/apps/service/) and the
    // CLI bundle (dist/cli/) alike, under a name of its own (the evaluation worker is worker.js)
    this.pool ??= new Piscina({
      filename: new URL("./serviceWorker.js", import.meta.url).href,
      minThreads: this.cpuJobs,
      maxThreads: this.cpuJobs,
      idleTimeout: WORKER_IDLE_MS,
    });
    return this.pool;
  }

  /** Runs `job` in a worker under the limiter (its kind's durations estimate Retry-After); records its duration as stage `stage`. */
  async cpuJob(stage: string, job: ServerJob): Promise<unknown> {
    return this.cpu.run(job.kind, async () => {
      const t = performance.now();
      try {
        return await this.getPool().run(job, { signal: AbortSignal.timeout(CPU_JOB_TIMEOUT_MS) });
      } catch (e) {
        if ((e as Error)?.name === "AbortError" || (e as Error)?.name === "TimeoutError")
          throw new HttpError(504, "timeout", `${stage}: took longer than ${CPU_JOB_TIMEOUT_MS / 1000} s and was cancelled`);
        throw e;
      } finally {
        this.metrics.stages.observe({ stage }, (performance.now() - t) / 1000);
      }
    });
  }

  /** Starts the worker threads now, so the first request does not pay for it. */
  warm(): void {
    this.getPool();
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = null;
  }
}
