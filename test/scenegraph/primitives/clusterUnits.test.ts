/** DBSCAN and voxel downsampling on small hand-made clouds whose answers are known. */
import { describe, expect, it } from "vitest";
import { dbscanDetailed } from "../../../scenegraph/primitives/dbscan.js";
import { voxelDownsample } from "../../../scenegraph/primitives/voxelDownsample.js";

const pts = (...p: number[][]) => Float32Array.from(p.flat());
/** DBSCAN's label per point (-1 noise), as the instance builders read it. */
const labelsOf = (xyz: Float32Array, eps: number, minPoints: number) => dbscanDetailed(xyz, eps, minPoints).labels;

describe("dbscan (Open3D rules)", () => {
  it("counts the point itself: 3 points within eps form a cluster at minPoints 3", () => {
    const xyz = pts([0, 0, 0], [0.1, 0, 0], [0.2, 0, 0], [5, 0, 0]);
    expect(Array.from(labelsOf(xyz, 0.15, 3))).toEqual([0, 0, 0, -1]);
    expect(Array.from(labelsOf(xyz, 0.15, 4))).toEqual([-1, -1, -1, -1]);
  });

  it("uses strictly-less-than eps", () => {
    const xyz = pts([0, 0, 0], [0.5, 0, 0]);
    expect(Array.from(labelsOf(xyz, 0.5, 2))).toEqual([-1, -1]);
    expect(Array.from(labelsOf(xyz, 0.5000001, 2))).toEqual([0, 0]);
  });

  it("labels clusters in order of their first core point and gives a shared border point to the first cluster", () => {
    // border point B (index 0) lies within eps of one core point of each cluster; with itself it has
    // only 3 neighbours, so it is not core. Cluster R (indices 1-4) holds the lowest core index, so it
    // is label 0 and claims B; L is label 1.
    const R = [
        [0.9, 0, 0],
        [1.1, 0, 0],
        [1.3, 0, 0],
        [1.5, 0, 0],
      ],
      L = R.map(([x, y, z]) => [-x!, y!, z!]);
    const r = dbscanDetailed(pts([0, 0, 0], ...R, ...L), 1.0, 4);
    expect(r.clusterCount).toBe(2);
    expect(Array.from(r.labels)).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1]);
    // list L first: now L is label 0 and claims B
    expect(Array.from(labelsOf(pts([0, 0, 0], ...L, ...R), 1.0, 4))).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1]);
    // and B listed last does not change who claims it: the cluster created first
    expect(Array.from(labelsOf(pts(...R, ...L, [0, 0, 0]), 1.0, 4))).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 0]);
  });

  it("a noise point reached later by a cluster becomes a border point", () => {
    // index 0 is visited first and is not core (noise), then the cluster seeded at 1 absorbs it
    const xyz = pts([0, 0, 0], [0.3, 0, 0], [0.35, 0.05, 0], [0.4, 0, 0]);
    expect(Array.from(labelsOf(xyz, 0.32, 3))).toEqual([0, 0, 0, 0]);
  });

  it("empty input and bad parameters", () => {
    expect(labelsOf(new Float32Array(0), 0.1, 3).length).toBe(0);
    expect(() => labelsOf(pts([0, 0, 0]), 0, 3)).toThrow(/eps must be a positive/);
    expect(() => labelsOf(pts([0, 0, 0]), 0.1, 0)).toThrow(/minPoints must be a positive integer/);
  });
});

describe("voxelDownsample (Open3D rules)", () => {
  it("origin at min - voxel/2: points within half a voxel of the minimum share the first voxel", () => {
    const xyz = pts([0, 0, 0], [0.049, 0, 0], [0.051, 0, 0], [0.149, 0, 0]);
    const r = voxelDownsample(xyz, 0.1);
    expect(r.count).toBe(2);
    expect(Array.from(r.voxelOfPoint)).toEqual([0, 0, 1, 1]);
    expect(Array.from(r.pointsPerVoxel)).toEqual([2, 2]);
    expect(r.xyz[0]).toBe(Math.fround((Math.fround(0) + Math.fround(0.049)) / 2));
  });

  it("averages colours per voxel and orders voxels x fastest, then y, then z", () => {
    const xyz = pts([0, 0, 1], [0, 1, 0], [1, 0, 0], [0, 0, 0], [0.01, 0, 0]);
    const rgb = Uint8Array.from([255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30, 11, 21, 31]);
    const r = voxelDownsample(xyz, 0.5, { rgb });
    expect(r.count).toBe(4);
    expect(Array.from(r.xyz)).toEqual([0.004999999888241291, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1].map((v) => Math.fround(v)));
    expect(Array.from(r.rgb!)).toEqual([11, 21, 31, 0, 0, 255, 0, 255, 0, 255, 0, 0]); // (10+11)/2 = 10.5 rounds to 11
  });

  it("empty input and bad parameters", () => {
    expect(voxelDownsample(new Float32Array(0), 0.1).count).toBe(0);
    expect(() => voxelDownsample(pts([0, 0, 0]), -1)).toThrow(/voxelSize must be a positive/);
    expect(() => voxelDownsample(pts([0, 0, 0]), 0.1, { rgb: new Uint8Array(2) })).toThrow(/rgb: length 2, expected 3/);
  });
});
