/**
 * `esi3d serve --queue-url`: the queue of distributed runs in /metrics, read from a real Redis with a real
 * producer (`esi3d run --queue`) and a real worker process: the depth of the cpu queue while no worker
 * runs, the live worker per role while one does, the worker gone within its heartbeat's TTL after kill -9,
 * and a bad --queue-url refused before the server starts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, REPO_ROOT } from "../../apps/cli/helpers.js";
import { http, serveExit, startServe, type Serve } from "../../apps/service/helpers.js";
import { freePort, startRedis, type TestRedis } from "../../../helpers/redis.js";
import { needs } from "../../../helpers/system.js";
import { startWorker, stopAll, until } from "../../../helpers/queue.js";

/** The value of one sample of the exposition text, or null when it is absent. */
function sample(text: string, series: string): number | null {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : null;
}

const redisServer = needs("redis-server");

describe.skipIf(redisServer.skip)(redisServer.title("esi3d serve --queue-url: the queue in /metrics"), () => {
  let redis: TestRedis;
  let serve: Serve;
  let dir: string;
  const metrics = async () => (await http("GET", `${serve.url}/metrics`)).text;

  beforeAll(async () => {
    redis = await startRedis();
    dir = mkdtempSync(join(tmpdir(), "esi3d-queue-metrics-"));
    serve = await startServe(["--queue-url", redis.url]);
  }, 60_000);
  afterAll(async () => {
    await serve?.stop();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reports queue depth while no worker runs, the live worker per role, and its drop-out after kill -9", async () => {
    const first = await metrics();
    expect(sample(first, "esi3d_queue_up")).toBe(1);
    expect(sample(first, 'esi3d_queue_workers{role="cpu"}')).toBe(0);
    expect(sample(first, 'esi3d_queue_jobs{queue="esi3d-cpu",state="waiting"}')).toBe(0);

    // a run with no worker yet: its two units wait on the cpu queue, and its collector is live
    const out = join(dir, "run");
    const producer = spawn(
      process.execPath,
      [CLI, "run", "--limit", "2", "--paradigm", "single", "--source", "gt", "--labels", "oracle", "--baseline", "none", "--out", out, "--queue", redis.url],
      { cwd: REPO_ROOT, stdio: "ignore" },
    );
    const exited = new Promise<number | null>((r) => producer.once("exit", r));
    await until(async () => sample(await metrics(), 'esi3d_queue_jobs{queue="esi3d-cpu",state="waiting"}') === 2, 60_000);
    expect(sample(await metrics(), "esi3d_queue_producers")).toBe(1);

    const worker = startWorker(redis.url, ["--role", "cpu"]);
    try {
      await until(async () => sample(await metrics(), 'esi3d_queue_workers{role="cpu"}') === 1, 30_000);
      expect(await exited).toBe(0);
      expect(sample(await metrics(), 'esi3d_queue_jobs{queue="esi3d-cpu",state="waiting"}')).toBe(0);
      // the processed count travels with the next heartbeat
      const processed = new RegExp(`esi3d_queue_worker_jobs_processed\\{host="[^"]+",pid="${worker.pid}",role="cpu",version="[^"]+"\\} 2`);
      await until(async () => processed.test(await metrics()), 10_000);
      worker.kill("SIGKILL");
      const killedAt = Date.now();
      // a heartbeat lives 6 s: a killed worker leaves the gauge within that, and a scrape or two
      await until(async () => sample(await metrics(), 'esi3d_queue_workers{role="cpu"}') === 0, 11_000);
      expect(Date.now() - killedAt).toBeLessThanOrEqual(11_000);
    } finally {
      await stopAll([worker]);
    }
  }, 180_000);

  it("Redis gone: the scrape still answers, with esi3d_queue_up 0", async () => {
    const other = await startRedis();
    const s = await startServe(["--queue-url", other.url]);
    try {
      expect(sample(await (await http("GET", `${s.url}/metrics`)).text, "esi3d_queue_up")).toBe(1);
      await other.stop();
      const r = await http("GET", `${s.url}/metrics`);
      expect(r.status).toBe(200);
      expect(sample(r.text, "esi3d_queue_up")).toBe(0);
      expect(r.text).toMatch(/esi3d_http_requests_total/);
    } finally {
      await s.stop();
    }
  }, 60_000);

  it("refuses a bad --queue-url with exit 2 before it listens, naming the option", async () => {
    const noPort = await serveExit(["--queue-url", "redis://127.0.0.1"]);
    expect(noPort.code).toBe(2);
    expect(noPort.stderr).toMatch(/--queue-url: expected redis:\/\/HOST:PORT\[\/DB\] \(the port is required\)/);
    const unreachable = await serveExit(["--queue-url", `redis://127.0.0.1:${await freePort()}`]);
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toMatch(/--queue-url: cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+/);
    const evicting = await startRedis(["--maxmemory-policy", "allkeys-lru"]);
    try {
      const r = await serveExit(["--queue-url", evicting.url]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--queue-url: .*maxmemory-policy allkeys-lru; a queue needs noeviction/);
    } finally {
      await evicting.stop();
    }
  }, 60_000);
});
