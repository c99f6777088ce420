/**
 * voxelStatsOf sums a detection's members by runs of one voxel and finds pixel rows once per row
 * (scenegraph/instances/memberStats.ts). It must give exactly the per-member sums it replaces: the same
 * doubles (confidences are added in member order) and boxes, for members in pixel order (as detections
 * come) and in any order, with voxels in runs and scattered.
 */
import { describe, expect, it } from "vitest";
import { Rng } from "../../core/math/rng.js";
import { voxelStatsOf } from "../../scenegraph/instances/memberStats.js";
import { allocateCloud, type PointCloud } from "../../reconstruct/pointcloud.js";

/** The sums as they were made, member by member. */
function byMember(cloud: PointCloud, members: Uint32Array, memberVoxel: Int32Array, voxels: number) {
  const sums = new Float64Array(5 * voxels),
    boxes = new Int32Array(4 * voxels);
  for (let v = 0; v < voxels; v++) (boxes[4 * v] = boxes[4 * v + 1] = 2 ** 30), (boxes[4 * v + 2] = boxes[4 * v + 3] = -1);
  const W = cloud.imageWidth;
  for (let m = 0; m < members.length; m++) {
    const i = members[m]!,
      v = memberVoxel[m]!,
      s = 5 * v,
      b = 4 * v;
    sums[s]!++;
    sums[s + 1]! += cloud.confidence[i]!;
    sums[s + 2]! += cloud.rgb[3 * i]!;
    sums[s + 3]! += cloud.rgb[3 * i + 1]!;
    sums[s + 4]! += cloud.rgb[3 * i + 2]!;
    const p = cloud.pixel[i]!,
      y = Math.floor(p / W),
      x = p - y * W;
    (boxes[b] = Math.min(boxes[b]!, x)),
      (boxes[b + 1] = Math.min(boxes[b + 1]!, y)),
      (boxes[b + 2] = Math.max(boxes[b + 2]!, x)),
      (boxes[b + 3] = Math.max(boxes[b + 3]!, y));
  }
  return { sums, boxes };
}

describe("voxelStatsOf", () => {
  it("gives the member-by-member sums and boxes, bit for bit", () => {
    const rng = new Rng("member-stats");
    const W = 37,
      H = 23,
      N = W * H;
    const cloud = allocateCloud(N, { categories: {}, imageWidth: W, imageHeight: H, source: "gt", meta: {} } as unknown as PointCloud);
    for (let i = 0; i < N; i++) {
      cloud.pixel[i] = i;
      cloud.confidence[i] = Math.fround(1 + rng.next() * 3);
      for (let c = 0; c < 3; c++) cloud.rgb[3 * i + c] = rng.int(0, 255);
    }
    for (const [voxels, runLength, shuffled] of [
      [1, 1, false],
      [5, 4, false],
      [40, 7, false],
      [40, 1, true],
      [300, 2, true],
    ] as const) {
      let members = Uint32Array.from({ length: N }, (_, i) => i).filter(() => rng.next() < 0.7);
      if (shuffled) members = Uint32Array.from(rng.shuffle([...members]));
      const memberVoxel = new Int32Array(members.length);
      for (let m = 0, v = 0; m < members.length; m++) {
        if (m % runLength === 0) v = rng.int(0, voxels - 1);
        memberVoxel[m] = v;
      }
      const got = voxelStatsOf(cloud, members, memberVoxel, voxels, 3);
      const want = byMember(cloud, members, memberVoxel, voxels);
      expect(got.view).toBe(3);
      expect(got.sums).toEqual(want.sums);
      expect(got.boxes).toEqual(want.boxes);
    }
  });
});
