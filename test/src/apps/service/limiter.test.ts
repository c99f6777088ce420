/**
 * The admission limiter's Retry-After, per job kind, with real timers: slow and quick jobs
 * interleaved, then a full queue of slow ones.
 */
import { describe, expect, it } from "vitest";
import { JobLimiter } from "../../../../src/apps/service/limiter.js";
import { HttpError } from "../../../../src/apps/service/errors.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("JobLimiter", () => {
  it("keeps one duration estimate per kind: quick jobs do not shorten the wait behind slow ones", async () => {
    const lim = new JobLimiter("test", 1, 3);
    await lim.run("graph", () => sleep(600));
    for (let i = 0; i < 50; i++) await lim.run("answer", async () => {});
    expect(lim.averageSeconds("graph")).toBeGreaterThan(0.5);
    expect(lim.averageSeconds("answer")).toBeLessThan(0.05);
    // 1 running + 3 queued graph builds of ~0.6 s: about 2.4 s of work ahead
    const jobs = Array.from({ length: 4 }, () => lim.run("graph", () => sleep(600)));
    await sleep(10);
    let refused: HttpError | null = null;
    try {
      await lim.run("answer", async () => {});
    } catch (e) {
      refused = e as HttpError;
    }
    expect(refused?.status).toBe(503);
    // ceil(what the running one has left + 3 x 0.6 s) = 3 s on an idle machine; one shared average would say 1 s
    const wait = Number(refused!.headers["retry-after"]);
    expect(wait).toBeGreaterThanOrEqual(2);
    expect(wait).toBeLessThanOrEqual(5);
    expect(lim.rejected).toBe(1);
    await Promise.all(jobs);
    expect(lim.running).toBe(0);
    expect(lim.queued).toBe(0);
  });

  it("hands a finishing job's slot to the next waiter: never more than `concurrency` run", async () => {
    const lim = new JobLimiter("test", 2, 10);
    let now = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        lim.run(i % 2 ? "a" : "b", async () => {
          peak = Math.max(peak, ++now);
          await sleep(5);
          now--;
        }),
      ),
    );
    expect(peak).toBe(2);
  });
});
