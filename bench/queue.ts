/**
 * Queue throughput (issue 17): items/s of an LLM-bound run with 1, 2 and 4 real `esi3d worker` processes on
 * Debian's redis-server, against the in-process pool with one worker, all calling one loopback model
 * server that answers every request after a fixed latency. Each configuration runs the same tasks; the
 * rate is measured between the first and the last record the collector writes, so process start-up (the
 * same fixed cost in every configuration) is not in it.
 *
 *   npm run bench -- queue
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createNetServer } from "node:net";
import { join } from "node:path";
import { CLI_MAIN as CLI, type BenchContext } from "./context.js";

const REDIS_SERVER = "/usr/bin/redis-server";
/**
 * The model server's latency per request (ms): a hosted model's typical 1-3 s. Long enough that the
 * graphs (about 0.3 s of CPU per unit here) never keep 4 workers waiting on 2 cores: the run is LLM-bound.
 */
const MODEL_LATENCY_MS = 1500;
/** Tasks of the run: physical contact (yes/no, so the fixed reply is always a valid answer and no item is re-prompted). */
const TASKS = 16;
/** Items per task: the GT-3D arm and the 2D baseline, each one model call. */
const ITEMS_PER_TASK = 2;
const WORKER_COUNTS = [1, 2, 4];
/** Goals (issue 17): within 15 % of linear scaling up to 4 workers, at most 5 % slower than the in-process pool with 1 worker. */
const LINEAR_TOLERANCE = 0.15;
const OVERHEAD_TOLERANCE = 0.05;
/** How often the bench counts records (ms). */
const POLL_MS = 50;

const RUN_ARGS = [
  "--subcategories",
  "physical_contact",
  "--per-subcategory",
  String(TASKS),
  "--paradigm",
  "single",
  "--source",
  "gt",
  "--labels",
  "oracle",
  "--baseline",
  "2d",
  "--reasoner",
  "openai:bench-model",
  "--no-cache",
  "--max-connections",
  "1",
  "--concurrency",
  "1",
];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A Chat Completions server answering "yes" to everything after MODEL_LATENCY_MS. */
async function startModel(): Promise<{ url: string; server: Server; requests: () => number }> {
  let requests = 0;
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on("end", () => {
      requests++;
      setTimeout(() => {
        const body = JSON.stringify({
          id: "bench",
          object: "chat.completion",
          created: 1,
          model: "bench-model",
          choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify({ answer: "yes", confidence: 0.5 }) }, finish_reason: "stop" }],
          usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
        });
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
      }, MODEL_LATENCY_MS);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`, server, requests: () => requests };
}

async function startRedis(): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const proc = spawn(REDIS_SERVER, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction"], {
    stdio: "ignore",
  });
  // redis-server listens within milliseconds; probe until it does
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((r) => {
      const s = createNetServer();
      s.once("error", () => r(true));
      s.listen(port, "127.0.0.1", () => s.close(() => r(false)));
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `redis://127.0.0.1:${port}`, proc };
}

const lines = (f: string) => (existsSync(f) ? readFileSync(f, "utf8").split("\n").filter(Boolean).length : 0);

/** Runs `esi3d run` and returns its steady rate: items recorded after the first, per second between the first and the last. */
async function timedRun(args: string[], out: string, modelUrl: string): Promise<{ itemsPerS: number; items: number; wallS: number }> {
  const t0 = performance.now();
  const proc = spawn(process.execPath, [CLI, "run", ...RUN_ARGS, "--base-url", modelUrl, "--out", out, ...args], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, OPENAI_API_KEY: "sk-bench" },
  });
  const exited = new Promise<number | null>((r) => proc.once("exit", r));
  const file = join(out, "items.jsonl");
  let first: { t: number; n: number } | null = null;
  let last = { t: 0, n: 0 };
  let done = false;
  void exited.then(() => (done = true));
  while (!done) {
    const n = lines(file);
    const t = performance.now();
    if (n > 0 && !first) first = { t, n };
    if (n > last.n) last = { t, n };
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  const code = await exited;
  if (code !== 0) throw new Error(`esi3d run ${args.join(" ")} exited with ${code}`);
  const n = lines(file);
  if (n !== TASKS * ITEMS_PER_TASK) throw new Error(`expected ${TASKS * ITEMS_PER_TASK} records, got ${n}`);
  if (!first || last.t <= first.t) throw new Error("the run recorded everything at once: too few items to measure a rate");
  return { itemsPerS: (last.n - first.n) / ((last.t - first.t) / 1000), items: n, wallS: (performance.now() - t0) / 1000 };
}

export default async function benchQueue(ctx: BenchContext): Promise<void> {
  if (!existsSync(REDIS_SERVER)) {
    console.log(`  skipped: ${REDIS_SERVER} is not installed (apt-get install redis-server)`);
    return;
  }
  const model = await startModel();
  const redis = await startRedis();
  const workers: ChildProcess[] = [];
  const stopWorkers = async () => {
    for (const w of workers) w.kill("SIGTERM");
    await Promise.all(workers.map((w) => (w.exitCode !== null ? null : new Promise((r) => w.once("exit", r)))));
    workers.length = 0;
  };
  try {
    console.log(`  ${TASKS} tasks x ${ITEMS_PER_TASK} model calls, model latency ${MODEL_LATENCY_MS} ms, 1 connection and 1 job at a time per worker`);
    const local = await timedRun([], join(ctx.workDir, "queue-local"), model.url);
    console.log(`  in-process pool, 1 worker: ${local.itemsPerS.toFixed(3)} items/s (${local.items} items, ${local.wallS.toFixed(1)} s wall)`);
    const rates = new Map<number, number>();
    for (const n of WORKER_COUNTS) {
      for (let i = 0; i < n; i++)
        workers.push(
          spawn(process.execPath, [CLI, "worker", "--queue", redis.url, "--role", "all", "--concurrency", "1"], {
            stdio: "ignore",
            env: { ...process.env, OPENAI_API_KEY: "sk-bench" },
          }),
        );
      const r = await timedRun(["--queue", redis.url], join(ctx.workDir, `queue-${n}`), model.url);
      rates.set(n, r.itemsPerS);
      console.log(
        `  queue, ${n} worker(s): ${r.itemsPerS.toFixed(3)} items/s (${((r.itemsPerS / rates.get(1)! / n) * 100).toFixed(0)} % of linear; ${r.items} items, ${r.wallS.toFixed(1)} s wall)`,
      );
      await stopWorkers();
    }
    const one = rates.get(1)!;
    const worst = Math.min(...WORKER_COUNTS.map((n) => rates.get(n)! / (one * n)));
    ctx.goal(
      "queue scaling, 1-4 workers (LLM-bound)",
      `${WORKER_COUNTS.map((n) => `${n}: ${rates.get(n)!.toFixed(2)}`).join(", ")} items/s; worst ${(worst * 100).toFixed(0)} % of linear`,
      `>= ${((1 - LINEAR_TOLERANCE) * 100).toFixed(0)} % of linear`,
      worst >= 1 - LINEAR_TOLERANCE,
    );
    const overhead = local.itemsPerS / one - 1;
    ctx.goal(
      "queue overhead, 1 worker vs the in-process pool",
      `${one.toFixed(3)} vs ${local.itemsPerS.toFixed(3)} items/s (${overhead >= 0 ? `${(overhead * 100).toFixed(1)} % slower` : `${(-overhead * 100).toFixed(1)} % faster`})`,
      `<= ${(OVERHEAD_TOLERANCE * 100).toFixed(0)} % slower`,
      overhead <= OVERHEAD_TOLERANCE,
    );
    console.log(`  model requests: ${model.requests()}`);
  } finally {
    await stopWorkers();
    redis.proc.kill("SIGTERM");
    await new Promise((r) => redis.proc.once("exit", r));
    await new Promise((r) => model.server.close(r));
    for (const n of ["local", ...WORKER_COUNTS]) rmSync(join(ctx.workDir, `queue-${n}`), { recursive: true, force: true });
  }
}
