/**
 * `esi3d serve --queue-url --token`: Bull Board at /queues, on a real Redis holding a real run's jobs
 * (`esi3d run --queue` with no worker yet, so its units wait), opened in Debian's Chromium: behind the
 * token (401 without it, a browser login by ?token= once), every asset served by the server itself
 * (nothing fetched from elsewhere), the run's queue and its waiting jobs shown, and read-only: a job
 * cannot be removed from the dashboard.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { CLI, REPO_ROOT } from "../cli/helpers.js";
import { http, startServe, type Serve } from "./helpers.js";
import { launchChromium } from "../viewer/helpers.js";
import { startRedis, type TestRedis } from "../../../helpers/redis.js";
import { needs } from "../../../helpers/system.js";
import { until } from "../../../helpers/queue.js";

const TOKEN = "dashboard-test-token-0123456789";

const packages = needs("redis-server", "chromium");

describe.skipIf(packages.skip)(packages.title("esi3d serve --queue-url: the queue dashboard"), () => {
  let redis: TestRedis;
  let serve: Serve;
  let dir: string;
  let producer: ChildProcess;
  let browser: Browser;

  beforeAll(async () => {
    redis = await startRedis();
    dir = mkdtempSync(join(tmpdir(), "esi3d-queue-dashboard-"));
    serve = await startServe(["--queue-url", redis.url, "--token", TOKEN]);
    // a run with no worker: its two units wait on the cpu queue
    producer = spawn(
      process.execPath,
      [
        CLI,
        "run",
        "--limit",
        "2",
        "--paradigm",
        "single",
        "--source",
        "gt",
        "--labels",
        "oracle",
        "--baseline",
        "none",
        "--out",
        join(dir, "run"),
        "--queue",
        redis.url,
      ],
      { cwd: REPO_ROOT, stdio: "ignore" },
    );
    await until(async () => (await redis.client.llen("bull:esi3d-cpu:wait")) === 2, 60_000);
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    producer?.kill("SIGKILL");
    await serve?.stop();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is behind the token, and its API shows the run's waiting jobs, read-only", async () => {
    const none = await http("GET", `${serve.url}/queues`);
    expect(none.status).toBe(401);
    expect(none.text).toMatch(/\?token=<token>/);
    expect((await http("GET", `${serve.url}/queues/api/queues`, undefined, { token: "not-the-token-000000" })).status).toBe(401);
    const api = await http("GET", `${serve.url}/queues/api/queues?activeQueue=esi3d-cpu&status=waiting`, undefined, { token: TOKEN });
    expect(api.status, api.text).toBe(200);
    const cpu = (
      api.body.queues as Array<{ name: string; readOnlyMode: boolean; counts: Record<string, number>; jobs: Array<{ name: string; data: { taskId: string } }> }>
    ).find((q) => q.name === "esi3d-cpu")!;
    expect(cpu.readOnlyMode).toBe(true);
    expect(cpu.counts.waiting).toBe(2);
    expect(cpu.jobs.map((j) => j.name)).toEqual(["unit", "unit"]);
    // read-only: cleaning the queue is refused and the jobs stay
    const clean = await http("PUT", `${serve.url}/queues/api/queues/esi3d-cpu/clean/waiting`, undefined, { token: TOKEN });
    expect(clean.status).toBeGreaterThanOrEqual(400);
    expect(await redis.client.llen("bull:esi3d-cpu:wait")).toBe(2);
    // the service's own endpoints still want the bearer token, not the dashboard's cookie
    expect((await http("GET", `${serve.url}/v1/tasks`)).status).toBe(401);
  });

  it("opens in Chromium after a ?token= login, with every asset from the server, and lists the queue's jobs", async () => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    const failed: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(serve.url) && !r.url().startsWith("data:")) foreign.push(r.url());
    });
    // a poll still in flight when the test navigates to the next page is cancelled (net::ERR_ABORTED): not a failure
    page.on("requestfailed", (r) => {
      if (r.failure()?.errorText !== "net::ERR_ABORTED") failed.push(`${r.failure()?.errorText} ${r.url()}`);
    });
    page.on("response", (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(`${serve.url}/queues?token=${TOKEN}`);
    // the login redirected to the dashboard without the token in the address
    expect(new URL(page.url()).search).toBe("");
    await page.getByText("esi3d-cpu").first().waitFor({ timeout: 20_000 });
    await page.goto(`${serve.url}/queues/queue/esi3d-cpu?status=waiting`);
    await page.getByText("unit").first().waitFor({ timeout: 20_000 });
    const body = await page.locator("body").innerText();
    expect(body).toMatch(/esi3d queue/);
    expect(foreign).toEqual([]);
    expect(failed).toEqual([]);
    await page.close();
  }, 60_000);
});
