/**
 * Admission control: with one CPU job at a time and one waiting, a burst of distinct graph requests gets
 * 201s for what fits and 503 + Retry-After for the rest; the server keeps answering /healthz meanwhile
 * (graphs build in a worker thread) and serves again once the burst is over.
 */
import { describe, expect, it } from "vitest";
import { http, smallTask, startServe, streamBundle } from "./helpers.js";

const BURST = 12;

describe("esi3d serve: saturation", () => {
  it("answers excess CPU work with 503 and Retry-After, never falls over, keeps /healthz responsive", async () => {
    const s = await startServe(["--cpu-jobs", "1", "--queue", "1"]);
    try {
      const bid = await streamBundle(s.url, smallTask("counting_with_occlusion", 0, 192, 144), "gt");
      // distinct noise seeds: every request is a real build (identical ones would share one)
      const burst = Array.from({ length: BURST }, (_, i) => http("POST", `${s.url}/v1/graphs`, { bundle: bid, source: "noisy", noiseSeed: `burst-${i}` }));
      // while the burst is being handled, the event loop is free: /healthz answers promptly
      const health: number[] = [];
      let settled = false;
      const all = Promise.all(burst).finally(() => (settled = true));
      while (!settled) {
        const t = performance.now();
        const h = await http("GET", `${s.url}/healthz`);
        expect(h.status).toBe(200);
        health.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 50));
      }
      const replies = await all;
      const statuses = replies.map((r) => r.status);
      const ok = replies.filter((r) => r.status === 201);
      const busy = replies.filter((r) => r.status === 503);
      expect(ok.length + busy.length, JSON.stringify(statuses)).toBe(BURST);
      expect(ok.length).toBeGreaterThanOrEqual(2); // the one running and the one waiting
      expect(busy.length).toBeGreaterThanOrEqual(BURST - 4);
      for (const b of busy) {
        expect(Number(b.headers["retry-after"])).toBeGreaterThanOrEqual(1);
        expect(b.body.error.code).toBe("busy");
      }
      expect(health.length).toBeGreaterThan(0);
      expect(Math.max(...health)).toBeLessThan(1000);
      // still serving: a refused request succeeds when retried
      const again = await http("POST", `${s.url}/v1/graphs`, { bundle: bid, source: "noisy", noiseSeed: `burst-${statuses.indexOf(503)}` });
      expect(again.status).toBe(201);
      const m = await http("GET", `${s.url}/metrics`);
      expect(m.text).toMatch(new RegExp(`esi3d_rejected_total\\{limiter="cpu"\\} ${busy.length}`));
      expect(m.text).toMatch(/esi3d_http_requests_total\{method="POST",route="\/v1\/graphs",status="503"\} \d+/);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });
});
