/**
 * Paired tests on constructed item records whose answers are known by hand: the task as the unit of the sign-flip
 * test and the bootstrap, and `compare` / the run summary choosing the test a cell's pairing calls for.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ItemRecordSchema, type ItemRecord } from "../../../src/eval/records.js";
import { declinedItem, scoredItem } from "../../helpers/items.js";
import { summarizeRun } from "../../../src/eval/summary.js";
import { compareCommand } from "../../../src/eval/compare.js";
import { comparePaired } from "../../../src/eval/pairedTests.js";
import { exactMcNemarP, pairedDifference } from "../../../src/eval/mcNemar.js";
import { clusteredBootstrap, type Pair } from "../../../src/eval/taskBootstrap.js";
import { esi3d } from "../apps/cli/helpers.js";

const item = (task: string, paradigm: string, arm: "2d" | "gt", correct: boolean) => scoredItem(task, paradigm, arm, correct);

/** Tasks whose three paradigms agree: `aOnly` tasks right only in A, `bOnly` only in B, `same` right in both. */
function correlatedPairs(aOnly: number, bOnly: number, same: number): Pair[] {
  const pairs: Pair[] = [];
  const add = (n: number, a: boolean, b: boolean, tag: string) => {
    for (let t = 0; t < n; t++) for (let p = 0; p < 3; p++) pairs.push({ cluster: `${tag}${t}`, a: Number(a), b: Number(b) });
  };
  add(aOnly, true, false, "a");
  add(bOnly, false, true, "b");
  add(same, true, true, "s");
  return pairs;
}

describe("tasks, not items, are the unit when paradigms are pooled", () => {
  it("the sign-flip test over tasks: three agreeing paradigms count as one task", () => {
    // 4 tasks right only in A, 1 only in B, 5 right in both, each over 3 paradigms
    const pairs = correlatedPairs(4, 1, 5);
    // items taken as independent, 12 vs 3 discordant looks significant: 2·(1 + 15 + 105 + 455)/2^15
    expect(exactMcNemarP(12, 3)).toBeCloseTo(1152 / 32768, 14);
    expect(exactMcNemarP(12, 3)).toBeLessThan(0.05);
    const boot = clusteredBootstrap(pairs);
    expect(boot.diff).toBeCloseTo(9 / 30, 14);
    expect(boot.lo).toBeLessThanOrEqual(0);
    expect(boot.hi).toBeGreaterThan(boot.diff);
    // task totals +3 (x4), -3 (x1), 0 (x5): |sum| >= 9 when the five nonzero signs split 4:1 or 5:0 either way,
    // (5 + 1 + 5 + 1) / 32, not significant
    const row = comparePaired(pairs)!;
    expect(row.test).toBe("signflip-task");
    expect(row.pairs).toEqual({ n: 30, clusters: 10, aBetter: 12, bBetter: 3 });
    expect(row.p).toBeCloseTo(12 / 32, 14);
    expect([row.lo, row.hi]).toEqual([boot.lo, boot.hi]);
  });
  it("one task is never significant", () => {
    // one task right in A and wrong in B in all three paradigms: the bootstrap alone would call it certain
    const one = comparePaired(correlatedPairs(1, 0, 0))!;
    expect(one.p).toBe(1);
  });
  it("the bootstrap interval is seeded: the same pairs in any order give the same result; other seeds others", () => {
    const pairs = correlatedPairs(6, 2, 7);
    const ref = clusteredBootstrap(pairs);
    expect(clusteredBootstrap([...pairs].reverse())).toEqual(ref);
    // the seed is used: few resamples make the percentiles move with it
    const seeds = ["a", "b", "c", "d", "e"].map((seed) => JSON.stringify(clusteredBootstrap(pairs, 40, seed)));
    expect(new Set(seeds).size).toBeGreaterThan(1);
  });
  it("a difference every one of 12 tasks shows is significant, with no spread in the bootstrap", () => {
    const pairs = correlatedPairs(12, 0, 0);
    expect(clusteredBootstrap(pairs)).toEqual({ diff: 1, lo: 1, hi: 1 });
    expect(comparePaired(pairs)!.p).toBeCloseTo(2 / 4096, 14);
  });
});

describe("every item counts: an unanswered item is paired at its chance credit", () => {
  it("a 3D arm that declines where 2D answers right loses, on the same items, what a guess would have lost", () => {
    // 12 tasks, one paradigm: 2D right on all; 3D right on 8, declines (yes/no: credit 1/2) on 4
    const tasks = Array.from({ length: 12 }, (_, i) => `linear_alignment-${String(i).padStart(3, "0")}`);
    const records = tasks.flatMap((t, i) => [item(t, "single", "2d", true), i < 4 ? declinedItem(t, "single", "gt") : item(t, "single", "gt", true)]);
    const s = summarizeRun(records);
    const gt = s.overall["GT-3D"]!["single"]!;
    expect(gt).toMatchObject({ n: 12, nScored: 8, k: 8, unanswerable: 4 });
    expect(gt.score.p).toBeCloseTo(10 / 12, 14);
    expect(gt.coverage.p).toBeCloseTo(8 / 12, 14);
    expect(gt.accuracy.p).toBe(1);
    const d = s.differences.find((x) => x.a === "GT-3D" && x.paradigm === "single" && x.subcategory === "linear_alignment")!;
    // every item paired, the declined ones at 1/2 against 2D's 1: -2 points over 12 items
    expect(d.pairs).toEqual({ n: 12, clusters: 12, aBetter: 0, bBetter: 4 });
    expect(d.diff).toBeCloseTo(-2 / 12, 14);
    expect(d.test).toBe("signflip-task");
    // four tasks of -1/2 each, eight of 0: |sum| = 2 only when the four signs agree, 2 / 16
    expect(d.p).toBeCloseTo(2 / 16, 14);
    // the answered-only comparison would have seen no difference at all
    expect(s.headlines.join("\n")).toMatch(/GT-3D 83\.3% \(coverage 66\.7%, 100\.0% of those answered\)/);
  });
});

describe("comparePaired with one pair per task", () => {
  it("uses McNemar's exact test and Bonett-Price's interval", () => {
    // 20 tasks: 2 right only in A, 9 only in B, 6 in both, 3 in neither
    const pairs: Pair[] = [];
    const add = (n: number, a: boolean, b: boolean) => {
      for (let i = 0; i < n; i++) pairs.push({ cluster: `t${pairs.length}`, a: Number(a), b: Number(b) });
    };
    add(2, true, false);
    add(9, false, true);
    add(6, true, true);
    add(3, false, false);
    const row = comparePaired(pairs)!;
    expect(row.test).toBe("mcnemar-exact");
    expect(row.pairs).toEqual({ n: 20, clusters: 20, aBetter: 2, bBetter: 9 });
    expect(row.diff).toBeCloseTo(-7 / 20, 14);
    // 2·(C(11,0) + C(11,1) + C(11,2)) / 2^11 = 2·67/2048
    expect(row.p).toBeCloseTo(134 / 2048, 14);
    const bp = pairedDifference(20, 2, 9);
    expect([row.lo, row.hi]).toEqual([bp.lo, bp.hi]);
    expect(comparePaired([])).toBeNull();
  });
});

describe("compare and the run summary pair by task", () => {
  // 12 tasks x 3 paradigms; run A's GT-3D right on all; run B's wrong on tasks 0-3 in every paradigm, and 2D like B
  const paradigms = ["single", "multi", "gt"];
  const tasks = Array.from({ length: 12 }, (_, i) => `linear_alignment-${String(i).padStart(3, "0")}`);
  const runA = tasks.flatMap((t) => paradigms.flatMap((p) => [item(t, p, "gt", true), item(t, p, "2d", true)]));
  const runB = tasks.flatMap((t, i) => paradigms.flatMap((p) => [item(t, p, "gt", i >= 4), item(t, p, "2d", i >= 4)]));
  it("compare: McNemar per paradigm, the sign-flip test over tasks with paradigms pooled", () => {
    const dir = mkdtempSync(join(tmpdir(), "esi3d-compare-"));
    const write = (name: string, rs: ItemRecord[]) => {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, "items.jsonl"), rs.map((r) => JSON.stringify(r)).join("\n") + "\n");
      return join(dir, name);
    };
    const a = write("a", runA),
      b = write("b", runB);
    const overallGt = (paradigm: string) =>
      compareCommand([a, b], paradigm)
        .split("\n")
        .find((l) => /^Overall\s+GT-3D\s/.test(l))!;
    // 0 vs 4 discordant: p = 2 / 2^4; 4 of 12 items apart
    expect(overallGt("single")).toMatch(
      /100\.0 \(n=12\) cov 100\.0 ans 100\.0\s+66\.7 \(n=12\) cov 100\.0 ans 66\.7\s+\+33\.3\s+\[[^\]]+\]\s+0\.125\s+McNemar exact\s+12 \(12\); A higher 4, B higher 0/,
    );
    // four tasks with +3 each, eight with 0: |sum| = 12 only when the four signs agree, 2 / 16
    expect(overallGt("all")).toMatch(/\+33\.3\s+\[[^\]]+\]\s+0\.125\s+task sign-flip\s+36 \(12\); A higher 12, B higher 0/);
  });

  it("the summary's 3D-vs-2D differences pair the two arms on each task", () => {
    // within run B, GT-3D and 2D agree on every item: a difference of 0, paired, p = 1
    const s = summarizeRun(runB);
    const d = s.differences.filter((x) => x.a === "GT-3D" && x.b === "2D");
    expect(d.map((x) => [x.paradigm, x.test])).toEqual([
      ["single", "mcnemar-exact"],
      ["multi", "mcnemar-exact"],
      ["gt", "mcnemar-exact"],
      ["all", "signflip-task"],
    ]);
    for (const x of d) {
      expect(x.diff).toBe(0);
      expect(x.p).toBe(1);
      expect(x.pairs).toMatchObject({ aBetter: 0, bBetter: 0, clusters: 12 });
    }
    // 2D on other tasks than 3D: nothing to pair, Newcombe
    const apart = summarizeRun([
      ...runB.filter((r) => r.arm === "3d"),
      ...runB.filter((r) => r.arm === "2d").map((r) => ItemRecordSchema.parse({ ...r, task_id: `x${r.task_id}`, key: `x${r.key}` })),
    ]);
    expect(apart.differences.every((x) => x.test === "newcombe" && x.p === null && x.pairs === null)).toBe(true);
  });

  it("esi3d compare takes more runs, each against the first, and needs two", () => {
    const dir = mkdtempSync(join(tmpdir(), "esi3d-compare-"));
    const write = (name: string, rs: ItemRecord[]) => {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, "items.jsonl"), rs.map((r) => JSON.stringify(r)).join("\n") + "\n");
      return join(dir, name);
    };
    const a = write("a", runA),
      b = write("b", runB),
      c = write("c", runA);
    const r = esi3d(["compare", a, b, c, "--paradigm", "single"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/## B against A[\s\S]*## C against A/);
    expect(r.stdout).toMatch(
      /Overall\s+GT-3D\s+100\.0 \(n=12\) cov 100\.0 ans 100\.0\s+66\.7 \(n=12\) cov 100\.0 ans 66\.7\s+\+33\.3\s+\[-?\d+\.\d, -?\d+\.\d\]\s+0\.125\s+McNemar exact\s+12 \(12\); A higher 4, B higher 0/,
    );
    // C is A again: no discordant pair
    expect(r.stdout).toMatch(
      /## C against A\n[^\n]+\n(?:[^\n]+\n)*?Overall\s+GT-3D\s+100\.0 \(n=12\) cov 100\.0 ans 100\.0\s+100\.0 \(n=12\) cov 100\.0 ans 100\.0\s+\+0\.0\s+\[[^\]]+\]\s+1\.000\s+McNemar exact/,
    );
    // no config.json, the same reasoner, labels and tasks: nothing to warn about
    expect(r.stdout).not.toMatch(/WARNING/);
    expect(r.stdout).toMatch(/A = .*a, B = .*b, C = .*c; each run against A/);
    // a run of other tasks with another reasoner: compare says so before its table
    const other = write(
      "d",
      runB.slice(0, 6).map((x) => ItemRecordSchema.parse({ ...x, reasoner: "openai:stub" })),
    );
    const w = esi3d(["compare", a, other, "--paradigm", "single"]);
    expect(w.code, w.stderr).toBe(0);
    expect(w.stdout).toMatch(
      /^WARNING: the runs use different reasoners: A symbolic; B openai:stub\.\nWARNING: the runs share 1 task\(s\): A has 12, B 1 \(fewer than 50 % of A's\)\.\n/,
    );
    const one = esi3d(["compare", a]);
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/compare needs at least two run directories, got 1/);
  }, 60_000);
});
