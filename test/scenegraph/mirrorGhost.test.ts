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
import { BOX_ID, MIRROR_ID, mirrorGraphTask } from "../helpers/mirrorScene.js";

/** Half the vggt-typical level: enough of the box's reflection survives the other components to make a node. */
const LEVEL = 0.5;

let bundle: FrameBundle;
const graphOf = (o: object) => graphOfBundle(bundle, GraphPipelineOptionsSchema.parse(o));
let gt: PipelineResult, noisy: PipelineResult, noMirror: PipelineResult;

beforeAll(async () => {
  bundle = renderBundle(mirrorGraphTask(), "gt");
  gt = await graphOf({ source: "gt" });
  noisy = await graphOf({ source: "noisy", noiseLevel: LEVEL });
  noMirror = await graphOf({ source: "noisy", noiseLevel: LEVEL, noiseComponents: NOISE_COMPONENTS.filter((c) => c !== "mirror") });
});

const ghosts = (r: PipelineResult) => r.diagnosis!.nodes.filter((d) => d.status === "mirror_ghost");

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
    const ex = explainDiagnosis({ task: bundle.manifest.task!, graph: noisy.graph, members: noisy.members, cloud: noisy.cloud, diagnosis: noisy.diagnosis! });
    const e = ex.nodes.find((n) => n.node === found[0]!.node)!;
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

  it("with the noisy source's mirror component off there is no ghost", () => {
    expect(ghosts(noMirror)).toEqual([]);
    expect(noMirror.diagnosis!.metrics.mirror_ghosts).toBe(0);
  });

  it("the gt graph has the mirror's node, matched, and no ghost", () => {
    expect(ghosts(gt)).toEqual([]);
    expect(gt.diagnosis!.metrics.mirror_ghosts).toBe(0);
    const mirror = gt.diagnosis!.objects.find((o) => o.id === MIRROR_ID)!;
    expect(mirror.status).toBe("matched");
    expect(diagnosisTable(gt.graph, gt.diagnosis!)).toContain("mirror ghosts 0");
  });

  it("a scene without mirrors records no mirror metrics (its diagnosis reads as before)", async () => {
    const plain = renderBundle(generateTask("counting_with_occlusion", "mirror", 0), "gt");
    const r = await graphOfBundle(plain, GraphPipelineOptionsSchema.parse({ source: "gt" }));
    expect(r.diagnosis!.metrics).not.toHaveProperty("mirror_ghosts");
    expect(r.diagnosis!.metrics).not.toHaveProperty("mirror_ghost_rate");
    expect(diagnosisTable(r.graph, r.diagnosis!)).not.toContain("mirror ghosts");
  });
});
