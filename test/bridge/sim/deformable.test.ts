/** Deformable (bridge/sim/generate/deformable.ts): every construction number against ESI's, on generated tasks. */
import { describe, expect, it } from "vitest";
import { Hands } from "../../../bridge/sim/manipulation/hands.js";
import { taskPhysics } from "../../../bridge/sim/physics/taskWorld.js";
import { loadPhysics } from "../../../bridge/sim/physics/world.js";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { buildScene } from "../../../bridge/sim/scene.js";
import { visibleCounts } from "../../../bridge/sim/generate/visibility.js";
import { displayName } from "../../../bridge/sim/generate/common.js";
import { buildModel, LIBRARY } from "../../../core/objects/library.js";
import { objectBox } from "../../../core/objects/geometry.js";
import { footprint } from "../../../core/geometry.js";
import type { Task } from "../../../core/task/schema.js";

const N = 6;
const SEED = "deformable-test";
/** ESI: portable objects of average radius 5-15 cm (ours: the mean box half-extent). */
const radius = (model: string) => buildModel(model).extent.reduce((s, e) => s + e, 0) / 6;
const tasks: Task[] = Array.from({ length: N }, (_, i) => generateTask("deformable", SEED, i));

/** Distance (m) from a point to an object's footprint rectangle (0 inside). */
function pointToFootprint(p: [number, number], t: Task["objects"][number]): number {
  const corners = footprint(objectBox(t));
  const xs = corners.map((c) => c[0]),
    ys = corners.map((c) => c[1]);
  const dx = Math.max(Math.min(...xs) - p[0], 0, p[0] - Math.max(...xs));
  const dy = Math.max(Math.min(...ys) - p[1], 0, p[1] - Math.max(...ys));
  return Math.hypot(dx, dy);
}

describe("deformable generator", () => {
  it("asks ESI's question with the target and 3 distractors as options A-D", () => {
    for (const t of tasks) {
      expect(t.question).toBe("What object is under this cloth?");
      expect(t.answer_format).toBe("choice");
      expect(t.options).toHaveLength(4);
      expect(new Set(t.options).size).toBe(4);
      expect(t.options).toContain(t.answer);
      const target = t.objects.find((o) => o.id === t.label_metadata.target_id)!;
      expect(t.answer).toBe(displayName(target.category));
      // every option is a portable pool category of average radius 5-15 cm
      for (const o of t.options) {
        const c = LIBRARY.get(o.replace(/ /g, "_"))!;
        expect(c.group).not.toBe("furniture");
        for (const m of c.models) {
          expect(radius(m.id)).toBeGreaterThanOrEqual(0.05);
          expect(radius(m.id)).toBeLessThanOrEqual(0.15);
        }
      }
    }
    // the answer sits at each of the 4 slots across the tasks (planned, balanced)
    expect(new Set(tasks.map((t) => t.options.indexOf(t.answer))).size).toBe(4);
  });

  it("puts the target on free floor 0.30 m clear of every other object, under a cloth of side <= 50 cm", () => {
    for (const t of tasks) {
      const target = t.objects.find((o) => o.id === t.label_metadata.target_id)!;
      const cloth = t.objects.find((o) => o.category === "cloth")!;
      expect(target.support).toBe("floor");
      expect(target.position[2]).toBeCloseTo(target.extent[2] / 2, 3);
      for (const o of t.objects)
        if (o !== target && o !== cloth) expect(pointToFootprint([target.position[0], target.position[1]], o)).toBeGreaterThanOrEqual(0.3);
      expect(cloth.role).toBe("cover");
      expect(cloth.support).toBe(target.id);
      const side = (cloth.scale as number[])[0]!;
      expect(side).toBeLessThanOrEqual(0.5);
      // the drape keeps the cloth's area: its footprint is smaller than the flat cloth, and it stands over the target
      expect(cloth.extent[0]).toBeLessThan(side);
      expect(cloth.extent[2]).toBeGreaterThan(target.extent[2]);
      expect(Math.hypot(cloth.position[0] - target.position[0], cloth.position[1] - target.position[1])).toBeLessThan(1e-3);
    }
  });

  it("looks from ESI's main view: azimuth -90 deg, distance and height scaled with the drape's footprint, 70 deg FOV", () => {
    for (const t of tasks) {
      const cloth = t.objects.find((o) => o.category === "cloth")!;
      const target = t.objects.find((o) => o.id === t.label_metadata.target_id)!;
      const fp = Math.max(cloth.extent[0], cloth.extent[1]);
      const u = Math.min(Math.max((Math.max(fp, 0.05) - 0.1) / 0.3, 0), 1);
      const distance = 0.45 + 0.23 * u,
        height = 0.24 + 0.16 * u;
      const aimZ = Math.max(target.position[2], cloth.position[2]);
      const [x, y, z] = t.agent_initial.position;
      expect(x).toBeCloseTo(cloth.position[0], 3);
      expect(y).toBeCloseTo(cloth.position[1] - distance, 3);
      expect(z).toBeCloseTo(aimZ + height, 3);
      expect(t.camera.hfov_deg).toBe(70);
      // aimed at the covered object
      expect(t.agent_initial.yaw).toBeCloseTo(Math.PI / 2, 3);
      expect(t.agent_initial.pitch).toBeCloseTo(-Math.atan2(height, distance), 3);
    }
  });

  it("hides the target from the initial view and every ground-truth view; the cloth shows", () => {
    for (const t of tasks) {
      const target = t.label_metadata.target_id as number;
      const cloth = t.objects.find((o) => o.category === "cloth")!.id;
      const counts = visibleCounts(buildScene(t), t.camera, t.agent_initial, 0.5);
      expect(counts.get(target) ?? 0).toBe(0);
      expect(counts.get(cloth) ?? 0).toBeGreaterThan(100);
      for (const v of t.view_object_existence) expect(v.visible).not.toContain(target);
      expect(t.relevant_object_ids).toEqual([cloth]);
    }
  });

  it("the engine's pick_up of the cloth (#id, from the initial view) folds it and shows the object", async () => {
    await loadPhysics();
    for (const t of tasks.slice(0, 3)) {
      const cloth = t.objects.find((o) => o.category === "cloth")!;
      const target = t.label_metadata.target_id as number;
      const before = visibleCounts(buildScene(t), t.camera, t.agent_initial, 0.5);
      const hands = new Hands(t.objects, t.room.size, taskPhysics(t));
      expect(hands.apply("pick_up", [{ text: `#${cloth.id}` }], t.agent_initial, before).ok).toBe(true);
      const after = visibleCounts(buildScene({ ...t, objects: hands.current() }), t.camera, t.agent_initial, 0.5);
      expect(before.get(target) ?? 0).toBe(0);
      expect(after.get(target) ?? 0).toBeGreaterThan(300);
      expect(hands.current().find((o) => o.id === cloth.id)!.support).toBeUndefined();
    }
  });

  it("is deterministic", () => {
    expect(generateTask("deformable", SEED, 1)).toEqual(tasks[1]);
  });
});
