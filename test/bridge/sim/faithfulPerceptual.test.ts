/**
 * Issue 16, faithful construction of Perceptual Grounding: the built-in generators follow ESI-Bench's
 * real ones as measured in ESI-Bench's released records. The numbers are written out here, not imported
 * from perceptual.ts, so a generator that drifts from ESI fails even when its own constants drift with it.
 */
import { describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { MIN_TASK_CAMERA_HEIGHT_M, type Task, type TaskObject } from "../../../core/task/schema.js";
import { objectBox } from "../../../core/objects/geometry.js";
import { boxDistance } from "../../../core/geometry.js";
import { wilsonInterval } from "../../../core/math/proportion.js";
import { MIN_CAMERA_HEIGHT_M, worldOf } from "../../../bridge/sim/agent.js";
import { wrapAngle } from "../../../core/math/vec.js";

/** ESI-Bench's released records, as measured. */
const ESI = {
  behindSize: [0.05, 0.075], // batch_transparent_false.py, capped at ½ min(dx, dy) of the container
  insideSize: [0.025, 0.05], // batch_transparent.py SMALL_OBJ_SCALE_MIN/MAX, capped at ½ d_min
  behindGap: 0.02, // BEHIND_GAP
  viewExtra: 0.25, // view radius = container half-diagonal + 0.25
  viewDistance: [0.29, 0.71], // measured
  transparencyFloor: 0.7, // 67 of 97 on the floor, 27 on a table
  occluderScale: 1.1, // per axis, of the target's box
  occlusionViewExtra: 0.55, // view radius = target half-diagonal + 0.55
  occlusionFloor: 88 / 95, // floor centre 88 of 95
  hallucinationFloor: 390 / 437, // 390 floor / 47 table
};
const N = 14;
const Z_99 = 2.576;
const gen = (sub: Parameters<typeof generateTask>[0]) => Array.from({ length: N }, (_, i) => generateTask(sub, "faithful-perceptual", i));
const transparency = gen("material_transparency"),
  occlusion = gen("partial_occlusion"),
  hallucination = gen("view_hallucination");
const byId = (t: Task, id: number): TaskObject => t.objects.find((o) => o.id === id)!;
const rel = (t: Task) => t.relevant_object_ids.map((id) => byId(t, id));

/** The named share lies inside the 99 % Wilson interval of the observed one (n = 14: about ±0.3). */
function shareAbout(onFloor: boolean[], share: number, what: string): void {
  const k = onFloor.filter(Boolean).length,
    ci = wilsonInterval(k, onFloor.length, Z_99);
  expect(
    ci.lo <= share && share <= ci.hi,
    `${what}: ${k}/${onFloor.length} on the floor, ESI ${share.toFixed(2)}, 99 % interval [${ci.lo.toFixed(2)}, ${ci.hi.toFixed(2)}]`,
  ).toBe(true);
}

describe("Material Transparency follows batch_transparent*.py", () => {
  it("a negative is U[0.05, 0.075] m (at most ½ min(dx, dy) of the container), 0.02 m behind its box, on view 0's far side", () => {
    const neg = transparency.filter((t) => t.answer === "no");
    expect(neg.length).toBeGreaterThanOrEqual(3);
    for (const t of neg) {
      const [c, o] = rel(t);
      const cap = Math.min(c!.extent[0], c!.extent[1]) / 2,
        size = Math.max(...o!.extent);
      expect(size, t.task_id).toBeGreaterThanOrEqual(Math.min(ESI.behindSize[0]!, cap) - 1e-3);
      expect(size, t.task_id).toBeLessThanOrEqual(Math.min(ESI.behindSize[1]!, cap) + 1e-3);
      expect(boxDistance(objectBox(o!), objectBox(c!)), t.task_id).toBeCloseTo(ESI.behindGap, 3);
      expect(o!.support, t.task_id).toBe(c!.support); // beside it on the same support, not in it
      // behind as seen from view 0: farther from the camera than the container
      const cam = t.agent_initial.position;
      expect(Math.hypot(o!.position[0] - cam[0], o!.position[1] - cam[1])).toBeGreaterThan(Math.hypot(c!.position[0] - cam[0], c!.position[1] - cam[1]));
    }
  });

  it("an inside object keeps ESI's smaller size, U[0.025, 0.05] m at most ½ the container's smallest dimension", () => {
    const pos = transparency.filter((t) => t.answer === "yes");
    expect(pos.length).toBeGreaterThanOrEqual(3);
    for (const t of pos) {
      const [c, o] = rel(t);
      const size = Math.max(...o!.extent);
      expect(size).toBeGreaterThanOrEqual(Math.min(ESI.insideSize[0]!, Math.min(...c!.extent) / 2) - 1e-3);
      expect(size).toBeLessThanOrEqual(Math.min(ESI.insideSize[1]!, Math.min(...c!.extent) / 2) + 1e-3);
    }
  });

  it("containers stand mostly on the floor (ESI 67 of 97), the rest on a table", () => {
    const supports = transparency.map((t) => rel(t)[0]!.support);
    for (const t of transparency) {
      const c = rel(t)[0]!;
      if (c.support === "floor") expect(c.position[2] - c.extent[2] / 2).toBeCloseTo(0, 4);
      else expect(byId(t, c.support as number).category).toBe("table");
    }
    shareAbout(
      supports.map((s) => s === "floor"),
      ESI.transparencyFloor,
      "material transparency",
    );
  });

  it("view 0 looks from -Y at the container's half-diagonal + 0.25 m (0.29-0.71 m), horizontally at the object's height, on the floor too", () => {
    let onTable = 0,
      onFloor = 0;
    for (const t of transparency) {
      const [c, o] = rel(t);
      const p = t.agent_initial.position;
      const d = Math.hypot(p[0] - c!.position[0], p[1] - c!.position[1]);
      expect(d, t.task_id).toBeCloseTo(Math.hypot(c!.extent[0], c!.extent[1]) / 2 + ESI.viewExtra, 3);
      expect(d).toBeGreaterThanOrEqual(ESI.viewDistance[0]!);
      expect(d).toBeLessThanOrEqual(ESI.viewDistance[1]!);
      expect(Math.abs(wrapAngle(t.agent_initial.yaw - Math.PI / 2))).toBeLessThan(1e-3); // camera at -Y, looking +Y
      // ESI's view exactly, horizontal at the object's centre height, on a table and on the floor; an object
      // centred lower than ESI's lowest camera (MIN_TASK_CAMERA_HEIGHT_M) is seen from there, looking down at it
      expect(p[2]).toBeCloseTo(Math.max(o!.position[2], MIN_TASK_CAMERA_HEIGHT_M), 3);
      expect(t.agent_initial.pitch, t.task_id).toBeCloseTo(Math.atan2(o!.position[2] - p[2], d), 3);
      if (o!.position[2] >= MIN_TASK_CAMERA_HEIGHT_M) expect(t.agent_initial.pitch, t.task_id).toBeCloseTo(0, 4);
      if (o!.position[2] >= MIN_CAMERA_HEIGHT_M) {
        onTable++;
        expect(t.agent_limits, t.task_id).toBeUndefined();
      } else {
        // on the floor the object is lower than the built-in agent's crouch: the task lowers its own camera
        // limit to the object's height, and the agent's motion keeps to it
        onFloor++;
        expect(t.agent_limits!.min_camera_height_m, t.task_id).toBeLessThanOrEqual(p[2]);
        expect(t.agent_limits!.min_camera_height_m).toBeGreaterThan(p[2] - 0.001);
        expect(worldOf(t).minCameraHeight).toBe(t.agent_limits!.min_camera_height_m);
      }
    }
    expect(onFloor).toBeGreaterThanOrEqual(1);
    expect(onTable).toBeGreaterThanOrEqual(1);
  });
});

describe("Partial Occlusion follows batch_occlusion_yining.py", () => {
  it("the occluder is another category, neither option, turned as the target and 1.1x its box per axis", () => {
    const categories = new Set<string>();
    for (const t of occlusion) {
      const [target, occ] = rel(t);
      expect(occ!.role).toBe("occluder");
      expect(occ!.category, t.task_id).not.toBe(target!.category);
      expect(t.options).not.toContain(occ!.category.replace(/_/g, " "));
      expect(Math.abs(wrapAngle(objectBox(occ!).yaw - objectBox(target!).yaw))).toBeLessThan(1e-3);
      for (let i = 0; i < 3; i++) expect(occ!.extent[i]! / target!.extent[i]!, `${t.task_id} axis ${i}`).toBeCloseTo(ESI.occluderScale, 2);
      categories.add(occ!.category);
    }
    // a random object, not one fixed occluder (suite v1: always a cardboard box)
    expect(categories.size).toBeGreaterThanOrEqual(4);
  });

  it("view 0 stands the target's half-diagonal + 0.55 m away, 15 deg off the occluder-target axis", () => {
    for (const t of occlusion) {
      const [target, occ] = rel(t);
      const p = t.agent_initial.position;
      expect(Math.hypot(p[0] - target!.position[0], p[1] - target!.position[1]), t.task_id).toBeCloseTo(
        Math.hypot(target!.extent[0], target!.extent[1]) / 2 + ESI.occlusionViewExtra,
        3,
      );
      const off = wrapAngle(
        Math.atan2(p[1] - target!.position[1], p[0] - target!.position[0]) -
          Math.atan2(occ!.position[1] - target!.position[1], occ!.position[0] - target!.position[0]),
      );
      expect(Math.abs(Math.abs(off) - Math.PI / 12), t.task_id).toBeLessThan(1e-3);
    }
  });

  it("targets stand mostly on the floor (ESI 88 of 95), with 2 options", () => {
    for (const t of occlusion) expect(t.options).toHaveLength(2);
    shareAbout(
      occlusion.map((t) => rel(t)[0]!.support === "floor"),
      ESI.occlusionFloor,
      "partial occlusion",
    );
  });
});

describe("View Hallucination follows batch_angle_confusion_yining.py", () => {
  it("objects stand mostly on the floor (ESI 390 of 437), with 2 options", () => {
    for (const t of hallucination) expect(t.options).toHaveLength(2);
    shareAbout(
      hallucination.map((t) => rel(t)[0]!.support === "floor"),
      ESI.hallucinationFloor,
      "view hallucination",
    );
  });
});
