import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { esi3d } from "../apps/cli/helpers.js";
import { newcombeDifference } from "../../src/eval/summary.js";
import { wilsonInterval } from "../../src/eval/metrics.js";
import { VGGT_TYPICAL_LEVEL } from "../../reconstruct/noisy/params.js";

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
    expect(bad.stderr).toMatch(/--component: "sparkle" is not one of depth, pose, flying, dropout, blobs, mono, warp, drift, scale, textureless, labels, all/);
  }, 300_000);

  it("compares two runs subcategory by subcategory with intervals", () => {
    expect(esi3d(["run", ...common, "--noise-level", "0", "--out", join(dir, "a")]).code).toBe(0);
    expect(esi3d(["run", ...common, "--noise-level", "1", "--out", join(dir, "b")]).code).toBe(0);
    const c = esi3d(["compare", join(dir, "a"), join(dir, "b")]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toMatch(/Merged Observation\s+Noisy-3D\s+\d+\.\d \(n=\d+\)\s+\d+\.\d \(n=\d+\)\s+[+-]\d+\.\d\s+\[-?\d+\.\d, -?\d+\.\d\]/);
    expect(c.stdout).toMatch(/Overall\s+GT-3D/);
    expect(esi3d(["compare", join(dir, "a"), join(dir, "nope")]).code).toBe(2);
  }, 300_000);

  it("Newcombe's interval: the hybrid score interval from two Wilson intervals", () => {
    // Newcombe (1998) example 1: 56/70 vs 48/80 -> difference 0.2, 95 % CI [0.0524, 0.3339]
    const d = newcombeDifference(wilsonInterval(56, 70), wilsonInterval(48, 80));
    expect(d.diff).toBeCloseTo(0.2, 10);
    expect(d.lo).toBeCloseTo(0.0524, 3);
    expect(d.hi).toBeCloseTo(0.3339, 3);
  });
});
