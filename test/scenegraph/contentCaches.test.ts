/**
 * The caches a unit's graphs share (instances/fusion.ts DetectionCache, evidence.ts computeEvidence by views,
 * pipeline.ts labelledFor by cloud) give what a fresh computation gives, and miss when the inputs differ.
 */
import { describe, expect, it } from "vitest";
import { buildPointCloud } from "../../reconstruct/index.js";
import { computeEvidence, EvidenceBuilder, type Evidence } from "../../scenegraph/evidence.js";
import type { MaskMode } from "../../scenegraph/options.js";
import { DetectionCache, FusionState, fuseDetections, pointsBySegment } from "../../scenegraph/instances/fusion.js";
import { labelledEvidence } from "../../scenegraph/appearance.js";
import { DEFAULT_INSTANCE_PARAMS } from "../../scenegraph/instances/params.js";
import { labelledFor, structureIds } from "../../scenegraph/pipeline.js";
import { FAKE_LABEL_ID_BASE, type NoiseComponent } from "../../reconstruct/noisy/index.js";
import { labelledBundle } from "../../reconstruct/noisy/labels.js";
import { voxelDownsample } from "../../scenegraph/primitives/voxelDownsample.js";
import type { FrameBundle } from "../../core/bundle/io.js";
import { generatedBundle } from "./helpers.js";
import { CloudOptionsSchema } from "../../reconstruct/options.js";

const p = DEFAULT_INSTANCE_PARAMS;
const downsample = (xyz: Float32Array) => voxelDownsample(xyz, p.voxelM).xyz;
/** A copy of the bundle with fresh views and ids arrays (as a noisy cloud's relabelled bundle is made per graph). */
const copied = (b: FrameBundle): FrameBundle => ({ ...b, views: b.views.map((v) => ({ ...v, ids: new Uint16Array(v.ids) })) });
/** The evidence found view by view with no cache. */
function fresh(b: FrameBundle, mode: MaskMode): Evidence {
  const builder = new EvidenceBuilder(b.manifest, mode);
  for (const v of b.views) builder.addView(v);
  return builder.evidence;
}
const plain = (nodes: ReturnType<typeof fuseDetections>) =>
  nodes.map((c) => ({ xyz: [...c.xyz], members: [...c.members], votes: [...c.votes], stats: c.stats, segments: c.segments }));

describe("content caches", () => {
  const bundle = generatedBundle("geometric_configuration", "content-caches", 0, "single");

  it("fusion with shared detections gives the nodes of a fusion that computes its own", async () => {
    const cloud = await buildPointCloud(bundle, CloudOptionsSchema.parse({ source: "gt" }), { excludeIds: structureIds(bundle) });
    const ev = computeEvidence(bundle, "instance");
    const first = plain(fuseDetections(cloud, ev, p, downsample));
    // the second build takes every detection from the first's cache
    expect(plain(fuseDetections(cloud, ev, p, downsample))).toEqual(first);
    const bySeg = pointsBySegment(cloud, ev);
    const own = new FusionState(ev.mode, p, downsample);
    const views = [...new Set(ev.segments.map((s) => s.view))].sort((a, b) => a - b);
    for (const v of views)
      own.addView(
        cloud,
        ev,
        v,
        ev.segments.filter((s) => s.view === v).map((s) => s.key),
        (k) => bySeg[k]!,
      );
    expect(plain(own.snapshot(cloud))).toEqual(first);
  });

  it("appearance-label fusion after an oracle-label one over the same cloud (its detections, settled nodes and overlaps partly cached) gives the nodes of a fusion that caches nothing", async () => {
    const b = generatedBundle("counting_with_occlusion", "content-caches", 1, "multi");
    const cloud = await buildPointCloud(b, CloudOptionsSchema.parse({ source: "gt" }), { excludeIds: structureIds(b) });
    const oracle = labelledEvidence(b, "instance", "oracle", "0");
    fuseDetections(cloud, oracle, p, downsample);
    const appearance = labelledEvidence(b, "instance", "appearance", "0");
    const shared = plain(fuseDetections(cloud, appearance, p, downsample));
    const bySeg = pointsBySegment(cloud, appearance);
    const own = new FusionState(appearance.mode, p, downsample);
    const views = [...new Set(appearance.segments.map((s) => s.view))].sort((x, y) => x - y);
    for (const v of views)
      own.addView(
        cloud,
        appearance,
        v,
        appearance.segments.filter((s) => s.view === v).map((s) => s.key),
        (k) => bySeg[k]!,
      );
    expect(shared).toEqual(plain(own.snapshot(cloud)));
  });

  it("a detection cache's settled points and overlaps are found by the arrays' identity, and only then", () => {
    const cache = new DetectionCache();
    const node = new Float32Array([0, 0, 0]),
      a = new Float32Array([1, 0, 0]),
      b = new Float32Array([2, 0, 0]);
    let made = 0;
    const make = () => (made++, new Float32Array([made, 0, 0]));
    const first = cache.settled(node, [a, b], make);
    expect(cache.settled(node, [a, b], make)).toBe(first);
    // another queue (order, length, or an equal array that is another object) is another merge
    expect(cache.settled(node, [b, a], make)).not.toBe(first);
    expect(cache.settled(node, [a], make)).not.toBe(first);
    expect(cache.settled(node, [a, new Float32Array(b)], make)).not.toBe(first);
    expect(cache.settled(new Float32Array(node), [a, b], make)).not.toBe(first);
    expect(made).toBe(5);
    expect(cache.overlap(a, node, () => 0.25)).toBe(0.25);
    expect(cache.overlap(a, node, () => 0.5)).toBe(0.25);
    expect(cache.overlap(a, first, () => 0.5)).toBe(0.5);
    expect(cache.overlap(b, node, () => 0.75)).toBe(0.75);
  });

  it("the label arms of one noisy cloud share one relabelled bundle, so one evidence; another cloud gets its own", async () => {
    const one = generatedBundle("material_transparency", "content-caches", 1, "gt");
    const noise = { noiseLevel: 3, noiseSeed: "caches", noiseComponents: ["labels"] as NoiseComponent[] };
    const cloud = await buildPointCloud(one, CloudOptionsSchema.parse({ source: "noisy", ...noise }), { excludeIds: structureIds(one) });
    const first = await labelledFor(one, cloud);
    expect(first).not.toBe(one); // the labels component relabelled some view
    expect(await labelledFor(one, cloud)).toBe(first);
    expect(computeEvidence(await labelledFor(one, cloud), "semantic")).toBe(computeEvidence(first, "semantic"));
    // the same relabelling as a fresh call of the noisy source's own function, by value
    const want = labelledBundle(one, cloud);
    expect(first.manifest.instances).toEqual(want.manifest.instances);
    expect(first.views.every((v, k) => Buffer.from(v.ids.buffer).equals(Buffer.from(want.views[k]!.ids.buffer)))).toBe(true);
    // another build of the same cloud is another object: its relabelled bundle is made for it
    const again = await buildPointCloud(one, CloudOptionsSchema.parse({ source: "noisy", ...noise }), { excludeIds: structureIds(one) });
    expect(await labelledFor(one, again)).not.toBe(first);
    // fake ids numbered from elsewhere (the active memory's) are another relabelling
    const shifted = await labelledFor(one, cloud, FAKE_LABEL_ID_BASE + 100);
    expect(shifted).not.toBe(first);
    expect(Math.min(...shifted.manifest.instances.slice(one.manifest.instances.length).map((e) => e.id))).toBe(FAKE_LABEL_ID_BASE + 100);
  });

  it("a bundle whose ids image differs gets evidence of its own, as a fresh build finds it", () => {
    const one = generatedBundle("geometric_configuration", "content-caches", 1, "single");
    const ev = computeEvidence(one, "semantic");
    expect(computeEvidence(one, "semantic")).toBe(ev);
    const changed = copied(one);
    const ids = changed.views[0]!.ids;
    const p0 = ids.findIndex((id) => id !== 0);
    ids[p0] = 0;
    const other = computeEvidence(changed, "semantic");
    expect(other).not.toBe(ev);
    expect(other.segmentOfPixel[0]![p0]).toBe(-1);
    expect(JSON.stringify(other.segments)).toEqual(JSON.stringify(fresh(changed, "semantic").segments));
  });

  it("a relabelled bundle (a fake id in one view, appended to the table) reuses the other views' segments, as a fresh build finds them", () => {
    const b = generatedBundle("counting_with_occlusion", "content-caches", 2, "multi");
    for (const mode of ["instance", "semantic"] as const) {
      computeEvidence(b, mode);
      const fakeId = 60000,
        ids = new Uint16Array(b.views[1]!.ids);
      const object = ids.find((id) => id !== 0 && !b.manifest.instances.find((e) => e.id === id)?.structure)!;
      for (let q = 0; q < ids.length; q++) if (ids[q] === object) ids[q] = fakeId;
      const relabelled: FrameBundle = {
        ...b,
        views: b.views.map((v, k) => (k === 1 ? { ...v, ids } : v)),
        manifest: { ...b.manifest, instances: [...b.manifest.instances, { id: fakeId, category: "fake-category", structure: false }] },
      };
      const ev = computeEvidence(relabelled, mode),
        want = fresh(relabelled, mode);
      expect(JSON.stringify(ev.segments)).toEqual(JSON.stringify(want.segments));
      const bytes = (a: Int32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
      expect(ev.segmentOfPixel.every((map, k) => bytes(map).equals(bytes(want.segmentOfPixel[k]!)))).toBe(true);
      // the view before the relabelled one is taken as it was found, map and all
      expect(ev.segmentOfPixel[0]).toBe(computeEvidence(b, mode).segmentOfPixel[0]);
      expect(ev.segments.some((s) => s.label === "fake-category")).toBe(true);
    }
  });
});
