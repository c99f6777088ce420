/** The request gate's sliding log (src/llm/gate.ts) on a controlled clock: no window of the limit's length, wherever it starts, admits more than the limit. */
import { describe, expect, it } from "vitest";
import { createRequestGate, memoryWindowStore } from "../../../src/llm/gate.js";

describe("the request gate", () => {
  it("admits at most the limit in any window, across a fixed window's boundary too, and says how long to wait", async () => {
    let t = 900;
    const store = memoryWindowStore(() => t);
    for (const at of [900, 950, 990]) {
      t = at;
      expect(await store.admit("k", 3, 1000)).toBe(0);
    }
    // a fixed window [1000, 2000) would admit three more here: the log does not
    t = 1010;
    expect(await store.admit("k", 3, 1000)).toBe(890);
    t = 1901;
    expect(await store.admit("k", 3, 1000)).toBe(0);
    expect(await store.admit("k", 3, 1000)).toBeGreaterThan(0);
  });

  it("a gate's acquire waits for the log and for a pause", async () => {
    const store = memoryWindowStore();
    const gate = createRequestGate("openai:m", { requests: 2, tokens: null, windowMs: 300 }, store);
    const t0 = Date.now();
    for (let i = 0; i < 4; i++) await gate.acquire();
    // four starts at two per 300 ms: the third and fourth wait for the first two to leave the log
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    await gate.pause(400);
    const t1 = Date.now();
    await gate.acquire();
    expect(Date.now() - t1).toBeGreaterThanOrEqual(390);
  });
});
