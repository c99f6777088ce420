/**
 * The cause of each duplicate and hallucination, recorded in the diagnosis when the graph is built: the views
 * the node's points came from, and the noise component the cloud's record shows at work on them. Checked on
 * clouds whose only error is known: a gt cloud with one view's fragment moved (no recorded error: masks), and
 * noisy clouds with a single component switched on (pose alone; blobs alone).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { generateTask } from "../../bridge/sim/generate/suite.js";
import { backprojectViews } from "../../reconstruct/gt/backproject.js";
import { bundleCategories } from "../../reconstruct/categories.js";
import { noisyPointCloud } from "../../reconstruct/noisy/index.js";
import { allocateCloud, type PointCloud } from "../../reconstruct/pointcloud.js";
import { buildSceneGraph } from "../../scenegraph/build.js";
import { diagnose } from "../../scenegraph/diagnosis.js";
import { DiagnosisSchema, type Diagnosis } from "../../scenegraph/diagnosisSchema.js";
import { trueRelations } from "../../scenegraph/truth.js";
import type { FrameBundle } from "../../core/bundle/io.js";
import type { Task } from "../../core/task/schema.js";
import { bundleOf } from "./helpers.js";

let task: Task;
let bundle: FrameBundle;

beforeAll(() => {
  // the scene and views of test/scenegraph/diagnosis.test.ts, where one view's moved fragment is a duplicate
  task = generateTask("counting_with_occlusion", "diagnosis", 1);
  bundle = bundleOf(task, "gt");
});

function diagnosed(cloud: PointCloud): Diagnosis {
  const r = buildSceneGraph(cloud, bundle, { masks: "instance", instances: "fusion" });
  return diagnose({ graph: r.graph, members: r.members, cloud, task, bundle, trueRelations: trueRelations(task) });
}

const wrong = (d: Diagnosis) => d.nodes.filter((n) => n.status === "duplicate" || n.status === "hallucinated");

/** Every duplicate and hallucination has a cause naming its views (shares summing to at most 1); no other node has one. */
function expectCauses(d: Diagnosis): void {
  for (const n of d.nodes) {
    if (n.status === "duplicate" || n.status === "hallucinated") {
      expect(n.cause, n.node).toBeDefined();
      expect(n.cause!.views.length, n.node).toBeGreaterThan(0);
      expect(n.cause!.views.reduce((s, v) => s + v.share, 0)).toBeLessThanOrEqual(1 + 1e-9);
      expect(n.cause!.text).toMatch(/view \d+ \(\d+ %\)/);
    } else expect(n.cause, n.node).toBeUndefined();
  }
  // the diagnosis, cause included, is what its published schema reads
  expect(DiagnosisSchema.parse(JSON.parse(JSON.stringify(d)))).toEqual(JSON.parse(JSON.stringify(d)));
}

describe("causes recorded in the diagnosis", () => {
  it("a gt cloud with one view's fragment of an object moved: masks, the moved view first, its twin's views named", () => {
    const clean = backprojectViews(bundle.views, bundleCategories(bundle));
    const target = task.objects.find((o) => o.role === "target")!;
    const counts = bundle.views.map((v) => v.ids.reduce((n, id) => n + (id === target.id ? 1 : 0), 0));
    const view = bundle.views[counts.indexOf(Math.max(...counts))]!.index;
    const cloud = allocateCloud(clean.count, clean);
    for (const k of ["xyz", "rgb", "confidence", "view", "pixel", "instance"] as const) (cloud[k] as Uint8Array).set(clean[k] as Uint8Array);
    for (let i = 0; i < clean.count; i++) if (clean.instance[i] === target.id && clean.view[i] === view) cloud.xyz[3 * i + 2]! += 0.2;
    const d = diagnosed(cloud);
    expectCauses(d);
    const dup = d.nodes.find((n) => n.status === "duplicate" && n.object_id === target.id)!;
    expect(dup, "the moved fragment is a duplicate").toBeDefined();
    expect(dup.cause!.component).toBe("masks");
    expect(dup.cause!.views[0]).toEqual({ view, share: 1 });
    expect(dup.cause!.text).toContain(`its twin ${dup.twin} from view`);
  });

  it("a noisy cloud with pose error alone: its duplicates are put down to pose, with the error's figures", () => {
    const cloud = noisyPointCloud(bundle, { noiseLevel: 1, noiseSeed: "causes", noiseComponents: ["pose"], overrides: { poseRotDeg: 3, poseTransM: 0.08 } });
    const d = diagnosed(cloud);
    expectCauses(d);
    const dups = d.nodes.filter((n) => n.status === "duplicate");
    expect(dups.length, "3° and 8 cm per view should split objects").toBeGreaterThan(0);
    for (const n of dups) expect(n.cause!.component, `${n.node}: ${n.cause!.text}`).toBe("pose");
    expect(dups[0]!.cause!.text).toMatch(/pose error \d+\.\d\d° and [\d.]+ cm/);
  });

  it("a noisy cloud with spurious blobs alone: a hallucination mostly of blob pixels is put down to blobs", () => {
    const cloud = noisyPointCloud(bundle, {
      noiseLevel: 1,
      noiseSeed: "causes",
      noiseComponents: ["blobs"],
      overrides: { blobsPerView: 10, blobPoints: 600, blobOffsetM: 0.5 },
    });
    const d = diagnosed(cloud);
    expectCauses(d);
    const blobs = wrong(d).filter((n) => n.cause!.component === "blobs");
    expect(blobs.length, `causes: ${JSON.stringify(wrong(d).map((n) => [n.status, n.cause!.component]))}`).toBeGreaterThan(0);
    for (const n of blobs) {
      expect(n.status).toBe("hallucinated");
      expect(n.cause!.text).toMatch(/^\d+ % of its points are blob pixels/);
    }
  });
});
