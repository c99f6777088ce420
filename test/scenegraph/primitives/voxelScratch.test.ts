/**
 * The dense voxel downsampling keeps its table and sums between calls and emits voxels by a table scan or by
 * sorted keys (scenegraph/primitives/voxelDownsample.ts). Calls one after another, on clouds that take either
 * emission and grids larger than the kept scratch, must each give what the radix-sort grouping gives (which
 * keeps nothing between calls), order included: a cell or a sum left over from an earlier call would show.
 */
import { describe, expect, it } from "vitest";
import { Rng } from "../../../core/math/rng.js";
import { voxelDownsample } from "../../../scenegraph/primitives/voxelDownsample.js";

/** voxelDownsample's paths: its table while the grid has at most 32 cells a point, scanned in raster order up to 64 cells a voxel. */
const DENSE_CELLS_PER_POINT = 32,
  SCAN_CELLS_PER_VOXEL = 64;

const VOXEL = 0.025;

/** `clusters` blobs of `per` points each, `spread` m across, centred at random within `extent` m. */
function blobs(rng: Rng, clusters: number, per: number, spread: number, extent: number): Float32Array {
  const out = new Float32Array(3 * clusters * per);
  for (let c = 0, o = 0; c < clusters; c++) {
    const cx = rng.uniform(0, extent),
      cy = rng.uniform(0, extent),
      cz = rng.uniform(0, extent);
    for (let i = 0; i < per; i++) {
      out[o++] = cx + rng.uniform(-spread, spread);
      out[o++] = cy + rng.uniform(-spread, spread);
      out[o++] = cz + rng.uniform(-spread, spread);
    }
  }
  return out;
}

/** The dense path's grid size for a cloud, as voxelDownsample computes it. */
function cells(xyz: Float32Array): number {
  const min = [Infinity, Infinity, Infinity],
    max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < xyz.length; i++) (min[i % 3] = Math.min(min[i % 3]!, xyz[i]!)), (max[i % 3] = Math.max(max[i % 3]!, xyz[i]!));
  return [0, 1, 2].reduce((n, a) => n * (Math.floor((max[a]! - (min[a]! - VOXEL / 2)) / VOXEL) + 1), 1);
}

describe("voxelDownsample's kept scratch", () => {
  it("gives the radix grouping's result on every call, by table scan and by sorted keys, in any order of sizes", () => {
    const rng = new Rng("voxel-scratch");
    const seen = { scan: 0, sorted: 0, fresh: 0 };
    // dense blobs (scan), a few small blobs far apart (sorted keys), a cloud whose grid is larger than the
    // kept scratch, and small ones after each so their cells and voxels land where earlier calls wrote
    const clouds = [
      blobs(rng, 1, 20_000, 0.3, 0.1),
      blobs(rng, 4, 5000, 0.01, 1.5),
      blobs(rng, 2, 400, 0.05, 0.5),
      blobs(rng, 4, 50_000, 0.6, 2.0),
      blobs(rng, 6, 3000, 0.01, 1.2),
      blobs(rng, 1, 5000, 0.2, 0),
      blobs(rng, 3, 2000, 0.01, 1.0),
      blobs(rng, 1, 200_000, 2.2, 0),
      blobs(rng, 3, 150, 0.01, 0.5),
    ];
    for (const xyz of clouds) {
      const got = voxelDownsample(xyz, VOXEL),
        want = voxelDownsample(xyz, VOXEL, { grouping: "sort" });
      expect(got.xyz).toEqual(want.xyz);
      expect(got.voxelOfPoint).toEqual(want.voxelOfPoint);
      expect(got.pointsPerVoxel).toEqual(want.pointsPerVoxel);
      const c = cells(xyz),
        n = xyz.length / 3;
      expect(c).toBeLessThanOrEqual(DENSE_CELLS_PER_POINT * n);
      if (c > 1 << 22) seen.fresh++;
      else if (c <= SCAN_CELLS_PER_VOXEL * got.count) seen.scan++;
      else seen.sorted++;
    }
    expect(seen.scan).toBeGreaterThanOrEqual(2);
    expect(seen.sorted).toBeGreaterThanOrEqual(3);
    expect(seen.fresh).toBe(1);
  });
});
