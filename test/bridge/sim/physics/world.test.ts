import { beforeAll, describe, expect, it, vi } from "vitest";
import { loadPhysics, PhysicsWorld } from "../../../../bridge/sim/physics/world.js";
import { addFloor, settle } from "../../../../bridge/sim/physics/settle.js";
import { bodyOf } from "../../../../bridge/sim/physics/bodies.js";
import { axisRotation, exactSinCos } from "../../../../bridge/sim/physics/rotation.js";
import { DROP_CLEARANCE_M, PENETRATION_TOLERANCE_M } from "../../../../bridge/sim/physics/params.js";
import { SceneBuilder } from "../../../../bridge/sim/generate/common.js";
import { Rng } from "../../../../core/math/rng.js";
import { droppedScene, SCENE_ROOM } from "./scene.js";

beforeAll(async () => {
  await loadPhysics();
});

const builder = () => new SceneBuilder(new Rng("physics-world-test"), SCENE_ROOM);

describe("exact rotations", () => {
  it("the series' sin and cos agree with Math's to 2 ulp-sized errors over [-pi, pi], and a rotation is a unit quaternion", () => {
    for (let k = -100; k <= 100; k++) {
      const x = (k / 100) * Math.PI;
      const { sin, cos } = exactSinCos(x);
      expect(Math.abs(sin - Math.sin(x))).toBeLessThan(1e-15);
      expect(Math.abs(cos - Math.cos(x))).toBeLessThan(1e-15);
      const q = axisRotation("y", x);
      expect(Math.abs(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w - 1)).toBeLessThan(1e-15);
    }
    expect(() => exactSinCos(4)).toThrow(/outside/);
  });
});

describe("bodies of library objects", () => {
  it("a box container is its five walls; a round flat bottom stands on a foot; a one-part mesh is its hull; kind box is the extent", () => {
    const b = builder();
    const crate = b.add("packing_box", { x: 0, y: 0, role: "container" });
    const can = b.add("can", { x: 0.5, y: 0, role: "target" });
    const block = b.add("toy_block", { x: -0.5, y: 0, role: "target" });
    // the shapes of the bodies the world is given (bodyOf: the default kind, or the one asked for)
    const walls = bodyOf(crate).shape;
    expect(walls.kind).toBe("compound");
    expect(walls.kind === "compound" && walls.parts.length).toBe(5);
    const footed = bodyOf(can).shape;
    expect(footed.kind === "compound" && footed.parts.map((p) => p.shape.kind)).toEqual(["hull", "box"]);
    // the foot is a square inside the can's round bottom, 2 mm thick, at the bottom
    const foot = footed.kind === "compound" ? footed.parts[1]! : undefined;
    expect(foot?.shape.kind === "box" && Math.SQRT2 * foot.shape.half[0] < can.extent[0] / 2).toBe(true);
    expect(foot?.shape.kind === "box" && foot.shape.half[2]).toBeCloseTo(0.001, 9);
    expect(foot?.offset[2]).toBeCloseTo(-can.extent[2] / 2 + 0.001, 6);
    // a cube's corners lie at one distance from its centre, but a cube is no ball
    expect(bodyOf(block).shape.kind).toBe("hull");
    expect(bodyOf(can, { kind: "box" }).shape).toEqual({ kind: "box", half: [can.extent[0] / 2, can.extent[1] / 2, can.extent[2] / 2] });
    expect(() => bodyOf(can, { kind: "compound" })).toThrow(/not an open container/);
  });

  it("a sphere is a ball; a stool is its seat and four legs; a round container its bottom and 24 wall pieces", () => {
    const b = builder();
    const ball = b.add("tennis_ball", { x: 0, y: 0, role: "target" });
    const stool = b.add("stool", { x: 1, y: 0, role: "divider" });
    const glass = b.add("glass", { x: -1, y: 0, role: "container" });
    const ballShape = bodyOf(ball).shape;
    expect(ballShape.kind).toBe("ball");
    expect(ballShape.kind === "ball" && ballShape.radius).toBeCloseTo(ball.extent[2] / 2, 4);
    const legs = bodyOf(stool).shape;
    expect(legs.kind === "compound" && legs.parts.filter((p) => p.shape.kind === "hull").length).toBe(5);
    const shell = bodyOf(glass).shape;
    // the bottom (a round flat face: on a foot) and one convex piece per wall segment of the mesh
    expect(shell.kind === "compound" && shell.parts.map((p) => p.shape.kind)).toEqual(["hull", "box", ...Array(24).fill("hull")]);
  });

  it("what the hull of a whole mesh got wrong settles: an egg under a stool, a walnut in a glass, a seated teddy bear", () => {
    const b = builder();
    const stool = b.add("stool", { x: 0.8, y: 0, role: "divider" });
    const egg = b.add("egg", { x: 0.8, y: 0, role: "target" });
    const glass = b.add("glass", { x: -0.8, y: 0, role: "container" });
    const walnut = b.add("walnut", { x: -0.8, y: 0, bottom: 0.004, role: "target", support: glass.id });
    const bear = b.add("teddy_bear", { x: 0, y: 0.8, role: "target" });
    const r = settle({ roomSize: SCENE_ROOM.size, objects: b.objects, dropped: new Set([stool.id, egg.id, glass.id, walnut.id, bear.id]), steps: 240 });
    expect(r.problems).toEqual([]);
    for (const [i, o] of r.objects.entries()) {
      const given = b.objects[i]!;
      // each ends where it was put, to a few millimetres, and upright (the bear did not topple)
      expect(Math.hypot(o.position[0] - given.position[0], o.position[1] - given.position[1]), o.category).toBeLessThan(0.005);
      expect(
        Math.abs(
          o.orientation.w * given.orientation.w +
            o.orientation.x * given.orientation.x +
            o.orientation.y * given.orientation.y +
            o.orientation.z * given.orientation.z,
        ),
        o.category,
      ).toBeGreaterThan(Math.cos((5 * Math.PI) / 360));
    }
  });

  it("cap: a round flat top gets a lid plate too, and a box stacked on it comes to rest; without cap the body is as before", () => {
    const b = builder();
    const can = b.add("can", { x: 0, y: 0, role: "target", scale: 3 });
    const box = b.add("cardboard_box", { x: 0, y: 0, bottom: can.extent[2] + DROP_CLEARANCE_M, role: "target" });
    const capped = bodyOf(can, { cap: true }).shape;
    expect(capped.kind === "compound" && capped.parts.map((p) => p.shape.kind)).toEqual(["hull", "box", "box"]);
    const lid = capped.kind === "compound" ? capped.parts[2]! : undefined;
    expect(lid?.offset[2]).toBeCloseTo(can.extent[2] / 2 - 0.001, 6);
    // the default body has no lid: Inclined Plane's bodies (and their snapshot hashes) are unchanged
    const plain = bodyOf(can).shape;
    expect(plain.kind === "compound" && plain.parts.length).toBe(2);
    // a box-like mesh has a 4-vertex top: no lid
    expect(bodyOf(box, { cap: true }).shape.kind).toBe("hull");
    const speedsAfter = (cap: boolean) => {
      const w = new PhysicsWorld();
      addFloor(w, SCENE_ROOM.size);
      w.addBody(bodyOf(can, { cap }));
      w.addBody(bodyOf(box, { cap }));
      w.step(240);
      const v = [can.id, box.id].map((id) => w.speed(id));
      w.free();
      return Math.max(...v);
    };
    // measured: without the lid the box rocks on four neighbouring rim vertices, still moving after 1 s
    expect(speedsAfter(true)).toBeLessThan(0.005);
    expect(speedsAfter(false)).toBeGreaterThan(0.005);
  });

  it("a stated mass is the body's mass; an unstated one follows the volume at water's density", () => {
    const b = builder();
    const block = b.add("toy_block", { x: 0, y: 0, role: "target" });
    const w = new PhysicsWorld();
    w.addBody(bodyOf(block, { massKg: 0.25 }));
    w.addBody({ ...bodyOf(block, { kind: "box" }), id: 99 });
    expect(w.massKg(block.id)).toBeCloseTo(0.25, 6);
    expect(w.massKg(99)).toBeCloseTo(1000 * block.extent[0] * block.extent[1] * block.extent[2], 6);
    w.free();
  });

  it("a world made before the engine has loaded is refused with the reason", async () => {
    // a fresh copy of the module: this file's other copy has loaded the engine
    vi.resetModules();
    const { PhysicsWorld: Fresh } = await import("../../../../bridge/sim/physics/world.js");
    expect(() => new Fresh()).toThrow(/await loadPhysics\(\)/);
  });
});

describe("settle: drop onto the support, step, validate", () => {
  it("a seed's scene comes to rest: every object on its support, none overlapping, none moving", () => {
    const objects = droppedScene("physics-test");
    const r = settle({ roomSize: SCENE_ROOM.size, objects, dropped: new Set(objects.map((o) => o.id)), steps: 240 });
    expect(r.problems).toEqual([]);
    for (const [i, o] of r.objects.entries()) {
      const given = objects[i]!;
      // the drop is DROP_CLEARANCE_M; an object sinks at most the engine's contact tolerance into its support
      expect(o.position[2]).toBeGreaterThan(given.position[2] - PENETRATION_TOLERANCE_M);
      expect(o.position[2]).toBeLessThan(given.position[2] + DROP_CLEARANCE_M / 2);
    }
  });

  it("an apple dropped on a tennis ball rolls off it, and the validation says so", () => {
    const b = builder();
    const ball = b.add("tennis_ball", { x: 0, y: 0, role: "reference" });
    const apple = b.add("apple", { x: 0.004, y: 0, bottom: ball.extent[2], role: "target", support: ball.id });
    // two seconds: the ball rolls away from under the apple as it falls, and both come apart
    const r = settle({ roomSize: SCENE_ROOM.size, objects: b.objects, dropped: new Set([ball.id, apple.id]), steps: 480 });
    expect(r.problems).toContain(`object ${apple.id} no longer rests on object ${ball.id}`);
  });

  it("two objects dropped into each other still overlap after one step, and the validation says by how much", () => {
    const b = builder();
    const lower = b.add("cardboard_box", { x: 0, y: 0, role: "reference" });
    const upper = b.add("toy_block", { x: 0, y: 0, bottom: lower.extent[2] - 0.02, role: "target", support: lower.id });
    const r = settle({ roomSize: SCENE_ROOM.size, objects: b.objects, dropped: new Set([upper.id]), steps: 1 });
    expect(r.problems.some((p) => p.startsWith(`bodies ${lower.id} and ${upper.id} overlap by 0.01`))).toBe(true);
  });

  it("the floor is a fixed slab whose top is z = 0 (to float32)", () => {
    const w = new PhysicsWorld();
    addFloor(w, [2, 4]);
    const box = w.aabb(1);
    // Rapier keeps poses in float32: the slab's centre is float32(-0.05)
    expect(box.max[2]).toBeCloseTo(0, 8);
    expect([box.min[0], box.max[0], box.min[1], box.max[1]]).toEqual([-1, 1, -2, 2]);
    expect(w.isFixed(1)).toBe(true);
    w.free();
  });
});
