/**
 * `esi3d serve`: the front-end of the service. It parses the flags, applies the access rule (a token off
 * loopback, core/http/access.ts), starts the server and owns the process signals: the first SIGINT or
 * SIGTERM finishes requests and the items of running runs in flight, a second one exits at once.
 */
import type { Command } from "commander";
import { resolve } from "node:path";
import { InputError } from "../../../core/errors.js";
import { checkOutputs } from "../../../core/outputPaths.js";
import { intOption, parseFlagValue } from "../../../core/flags.js";
import { QueueUrlSchema } from "../../eval/queue/options.js";
import { MIN_TOKEN_LENGTH, serverToken } from "../../../core/http/access.js";
import type { RunningServer } from "./app.js";
import { DEFAULT_CPU_JOBS, DEFAULT_CPU_QUEUE, DEFAULT_DATA_DIR, DEFAULT_HOST, DEFAULT_PORT, SHUTDOWN_GRACE_MS, SHUTDOWN_LIMIT_MS } from "./limits.js";

interface ServeFlags {
  host: string;
  port: number;
  token?: string;
  data: string;
  cpuJobs: number;
  queue: number;
  queueUrl?: string;
}

/**
 * Resolves when the server has closed after SIGINT or SIGTERM, or at SHUTDOWN_LIMIT_MS whatever still runs (runs
 * then recorded as interrupted); a second signal exits the process at once.
 */
function closeOnSignal(server: RunningServer): Promise<void> {
  return new Promise<void>((done) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        process.stderr.write(`esi3d serve: ${signal} again: exiting now\n`);
        server.abandon();
        process.exit(1);
      }
      stopping = true;
      process.stderr.write(
        `esi3d serve: ${signal}: finishing requests and the items of running runs in flight (up to ${SHUTDOWN_GRACE_MS / 1000} s), then exiting within ${SHUTDOWN_LIMIT_MS / 1000} s (again to exit now)\n`,
      );
      setTimeout(() => {
        process.stderr.write(
          `esi3d serve: still closing after ${SHUTDOWN_LIMIT_MS / 1000} s: exiting; runs still going are recorded as interrupted (POST /v1/runs/{id}/resume completes them)\n`,
        );
        server.abandon();
        done();
      }, SHUTDOWN_LIMIT_MS).unref();
      server.close().then(done, (e) => {
        process.stderr.write(`esi3d serve: while closing: ${(e as Error).message}\n`);
        done();
      });
    };
    process.on("SIGINT", () => stop("SIGINT"));
    process.on("SIGTERM", () => stop("SIGTERM"));
  });
}

export function registerServe(program: Command): void {
  program
    .command("serve")
    .description("run the HTTP service: capture sessions (the simulator protocol, docs/protocol.md), graphs, answers and runs; OpenAPI at /openapi.json")
    .option("--host <host>", "address to listen on; anything but loopback requires --token", DEFAULT_HOST)
    .option("--port <port>", "TCP port (0 picks a free one; the first line printed says which)", intOption("--port", 0, 65535), DEFAULT_PORT)
    .option("--token <token>", `bearer token required on every endpoint but /healthz (at least ${MIN_TOKEN_LENGTH} characters); default $ESI3D_TOKEN`)
    .option("--data <dir>", "data directory: bundles, graphs, runs and open sessions, kept across restarts", DEFAULT_DATA_DIR)
    .option(
      "--cpu-jobs <n>",
      "CPU jobs (graphs, bundle finishing, offline answers) at once, each in a worker thread",
      intOption("--cpu-jobs", 1, 256),
      DEFAULT_CPU_JOBS,
    )
    .option("--queue <n>", "CPU jobs allowed to wait; more are answered 503 with Retry-After", intOption("--queue", 0, 100000), DEFAULT_CPU_QUEUE)
    .option(
      "--queue-url <url>",
      "the Redis of distributed runs (esi3d run --queue) to report in /metrics: queue depth per state, live workers per role",
      (v: string) => parseFlagValue(QueueUrlSchema, v, "--queue-url"),
    )
    .action(async (opts: ServeFlags) => {
      checkOutputs([], [{ what: "--data", path: opts.data }]);
      const token = serverToken(opts.host, opts.token);
      // the server's packages (fastify, the queue's for /metrics) load only when it starts, not for `esi3d --help`
      const { startServer } = await import("./app.js");
      const server = await startServer({
        host: opts.host,
        port: opts.port,
        token,
        dataDir: resolve(opts.data),
        cpuJobs: opts.cpuJobs,
        cpuQueue: opts.queue,
        queueUrl: opts.queueUrl ?? null,
      }).catch((e: NodeJS.ErrnoException) => {
        if (e?.code === "EADDRINUSE") throw new InputError(`--port ${opts.port}: address ${opts.host}:${opts.port} is already in use`);
        if (e?.code === "EADDRNOTAVAIL" || e?.code === "ENOTFOUND") throw new InputError(`--host ${opts.host}: not an address of this machine`);
        throw e;
      });
      process.stdout.write(
        `esi3d serve: listening on ${server.url} (data ${resolve(opts.data)}, ${opts.cpuJobs} CPU job(s), queue ${opts.queue}, auth ${token ? "bearer token" : "none (loopback)"})\n`,
      );
      await closeOnSignal(server);
      // a run's worker threads may still be finishing an item the grace did not wait for: the run is recorded,
      // so the process ends here rather than when they do (SHUTDOWN_LIMIT_MS is the promise)
      process.exit(0);
    });
}
