/**
 * Proxy scenes for imported tasks (--simulator builtin without OmniGibson): library models or boxes of the
 * recorded extents, rendered by the real built-in renderer at ESI's camera pose and intrinsics; tasks
 * without the geometry their question needs are skipped with the reason; everything is marked as proxy.
 */
import { describe, expect, it } from "vitest";
import { importRecords } from "../../../bridge/esibench/importer.js";
import { proxyTask } from "../../../bridge/esibench/proxy.js";
import { renderBundle } from "../../../bridge/sim/capture.js";
import { paradigmViews } from "../../../bridge/sim/views.js";
import { gtCandidateViews } from "../../../core/task/candidates.js";
import { intrinsicsFromHfov, poseToExtrinsic } from "../../../core/math/camera.js";
import { quatToMat } from "../../../core/math/quat.js";
import { PROXY_BOX_MODEL } from "../../../core/objects/library.js";
import type { Task, TaskRecord } from "../../../core/task/schema.js";
import { SAMPLE } from "./esibenchHelpers.js";

const res = importRecords(SAMPLE);
const task = (id: string): TaskRecord => res.imported.find((x) => x.record.raw.id === id)!.task!;
const proxy = (id: string): Task => {
  const p = proxyTask(task(id));
  if ("skip" in p) throw new Error(p.skip);
  return p.task;
};

describe("proxy scenes of imported ESI-Bench tasks", () => {
  it("stands boxes of the recorded AABBs in for BEHAVIOR models, marked as proxy", () => {
    const t = proxy("0927");
    expect(t.simulator).toBe("esi3d-builtin/1 proxy of esi-bench/omnigibson");
    expect(t.proxy!.objects).toEqual([
      { id: 16, stands_in: "box", original_model: "round_bottom_flask/injdmj" },
      { id: 17, stands_in: "box", original_model: "cherry/lkltpa" },
    ]);
    const orig = task("0927").objects[0]!;
    expect(t.objects[0]).toMatchObject({
      model: PROXY_BOX_MODEL,
      extent: orig.extent,
      scale: orig.extent,
      position: orig.position,
      orientation: { x: 0, y: 0, z: 0, w: 1 },
      transparent: true,
      color: "glass",
    });
    expect(t.room.bounds).toBeDefined();
    expect(t.label_metadata.proxy_rule_check).toMatchObject({ answer: "yes", agrees: true });
  });

  it("renders at ESI's camera: the bundle's first view is the recorded USD camera pose with 1280x720 at 63.29 deg", () => {
    const t = proxy("0927");
    const b = renderBundle(t, "single");
    expect(b.manifest.simulator).toBe(t.simulator);
    expect(b.manifest.task!.proxy).toBeDefined();
    expect(b.manifest.image).toEqual({ width: 1280, height: 720 });
    expect(b.manifest.views[0]!.intrinsics).toEqual(intrinsicsFromHfov(1280, 720, 63.29301034783905));
    // the recorded USD camera (looks down -Z, +Y up) as an OpenCV camera-from-world: rows X, -Y, -Z of R^T
    const v = t.candidate_views!.find((c) => c.name === t.initial_view)!;
    const [x, y, z, w] = v.quaternion_xyzw;
    const R = quatToMat({ x, y, z, w });
    const E = b.manifest.views[0]!.extrinsic;
    const rows = [
      [R[0][0], R[1][0], R[2][0]],
      [-R[0][1], -R[1][1], -R[2][1]],
      [-R[0][2], -R[1][2], -R[2][2]],
    ];
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) expect(E[i]![j]).toBeCloseTo(rows[i]![j]!, 9);
    expect(E).toEqual(poseToExtrinsic({ position: v.position, yaw: v.yaw, pitch: v.pitch }));
    // the container (a box standing in for the flask) is what the camera looks at
    const ids = b.views[0]!.ids;
    expect(ids.filter((i) => i === 16).length).toBeGreaterThan(10_000);
  });

  it("gt = the candidate views whose flags show every relevant object; multi walks from ESI's initial pose", () => {
    // ESI's flags never see the cherry inside the flask: that task has no gt view set
    expect(gtCandidateViews(proxy("0927"))).toBeNull();
    const t = proxy("2805");
    const gt = gtCandidateViews(t)!;
    expect(gt.length).toBeGreaterThan(0);
    for (const v of gt) for (const id of t.relevant_object_ids) expect(v.visibility.find((f) => f.id === id)?.visible).toBe(true);
    expect(paradigmViews(t, "gt").map((p) => p.pose.position)).toEqual(gt.map((v) => v.position));
    const multi = paradigmViews(t, "multi");
    expect(multi.length).toBe(30);
    expect(multi[0]!.pose).toEqual({ position: t.agent_initial.position, yaw: t.agent_initial.yaw, pitch: t.agent_initial.pitch });
    // the walk stays inside the proxy room and above the imported task's camera floor (0.02 m)
    const b = t.room.bounds!;
    for (const p of multi) {
      expect(p.pose.position[0]).toBeGreaterThan(b.min[0]);
      expect(p.pose.position[0]).toBeLessThan(b.max[0]);
      expect(p.pose.position[2] - t.room.floor_z!).toBeGreaterThanOrEqual(0.02 - 1e-9);
    }
    // counting: no close-up shows every target, so gt is the fewest flagged views covering them all
    const c = proxy("0398");
    const cg = gtCandidateViews(c)!;
    expect(cg.map((v) => v.kind)).toEqual(["target_closeup", "target_closeup", "target_closeup"]);
  });

  it("uses a library model where the category has one", () => {
    const t = proxy("1145"); // Partial Occlusion: a pencil target; the library has no pencil, so boxes
    expect(t.proxy!.objects.every((o) => o.stands_in === "box")).toBe(true);
    const withLibrary = res.imported
      .map((x) => x.task!)
      .filter((r) => r.objects.some((o) => o.category === "mug" || o.category === "bowl" || o.category === "vase"));
    expect(withLibrary.length).toBeGreaterThan(0);
    const rec = withLibrary.find((r) => !("skip" in proxyTask(r)));
    if (rec) {
      const p = proxyTask(rec) as { task: Task };
      expect(p.task.proxy!.objects.some((o) => o.stands_in === "library_model")).toBe(true);
    }
  });

  it("skips what the record cannot show, with the reason", () => {
    const skip = (id: string) => {
      const p = proxyTask(task(id));
      return "skip" in p ? p : null;
    };
    expect(skip("2141")).toMatchObject({ code: "geometry" }); // triangles store no extents
    expect(skip("2141")!.skip).toMatch(/no extent is recorded for .* \(object 16\) and the built-in library has no .* model/);
    expect(skip("0789")).toMatchObject({ code: "geometry" }); // the scene's own reference has no extent
    expect(skip("3112")).toBeNull(); // a mirror record: the renderer draws its mirror (mirrorProxy.test.ts)
    // Liquid Volume is built in now, but its record places nothing and stores no camera
    expect(skip("1925")).toMatchObject({ code: "no_camera" });
  });

  it("the proxy scene implies ESI's label only where the recorded geometry does", () => {
    const pc = proxyTask(task("2803")) as { task: Task; check: { agrees: boolean; quantities: Record<string, unknown> } };
    expect(pc.check.agrees).toBe(false); // "no", but the AABBs standing in overlap
    expect(pc.check.quantities.box_gap_m).toBe(0);
    const ok = proxyTask(task("2830")) as { check: { agrees: boolean; quantities: Record<string, number> } };
    expect(ok.check.agrees).toBe(true);
    expect(ok.check.quantities.box_gap_m).toBeCloseTo(0.037, 3); // the old script's self-consistent "no": 3.7 cm apart
  });
});
