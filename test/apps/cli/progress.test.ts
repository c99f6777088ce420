/** The progress line's ETA: none in the warm-up, then from the rate since the first item finished. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ETA_MIN_ITEMS, ETA_MIN_SECONDS, Progress } from "../../../src/apps/cli/progress.js";

/** A non-terminal stream that keeps what is written. */
function captured(): { stream: NodeJS.WriteStream; lines: string[] } {
  const lines: string[] = [];
  const stream = { isTTY: false, write: (s: string) => (lines.push(s.trimEnd()), true) } as unknown as NodeJS.WriteStream;
  return { stream, lines };
}

describe("Progress ETA", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(0);
  });
  afterEach(() => vi.useRealTimers());

  it("shows no ETA from one slow first item, then one from the rate after it", () => {
    expect([ETA_MIN_ITEMS, ETA_MIN_SECONDS]).toEqual([5, 10]);
    const { stream, lines } = captured();
    const p = new Progress("run", 100, stream);
    // the first item takes 60 s (start-up), the next ones 2 s each
    vi.setSystemTime(60_000);
    p.tick();
    p.line("first");
    expect(lines.at(-1)).toBe("run: 1/100 items, 0.02/s, ETA after 5 items and 10s, 0 failed");
    for (let i = 1; i <= 4; i++) {
      vi.setSystemTime(60_000 + 2_000 * i);
      p.tick();
    }
    p.line("five done, 8 s after the first");
    expect(lines.at(-1)).toMatch(/5\/100 items, .*ETA after 5 items and 10s/);
    vi.setSystemTime(70_000);
    p.tick();
    p.line("six done, 10 s after the first");
    // 5 items in the 10 s since the first: 0.5/s, 94 left -> 188 s (from the start it would be 94 / (6/70) = 1097 s)
    expect(lines.at(-1)).toBe("run: 6/100 items, 0.09/s, ETA 3m08s, 0 failed");
    p.finish();
    expect(lines.at(-1)).toBe("run: 6/100 items, 0.09/s, took 1m10s, 0 failed");
  });

  it("counts failed calls and unreadable replies apart", () => {
    const { stream, lines } = captured();
    const p = new Progress("run", 4, stream);
    p.tick(1, 1, 0);
    p.tick(1, 0, 1);
    p.tick(1, 0, 1);
    p.finish();
    expect(lines.at(-1)).toMatch(/3\/4 items, .*, 1 failed, 2 invalid$/);
  });
});
