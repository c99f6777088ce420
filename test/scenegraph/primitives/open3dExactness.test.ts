/**
 * Exactness against Open3D 0.16 (Debian python3-open3d via bench/peers/o3d_peer.py), on seeded
 * synthetic scenes generated at run time: voxel downsampling must give the same points bit for bit,
 * DBSCAN the same labels.
 * Without Debian's python3-open3d they are skipped, naming the package (test/helpers/system.ts); CI installs it
 * and sets ESI3D_REQUIRE_SYSTEM_PACKAGES, so there they never skip.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { voxelDownsample } from "../../../scenegraph/primitives/voxelDownsample.js";
import { dbscanDetailed } from "../../../scenegraph/primitives/dbscan.js";
import { TempDir, canonicalLabels, readF32, readI32, requireOpen3d, runO3dPeer, sortedTuples, syntheticScene, writeF32 } from "./helpers.js";
import { needs } from "../../helpers/system.js";

const o3d = needs("python3-numpy", "python3-open3d");

let tmp: TempDir;
beforeAll(() => {
  if (o3d.skip) return;
  requireOpen3d();
  tmp = new TempDir();
});
afterAll(() => tmp?.dispose());

function countDifferentTuples(a: Float32Array, b: Float32Array): number {
  const sa = sortedTuples(a),
    sb = sortedTuples(b);
  let diff = 0;
  // compare as bit patterns: identical float32 values, not "close" ones
  const ua = new Uint32Array(sa.buffer),
    ub = new Uint32Array(sb.buffer);
  for (let i = 0; i < ua.length; i += 3) if (ua[i] !== ub[i] || ua[i + 1] !== ub[i + 1] || ua[i + 2] !== ub[i + 2]) diff++;
  return diff;
}

describe.skipIf(o3d.skip)(o3d.title("voxelDownsample = Open3D voxel_down_sample"), () => {
  for (const [n, voxel, seed] of [
    [150_000, 0.02, "a"],
    [60_000, 0.05, "b"],
    [80_000, 0.013, "c"],
  ] as const) {
    it(`${n} points, voxel ${voxel}: same count, bit-identical coordinates`, () => {
      const xyz = syntheticScene(n, seed);
      const f = tmp.file(`vox_${seed}.f32`),
        g = tmp.file(`vox_${seed}_o3d.f32`);
      writeF32(f, xyz);
      const info = runO3dPeer(["--in", f, "--op", "voxel", "--voxel", String(voxel), "--out", g]);
      const ours = voxelDownsample(xyz, voxel);
      const theirs = readF32(g);
      // both grouping strategies give the same result, order included
      for (const grouping of ["dense", "sort"] as const) {
        const other = voxelDownsample(xyz, voxel, { grouping });
        expect(other.xyz).toEqual(ours.xyz);
        expect(other.voxelOfPoint).toEqual(ours.voxelOfPoint);
      }
      expect(ours.count).toBe(info.points_out);
      expect(ours.count).toBe(theirs.length / 3);
      expect(countDifferentTuples(ours.xyz, theirs)).toBe(0);
    });
  }

  it("the index of each input point's voxel is consistent with the output means", () => {
    const xyz = syntheticScene(20_000, "idx");
    const r = voxelDownsample(xyz, 0.03);
    const sums = new Float64Array(3 * r.count),
      cnt = new Int32Array(r.count);
    for (let i = 0; i < xyz.length / 3; i++) {
      const v = r.voxelOfPoint[i]!;
      for (let a = 0; a < 3; a++) sums[3 * v + a]! += xyz[3 * i + a]!;
      cnt[v]!++;
    }
    for (let v = 0; v < r.count; v++) {
      expect(cnt[v]).toBe(r.pointsPerVoxel[v]);
      for (let a = 0; a < 3; a++) expect(Math.fround(sums[3 * v + a]! / cnt[v]!)).toBe(r.xyz[3 * v + a]);
    }
  });
});

describe.skipIf(o3d.skip)(o3d.title("dbscan = Open3D cluster_dbscan"), () => {
  for (const [n, voxel, eps, minPts, seed] of [
    [150_000, 0.02, 0.05, 10, "d"],
    [100_000, 0.025, 0.1, 10, "e"],
    [60_000, 0.02, 0.03, 4, "f"],
  ] as const) {
    it(`${n} points downsampled at ${voxel}, eps ${eps}, min ${minPts}: identical labels`, () => {
      const down = voxelDownsample(syntheticScene(n, seed), voxel).xyz;
      const f = tmp.file(`db_${seed}.f32`),
        g = tmp.file(`db_${seed}.i32`);
      writeF32(f, down);
      const info = runO3dPeer(["--in", f, "--op", "dbscan", "--eps", String(eps), "--min-points", String(minPts), "--out", g]);
      const theirs = readI32(g);
      const ours = dbscanDetailed(down, eps, minPts);
      expect(ours.clusterCount).toBe(info.clusters);
      // identical up to renumbering (the requirement) ...
      expect(canonicalLabels(ours.labels)).toEqual(canonicalLabels(theirs));
      // ... and in fact identical, numbering included (same seed order as Open3D's loop)
      expect(ours.labels).toEqual(theirs);
    });
  }

  it("finds the scene's objects + floor at ConceptGraphs' defaults", () => {
    const down = voxelDownsample(syntheticScene(150_000, "d"), 0.02).xyz;
    expect(dbscanDetailed(down, 0.05, 10).clusterCount).toBe(13); // 12 objects + floor
  });
});
