/** The progress line's ETA: none in the warm-up, then from the rate since the first item finished. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Progress } from "../../../../src/apps/cli/progress.js";
import { itemCountText } from "../../../../src/eval/itemCount.js";

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

  it("a resumed run's earlier items count as done but never in the rate (a resume once printed 215.57/s)", () => {
    const { stream, lines } = captured();
    const p = new Progress("run", 100, stream);
    p.resumeFrom(90);
    vi.setSystemTime(10_000);
    for (let i = 0; i < 10; i++) p.tick();
    p.finish();
    // 10 items in 10 s: 1/s, not 100 / 10 s
    expect(lines.at(-1)).toBe("run: 100/100 items (90 done before this process), 1.00/s, took 10s, 0 failed");
  });

  it("an interrupted run's last line says it was interrupted and what is left, never 'took'", () => {
    const { stream, lines } = captured();
    const p = new Progress("run", 48, stream);
    vi.setSystemTime(17_000);
    for (let i = 0; i < 36; i++) p.tick();
    p.finish(true);
    expect(lines.at(-1)).toBe("run: interrupted with 36 of 48 items done, 12 not done; 36 in this process, 2.12/s over 17s, 0 failed");
  });
});

describe("the item count names its factors", () => {
  const keys = (arms: string[], reasoners: string[] = []) =>
    reasoners.length ? reasoners.flatMap((r) => arms.map((a) => `t|p|${a}|${r}`)) : arms.map((a) => `t|p|${a}`);
  it("tasks × paradigms × arms, the arms named", () => {
    const arms = ["3d:gt", "3d:gt+appearance", "3d:noisy", "3d:noisy+appearance", "2d", "shortcut"];
    expect(
      itemCountText({
        tasks: 190,
        paradigms: ["single", "multi", "gt"],
        keysOf: () => keys(arms),
        reasoners: 1,
        skippedUnits: 0,
        skippedItems: 0,
        total: 3420,
      }),
    ).toBe("190 tasks × 3 paradigms (single, multi, gt) × 6 arms (3d:gt, 3d:gt+appearance, 3d:noisy, 3d:noisy+appearance, 2d, shortcut) = 3420 items");
  });
  it("several reasoners, arms that differ by paradigm, skipped units", () => {
    const keysOf = (p: string) => [...keys(["3d:gt", "2d"], ["symbolic", "openai:m"]), ...(p === "active" ? [] : ["t|p|shortcut"])];
    expect(itemCountText({ tasks: 3, paradigms: ["single"], keysOf, reasoners: 2, skippedUnits: 0, skippedItems: 0, total: 15 })).toBe(
      "3 tasks × 1 paradigm (single) × 5 arms (2 reasoners × 2 (3d:gt, 2d) + shortcut) = 15 items",
    );
    expect(itemCountText({ tasks: 2, paradigms: ["single", "active"], keysOf, reasoners: 2, skippedUnits: 1, skippedItems: 4, total: 14 })).toBe(
      "2 tasks × (single: 5 arms (2 reasoners × 2 (3d:gt, 2d) + shortcut); active: 4 arms (2 reasoners × 2 (3d:gt, 2d))) = 18 items, less 4 in 1 skipped task-paradigm unit (skipped.json): 14 to run",
    );
  });
});
