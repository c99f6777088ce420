import { describe, expect, it, beforeAll } from "vitest";
import { generateTask } from "../../bridge/sim/generate/suite.js";
import { backprojectViews } from "../../reconstruct/gt/backproject.js";
import { bundleCategories } from "../../reconstruct/categories.js";
import { allocateCloud, type PointCloud } from "../../reconstruct/pointcloud.js";
import { buildSceneGraph } from "../../scenegraph/build.js";
import { diagnose, diagnoseNodes } from "../../scenegraph/diagnosis.js";
import { trueRelations } from "../../scenegraph/truth.js";
import type { FrameBundle } from "../../core/bundle/io.js";
import type { Task } from "../../core/task/schema.js";
import { bundleOf } from "./helpers.js";

let task: Task;
let bundle: FrameBundle;
let clean: PointCloud;

beforeAll(() => {
  task = generateTask("counting_with_occlusion", "diagnosis", 1);
  bundle = bundleOf(task, "gt");
  clean = backprojectViews(bundle.views, bundleCategories(bundle));
});

function run(cloud: PointCloud, masks: "instance" | "none" = "instance", instances: "fusion" | "dbscan" = "fusion", b = bundle, t = task) {
  const r = buildSceneGraph(cloud, b, { masks, instances });
  return diagnose({ graph: r.graph, members: r.members, cloud, task: t, bundle: b, trueRelations: trueRelations(t) });
}

/** A copy of the cloud where the points matching `sel` are moved by `offset` (metres). */
function moved(cloud: PointCloud, sel: (i: number) => boolean, offset: [number, number, number]): PointCloud {
  const out = allocateCloud(cloud.count, cloud);
  for (const k of ["xyz", "rgb", "confidence", "view", "pixel", "instance"] as const) (out[k] as Uint8Array).set(cloud[k] as Uint8Array);
  for (let i = 0; i < cloud.count; i++) if (sel(i)) for (let a = 0; a < 3; a++) out.xyz[3 * i + a]! += offset[a]!;
  return out;
}

/** A copy of the cloud with `n` extra points in a ball, labelled with `instance` from view 0. */
function withBlob(cloud: PointCloud, centre: [number, number, number], n: number, instance: number): PointCloud {
  const out = allocateCloud(cloud.count + n, cloud);
  for (const k of ["xyz", "rgb", "confidence", "view", "pixel", "instance"] as const) (out[k] as Uint8Array).set(cloud[k] as Uint8Array);
  for (let j = 0; j < n; j++) {
    const i = cloud.count + j;
    const a = j * 2.399,
      z = 1 - (2 * (j + 0.5)) / n,
      r = Math.sqrt(1 - z * z) * 0.04;
    out.xyz.set([centre[0] + r * Math.cos(a), centre[1] + r * Math.sin(a), centre[2] + z * 0.04], 3 * i);
    out.confidence[i] = 1;
    out.instance[i] = instance;
  }
  return out;
}

describe("quality diagnosis on a controlled scene", () => {
  it("the clean ground-truth graph matches every observed object", () => {
    const d = run(clean);
    expect(d.metrics.duplicates + d.metrics.hallucinated + d.metrics.merged).toBe(0);
    expect(d.metrics.f1_observed).toBe(1);
  });

  it("a copy of one object displaced in one view is a duplicate of it, with its twin", () => {
    const target = task.objects.find((o) => o.role === "target")!;
    // the view that shows the target best
    const counts = bundle.views.map((v) => v.ids.reduce((n, id) => n + (id === target.id ? 1 : 0), 0));
    const view = counts.indexOf(Math.max(...counts));
    const cloud = moved(clean, (i) => clean.instance[i] === target.id && clean.view[i] === view, [0, 0, 0.2]);
    const d = run(cloud);
    const dups = d.nodes.filter((n) => n.status === "duplicate");
    expect(dups.length).toBe(1);
    expect(dups[0]!.object_id).toBe(target.id);
    const twin = d.nodes.find((n) => n.node === dups[0]!.twin)!;
    expect(twin.status).toBe("matched");
    expect(twin.object_id).toBe(target.id);
    expect(d.objects.find((o) => o.id === target.id)!.duplicates).toEqual([dups[0]!.node]);
  });

  it("a floating blob is hallucinated: labelled as an object but far from it, or unlabelled geometry", () => {
    const target = task.objects.find((o) => o.role === "target")!;
    // geometry-only graph: a blob in free space becomes a node that is near no true object
    const free: [number, number, number] = [target.position[0], target.position[1], 1.4];
    const d = run(withBlob(clean, free, 300, 0), "none", "dbscan");
    const blob = d.nodes.find((n) => n.status === "hallucinated" && n.shares.length === 0);
    expect(blob).toBeDefined();
    // with masks: a whole view's segment of the target moved 1.5 m away is near no true object
    const counts = bundle.views.map((v) => v.ids.reduce((n, id) => n + (id === target.id ? 1 : 0), 0));
    const view = counts.indexOf(Math.max(...counts));
    const d2 = run(moved(clean, (i) => clean.instance[i] === target.id && clean.view[i] === view, [0, 0, 1.5]));
    expect(d2.nodes.filter((n) => n.status === "hallucinated").length).toBe(1);
    expect(d2.nodes.filter((n) => n.status === "duplicate").length).toBe(0);
  });

  it("touching copies clustered together are a merged node, and the copies it swallowed are missed", () => {
    const t = generateTask("merged_observation", "diagnosis", 1);
    const b = bundleOf(t, "gt");
    const d = run(backprojectViews(b.views, bundleCategories(b)), "instance", "dbscan", b, t);
    const cat = t.label_metadata.category as string;
    const copies = t.objects.filter((o) => o.category === cat).length;
    expect(copies).toBeGreaterThanOrEqual(2);
    // touching identical copies are one DBSCAN cluster
    expect(d.nodes.some((n) => n.status === "merged")).toBe(true);
    expect(d.objects.filter((o) => o.category === cat && o.status !== "matched").length).toBeGreaterThanOrEqual(1);
    expect(d.metrics.merged_rate).toBeGreaterThan(0);
  });
});

describe("the node metrics alone (esi3d graph's summary line without --diagnosis)", () => {
  it("equal the full diagnosis' metrics less the relation ones, on clean, duplicated and merged graphs", () => {
    const target = task.objects.find((o) => o.role === "target")!;
    const merged = generateTask("merged_observation", "diagnosis", 1);
    const mergedBundle = bundleOf(merged, "gt");
    const cases = [
      { cloud: clean, b: bundle, t: task, masks: "instance" as const, instances: "fusion" as const },
      {
        cloud: moved(clean, (i) => clean.instance[i] === target.id && clean.view[i] === 0, [0, 0, 0.2]),
        b: bundle,
        t: task,
        masks: "instance" as const,
        instances: "fusion" as const,
      },
      {
        cloud: withBlob(clean, [target.position[0], target.position[1], 1.4], 300, 0),
        b: bundle,
        t: task,
        masks: "none" as const,
        instances: "dbscan" as const,
      },
      {
        cloud: backprojectViews(mergedBundle.views, bundleCategories(mergedBundle)),
        b: mergedBundle,
        t: merged,
        masks: "instance" as const,
        instances: "dbscan" as const,
      },
    ];
    const statuses = new Set<string>();
    for (const c of cases) {
      const r = buildSceneGraph(c.cloud, c.b, { masks: c.masks, instances: c.instances });
      const input = { graph: r.graph, members: r.members, cloud: c.cloud, task: c.t, bundle: c.b };
      const full = diagnose({ ...input, trueRelations: trueRelations(c.t) });
      for (const n of full.nodes) statuses.add(n.status);
      const { relations: _r, relation_precision: _p, relation_recall: _c, ...nodeOnly } = full.metrics;
      expect(diagnoseNodes(input)).toEqual(nodeOnly);
    }
    // the cases reach every node status, so the equality covers each count
    expect([...statuses].sort()).toEqual(["duplicate", "hallucinated", "matched", "merged"]);
  });
});
