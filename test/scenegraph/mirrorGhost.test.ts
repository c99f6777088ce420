import { beforeAll, describe, expect, it } from "vitest";
import { renderBundle } from "../../bridge/sim/capture.js";
import type { FrameBundle } from "../../core/bundle/io.js";
import { NOISE_COMPONENTS } from "../../reconstruct/noisy/index.js";
import { NEAR_OBJECT_M } from "../../scenegraph/diagnosis.js";
import { DiagnosisSchema } from "../../scenegraph/diagnosisSchema.js";
import { graphOfBundle, type PipelineResult } from "../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../scenegraph/pipelineOptions.js";
import { explainDiagnosis } from "../../src/apps/viewer/explain.js";
import { diagnosisTable } from "../../src/apps/viewer/diagnosisTable.js";
import { generateTask } from "../../bridge/sim/generate/suite.js";
import { signedPlaneDistance } from "../../core/objects/mirror.js";
import { VGGT_TYPICAL_LEVEL } from "../../reconstruct/noisy/params.js";
import { BOX_ID, MIRROR_ID, mirrorGraphTask, SEES_BOX_TRAJECTORY } from "../helpers/mirrorScene.js";

/** Below the vggt-typical level: the box's reflection keeps most of its points. */
const LEVEL = 0.5;

let bundle: FrameBundle, seesBox: FrameBundle;
const graphOf = (o: object, b = bundle) => graphOfBundle(b, GraphPipelineOptionsSchema.parse(o));
let gt: PipelineResult, noisy: PipelineResult, typical: PipelineResult, noMirror: PipelineResult;

beforeAll(async () => {
  bundle = renderBundle(mirrorGraphTask(), "gt");
  seesBox = renderBundle(mirrorGraphTask(undefined, SEES_BOX_TRAJECTORY), "gt");
  gt = await graphOf({ source: "gt" });
  noisy = await graphOf({ source: "noisy", noiseLevel: LEVEL });
  typical = await graphOf({ source: "noisy", noiseLevel: VGGT_TYPICAL_LEVEL });
  noMirror = await graphOf({ source: "noisy", noiseLevel: LEVEL, noiseComponents: NOISE_COMPONENTS.filter((c) => c !== "mirror") });
});

const ghosts = (r: PipelineResult) => r.diagnosis!.nodes.filter((d) => d.status === "mirror_ghost");
/** How far each ghost's centroid lies in front of the mirror's plane (negative: behind it). */
const ghostOffsets = (r: PipelineResult) =>
  ghosts(r).map((d) => signedPlaneDistance(bundle.manifest.mirrors![0]!, r.graph.nodes.find((n) => n.id === d.node)!.centroid));
const explained = (r: PipelineResult, b = bundle) =>
  explainDiagnosis({ task: b.manifest.task!, graph: r.graph, members: r.members, cloud: r.cloud, diagnosis: r.diagnosis! });

describe("mirror ghosts in the diagnosis", () => {
  it("the noisy graph's node behind the mirror is the box's reflection: a mirror ghost linked to the box, counted apart from hallucinations", () => {
    const found = ghosts(noisy);
    expect(found.length).toBeGreaterThanOrEqual(1);
    const plane = bundle.manifest.mirrors![0]!;
    for (const d of found) {
      expect(d.mirrors_object).toBe(BOX_ID);
      expect(d.mirror_id).toBe(MIRROR_ID);
      expect(d.object_id).toBeNull();
      const node = noisy.graph.nodes.find((n) => n.id === d.node)!;
      // behind the plane (the side away from its normal), farther than the gate's reach of the mirror itself
      const behind = [0, 1, 2].reduce((s, a) => s + (node.centroid[a]! - plane.centre[a]!) * plane.normal[a]!, 0);
      expect(behind).toBeLessThan(-NEAR_OBJECT_M);
    }
    const m = noisy.diagnosis!.metrics;
    expect(m.mirror_ghosts).toBe(found.length);
    expect(m.mirror_ghost_rate).toBeCloseTo(found.length / m.nodes, 12);
    expect(m.hallucinated).toBe(noisy.diagnosis!.nodes.filter((d) => d.status === "hallucinated").length);
    // the diagnosis still parses, and the viewer's explanation names the rule that decided it
    expect(DiagnosisSchema.parse(noisy.diagnosis)).toEqual(noisy.diagnosis);
    const e = explained(noisy).nodes.find((n) => n.node === found[0]!.node)!;
    expect(e.rule).toBe("seen_in_mirror");
    expect(e.consistent).toBe(true);
    expect(e.why).toContain("mirror");
    // the terminal's table names the object a ghost reflects, and counts the ghosts
    const text = diagnosisTable(noisy.graph, noisy.diagnosis!);
    const box = noisy.diagnosis!.objects.find((o) => o.id === BOX_ID)!;
    const row = text.split("\n").find((l) => l.startsWith(`${found[0]!.node} `))!;
    expect(row).toContain(`mirror of ${box.name}`);
    expect(text).toContain(`mirror ghosts ${found.length}`);
  });

  it("at the vggt-typical level the box's reflection is still a node behind the mirror, labelled box: a mirror ghost", () => {
    const found = ghosts(typical);
    expect(found.length).toBeGreaterThanOrEqual(1);
    for (const d of found) {
      expect(d.mirrors_object).toBe(BOX_ID);
      expect(d.label).toBe("box");
    }
    expect(Math.max(...ghostOffsets(typical))).toBeLessThan(-NEAR_OBJECT_M);
    expect(typical.diagnosis!.objects.find((o) => o.id === MIRROR_ID)!.status).toBe("matched");
  });

  it("with the noisy source's mirror component off the reflection stays on the glass: a ghost on the plane, none behind it", () => {
    const found = ghosts(noMirror);
    expect(found.length).toBeGreaterThanOrEqual(1);
    for (const off of ghostOffsets(noMirror)) expect(Math.abs(off)).toBeLessThanOrEqual(NEAR_OBJECT_M);
    expect(found.every((d) => d.mirrors_object === BOX_ID && d.label !== "mirror")).toBe(true);
    expect(noMirror.diagnosis!.metrics.mirror_ghosts).toBe(found.length);
  });

  it("the gt graph: the mirror's node matches the mirror; the box's reflection, a box-labelled node on the glass, is a mirror ghost on the plane", () => {
    const found = ghosts(gt);
    expect(found).toHaveLength(1);
    const d = found[0]!;
    expect(d).toMatchObject({ label: "box", mirrors_object: BOX_ID, mirror_id: MIRROR_ID, object_id: null });
    // on the glass: its centroid within a centimetre of the plane (gt keeps mirror pixels on the surface)
    expect(Math.abs(ghostOffsets(gt)[0]!)).toBeLessThan(0.01);
    const mirror = gt.diagnosis!.objects.find((o) => o.id === MIRROR_ID)!;
    expect(mirror.status).toBe("matched");
    expect(gt.graph.nodes.find((n) => n.id === mirror.node)!.label).toBe("mirror");
    expect(mirror.duplicates).toEqual([]);
    const e = explained(gt).nodes.find((n) => n.node === d.node)!;
    expect(e.rule).toBe("reflection_on_mirror");
    expect(e.consistent).toBe(true);
    expect(e.why).toContain("glass");
    expect(diagnosisTable(gt.graph, gt.diagnosis!)).toContain("mirror ghosts 1");
  });

  it("a ghost is never the real box's match: with the box in view, its own node matches it, in gt and at the vggt-typical level", async () => {
    for (const o of [{ source: "gt" }, { source: "noisy", noiseLevel: VGGT_TYPICAL_LEVEL }]) {
      const r = await graphOf(o, seesBox);
      const box = r.diagnosis!.objects.find((x) => x.id === BOX_ID)!;
      expect(box.status, o.source).toBe("matched");
      const node = r.graph.nodes.find((n) => n.id === box.node)!;
      // the real box's node stands where the box is, in front of the mirror
      expect(signedPlaneDistance(seesBox.manifest.mirrors![0]!, node.centroid), o.source).toBeGreaterThan(NEAR_OBJECT_M);
      const found = ghosts(r);
      expect(found.length, o.source).toBeGreaterThanOrEqual(1);
      expect(found.every((d) => d.mirrors_object === BOX_ID && d.node !== box.node)).toBe(true);
      expect(r.diagnosis!.objects.find((x) => x.id === MIRROR_ID)!.status, o.source).toBe("matched");
    }
  });

  it("a scene without mirrors records no mirror metrics (its diagnosis reads as before)", async () => {
    const plain = renderBundle(generateTask("counting_with_occlusion", "mirror", 0), "gt");
    const r = await graphOfBundle(plain, GraphPipelineOptionsSchema.parse({ source: "gt" }));
    expect(r.diagnosis!.metrics).not.toHaveProperty("mirror_ghosts");
    expect(r.diagnosis!.metrics).not.toHaveProperty("mirror_ghost_rate");
    expect(diagnosisTable(r.graph, r.diagnosis!)).not.toContain("mirror ghosts");
  });
});
