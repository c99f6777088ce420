/**
 * DELETE /v1/runs/:id and a bounded shutdown (issue 43), over real HTTP to the built CLI's
 * `esi3d serve`: a cancelled run stops starting items, keeps every finished one (its items and summary
 * readable), refuses a second cancel, and resumes to completion; a SIGTERM during a run the size limit still
 * allows ends the process within the stated limit, with the run recorded as interrupted and resumable after a
 * restart on the same data.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SHUTDOWN_LIMIT_MS } from "../../../../src/apps/service/limits.js";
import { http, poll, startServe } from "./helpers.js";

/** Eight tasks of one paradigm on one thread (two units in flight at a time): a cancel after the first leaves some never started. */
const SMALL_RUN = { limit: 8, paradigms: ["single"], sources: ["gt"], labels: ["oracle"], concurrency: 1 };
/** Beyond the limit a SIGTERM must end the process within (start-up and a busy machine's slack). */
const EXIT_SLACK_MS = 10_000;

describe("esi3d serve: cancelling a run, and SIGTERM during one", () => {
  it("DELETE /v1/runs/:id stops a run, keeps its finished items, refuses a second cancel; resume completes it", async () => {
    const s = await startServe(["--cpu-jobs", "1"]);
    try {
      const start = await http("POST", `${s.url}/v1/runs`, SMALL_RUN);
      expect(start.status, start.text).toBe(202);
      const id = start.body.id as string;
      await poll(
        () => http("GET", `${s.url}/v1/runs/${id}`),
        (r) => r.body.progress.done >= 1,
        120_000,
        100,
      );
      const del = await http("DELETE", `${s.url}/v1/runs/${id}`);
      expect(del.status, del.text).toBe(202);
      const stopped = await poll(
        () => http("GET", `${s.url}/v1/runs/${id}`),
        (r) => r.body.status !== "running",
        120_000,
        100,
      );
      expect(stopped.body.status).toBe("cancelled");
      expect(stopped.body.error).toMatch(/cancelled \(DELETE \/v1\/runs\/\{id\}\); the finished items are kept/);
      const done = stopped.body.progress.done as number;
      expect(done).toBeGreaterThanOrEqual(1);
      expect(done).toBeLessThan(stopped.body.progress.total as number);
      const items = await http("GET", `${s.url}/v1/runs/${id}/items`);
      expect(items.body.total).toBe(done);
      expect(stopped.body.summary).not.toBeNull();
      const again = await http("DELETE", `${s.url}/v1/runs/${id}`);
      expect(again.status).toBe(409);
      expect(again.body.error.message).toMatch(/is cancelled; only a running run can be cancelled/);
      const resumed = await http("POST", `${s.url}/v1/runs/${id}/resume`);
      expect(resumed.status, resumed.text).toBe(202);
      const finished = await poll(
        () => http("GET", `${s.url}/v1/runs/${id}`),
        (r) => r.body.status !== "running",
        240_000,
        200,
      );
      expect(finished.body.status).toBe("finished");
      expect(finished.body.progress.done).toBe(finished.body.progress.total);
      const all = (await http("GET", `${s.url}/v1/runs/${id}/items`)).body.items as Array<{ key: string }>;
      expect(new Set(all.map((r) => r.key)).size).toBe(all.length);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  }, 400_000);

  it("SIGTERM during the largest run a request may start: the process exits within the limit, the run is interrupted and resumes after a restart", async () => {
    const s = await startServe(["--cpu-jobs", "1"]);
    const start = await http("POST", `${s.url}/v1/runs`, { limit: 1000, perSubcategory: 100, concurrency: 1 });
    expect(start.status, start.text).toBe(202);
    const id = start.body.id as string;
    const t0 = Date.now();
    const code = await s.stop();
    const ms = Date.now() - t0;
    expect(code, s.stderr()).toBe(0);
    expect(ms, s.stderr()).toBeLessThan(SHUTDOWN_LIMIT_MS + EXIT_SLACK_MS);
    expect(s.stderr()).not.toMatch(/\n\s+at /);
    const rec = JSON.parse(readFileSync(join(s.data, "runs", id, "run.json"), "utf8")) as { status: string };
    expect(rec.status).toBe("interrupted");
    const again = await startServe(["--cpu-jobs", "1"], { data: s.data });
    try {
      const r = await http("GET", `${again.url}/v1/runs/${id}`);
      expect(r.body.status).toBe("interrupted");
      const resumed = await http("POST", `${again.url}/v1/runs/${id}/resume`);
      expect(resumed.status, resumed.text).toBe(202);
      const del = await http("DELETE", `${again.url}/v1/runs/${id}`);
      expect(del.status, del.text).toBe(202);
      const stopped = await poll(
        () => http("GET", `${again.url}/v1/runs/${id}`),
        (x) => x.body.status !== "running",
        120_000,
        200,
      );
      expect(stopped.body.status).toBe("cancelled");
    } finally {
      // the server's stderr in the message: once in CI this exit was null (ended by a signal), not reproduced since
      const code = await again.stop();
      expect(code, `exit ${code}; stderr:\n${again.stderr()}`).toBe(0);
    }
  }, 300_000);
});
