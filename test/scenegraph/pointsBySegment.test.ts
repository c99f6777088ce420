/**
 * pointsBySegment groups a cloud's points by their mask segment by runs (scenegraph/instances/fusion.ts): runs of
 * one view's points and runs of one segment. It must give what a point-by-point grouping gives, on clouds
 * whose views come in turn or interleaved, with views that have no segment map.
 */
import { describe, expect, it } from "vitest";
import { Rng } from "../../core/math/rng.js";
import { pointsBySegment } from "../../scenegraph/instances/fusion.js";
import { allocateCloud, type PointCloud } from "../../reconstruct/pointcloud.js";
import type { Evidence } from "../../scenegraph/evidence.js";

function byPoint(cloud: PointCloud, ev: Evidence): number[][] {
  const out = ev.segments.map((): number[] => []);
  for (let i = 0; i < cloud.count; i++) {
    const map = ev.segmentOfPixel[cloud.view[i]!];
    const s = map ? map[cloud.pixel[i]!]! : -1;
    if (s >= 0) out[s]!.push(i);
  }
  return out;
}

describe("pointsBySegment", () => {
  it("groups points as a point-by-point pass does, in point order", () => {
    const rng = new Rng("points-by-segment");
    const W = 23,
      H = 11,
      S = 9;
    for (const interleaved of [false, true]) {
      // segment maps of runs; view 2 has none
      const maps: Int32Array[] = [0, 1, 2, 3].map(() => {
        const m = new Int32Array(W * H);
        for (let p = 0; p < m.length; ) {
          const s = rng.next() < 0.3 ? -1 : rng.int(0, S - 1),
            len = rng.int(1, 12);
          for (let j = 0; j < len && p < m.length; j++) m[p++] = s;
        }
        return m;
      });
      delete (maps as Array<Int32Array | undefined>)[2];
      const n = 3000;
      const cloud = allocateCloud(n, { categories: new Map(), imageWidth: W, imageHeight: H, source: "gt", meta: {} } as unknown as PointCloud);
      for (let i = 0; i < n; i++) {
        cloud.view[i] = interleaved ? rng.int(0, 3) : Math.floor((4 * i) / n);
        cloud.pixel[i] = interleaved ? rng.int(0, W * H - 1) : (i * 7) % (W * H);
      }
      const ev = { segments: Array.from({ length: S }, (_, key) => ({ key })), segmentOfPixel: maps } as unknown as Evidence;
      const got = pointsBySegment(cloud, ev).map((a) => [...a]);
      expect(got).toEqual(byPoint(cloud, ev));
      expect(got.flat().length).toBeGreaterThan(n / 3);
    }
  });
});
