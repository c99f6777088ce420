/** Inclined Plane (bridge/sim/generate/dynamics.ts): every construction number against ESI's, on generated tasks. */
import { beforeAll, describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import {
  DYNAMIC_FRICTION_MIN,
  runOnSlope,
  SLOPE_HALF_X_M,
  SLOPE_HALF_Y_M,
  SLOPE_HALF_Z_M,
  SLOPE_OBJECTS,
  SLOPE_RESTITUTION,
  SLOPE_TILT_DEG,
  STATIC_FRICTION,
} from "../../../bridge/sim/generate/dynamics.js";
import { round4, SceneBuilder } from "../../../bridge/sim/generate/common.js";
import { loadPhysics, PhysicsWorld } from "../../../bridge/sim/physics/world.js";
import { addFloor } from "../../../bridge/sim/physics/settle.js";
import { bodyOf } from "../../../bridge/sim/physics/bodies.js";
import { DROP_CLEARANCE_M, PHYSICS_STEP_S } from "../../../bridge/sim/physics/params.js";
import { axisRotation, exactSinCos } from "../../../bridge/sim/physics/rotation.js";
import { LIBRARY } from "../../../core/objects/library.js";
import { objectWorldTriangles } from "../../../core/objects/shape.js";
import { Rng } from "../../../core/math/rng.js";
import type { Task, TaskObject } from "../../../core/task/schema.js";
import { backprojectViews } from "../../../reconstruct/gt/backproject.js";
import { bundleCategories } from "../../../reconstruct/categories.js";
import { buildSceneGraph } from "../../../scenegraph/build.js";
import { truthGraph } from "../../../scenegraph/truth.js";
import { bundleOf } from "../../scenegraph/helpers.js";

const N = 4;
let tasks: Task[] = [];
const slopeOf = (t: Task) => t.objects.find((o) => o.category === "slope")!;
const objectOf = (t: Task) => t.objects.find((o) => o.role === "target")!;
const meta = (t: Task) => t.label_metadata as Record<string, number | string | number[]>;

function zRange(o: TaskObject): [number, number] {
  const tris = objectWorldTriangles(o);
  let lo = Infinity,
    hi = -Infinity;
  for (let i = 2; i < tris.length; i += 3) {
    lo = Math.min(lo, tris[i]!);
    hi = Math.max(hi, tris[i]!);
  }
  return [lo, hi];
}

beforeAll(async () => {
  await loadPhysics();
  tasks = Array.from({ length: N }, (_, i) => generateTask("inclined_plane", "dynamics-test", i));
});

describe("Inclined Plane: ESI's construction numbers (batch_slope.py)", () => {
  it("the constants are ESI's", () => {
    expect(SLOPE_HALF_X_M).toEqual([0.2, 0.3]);
    expect([SLOPE_HALF_Y_M, SLOPE_HALF_Z_M]).toEqual([0.15, 0.01]);
    expect(SLOPE_TILT_DEG).toEqual([10, 45]);
    expect(STATIC_FRICTION).toEqual([0.3, 3]);
    expect(DYNAMIC_FRICTION_MIN).toBe(0.3);
    expect(SLOPE_RESTITUTION).toBe(0.1);
    expect(PHYSICS_STEP_S).toBe(1 / 240);
    for (const c of SLOPE_OBJECTS) expect(LIBRARY.has(c), c).toBe(true);
  });

  it("the slope is a box of half-extents (x, 0.15, 0.01), x in [0.20, 0.30], tilted [10, 45] deg about Y, its low edge on the floor", () => {
    for (const t of tasks) {
      const s = slopeOf(t);
      const m = meta(t);
      const halfX = s.extent[0] / 2;
      expect(halfX).toBeGreaterThanOrEqual(0.2);
      expect(halfX).toBeLessThanOrEqual(0.3);
      expect([s.extent[1], s.extent[2]]).toEqual([0.3, 0.02]);
      expect(m.slope_half_extents_m).toEqual([halfX, 0.15, 0.01]);
      // the recorded rotation is about Y only, by the recorded tilt
      expect([s.orientation.x, s.orientation.z]).toEqual([0, 0]);
      const tiltDeg = (2 * Math.atan2(s.orientation.y, s.orientation.w) * 180) / Math.PI;
      expect(tiltDeg).toBeCloseTo(m.slope_tilt_deg as number, 9);
      expect(tiltDeg).toBeGreaterThanOrEqual(10);
      expect(tiltDeg).toBeLessThanOrEqual(45);
      const [lo, hi] = zRange(s);
      expect(lo).toBeCloseTo(0, 6);
      // its high end is 2x sin(tilt) + 0.02 cos(tilt) up
      const rad = (tiltDeg * Math.PI) / 180;
      expect(hi).toBeCloseTo(2 * halfX * Math.sin(rad) + 0.02 * Math.cos(rad), 5);
    }
  });

  it("friction static in [0.3, 3.0], dynamic in [0.3, static], restitution 0.1, 1/240 s steps, 30 steps", () => {
    for (const t of tasks) {
      const m = meta(t);
      const fs = m.static_friction as number,
        fd = m.dynamic_friction as number;
      expect(fs).toBeGreaterThanOrEqual(0.3);
      expect(fs).toBeLessThanOrEqual(3);
      expect(fd).toBeGreaterThanOrEqual(0.3);
      expect(fd).toBeLessThanOrEqual(fs);
      expect([m.restitution, m.physics_step_s, m.landing_steps, m.steps, m.physics_steps_per_step]).toEqual([0.1, 1 / 240, 5, 30, 4]);
    }
  });

  it("the recorded step counts are the ones simulated: the experiment replayed with them ends in the recorded world, bit for bit", () => {
    for (const t of tasks) {
      const m = meta(t);
      const s = slopeOf(t),
        o = objectOf(t);
      const material = { staticFriction: m.static_friction as number, dynamicFriction: m.dynamic_friction as number, restitution: m.restitution as number };
      const world = new PhysicsWorld();
      try {
        addFloor(world, t.room.size!);
        world.addBody(bodyOf(s, { kind: "box", fixed: true, material }));
        // the object put down on the board's top face centre, its up along the board's normal (sin, 0, cos)
        const tilt = 2 * Math.atan2(s.orientation.y, s.orientation.w);
        const { sin, cos } = exactSinCos(tilt);
        const lift = s.extent[2] / 2 + DROP_CLEARANCE_M + o.extent[2] / 2;
        const start: [number, number, number] = [s.position[0] + lift * sin, s.position[1], s.position[2] + lift * cos];
        world.addBody(bodyOf({ ...o, position: start, orientation: s.orientation }, { material }));
        world.step((m.landing_steps as number) * (m.physics_steps_per_step as number));
        const before = world.pose(o.id).position;
        world.step((m.steps as number) * (m.physics_steps_per_step as number));
        const after = world.pose(o.id).position;
        expect(world.snapshotHash()).toBe(m.snapshot_sha256);
        expect(round4(Math.sqrt((after[0] - before[0]) ** 2 + (after[1] - before[1]) ** 2))).toBe(m.slide_distance_m);
        expect(round4(world.aabb(o.id).min[2])).toBe(m.final_bottom_z_m);
      } finally {
        world.free();
      }
    }
  });

  it("the label follows ESI's thresholds: falls below 5 cm, else slides past 3 cm, else stable; only stable answers yes", () => {
    const answers = new Set<string>();
    for (const t of tasks) {
      const m = meta(t);
      expect([m.slide_threshold_m, m.fall_threshold_m]).toEqual([0.03, 0.05]);
      const expected = (m.final_bottom_z_m as number) < 0.05 ? "falls" : (m.slide_distance_m as number) > 0.03 ? "slides" : "stable";
      expect(m.outcome).toBe(expected);
      expect(t.answer).toBe(m.outcome === "stable" ? "yes" : "no");
      expect(t.options).toEqual(["yes", "no"]);
      expect(t.question).toBe(`Do you think ${objectOf(t).name} will stay stable (not slide) when placed on the slope?`);
      answers.add(t.answer);
    }
    // the answer plan balances yes and no (answerPlan.ts)
    expect([...answers].sort()).toEqual(["no", "yes"]);
  });

  it("the initial scene has the object on the floor, 2 cm off the slope's front face, as ESI's first views show it", () => {
    for (const t of tasks) {
      const s = slopeOf(t),
        o = objectOf(t);
      expect(SLOPE_OBJECTS).toContain(o.category);
      expect(o.support).toBe("floor");
      // settled by the physics: its lowest point rests on the floor (within the engine's contact tolerance)
      expect(Math.abs(zRange(o)[0])).toBeLessThan(0.003);
      const gap = o.position[1] - o.extent[1] / 2 - (s.position[1] + SLOPE_HALF_Y_M);
      // ESI's gap 0.02 m, less what settling moves the object
      expect(gap).toBeGreaterThan(0.02 - 0.005);
      expect(gap).toBeLessThan(0.02 + 0.01);
      expect(t.relevant_object_ids).toEqual([s.id, o.id]);
    }
  });

  it("the same seed draws the same task, settled poses and outcome included", () => {
    expect(generateTask("inclined_plane", "dynamics-test", 1)).toEqual(tasks[1]);
  });
});

describe("Inclined Plane's experiment (runOnSlope)", () => {
  const rng = new Rng("slope-cases");
  const board = (b: SceneBuilder, tiltDeg: number) => {
    const tilt = (tiltDeg * Math.PI) / 180;
    const { sin, cos } = exactSinCos(tilt);
    return b.addBox("slope", {
      extent: [0.5, 0.3, 0.02],
      position: [0, 0, 0.25 * sin + 0.01 * cos],
      orientation: axisRotation("y", tilt),
      color: "grey",
      role: "support",
    });
  };
  const run = (category: string, tiltDeg: number, fs: number, fd: number) => {
    const b = new SceneBuilder(rng, { id: "r_0", type: "r", size: [4, 4], height: 2.6 });
    const slope = board(b, tiltDeg);
    const object = b.add(category, { x: 0, y: 1, role: "target" });
    return runOnSlope([4, 4], slope, object, { staticFriction: fs, dynamicFriction: fd, restitution: 0.1 });
  };

  it("a die on a 15 deg board with static friction 1.0 stays; on 40 deg with friction 0.3 (tan 40 = 0.84) it moves", () => {
    expect(run("dice", 15, 1, 0.8).outcome).toBe("stable");
    expect(run("dice", 40, 0.3, 0.3).outcome).not.toBe("stable");
  });

  it("a tennis ball rolls off a 20 deg board whatever the friction", () => {
    expect(run("tennis_ball", 20, 3, 3).outcome).toBe("falls");
  });
});

describe("Inclined Plane's scene in the 3D arm", () => {
  it("renders the settled scene, and a graph from its gt depth shows the board tilted: its nodes' heights follow the tilt", () => {
    const t = tasks[0]!;
    const s = slopeOf(t),
      o = objectOf(t);
    const b = bundleOf(t, "gt");
    const structure = new Set(b.manifest.instances.filter((e) => e.structure).map((e) => e.id));
    const cloud = backprojectViews(b.views, bundleCategories(b), { excludeIds: structure });
    const graph = buildSceneGraph(cloud, b, { masks: "instance", instances: "fusion" }).graph;
    const board = graph.nodes.find((n) => n.label === "slope");
    const object = graph.nodes.find((n) => n.label === o.category);
    expect(board, "the board is a node").toBeDefined();
    expect(object, "the object is a node").toBeDefined();
    // the board rises 2x sin(tilt) + 0.02 cos(tilt) over its length: the points say so
    const rad = ((meta(t).slope_tilt_deg as number) * Math.PI) / 180;
    const rise = s.extent[0] * Math.sin(rad) + s.extent[2] * Math.cos(rad);
    expect(board!.aabb.max[2] - board!.aabb.min[2]).toBeGreaterThan(0.8 * rise);
    expect(board!.aabb.max[2] - board!.aabb.min[2]).toBeLessThan(1.1 * rise);
    // the object stands on the floor
    expect(object!.aabb.min[2]).toBeLessThan(0.02);
  }, 120_000);

  it("the ground-truth graph's board node holds the tilted board: its height is the board's rise, its length the run", () => {
    for (const t of tasks) {
      const s = slopeOf(t);
      const rad = ((meta(t).slope_tilt_deg as number) * Math.PI) / 180;
      const [length, width, thickness] = s.extent;
      const rise = length * Math.sin(rad) + thickness * Math.cos(rad);
      const run = length * Math.cos(rad) + thickness * Math.sin(rad);
      const board = truthGraph(t).nodes.find((n) => n.id === `o${s.id}`)!;
      expect(board.label).toBe("slope");
      // its low edge on the floor, its high end the rise up: the mesh's z range (float32 vertices)
      const [lo, hi] = zRange(s);
      expect(board.aabb.min[2]).toBeCloseTo(lo, 6);
      expect(board.aabb.max[2]).toBeCloseTo(hi, 6);
      expect(board.aabb.max[2] - board.aabb.min[2]).toBeCloseTo(rise, 9);
      expect(board.box.extent[2]).toBeCloseTo(rise, 9);
      // the board lies along X (it tilts about Y): the box's X side is the run, its Y side the width
      expect(board.aabb.max[0] - board.aabb.min[0]).toBeCloseTo(run, 9);
      expect(board.aabb.max[1] - board.aabb.min[1]).toBeCloseTo(width, 9);
      // the object's own volume, not the box's
      expect(board.volume_m3).toBeCloseTo(length * width * thickness, 12);
      // the object settled on the floor beside it stands near upright: its node's box is its own, within a few mm
      const o = objectOf(t);
      const own = truthGraph(t).nodes.find((n) => n.id === `o${o.id}`)!.box.extent;
      own.forEach((e, k) => {
        expect(e).toBeGreaterThanOrEqual(o.extent[k]! - 1e-12);
        expect(e).toBeLessThan(o.extent[k]! + 0.005);
      });
    }
  });
});
