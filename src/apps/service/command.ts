import type { Command } from "commander";
import { isIP } from "node:net";
import { resolve } from "node:path";
import { InputError } from "../../core/errors.js";
import { intOption } from "../../core/flags.js";
import { startServer } from "./app.js";
import { DEFAULT_CPU_JOBS, DEFAULT_CPU_QUEUE, DEFAULT_DATA_DIR, DEFAULT_HOST, DEFAULT_PORT, MIN_TOKEN_LENGTH } from "./limits.js";

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (h.startsWith("::ffff:")) return h.slice(7).startsWith("127.");
  return false;
}

export function registerServe(program: Command): void {
  program
    .command("serve")
    .description("run the HTTP service: capture sessions (the simulator protocol, docs/protocol.md), graphs, answers and runs; OpenAPI at /openapi.json")
    .option("--host <host>", "address to listen on; anything but loopback requires --token", DEFAULT_HOST)
    .option("--port <port>", "TCP port (0 picks a free one; the first line printed says which)", intOption("--port", 0, 65535), DEFAULT_PORT)
    .option("--token <token>", `bearer token required on every endpoint but /healthz (at least ${MIN_TOKEN_LENGTH} characters); default $ESI3D_TOKEN`)
    .option("--data <dir>", "data directory: bundles, graphs, runs and open sessions, kept across restarts", DEFAULT_DATA_DIR)
    .option("--cpu-jobs <n>", "CPU jobs (graphs, bundle finishing, offline answers) at once, each in a worker thread", intOption("--cpu-jobs", 1, 256), DEFAULT_CPU_JOBS)
    .option("--queue <n>", "CPU jobs allowed to wait; more are answered 503 with Retry-After", intOption("--queue", 0, 100000), DEFAULT_CPU_QUEUE)
    .action(async (opts: { host: string; port: number; token?: string; data: string; cpuJobs: number; queue: number }) => {
      const token = opts.token ?? (process.env.ESI3D_TOKEN || null);
      if (token !== null && token.length < MIN_TOKEN_LENGTH) throw new InputError(`--token: at least ${MIN_TOKEN_LENGTH} characters (e.g. \`openssl rand -hex 16\`), got ${token.length}`);
      if (!isLoopback(opts.host) && token === null)
        throw new InputError(`--host ${opts.host}: binding to an address other machines can reach requires --token (or $ESI3D_TOKEN); without a token, use --host 127.0.0.1`);
      const server = await startServer({ host: opts.host, port: opts.port, token, dataDir: resolve(opts.data), cpuJobs: opts.cpuJobs, cpuQueue: opts.queue }).catch((e: NodeJS.ErrnoException) => {
        if (e?.code === "EADDRINUSE") throw new InputError(`--port ${opts.port}: address ${opts.host}:${opts.port} is already in use`);
        if (e?.code === "EADDRNOTAVAIL" || e?.code === "ENOTFOUND") throw new InputError(`--host ${opts.host}: not an address of this machine`);
        throw e;
      });
      process.stdout.write(`esi3d serve: listening on ${server.url} (data ${resolve(opts.data)}, ${opts.cpuJobs} CPU job(s), queue ${opts.queue}, auth ${token ? "bearer token" : "none (loopback)"})\n`);
      await new Promise<void>((done) => {
        let stopping = false;
        const stop = (signal: string) => {
          if (stopping) {
            process.stderr.write(`esi3d serve: ${signal} again: exiting now\n`);
            process.exit(1);
          }
          stopping = true;
          process.stderr.write(`esi3d serve: ${signal}: finishing requests and the items of running runs in flight, then exiting (again to exit now)\n`);
          server.close().then(done, (e) => {
            process.stderr.write(`esi3d serve: while closing: ${(e as Error).message}\n`);
            done();
          });
        };
        process.on("SIGINT", () => stop("SIGINT"));
        process.on("SIGTERM", () => stop("SIGTERM"));
      });
    });
}
