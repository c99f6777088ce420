/** Spatial indexes against brute force: grid radius queries, kd-tree k-NN / radius / nearest, all-points k-NN. */
import { describe, expect, it } from "vitest";
import { Rng } from "../../../src/core/math/rng.js";
import { GRID_ROUNDING_MARGIN, VoxelHashGrid, neighborCounts } from "../../../scenegraph/primitives/hashGrid.js";
import { KdTree3 } from "../../../scenegraph/primitives/kdtree.js";
import { knnStats, meanKnnDistances } from "../../../scenegraph/primitives/knnGrid.js";
import { releaseKnnMemory } from "../../../scenegraph/primitives/knnKernelHost.js";
import { syntheticScene } from "./helpers.js";

function randomCloud(n: number, seed: string, scale = 1): Float32Array {
  const rng = new Rng(seed);
  const a = new Float32Array(3 * n);
  for (let i = 0; i < 3 * n; i++) a[i] = rng.uniform(-scale, scale);
  return a;
}

function d2(a: Float32Array, i: number, x: number, y: number, z: number): number {
  const dx = x - a[3 * i]!, dy = y - a[3 * i + 1]!, dz = z - a[3 * i + 2]!;
  return dx * dx + dy * dy + dz * dz;
}

function bruteWithin(a: Float32Array, x: number, y: number, z: number, r: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < a.length / 3; i++) if (d2(a, i, x, y, z) < r * r) out.push(i);
  return out;
}

/** The k smallest squared distances, ascending (simple insertion into a sorted list). */
function bruteKnnD2(a: Float32Array, x: number, y: number, z: number, k: number): number[] {
  const best: number[] = [];
  for (let i = 0; i < a.length / 3; i++) {
    const v = d2(a, i, x, y, z);
    if (best.length === k && v >= best[k - 1]!) continue;
    let t = best.length === k ? k - 1 : best.length;
    best[t] = v;
    while (t > 0 && best[t - 1]! > v) {
      best[t] = best[t - 1]!;
      best[t - 1] = v;
      t--;
    }
  }
  return best;
}

describe("VoxelHashGrid", () => {
  const cloud = syntheticScene(20_000, "grid", { objects: 6 });
  const rng = new Rng("grid-queries");

  for (const layout of [undefined, "dense", "hashed"] as const) {
    it(`radius queries equal brute force (layout ${layout ?? "auto"}, radius below, at and above the cell size)`, () => {
      const grid = new VoxelHashGrid(cloud, 0.05, { layout });
      for (let q = 0; q < 60; q++) {
        const i = rng.int(0, cloud.length / 3 - 1);
        // queries at cloud points and at points off the cloud (also outside its bounds)
        const x = cloud[3 * i]! + rng.uniform(-0.05, 0.05), y = cloud[3 * i + 1]! + rng.uniform(-0.05, 0.05), z = cloud[3 * i + 2]! + (q % 10 === 0 ? 3 : 0);
        for (const r of [0.02, 0.05, 0.13]) {
          const expected = bruteWithin(cloud, x, y, z, r);
          expect(grid.within(x, y, z, r).sort((p, s) => p - s)).toEqual(expected);
          expect(grid.countWithin(x, y, z, r)).toBe(expected.length);
          expect(grid.anyWithin(x, y, z, r)).toBe(expected.length > 0);
        }
      }
    });
  }

  it("sorts points by cell in raster order, stably, and its 27-neighbourhoods are complete", () => {
    const grid = new VoxelHashGrid(cloud, 0.07);
    for (let c = 0; c + 1 < grid.cellCount; c++) expect(grid.cellKeys[c]!).toBeLessThan(grid.cellKeys[c + 1]!);
    for (let c = 0; c < grid.cellCount; c++) {
      for (let p = grid.cellStart[c]! + 1; p < grid.cellStart[c + 1]!; p++) expect(grid.order[p]!).toBeGreaterThan(grid.order[p - 1]!);
    }
    const { start, ids } = grid.neighborCells();
    for (let c = 0; c < grid.cellCount; c += 7) {
      const [cx, cy, cz] = [grid.cellCoords[3 * c]!, grid.cellCoords[3 * c + 1]!, grid.cellCoords[3 * c + 2]!];
      const expected: number[] = [];
      for (let d = 0; d < grid.cellCount; d++) {
        if (Math.abs(grid.cellCoords[3 * d]! - cx) <= 1 && Math.abs(grid.cellCoords[3 * d + 1]! - cy) <= 1 && Math.abs(grid.cellCoords[3 * d + 2]! - cz) <= 1) expected.push(d);
      }
      expect(Array.from(ids.subarray(start[c]!, start[c + 1]!))).toEqual(expected);
    }
  });

  it("neighborCounts (itself included) equal brute force", () => {
    const small = syntheticScene(4000, "counts", { objects: 3 });
    // the grid's cell must exceed the radius by GRID_ROUNDING_MARGIN (a clear error otherwise)
    expect(() => neighborCounts(new VoxelHashGrid(small, 0.06), 0.06)).toThrow(/must be at least the radius/);
    const counts = neighborCounts(new VoxelHashGrid(small, 0.06 * (1 + 2 * GRID_ROUNDING_MARGIN)), 0.06);
    for (let i = 0; i < small.length / 3; i += 13) {
      expect(counts[i]).toBe(bruteWithin(small, small[3 * i]!, small[3 * i + 1]!, small[3 * i + 2]!, 0.06).length);
    }
  });

  it("handles an empty cloud and rejects bad input clearly", () => {
    const g = new VoxelHashGrid(new Float32Array(0), 0.1);
    expect(g.cellCount).toBe(0);
    expect(g.within(0, 0, 0, 1)).toEqual([]);
    expect(() => new VoxelHashGrid(new Float32Array([0, 0, NaN]), 0.1)).toThrow(/point 0 has a non-finite coordinate/);
    expect(() => new VoxelHashGrid(new Float32Array(4), 0.1)).toThrow(/not a multiple of 3/);
    expect(() => new VoxelHashGrid(new Float32Array(3), 0)).toThrow(/cellSize must be a positive/);
  });
});

describe("KdTree3", () => {
  const cloud = randomCloud(30_000, "kd");
  const tree = new KdTree3(cloud);
  const rng = new Rng("kd-queries");

  it("k-NN distances equal brute force exactly, nearest first; indices match the distances", () => {
    for (let q = 0; q < 80; q++) {
      const x = rng.uniform(-1.2, 1.2), y = rng.uniform(-1.2, 1.2), z = rng.uniform(-1.2, 1.2);
      const k = [1, 5, 20, 64][q % 4]!;
      const r = tree.knn(x, y, z, k);
      expect(Array.from(r.d2)).toEqual(bruteKnnD2(cloud, x, y, z, k));
      for (let t = 0; t < r.count; t++) expect(d2(cloud, r.indices[t]!, x, y, z)).toBe(r.d2[t]);
      expect(new Set(r.indices).size).toBe(r.count);
    }
  });

  it("radius queries and nearest equal brute force", () => {
    for (let q = 0; q < 40; q++) {
      const x = rng.uniform(-1, 1), y = rng.uniform(-1, 1), z = rng.uniform(-1, 1);
      expect(tree.within(x, y, z, 0.08).sort((a, b) => a - b)).toEqual(bruteWithin(cloud, x, y, z, 0.08));
      const j = tree.nearest(x, y, z);
      expect(tree.lastNearestD2).toBe(bruteKnnD2(cloud, x, y, z, 1)[0]);
      expect(d2(cloud, j, x, y, z)).toBe(tree.lastNearestD2);
    }
    expect(tree.nearest(5, 5, 5, 0.1)).toBe(-1);
  });

  it("k larger than the cloud returns every point; duplicates and tiny clouds work", () => {
    const tiny = new Float32Array([0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 2, 0]);
    const t = new KdTree3(tiny, 1);
    const r = t.knn(0, 0, 0, 10);
    expect(r.count).toBe(4);
    expect(Array.from(r.d2)).toEqual([0, 0, 1, 4]);
    expect(new KdTree3(new Float32Array(0)).knn(0, 0, 0, 3).count).toBe(0);
  });
});

describe("meanKnnDistances (all-points k-NN on the grid)", () => {
  function bruteMean(a: Float32Array, i: number, k: number): number {
    const d = bruteKnnD2(a, a[3 * i]!, a[3 * i + 1]!, a[3 * i + 2]!, k);
    let s = 0;
    for (const v of d) s += Math.sqrt(v); // nearest first, as Open3D sums
    return s / d.length;
  }

  it("equals brute force bit for bit, including points the 27 cells cannot settle", () => {
    const cloud = syntheticScene(12_000, "knn", { objects: 5, outlierFraction: 0.01 });
    const avg = meanKnnDistances(cloud, 20);
    expect(knnStats.fallbacks).toBeGreaterThan(0); // the outliers take the coarse search
    for (let i = 0; i < cloud.length / 3; i += 23) expect(avg[i]).toBe(bruteMean(cloud, i, 20));
    // every outlier (the points that needed the coarse search) too
    for (let i = 0; i < cloud.length / 3; i++) if (cloud[3 * i + 2]! > 0.05 && avg[i]! > 0.05) expect(avg[i]).toBe(bruteMean(cloud, i, 20));
  });

  it("is exact whatever the cell size (forced tiny and huge cells)", () => {
    const cloud = randomCloud(3000, "knn-cells", 0.5);
    for (const h of [0.003, 0.05, 2]) {
      const avg = meanKnnDistances(cloud, 8, h);
      for (let i = 0; i < 3000; i += 11) expect(avg[i]).toBe(bruteMean(cloud, i, 8));
    }
  });

  it("stays exact when the kernel memory is reused by a smaller cloud, outgrown by a larger one, or released", () => {
    const big = syntheticScene(20_000, "knn-reuse-big", { objects: 4, outlierFraction: 0.002 });
    const small = randomCloud(500, "knn-reuse-small", 0.2);
    const check = (cloud: Float32Array, k: number, step: number): Float64Array => {
      const avg = meanKnnDistances(cloud, k);
      for (let i = 0; i < cloud.length / 3; i += step) expect(avg[i]).toBe(bruteMean(cloud, i, k));
      return avg;
    };
    releaseKnnMemory();
    check(small, 6, 1); // fresh memory, sized for the small cloud
    const first = check(big, 20, 37); // outgrows it
    check(small, 6, 1); // reuses the big one, whose old contents must not leak in
    expect(check(big, 20, 37)).toEqual(first);
    releaseKnnMemory();
    expect(meanKnnDistances(big, 20)).toEqual(first);
  });

  it("handles runs of identical points (zero k-th distances) followed by ordinary ones", () => {
    const rest = randomCloud(400, "knn-dups", 0.3);
    const cloud = new Float32Array(3 * 430);
    for (let i = 0; i < 30; i++) cloud.set([0.1, 0.1, 0.1], 3 * i); // 30 copies of one point, then the rest
    cloud.set(rest, 90);
    const avg = meanKnnDistances(cloud, 8);
    for (let i = 0; i < 30; i++) expect(avg[i]).toBe(0);
    for (let i = 30; i < 430; i++) expect(avg[i]).toBe(bruteMean(cloud, i, 8));
  });

  it("stays exact on piles of copies (a crowded cell: copies grouped, each group computed once)", () => {
    const rest = randomCloud(3000, "knn-piles", 0.4);
    const cloud = new Float32Array(3 * 5012);
    const pileA = [0.2, 0.2, 0.2], pileB = [0.2003, 0.2001, 0.2];
    // 1999 copies of A with 13 copies of B (fewer than k, right next to A) scattered among them
    const isB = (i: number) => i % 167 === 5;
    for (let i = 0; i < 2012; i++) cloud.set(isB(i) ? pileB : pileA, 3 * i);
    cloud.set(rest, 3 * 2012);
    const avg = meanKnnDistances(cloud, 20);
    for (let i = 0; i < 2012; i++) {
      if (!isB(i)) expect(avg[i]).toBe(0);
      else expect(avg[i]).toBe(bruteMean(cloud, i, 20)); // 13 zeros and 7 distances to A
    }
    expect(avg[5]).toBeGreaterThan(0);
    for (let i = 2012; i < 5012; i += 7) expect(avg[i]).toBe(bruteMean(cloud, i, 20));
  });

  it("k = 1 finds each point itself (distance 0)", () => {
    const avg = meanKnnDistances(randomCloud(2000, "knn-k1", 0.5), 1);
    expect(avg.every((a) => a === 0)).toBe(true);
  });

  it("k >= number of points averages over all of them", () => {
    const cloud = new Float32Array([0, 0, 0, 3, 0, 0, 0, 4, 0]);
    const avg = meanKnnDistances(cloud, 5);
    expect(avg[0]).toBeCloseTo((0 + 3 + 4) / 3, 12);
    expect(avg[1]).toBeCloseTo((0 + 3 + 5) / 3, 12);
  });
});
