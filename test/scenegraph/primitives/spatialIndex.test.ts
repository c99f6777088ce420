/** Spatial indexes against brute force: grid radius queries, kd-tree k-NN / radius / nearest, all-points k-NN. */
import { describe, expect, it } from "vitest";
import { Rng } from "../../../core/math/rng.js";
import { GRID_ROUNDING_MARGIN, VoxelHashGrid, neighborCountsSorted } from "../../../scenegraph/primitives/hashGrid.js";
import { KdTree3 } from "../../../scenegraph/primitives/kdtree.js";
import { CellLookup } from "../../../scenegraph/primitives/cellLookup.js";
import { computeBounds } from "../../../scenegraph/primitives/bounds.js";
import { syntheticScene } from "./helpers.js";

function randomCloud(n: number, seed: string, scale = 1): Float32Array {
  const rng = new Rng(seed);
  const a = new Float32Array(3 * n);
  for (let i = 0; i < 3 * n; i++) a[i] = rng.uniform(-scale, scale);
  return a;
}

function d2(a: Float32Array, i: number, x: number, y: number, z: number): number {
  const dx = x - a[3 * i]!,
    dy = y - a[3 * i + 1]!,
    dz = z - a[3 * i + 2]!;
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
        const x = cloud[3 * i]! + rng.uniform(-0.05, 0.05),
          y = cloud[3 * i + 1]! + rng.uniform(-0.05, 0.05),
          z = cloud[3 * i + 2]! + (q % 10 === 0 ? 3 : 0);
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
        if (Math.abs(grid.cellCoords[3 * d]! - cx) <= 1 && Math.abs(grid.cellCoords[3 * d + 1]! - cy) <= 1 && Math.abs(grid.cellCoords[3 * d + 2]! - cz) <= 1)
          expected.push(d);
      }
      expect(Array.from(ids.subarray(start[c]!, start[c + 1]!))).toEqual(expected);
    }
  });

  it("neighborCountsSorted (itself included) equal brute force", () => {
    const small = syntheticScene(4000, "counts", { objects: 3 });
    // the grid's cell must exceed the radius by GRID_ROUNDING_MARGIN (a clear error otherwise)
    expect(() => neighborCountsSorted(new VoxelHashGrid(small, 0.06), 0.06)).toThrow(/must be at least the radius/);
    const grid = new VoxelHashGrid(small, 0.06 * (1 + 2 * GRID_ROUNDING_MARGIN));
    const sorted = neighborCountsSorted(grid, 0.06);
    // by original index: sorted position p holds point grid.order[p]
    const counts = new Int32Array(grid.count);
    for (let p = 0; p < grid.count; p++) counts[grid.order[p]!] = sorted[p]!;
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

  it("computeBounds: the bounds of a cloud, and the first point with a NaN or an infinite coordinate named", () => {
    expect(computeBounds(new Float32Array([1, -2, 3, -1, 5, 0.5, 0, 0, 0]))).toEqual({ min: [-1, -2, 0], max: [1, 5, 3] });
    // an infinity after a NaN, and a NaN after an infinity: the earlier point is the one named
    expect(() => computeBounds(new Float32Array([0, 0, 0, 1, 2, 3, 4, Infinity, 0, NaN, 0, 0]))).toThrow(
      /point 2 has a non-finite coordinate \(4, Infinity, 0\)/,
    );
    expect(() => computeBounds(new Float32Array([0, 0, 0, 0, NaN, 0, 0, 0, -Infinity]), "cloud")).toThrow(
      /^cloud: point 1 has a non-finite coordinate \(0, NaN, 0\)/,
    );
    expect(() => computeBounds(new Float32Array(0))).toThrow(/empty point cloud/);
  });
});

describe("KdTree3", () => {
  const cloud = randomCloud(30_000, "kd");
  const tree = new KdTree3(cloud);
  const rng = new Rng("kd-queries");

  it("k-NN distances equal brute force exactly, nearest first; indices match the distances", () => {
    for (let q = 0; q < 80; q++) {
      const x = rng.uniform(-1.2, 1.2),
        y = rng.uniform(-1.2, 1.2),
        z = rng.uniform(-1.2, 1.2);
      const k = [1, 5, 20, 64][q % 4]!;
      const r = tree.knn(x, y, z, k);
      expect(Array.from(r.d2)).toEqual(bruteKnnD2(cloud, x, y, z, k));
      for (let t = 0; t < r.count; t++) expect(d2(cloud, r.indices[t]!, x, y, z)).toBe(r.d2[t]);
      expect(new Set(r.indices).size).toBe(r.count);
    }
  });

  it("radius queries and nearest equal brute force", () => {
    for (let q = 0; q < 40; q++) {
      const x = rng.uniform(-1, 1),
        y = rng.uniform(-1, 1),
        z = rng.uniform(-1, 1);
      expect(tree.within(x, y, z, 0.08).sort((a, b) => a - b)).toEqual(bruteWithin(cloud, x, y, z, 0.08));
      const j = tree.nearest(x, y, z);
      expect(tree.lastNearestD2).toBe(bruteKnnD2(cloud, x, y, z, 1)[0]);
      expect(d2(cloud, j, x, y, z)).toBe(tree.lastNearestD2);
    }
    expect(tree.nearest(5, 5, 5, 0.1)).toBe(-1);
  });

  it("nearest within a bound equals brute force on dense surfaces, at every leaf size (pruning by the cells' boxes)", () => {
    // two perpendicular dense faces (the case the cells' boxes prune): queries 0.05-0.6 m off them, with and
    // without a bound, and duplicated points
    const r2 = new Rng("kd-faces");
    const pts: number[] = [];
    for (let i = 0; i < 6000; i++) pts.push(r2.uniform(0, 1), r2.uniform(0, 1), 0);
    for (let i = 0; i < 4000; i++) pts.push(0, r2.uniform(0, 1), r2.uniform(0, 0.8));
    pts.push(...pts.slice(0, 30));
    const faces = Float32Array.from(pts);
    for (const leaf of [1, 2, 5, 32]) {
      const t = new KdTree3(faces, leaf);
      for (let q = 0; q < 60; q++) {
        const x = r2.uniform(-0.6, 1.6),
          y = r2.uniform(-0.6, 1.6),
          z = r2.uniform(0.05, 0.6);
        const bound = [Infinity, 0.3, 0.1][q % 3]!;
        const want = bruteKnnD2(faces, x, y, z, 1)[0]!;
        const j = t.nearest(x, y, z, bound);
        if (want < bound * bound) {
          expect(t.lastNearestD2, `leaf ${leaf} query ${q}`).toBe(want);
          expect(d2(faces, j, x, y, z)).toBe(want);
        } else expect(j, `leaf ${leaf} query ${q}`).toBe(-1);
      }
    }
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

describe("CellLookup", () => {
  // the hashed layout answers empty cells from its occupancy bits up to 2^24 cells (the bitmap's limit), by
  // probing above it: both must give every key's id and -1 for every other cell
  for (const gridCells of [1 << 24, (1 << 24) + 64]) {
    it(`gives each key its id and -1 elsewhere (hashed, ${gridCells} cells)`, () => {
      const rng = new Rng(`lookup-${gridCells}`);
      const keys = [...new Set(Array.from({ length: 3000 }, () => rng.int(0, gridCells - 1)))].sort((a, b) => a - b);
      const lookup = new CellLookup(Float64Array.from(keys), gridCells, "hashed");
      const idOf = new Map(keys.map((k, i) => [k, i] as [number, number]));
      keys.forEach((k, i) => expect(lookup.get(k)).toBe(i));
      for (let q = 0; q < 20000; q++) {
        const k = rng.int(0, gridCells - 1);
        expect(lookup.get(k)).toBe(idOf.get(k) ?? -1);
      }
    });
  }
});
