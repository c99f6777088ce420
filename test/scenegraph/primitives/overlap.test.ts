/** Point-overlap ratio and minimum point distance against brute force. */
import { describe, expect, it } from "vitest";
import { Rng } from "../../../src/core/math/rng.js";
import { VoxelHashGrid } from "../../../scenegraph/primitives/hashGrid.js";
import { minPointDistance, pointOverlapRatio } from "../../../scenegraph/primitives/overlap.js";

function blob(rng: Rng, n: number, c: [number, number, number], s: number): Float32Array {
  const a = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) for (let k = 0; k < 3; k++) a[3 * i + k] = c[k]! + rng.normal(0, s);
  return a;
}

function bruteOverlap(a: Float32Array, b: Float32Array, r: number): number {
  let hits = 0;
  for (let i = 0; i < a.length / 3; i++) {
    for (let j = 0; j < b.length / 3; j++) {
      const dx = a[3 * i]! - b[3 * j]!, dy = a[3 * i + 1]! - b[3 * j + 1]!, dz = a[3 * i + 2]! - b[3 * j + 2]!;
      if (dx * dx + dy * dy + dz * dz < r * r) { hits++; break; }
    }
  }
  return hits / (a.length / 3);
}

function bruteMin(a: Float32Array, b: Float32Array): number {
  let best = Infinity;
  for (let i = 0; i < a.length / 3; i++) for (let j = 0; j < b.length / 3; j++) {
    best = Math.min(best, Math.hypot(a[3 * i]! - b[3 * j]!, a[3 * i + 1]! - b[3 * j + 1]!, a[3 * i + 2]! - b[3 * j + 2]!));
  }
  return best;
}

describe("pointOverlapRatio", () => {
  it("equals brute force, is asymmetric, and accepts a prebuilt grid", () => {
    const rng = new Rng("overlap");
    const big = blob(rng, 3000, [0, 0, 0], 0.1);
    const part = blob(rng, 400, [0.05, 0, 0], 0.05);
    for (const r of [0.01, 0.025, 0.06]) {
      expect(pointOverlapRatio(part, big, r)).toBeCloseTo(bruteOverlap(part, big, r), 12);
      expect(pointOverlapRatio(big, part, r)).toBeCloseTo(bruteOverlap(big, part, r), 12);
      expect(pointOverlapRatio(part, new VoxelHashGrid(big, 0.025), r)).toBeCloseTo(bruteOverlap(part, big, r), 12);
    }
    // a small partial view inside a big object scores high one way, low the other (anchors §13.3)
    expect(pointOverlapRatio(part, big, 0.025)).toBeGreaterThan(0.9);
    expect(pointOverlapRatio(big, part, 0.025)).toBeLessThan(0.5);
    expect(pointOverlapRatio(part, blob(rng, 100, [5, 5, 5], 0.01), 0.025)).toBe(0);
    expect(pointOverlapRatio(new Float32Array(0), big, 0.025)).toBe(0);
  });
});

describe("minPointDistance", () => {
  it("equals brute force for separate, touching and interpenetrating sets", () => {
    const rng = new Rng("mindist");
    for (const [offset, na, nb] of [[0.5, 300, 2000], [0.21, 2000, 300], [0.05, 500, 500], [3, 10, 10]] as const) {
      const a = blob(rng, na, [0, 0, 0], 0.05), b = blob(rng, nb, [offset, 0.02, 0], 0.05);
      const r = minPointDistance(a, b);
      expect(r.distance).toBeCloseTo(bruteMin(a, b), 7);
      const d = Math.hypot(a[3 * r.indexA]! - b[3 * r.indexB]!, a[3 * r.indexA + 1]! - b[3 * r.indexB + 1]!, a[3 * r.indexA + 2]! - b[3 * r.indexB + 2]!);
      expect(d).toBeCloseTo(r.distance, 7);
    }
  });

  it("stopBelow answers 'touching?' early; empty sets give Infinity", () => {
    const rng = new Rng("stop");
    const a = blob(rng, 1000, [0, 0, 0], 0.05), b = blob(rng, 1000, [0.02, 0, 0], 0.05);
    expect(minPointDistance(a, b, { stopBelow: 0.03 }).distance).toBeLessThan(0.03);
    expect(minPointDistance(a, new Float32Array(0)).distance).toBe(Infinity);
  });
});
