/** Point-overlap ratio and minimum point distance against brute force. */
import { describe, expect, it } from "vitest";
import { Rng } from "../../../core/math/rng.js";
import { VoxelHashGrid } from "../../../scenegraph/primitives/hashGrid.js";
import { closestDistance, indexPoints, pointOverlapRatio } from "../../../scenegraph/primitives/overlap.js";
import { minPointDistance } from "../../../core/geometry.js";

function blob(rng: Rng, n: number, c: [number, number, number], s: number): Float32Array {
  const a = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) for (let k = 0; k < 3; k++) a[3 * i + k] = c[k]! + rng.normal(0, s);
  return a;
}

function bruteOverlap(a: Float32Array, b: Float32Array, r: number): number {
  let hits = 0;
  for (let i = 0; i < a.length / 3; i++) {
    for (let j = 0; j < b.length / 3; j++) {
      const dx = a[3 * i]! - b[3 * j]!,
        dy = a[3 * i + 1]! - b[3 * j + 1]!,
        dz = a[3 * i + 2]! - b[3 * j + 2]!;
      if (dx * dx + dy * dy + dz * dz < r * r) {
        hits++;
        break;
      }
    }
  }
  return hits / (a.length / 3);
}

function bruteMin(a: Float32Array, b: Float32Array): number {
  let best = Infinity;
  for (let i = 0; i < a.length / 3; i++)
    for (let j = 0; j < b.length / 3; j++) {
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
    // a small partial view inside a big object scores high one way, low the other
    expect(pointOverlapRatio(part, big, 0.025)).toBeGreaterThan(0.9);
    expect(pointOverlapRatio(big, part, 0.025)).toBeLessThan(0.5);
    expect(pointOverlapRatio(part, blob(rng, 100, [5, 5, 5], 0.01), 0.025)).toBe(0);
    expect(pointOverlapRatio(new Float32Array(0), big, 0.025)).toBe(0);
  });
});

describe("closestDistance", () => {
  it("equals brute force, and the generator's minPointDistance, for separate, touching and interpenetrating sets", () => {
    const rng = new Rng("mindist");
    for (const [offset, na, nb] of [
      [0.5, 300, 2000],
      [0.21, 2000, 300],
      [0.05, 500, 500],
      [3, 10, 10],
    ] as const) {
      const a = blob(rng, na, [0, 0, 0], 0.05),
        b = blob(rng, nb, [offset, 0.02, 0], 0.05);
      const brute = bruteMin(a, b);
      const d = closestDistance(indexPoints(a), indexPoints(b), 10);
      expect(d).toBeCloseTo(brute, 7);
      // the two exact searches of the tree (kd-tree here, grid in core/geometry.ts) give the same number
      expect(minPointDistance(a, b, 10)).toBe(d);
    }
  });

  it("is capped at the cutoff when the sets are farther apart", () => {
    const rng = new Rng("cap");
    const a = blob(rng, 100, [0, 0, 0], 0.05),
      b = blob(rng, 100, [2, 0, 0], 0.05);
    expect(closestDistance(indexPoints(a), indexPoints(b), 0.25)).toBe(0.25);
    expect(minPointDistance(a, b, 0.25)).toBe(0.25);
  });
});

describe("closestDistance shortcuts", () => {
  it("gives the cutoff when the boxes come within it but the points do not, and the exact distance on a diagonal", () => {
    const rng = new Rng("diagonal");
    // two tight blobs offset on the diagonal: their boxes come closer than their points do
    const a = blob(rng, 400, [0, 0, 0], 0.02),
      b = blob(rng, 900, [0.3, 0.3, 0.3], 0.02);
    const d = closestDistance(indexPoints(a), indexPoints(b), 10);
    expect(d).toBeCloseTo(bruteMin(a, b), 7);
    expect(closestDistance(indexPoints(b), indexPoints(a), 10)).toBe(d);
    expect(minPointDistance(a, b, 10)).toBe(d);
    const cut = 0.9 * d;
    expect(closestDistance(indexPoints(a), indexPoints(b), cut)).toBe(cut);
    expect(closestDistance(indexPoints(a), indexPoints(new Float32Array(0)), 0.5)).toBe(0.5);
  });
});
