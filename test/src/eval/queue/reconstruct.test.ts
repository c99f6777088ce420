/**
 * The reconstruct role on a real Redis with real worker processes: a run with the vggt source sends its
 * units to the reconstruct queue only, a `--role reconstruct` worker takes one job at a time whatever
 * --concurrency says and asks for CUDA (here it falls back to CPU and says so, once), and a reconstruct
 * worker killed -9 mid-job leaves no item lost or recorded twice: the records and summary equal the
 * in-process run's. The model is a tiny ONNX graph with VGGT's exact I/O, built at test time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import { esi3dAsync } from "../../apps/cli/helpers.js";
import { readRecords } from "../../../../src/eval/records.js";
import { startRedis, type TestRedis } from "../../../helpers/redis.js";
import { needs } from "../../../helpers/system.js";
import { expectSameRun, startWorker, stopAll, until } from "../../../helpers/queue.js";
import { writeTinyVggt } from "../../../helpers/tinyVggtOnnx.js";

function stderrOf(w: ChildProcess): () => string {
  let text = "";
  w.stderr?.on("data", (b: Buffer) => (text += b.toString()));
  return () => text;
}

const redisServer = needs("redis-server");

describe.skipIf(redisServer.skip)(redisServer.title("esi3d worker --role reconstruct"), () => {
  let redis: TestRedis;
  let dir: string;
  let local: string;
  const model = writeTinyVggt({ shape: "dynamic" });
  const LOCK_S = 1;
  const VGGT = ["--limit", "4", "--paradigm", "multi", "--source", "vggt", "--vggt-model", model, "--device", "cpu", "--concurrency", "1"];

  beforeAll(async () => {
    redis = await startRedis();
    dir = mkdtempSync(join(tmpdir(), "esi3d-queue-vggt-"));
    local = join(dir, "local");
    const r = await esi3dAsync(["run", ...VGGT, "--out", local]);
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs VGGT units one at a time on the reconstruct queue; one worker killed -9 mid-job: the same records and summary as the in-process run", async () => {
    // a lock shorter than a unit: BullMQ must renew it while VGGT runs, or every unit would stall and run twice
    const workers = [0, 1].map(() => startWorker(redis.url, ["--role", "reconstruct", "--concurrency", "4", "--lock-duration", String(LOCK_S)]));
    const logs = workers.map(stderrOf);
    try {
      const out = join(dir, "queued");
      const run = esi3dAsync(["run", ...VGGT, "--out", out, "--queue", redis.url], { timeoutMs: 240_000 });
      let mostActive = 0;
      await until(async () => {
        const n = await redis.client.llen("bull:esi3d-reconstruct:active");
        mostActive = Math.max(mostActive, n);
        return n > 0;
      }, 60_000);
      workers[0]!.kill("SIGKILL");
      // sample the active list while the survivor works: one job at a time per reconstruct worker
      const sampling = (async () => {
        while (workers[1]!.exitCode === null && !(await Promise.race([run.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 50))]))) {
          mostActive = Math.max(mostActive, await redis.client.llen("bull:esi3d-reconstruct:active"));
        }
      })();
      const r = await run;
      await sampling;
      expect(r.code, r.stderr).toBe(0);
      expect(readRecords(join(out, "items.jsonl")).duplicates).toBe(0);
      expectSameRun(out, local);
      // two workers, each at most one job (a killed worker's job stays active until its lock expires)
      expect(mostActive).toBeLessThanOrEqual(2);
      // nothing went to the cpu queue: a VGGT run's units are the reconstruct role's
      expect(await redis.client.exists("bull:esi3d-cpu:id", "bull:esi3d-cpu:wait", "bull:esi3d-cpu:completed")).toBe(0);
      // the killed worker's job stalled once and ran again; every other job kept its lock, though units outlast
      // it (the queue's event stream outlives the jobs, which the run removes when it ends)
      const events = (await redis.client.xrange("bull:esi3d-reconstruct:events", "-", "+")).map(
        ([id, f]) =>
          ({ at: Number(id.split("-")[0]), ...Object.fromEntries(f.flatMap((v, i) => (i % 2 ? [] : [[v, f[i + 1]]]))) }) as {
            at: number;
            event?: string;
            jobId?: string;
          },
      );
      const stalls = events.filter((e) => e.event === "stalled").length;
      const started = new Map<string, number>();
      const ran: number[] = [];
      for (const e of events) {
        if (e.event === "active" && e.jobId) started.set(e.jobId, e.at);
        if (e.event === "completed" && e.jobId && started.has(e.jobId)) ran.push(e.at - started.get(e.jobId)!);
      }
      const info = `${stalls} stall(s); units ran ${ran.join(", ")} ms`;
      console.log(info);
      expect(ran.length, info).toBe(4);
      expect(stalls, info).toBeLessThanOrEqual(1);
      expect(Math.max(...ran), info).toBeGreaterThan(LOCK_S * 1000);
      const survivor = logs[1]!();
      expect(survivor).toMatch(/worker: reconstruct on redis:\/\/127\.0\.0\.1:\d+, concurrency 1/);
      // the role asks ONNX Runtime for CUDA; without its provider libraries it says so once and runs on CPU
      expect(survivor.match(/CUDA execution provider unavailable[^\n]*falling back to CPU/g)?.length).toBe(1);
    } finally {
      await stopAll(workers);
    }
  }, 300_000);
});
