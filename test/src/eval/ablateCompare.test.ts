import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { esi3d } from "../apps/cli/helpers.js";
import { creditOf, newcombeDifference } from "../../../src/eval/summary.js";
import { pairedDifference } from "../../../src/eval/mcNemar.js";
import { readRecords } from "../../../src/eval/records.js";
import { Rng } from "../../../core/math/rng.js";
import { wilsonInterval } from "../../../core/math/proportion.js";
import { VGGT_TYPICAL_LEVEL } from "../../../reconstruct/noisy/params.js";

describe("esi3d ablate and compare", () => {
  const dir = mkdtempSync(join(tmpdir(), "esi3d-ablate-"));
  const common = ["--per-subcategory", "2", "--subcategories", "merged_observation,counting_with_occlusion", "--paradigm", "gt"];

  it("sweeps the noise: duplicates grow with the level and the curve is drawn against the 2D baseline", () => {
    const r = esi3d(["ablate", ...common, "--noise", `0,${VGGT_TYPICAL_LEVEL}`, "--out", join(dir, "ab")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`Subcategory\\s+2D\\s+noise 0\\s+noise ${VGGT_TYPICAL_LEVEL} \\(vggt-typical\\)`));
    const a = JSON.parse(readFileSync(join(dir, "ab", "ablation.json"), "utf8"));
    expect(a.levels).toEqual([0, VGGT_TYPICAL_LEVEL]);
    expect(a.quality[1].duplicate_rate).toBeGreaterThan(a.quality[0].duplicate_rate);
    expect(a.quality[0].node_f1).toBeGreaterThan(a.quality[1].node_f1);
    expect(Object.keys(a.crossings)).toContain("overall");
    const html = readFileSync(join(dir, "ab", "ablation.html"), "utf8");
    expect(html).toMatch(/<svg[^>]*aria-label="accuracy versus noise level"/);
    expect(html).toMatch(/stroke-dasharray/); // the 2D baseline
    expect(a.vggtTypicalLevel).toBe(VGGT_TYPICAL_LEVEL);
    expect(html).toMatch(/vggt-typical/);
    const bad = esi3d(["ablate", ...common, "--component", "sparkle", "--out", join(dir, "bad")]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /--component: "sparkle" is not one of depth, pose, flying, dropout, blobs, mono, warp, drift, scale, textureless, labels, mirror, all/,
    );
  }, 300_000);

  it("compares two runs subcategory by subcategory with intervals", () => {
    expect(esi3d(["run", ...common, "--noise-level", "0", "--out", join(dir, "a")]).code).toBe(0);
    expect(esi3d(["run", ...common, "--noise-level", "1", "--out", join(dir, "b")]).code).toBe(0);
    const c = esi3d(["compare", join(dir, "a"), join(dir, "b")]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toMatch(
      /Merged Observation\s+Noisy-3D\s+\d+\.\d \(n=\d+\*?\) cov \d+\.\d ans (?:\d+\.\d|-)\s+\d+\.\d \(n=\d+\*?\) cov \d+\.\d ans (?:\d+\.\d|-)\s+[+-]\d+\.\d\s+\[-?\d+\.\d, -?\d+\.\d\]/,
    );
    expect(c.stdout).toMatch(/Overall\s+GT-3D/);
    expect(esi3d(["compare", join(dir, "a"), join(dir, "nope")]).code).toBe(2);
    // the same suite twice: every item is paired
    expect(c.stdout).toMatch(/Overall\s+GT-3D\s+.*\s+1\.000\s+McNemar exact\s+4 \(4\); A higher 0, B higher 0/);
  }, 300_000);

  it("the paired interval (Bonett-Price) covers the true difference about 95 % of the time", () => {
    // pairs: both right 0.45, only A 0.2, only B 0.1, neither 0.25; true difference 0.1
    const rng = new Rng("paired-coverage");
    const cells = [0.45, 0.2, 0.1, 0.25];
    let covered = 0;
    const reps = 4000,
      n = 40;
    for (let r = 0; r < reps; r++) {
      const k = [0, 0, 0, 0];
      for (let i = 0; i < n; i++) {
        const u = rng.next();
        k[u < cells[0]! ? 0 : u < cells[0]! + cells[1]! ? 1 : u < 1 - cells[3]! ? 2 : 3]!++;
      }
      const d = pairedDifference(n, k[1]!, k[2]!);
      expect(d.diff).toBeCloseTo((k[1]! - k[2]!) / n, 12);
      if (d.lo <= 0.1 && 0.1 <= d.hi) covered++;
    }
    expect(covered / reps).toBeGreaterThan(0.93);
    expect(covered / reps).toBeLessThan(0.975);
    // every pair agreeing: difference 0 with an interval of positive width, inside [-1, 1]
    const same = pairedDifference(2, 0, 0);
    expect(same.diff).toBe(0);
    expect(same.lo).toBeLessThan(-0.5);
    expect(same.hi).toBeGreaterThan(0.5);
    expect(pairedDifference(5, 5, 0).hi).toBeLessThanOrEqual(1);
  });

  it("Newcombe's interval: the hybrid score interval from two Wilson intervals", () => {
    // Newcombe (1998) example 1: 56/70 vs 48/80 -> difference 0.2, 95 % CI [0.0524, 0.3339]
    const d = newcombeDifference(wilsonInterval(56, 70), wilsonInterval(48, 80));
    expect(d.diff).toBeCloseTo(0.2, 10);
    expect(d.lo).toBeCloseTo(0.0524, 3);
    expect(d.hi).toBeCloseTo(0.3339, 3);
  });

  describe("the active paradigm", () => {
    const active = ["--paradigm", "active", "--subcategories", "linear_alignment", "--max-steps", "3", "--concurrency", "1"];

    it("ablate --paradigm active: noise levels x active episodes, the table says Active and shows the episodes", () => {
      const r = esi3d(["ablate", ...active, "--per-subcategory", "1", "--noise", "0,2", "--out", join(dir, "ab-active")]);
      expect(r.code, r.stderr).toBe(0);
      const keys = readRecords(join(dir, "ab-active", "items.jsonl"))
        .records.map((x) => x.key)
        .sort();
      expect(keys).toEqual(["linear_alignment-000|active|2d", "linear_alignment-000|active|3d:noisy@0", "linear_alignment-000|active|3d:noisy@2"]);
      const a = JSON.parse(readFileSync(join(dir, "ab-active", "ablation.json"), "utf8"));
      expect(a.paradigms).toEqual(["active"]);
      expect(a.active.map((x: { method: string }) => x.method)).toEqual(["2D", "noise 0", "noise 2"]);
      for (const row of a.active) {
        expect(row.items).toBe(1);
        expect(row.mean_steps).toBeGreaterThanOrEqual(1);
        expect(row.mean_steps).toBeLessThanOrEqual(3);
      }
      // one paradigm: its own curve is the pooled one
      for (const l of ["0", "2"]) expect({ ...a.byParadigm.active.levels[l], group: "" }).toEqual({ ...a.accuracy.overall[l], group: "" });
      expect(r.stdout).toMatch(
        /\(accuracy % over all n items, an item without an answer credited at chance \[95 % interval\]; cov = share answered where below 100 %; paradigm Active; <2D = below the 2D baseline/,
      );
      expect(r.stdout).toMatch(/Active episodes\s+2D\s+noise 0\s+noise 2/);
      expect(r.stdout).toMatch(
        new RegExp(`mean steps\\s+${a.active[0].mean_steps.toFixed(2)}\\s+${a.active[1].mean_steps.toFixed(2)}\\s+${a.active[2].mean_steps.toFixed(2)}`),
      );
      expect(readFileSync(join(dir, "ab-active", "ablation.md"), "utf8")).toMatch(/# Noise ablation \(components: .*; paradigm Active\)/);
      expect(readFileSync(join(dir, "ab-active", "ablation.html"), "utf8")).toContain("paradigm Active");
    }, 300_000);

    it("compare --paradigm active pairs the episodes of two explorers item by item", () => {
      for (const explorer of ["nbv", "random"]) {
        const r = esi3d(["run", ...active, "--per-subcategory", "2", "--source", "gt", "--explorer", explorer, "--out", join(dir, `act-${explorer}`)]);
        expect(r.code, r.stderr).toBe(0);
      }
      const c = esi3d(["compare", join(dir, "act-nbv"), join(dir, "act-random"), "--paradigm", "active"]);
      expect(c.code, c.stderr).toBe(0);
      const recs = (e: string) => readRecords(join(dir, `act-${e}`, "items.jsonl")).records.filter((x) => x.source === "gt");
      const nbv = recs("nbv"),
        rnd = recs("random");
      // pairs where one explorer scored more (an episode without an answer scores its chance credit)
      const aBetter = nbv.filter((x) => creditOf(x) > creditOf(rnd.find((y) => y.key === x.key)!)).length;
      const bBetter = rnd.filter((x) => creditOf(x) > creditOf(nbv.find((y) => y.key === x.key)!)).length;
      expect(c.stdout).toMatch(new RegExp(`Overall\\s+GT-3D\\s+.*\\s+2 \\(2\\); A higher ${aBetter}, B higher ${bBetter}`));
      expect(c.stdout).toMatch(/paradigm active\. Each cell: accuracy % over all n items/);
      const none = esi3d(["compare", join(dir, "act-nbv"), join(dir, "act-random"), "--paradigm", "multi"]);
      expect(none.code).toBe(2);
      expect(none.stderr).toMatch(/share no method and subcategory with items to compare \(paradigm multi\)/);
    }, 300_000);
  });
});
