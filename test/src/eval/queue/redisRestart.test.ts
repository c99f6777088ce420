/**
 * A Redis restart in the middle of a queue run (issue 43), on a real Redis (Debian's redis-server,
 * its data kept on disk across the restart) with a real worker process: the producer and the worker each say
 * once that Redis went away and once that it came back, print no stack trace, and the run completes with every
 * item recorded once. A Redis gone for longer than --redis-wait ends both with one line each; --resume then
 * completes the run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { esi3dAsync } from "../../apps/cli/helpers.js";
import { startRedis, type TestRedis } from "../../../helpers/redis.js";
import { needs } from "../../../helpers/system.js";
import { items, startWorker, stopAll, until } from "../../../helpers/queue.js";

const RUN = ["--limit", "2", "--paradigm", "single", "--source", "gt", "--concurrency", "1"];
/** Items of RUN: per task the gt arm with oracle and appearance labels, the 2D and the shortcut baselines. */
const RUN_ITEMS = 2 * 4;
const STACK = /\n\s+at \S+ \(|\n\s+at node:|Unhandled error event/;
/** How long Redis stays away in the restart trial (ms): the audit's 5 s restart, shortened. */
const RESTART_GAP_MS = 3_000;

function stderrOf(p: ChildProcess): () => string {
  let text = "";
  p.stderr?.on("data", (d) => (text += d));
  return () => text;
}

const count = (text: string, re: RegExp) => text.split("\n").filter((l) => re.test(l)).length;

/** Stops Redis as a restart does: SHUTDOWN (SAVE keeps the queue on disk, NOSAVE drops it). */
async function shutdown(r: TestRedis, how: "SAVE" | "NOSAVE"): Promise<void> {
  await r.client.call("SHUTDOWN", how).catch(() => undefined);
  await r.stop();
}

const redisServer = needs("redis-server");

describe.skipIf(redisServer.skip)(redisServer.title("a Redis restart during a queue run"), () => {
  let dir: string;
  const workers: ChildProcess[] = [];
  let redis: TestRedis | null = null;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "esi3d-redis-restart-"));
  });
  afterAll(async () => {
    await stopAll(workers);
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the producer and the worker ride it out: one line when it goes, one when it is back, no stack trace, every item once", async () => {
    const data = join(dir, "redis-a");
    mkdirSync(data);
    redis = await startRedis(undefined, { dir: data });
    const port = redis.port,
      url = redis.url;
    const worker = startWorker(url);
    workers.push(worker);
    const workerErr = stderrOf(worker);
    const out = join(dir, "run-a");
    const run = esi3dAsync(["run", ...RUN, "--out", out, "--queue", url], { timeoutMs: 240_000 });
    // Redis goes away while the worker holds a job and the producer waits for it
    await until(async () => (await redis!.client.llen("bull:esi3d-cpu:active")) > 0, 60_000);
    await shutdown(redis, "SAVE");
    await new Promise((r) => setTimeout(r, RESTART_GAP_MS));
    redis = await startRedis(undefined, { port, dir: data });
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(count(r.stderr, /^queue: Redis at redis:\/\/127\.0\.0\.1:\d+ unreachable \(.*\); waiting up to 60 s for it to come back$/), r.stderr).toBe(1);
    expect(count(r.stderr, /^queue: Redis at .* is back after \d+\.\d s; carrying on$/), r.stderr).toBe(1);
    expect(r.stderr).not.toMatch(STACK);
    expect(items(out).size).toBe(RUN_ITEMS);
    // the worker stayed up through it, and said so in two lines
    await until(() => /worker: Redis at .* is back after/.test(workerErr()), 30_000);
    expect(worker.exitCode, workerErr()).toBeNull();
    expect(count(workerErr(), /^worker: Redis at .* unreachable/), workerErr()).toBe(1);
    expect(count(workerErr(), /^worker: Redis at .* is back after/), workerErr()).toBe(1);
    expect(workerErr()).not.toMatch(STACK);
    await stopAll(workers.splice(0));
    await redis.stop();
    redis = null;
  }, 300_000);

  it("Redis gone for longer than --redis-wait: the producer and the worker stop with one line each; --resume completes the run", async () => {
    const data = join(dir, "redis-b");
    mkdirSync(data);
    redis = await startRedis(undefined, { dir: data });
    const port = redis.port,
      url = redis.url;
    const worker = startWorker(url, ["--redis-wait", "3"]);
    workers.push(worker);
    const workerErr = stderrOf(worker);
    const out = join(dir, "run-b");
    const run = esi3dAsync(["run", ...RUN, "--out", out, "--queue", url, "--redis-wait", "3"], { timeoutMs: 240_000 });
    await until(async () => (await redis!.client.llen("bull:esi3d-cpu:active")) > 0, 60_000);
    await shutdown(redis, "NOSAVE");
    const r = await run;
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /esi3d: queue: Redis at redis:\/\/127\.0\.0\.1:\d+ unreachable for 3 s; giving up \(what finished is kept: rerun with --resume once Redis is back\)/,
    );
    expect(r.stderr).not.toMatch(STACK);
    await until(() => worker.exitCode !== null, 30_000);
    expect(worker.exitCode).toBe(1);
    expect(workerErr()).toMatch(/esi3d: worker: Redis at .* unreachable for 3 s; giving up/);
    expect(workerErr()).not.toMatch(STACK);
    // Redis back (empty): the run's jobs are enqueued again, and what finished before is not redone
    const done = items(out).size;
    redis = await startRedis(undefined, { port, dir: data });
    const again = startWorker(url);
    workers.push(again);
    const resumed = await esi3dAsync(["run", "--resume", "--out", out, "--queue", url], { timeoutMs: 240_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`\\(${done} already done\\)`));
    expect(items(out).size).toBe(RUN_ITEMS);
  }, 300_000);
});
