/**
 * The caches a unit's graphs share by content (instances/fusion.ts DetectionCache, evidence.ts computeEvidence's
 * last-evidence slot) give what a fresh computation gives, and miss when the inputs differ.
 */
import { describe, expect, it } from "vitest";
import { buildPointCloud } from "../../reconstruct/index.js";
import { computeEvidence } from "../../scenegraph/evidence.js";
import { FusionState, fuseDetections, pointsBySegment } from "../../scenegraph/instances/fusion.js";
import { DEFAULT_INSTANCE_PARAMS } from "../../scenegraph/instances/params.js";
import { structureIds } from "../../scenegraph/pipeline.js";
import { voxelDownsample } from "../../scenegraph/primitives/voxelDownsample.js";
import type { FrameBundle } from "../../bridge/bundle/io.js";
import { generatedBundle } from "./helpers.js";

const p = DEFAULT_INSTANCE_PARAMS;
const downsample = (xyz: Float32Array) => voxelDownsample(xyz, p.voxelM).xyz;
/** A copy of the bundle with fresh views and ids arrays (as a noisy cloud's relabelled bundle is made per graph). */
const copied = (b: FrameBundle): FrameBundle => ({ ...b, views: b.views.map((v) => ({ ...v, ids: new Uint16Array(v.ids) })) });
const plain = (nodes: ReturnType<typeof fuseDetections>) => nodes.map((c) => ({ xyz: [...c.xyz], members: [...c.members], votes: [...c.votes], stats: c.stats, segments: c.segments }));

describe("content caches", () => {
  const bundle = generatedBundle("geometric_configuration", "content-caches", 0, "multi");

  it("fusion with shared detections gives the nodes of a fusion that computes its own", async () => {
    const cloud = await buildPointCloud(bundle, { source: "gt" }, { excludeIds: structureIds(bundle) });
    const ev = computeEvidence(bundle, "instance");
    const first = plain(fuseDetections(cloud, ev, p, downsample));
    // the second build takes every detection from the first's cache
    expect(plain(fuseDetections(cloud, ev, p, downsample))).toEqual(first);
    const bySeg = pointsBySegment(cloud, ev);
    const own = new FusionState(ev.mode, p, downsample);
    const views = [...new Set(ev.segments.map((s) => s.view))].sort((a, b) => a - b);
    for (const v of views) own.addView(cloud, ev, v, ev.segments.filter((s) => s.view === v).map((s) => s.key), (k) => bySeg[k]!);
    expect(plain(own.snapshot(cloud))).toEqual(first);
  });

  it("a bundle equal by content gets the last evidence; one with another id does not", () => {
    const one = generatedBundle("geometric_configuration", "content-caches", 1, "single");
    const ev = computeEvidence(one, "semantic");
    const again = copied(one);
    expect(computeEvidence(again, "semantic")).toBe(ev);
    const changed = copied(one);
    const ids = changed.views[0]!.ids;
    const p0 = ids.findIndex((id) => id !== 0);
    ids[p0] = 0;
    const other = computeEvidence(changed, "semantic");
    expect(other).not.toBe(ev);
    expect(other.segmentOfPixel[0]![p0]).toBe(-1);
    expect(JSON.stringify(other.segments)).toEqual(JSON.stringify(computeEvidence(copied(changed), "semantic").segments));
  });
});
