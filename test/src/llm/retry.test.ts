import { describe, expect, it } from "vitest";
import { backoffDelayMs, isRetryableStatus, parseRetryAfterMs, sleep } from "../../../src/llm/retry.js";

const h = (m: Record<string, string>) => new Headers(m);

describe("parseRetryAfterMs", () => {
  const now = Date.parse("2026-11-30T12:00:00Z");
  it("reads delay-seconds, including fractions", () => {
    expect(parseRetryAfterMs(h({ "retry-after": "3" }), now)).toBe(3000);
    expect(parseRetryAfterMs(h({ "retry-after": "0.5" }), now)).toBe(500);
    expect(parseRetryAfterMs(h({ "retry-after": "0" }), now)).toBe(0);
  });
  it("reads an HTTP date relative to now, and a past date as 0", () => {
    expect(parseRetryAfterMs(h({ "retry-after": "Mon, 30 Nov 2026 12:00:07 GMT" }), now)).toBe(7000);
    expect(parseRetryAfterMs(h({ "retry-after": "Mon, 30 Nov 2026 11:00:00 GMT" }), now)).toBe(0);
  });
  it("prefers retry-after-ms", () => {
    expect(parseRetryAfterMs(h({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
  });
  it("ignores garbage and absence", () => {
    expect(parseRetryAfterMs(h({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(parseRetryAfterMs(h({ "retry-after": "-3" }), now)).toBeUndefined();
    expect(parseRetryAfterMs(h({}), now)).toBeUndefined();
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
  });
});

describe("backoffDelayMs", () => {
  const o = (u: number) => ({ baseMs: 500, capMs: 8000, random: () => u });
  it("doubles from the base and caps", () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => backoffDelayMs(i, o(0)))).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });
  it("subtracts up to 25 % jitter", () => {
    expect(backoffDelayMs(0, o(0.5))).toBe(437.5);
    expect(backoffDelayMs(4, o(0.999999))).toBeGreaterThan(6000);
  });
});

describe("isRetryableStatus", () => {
  it("retries 408, 409, 429 and 5xx only", () => {
    expect([408, 409, 429, 500, 502, 503, 504, 599].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 413, 422, 200].some(isRetryableStatus)).toBe(false);
  });
});

describe("sleep", () => {
  it("rejects as soon as the signal aborts", async () => {
    const ctl = new AbortController();
    const t0 = Date.now();
    setTimeout(() => ctl.abort(new Error("stop")), 20);
    await expect(sleep(10_000, ctl.signal)).rejects.toThrow("stop");
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});
