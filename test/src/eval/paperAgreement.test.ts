/**
 * The sign agreement with the paper's Table 4 (src/eval/paperAgreement.ts) and the forest plot's rows
 * (src/eval/forest.ts), on a run summarized from hand-built items whose differences are known in advance.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { forestRows } from "../../../src/eval/forest.js";
import { agreementTable, paperAgreement, paperModelOf, PAPER_DIFFERENCE_MIN_POINTS } from "../../../src/eval/paperAgreement.js";
import { summarizeRun } from "../../../src/eval/summary.js";
import { armItems } from "../../helpers/arms.js";
import { REPO_ROOT } from "../apps/cli/helpers.js";

// Table 4, GT 3D + Gemini − Gemini 3.1: Geometric Configuration +43.3 single, +55.4 GT passive; Material Transparency
// −16.2 single; Inclined Plane −1.7 single (under the threshold). VGGT + Gemini − Gemini 3.1 on Geometric
// Configuration: −17.6 single, −12.0 GT passive.
const records = [
  // Geometric Configuration, single: GT-3D 10 of 10 against 2D's 2 (+80, significant: 8 tasks to 0); Noisy-3D 1 (−10)
  ...armItems("gc", "single", "2D", 10, 2, "geometric_configuration"),
  ...armItems("gc", "single", "GT-3D", 10, 10, "geometric_configuration"),
  ...armItems("gc", "single", "Noisy-3D", 10, 1, "geometric_configuration"),
  // Geometric Configuration, GT views: GT-3D equal to 2D (no difference); Noisy-3D +50 (5 tasks to 0: p = 0.0625)
  ...armItems("gc", "gt", "2D", 10, 5, "geometric_configuration"),
  ...armItems("gc", "gt", "GT-3D", 10, 5, "geometric_configuration"),
  ...armItems("gc", "gt", "Noisy-3D", 10, 10, "geometric_configuration"),
  // Material Transparency, single: GT-3D +100 where the paper has −16.2
  ...armItems("mt", "single", "2D", 10, 0, "material_transparency"),
  ...armItems("mt", "single", "GT-3D", 10, 10, "material_transparency"),
  // Inclined Plane, single: GT-3D +90, but the paper's −1.7 is under the threshold
  ...armItems("ip", "single", "2D", 10, 0, "inclined_plane"),
  ...armItems("ip", "single", "GT-3D", 10, 9, "inclined_plane"),
];
const summary = summarizeRun(records);

describe("sign agreement with the paper's Table 4", () => {
  it("maps each 3D arm to the paper model it stands for, whatever its labels, noise level or reasoner", () => {
    expect(paperModelOf("GT-3D")).toBe("gt3d_gemini");
    expect(paperModelOf("GT-3D appearance")).toBe("gt3d_gemini");
    expect(paperModelOf("GT-3D [openai:gpt-4o]")).toBe("gt3d_gemini");
    expect(paperModelOf("Noisy-3D")).toBe("vggt_gemini");
    expect(paperModelOf("Noisy-3D appearance")).toBe("vggt_gemini");
    expect(paperModelOf("Noisy-3D@1.5")).toBe("vggt_gemini");
    expect(paperModelOf("Noisy-3D@1.5 appearance [gemini:gemini-2.5-pro]")).toBe("vggt_gemini");
    expect(paperModelOf("VGGT-3D")).toBe("vggt_gemini");
    expect(paperModelOf("2D")).toBeNull();
    expect(paperModelOf("Shortcut")).toBeNull();
  });

  it("counts, per arm, the cells of a large paper difference by the sign and significance of the run's", () => {
    const rows = paperAgreement(summary);
    expect(rows.map((r) => r.method)).toEqual(["GT-3D", "Noisy-3D"]);
    const gt = rows[0]!,
      noisy = rows[1]!;
    expect(gt.thresholdPoints).toBe(PAPER_DIFFERENCE_MIN_POINTS);
    // Inclined Plane (paper −1.7) and the pooled rows are not compared
    expect(gt.cells.map((c) => `${c.subcategory}/${c.paradigm}/${c.paperPoints}/${c.relation}/${c.significant}`).sort()).toEqual([
      "geometric_configuration/gt/55.4/zero/false",
      "geometric_configuration/single/43.3/same/true",
      "material_transparency/single/-16.2/opposite/true",
    ]);
    expect({ same: gt.same, sameSignificant: gt.sameSignificant, opposite: gt.opposite, oppositeSignificant: gt.oppositeSignificant, zero: gt.zero }).toEqual({
      same: 1,
      sameSignificant: 1,
      opposite: 1,
      oppositeSignificant: 1,
      zero: 1,
    });
    const single = gt.cells.find((c) => c.subcategory === "geometric_configuration" && c.paradigm === "single")!;
    expect(single.difference.diff).toBeCloseTo(0.8, 12);
    expect(single.difference.p).toBeCloseTo(2 / 256, 12);
    // Noisy-3D against VGGT + Gemini: −10 with the paper's −17.6 (same, not significant), +50 against its −12.0 (opposite, p = 0.0625)
    expect(noisy.cells.map((c) => `${c.subcategory}/${c.paradigm}/${c.paperPoints}/${c.relation}/${c.significant}`).sort()).toEqual([
      "geometric_configuration/gt/-12/opposite/false",
      "geometric_configuration/single/-17.6/same/false",
    ]);
    expect([noisy.same, noisy.sameSignificant, noisy.opposite, noisy.oppositeSignificant]).toEqual([1, 0, 1, 0]);
  });

  it("takes the threshold as a parameter", () => {
    const rows = paperAgreement(summary, 50);
    expect(rows.find((r) => r.method === "GT-3D")!.cells.map((c) => `${c.subcategory}/${c.paradigm}`)).toEqual(["geometric_configuration/gt"]);
    expect(rows.find((r) => r.method === "Noisy-3D")!.cells).toEqual([]);
    expect(
      paperAgreement(summary, 0)
        .find((r) => r.method === "GT-3D")!
        .cells.some((c) => c.subcategory === "inclined_plane"),
    ).toBe(true);
  });

  it("prints one row per arm and names the cells significantly against the paper", () => {
    const text = agreementTable(paperAgreement(summary), { markdown: true });
    expect(text).toMatch(/\| GT-3D +\| GT 3D \+ Gemini − Gemini 3\.1 +\| +3 \| +1 \| +1 \| +1 \| +1 \| +1 \|/);
    expect(text).toMatch(/\| Noisy-3D +\| +VGGT \+ Gemini − Gemini 3\.1 +\| +2 \| +1 \| +0 \| +1 \| +0 \| +0 \|/);
    expect(text).toContain("Significantly against the paper: GT-3D on Material Transparency S (+100.0 points against the paper's -16.2).");
  });
});

describe("forest plot rows", () => {
  it("sorts subcategories by the mean of their arms' differences, highest first, each with the summary's paired interval", () => {
    const rows = forestRows(summary);
    expect(rows.map((r) => r.subcategory)).toEqual(["material_transparency", "inclined_plane", "geometric_configuration"]);
    expect(rows.map((r) => r.effect)).toEqual([1, 0.9, (0.4 + 0.2) / 2].map((x) => expect.closeTo(x, 12)));
    for (const r of rows)
      for (const a of r.arms) {
        const d = summary.differences.find((x) => x.subcategory === r.subcategory && x.a === a.method && x.paradigm === "all")!;
        expect([a.diff, a.lo, a.hi, a.p]).toEqual([d.diff, d.lo, d.hi, d.p]);
        expect(a.lo).toBeLessThanOrEqual(a.diff);
        expect(a.hi).toBeGreaterThanOrEqual(a.diff);
      }
    expect(rows[2]!.arms.map((a) => a.method)).toEqual(["GT-3D", "Noisy-3D"]);
  });

  it("puts the paper's difference beside each row for the paradigms the row pools, per paper model", () => {
    const [mt, ip, gc] = forestRows(summary);
    expect(gc!.paper).toEqual([
      {
        model: "gt3d_gemini",
        marks: [
          { paradigm: "single", letter: "S", points: 43.3 },
          { paradigm: "gt", letter: "G", points: 55.4 },
        ],
      },
      {
        model: "vggt_gemini",
        marks: [
          { paradigm: "single", letter: "S", points: -17.6 },
          { paradigm: "gt", letter: "G", points: -12 },
        ],
      },
    ]);
    // Material Transparency has single-view items only, and no noisy arm
    expect(mt!.paper).toEqual([{ model: "gt3d_gemini", marks: [{ paradigm: "single", letter: "S", points: -16.2 }] }]);
    expect(ip!.paper[0]!.marks).toEqual([{ paradigm: "single", letter: "S", points: -1.7 }]);
  });

  it("draws one paradigm's rows with that paradigm's differences and paper marks only", () => {
    const rows = forestRows(summary, "gt");
    expect(rows.map((r) => r.subcategory)).toEqual(["geometric_configuration"]);
    expect(rows[0]!.arms.map((a) => [a.method, a.diff, a.significant])).toEqual([
      ["GT-3D", 0, false],
      ["Noisy-3D", 0.5, false],
    ]);
    expect(rows[0]!.paper.map((g) => g.marks.map((m) => m.letter))).toEqual([["G"], ["G"]]);
    expect(forestRows(summary, "single")[0]!.arms.find((a) => a.method === "GT-3D")!.significant).toBe(true);
  });
});

describe("scripts/paper-agreement.mjs (after npm run build)", () => {
  const script = (...args: string[]) => spawnSync(process.execPath, [join(REPO_ROOT, "scripts", "paper-agreement.mjs"), ...args], { encoding: "utf8" });
  const dir = mkdtempSync(join(tmpdir(), "esi3d-agreement-"));
  writeFileSync(join(dir, "summary.json"), JSON.stringify({ ...summary, complete: true, wall_seconds: 1 }));

  it("prints a run's agreement per arm, and with --cells every cell compared", () => {
    const r = script(dir, "--cells");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^GT-3D +GT 3D \+ Gemini − Gemini 3\.1 +3 +1 +1 +1 +1 +1$/m);
    expect(r.stdout).toMatch(/^Noisy-3D +VGGT \+ Gemini − Gemini 3\.1 +2 +1 +0 +1 +0 +0$/m);
    expect(r.stdout).toMatch(/^GT-3D +material_transparency +S +-16\.2 +\+100\.0 .* opposite, significant$/m);
    expect(script(dir, "--threshold", "50").stdout).toMatch(/^GT-3D +GT 3D \+ Gemini − Gemini 3\.1 +1 +0 +0 +0 +0 +1$/m);
  });

  it("refuses a directory without a summary and a bad threshold, with exit 2 and what it expected", () => {
    const missing = script(join(dir, "nope"));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain(`${join(dir, "nope", "summary.json")}: no such file (expected a run summary`);
    const bad = script(dir, "--threshold", "five");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--threshold: expected a number of points >= 0, got "five"');
  });
});
