/** Stacking & Stability (bridge/sim/generate/stacking.ts): every construction number against ESI's, on generated tasks. */
import { beforeAll, describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { loadPhysics, PhysicsWorld } from "../../../bridge/sim/physics/world.js";
import { addFloor } from "../../../bridge/sim/physics/settle.js";
import { bodyOf } from "../../../bridge/sim/physics/bodies.js";
import { DROP_CLEARANCE_M, PHYSICS_STEP_S } from "../../../bridge/sim/physics/params.js";
import { buildModel, LIBRARY } from "../../../core/objects/library.js";
import { objectWorldTriangles } from "../../../core/objects/shape.js";
import type { Task, TaskObject } from "../../../core/task/schema.js";

const N = 6;
/** The library's categories that pass ESI's selection prompt (rigid, flat-bottomed, hand-held, stackable). */
const STACKABLE = ["book", "cardboard_box", "toy_block", "dice", "can", "mug", "cup", "bowl", "jar", "pot", "candle"];
const SETTLE_PHYSICS_STEPS = 60 * 4;
/** ESI's permutation order (itertools.permutations), bottom first. */
const PERMUTATIONS: Record<number, number[][]> = {
  2: [
    [0, 1],
    [1, 0],
  ],
  3: [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
  ],
};

/** IoU of two boxes' XY rectangles, as ESI's xy_iou computes it. */
function xyIou(a: { min: number[]; max: number[] }, b: { min: number[]; max: number[] }): number {
  const w = Math.max(0, Math.min(a.max[0]!, b.max[0]!) - Math.max(a.min[0]!, b.min[0]!));
  const h = Math.max(0, Math.min(a.max[1]!, b.max[1]!) - Math.max(a.min[1]!, b.min[1]!));
  const areaA = (a.max[0]! - a.min[0]!) * (a.max[1]! - a.min[1]!);
  const areaB = (b.max[0]! - b.min[0]!) * (b.max[1]! - b.min[1]!);
  return (w * h) / (areaA + areaB - w * h);
}
let tasks: Task[] = [];

interface TrialRecord {
  order: string[];
  offsets_m: Array<[number, number]>;
  stable: boolean;
  on_top: Array<{ dz_m: number; xy_iou: number }>;
  upright_dot: number[];
  max_speed_m_s: number;
  snapshot_sha256: string;
}
const meta = (t: Task) => t.label_metadata as Record<string, unknown> & { trials: TrialRecord[]; object_categories: string[] };
const objectsOf = (t: Task): TaskObject[] => meta(t).object_categories.map((c) => t.objects.find((o) => o.category === c)!);
const footprint = (e: readonly number[]) => Math.max(e[0]!, e[1]!);

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

/**
 * The test's own replay of one recorded trial: the stack built from the task's objects and the recorded offsets,
 * settled `steps` physics steps; what ESI's checks read from it.
 */
function replay(t: Task, trial: TrialRecord, steps: number) {
  const byCategory = new Map(t.objects.map((o) => [o.category, o]));
  const stack = trial.order.map((c) => byCategory.get(c)!);
  const world = new PhysicsWorld();
  try {
    addFloor(world, t.room.size!);
    let x = 0,
      y = 0,
      top = 0;
    stack.forEach((o, k) => {
      const lift = k === 0 ? 0 : DROP_CLEARANCE_M;
      x += trial.offsets_m[k]![0];
      y += trial.offsets_m[k]![1];
      world.addBody(bodyOf({ ...o, position: [x, y, top + lift + o.extent[2] / 2], orientation: { x: 0, y: 0, z: 0, w: 1 } }, { cap: true }));
      top += lift + o.extent[2];
    });
    const read = () => {
      const boxes = stack.map((o) => world.aabb(o.id));
      return {
        dz: boxes.slice(1).map((b, k) => b.min[2] - boxes[k]!.min[2]),
        iou: boxes.slice(1).map((b, k) => xyIou(b, boxes[k]!)),
        // up . +Z = 1 - 2 (qx^2 + qy^2)
        up: stack.map((o) => {
          const q = world.pose(o.id).orientation;
          return 1 - 2 * (q.x * q.x + q.y * q.y);
        }),
        speed: Math.max(...stack.map((o) => world.speed(o.id))),
      };
    };
    world.step(steps);
    const atLabel = { ...read(), hash: world.snapshotHash() };
    // another ESI settle on top: a stable stack is still standing
    world.step(steps);
    return { atLabel, later: read() };
  } finally {
    world.free();
  }
}

beforeAll(async () => {
  await loadPhysics();
  tasks = Array.from({ length: N }, (_, i) => generateTask("stacking_stability", "stacking-test", i));
}, 120_000);

describe("Stacking & Stability: ESI's construction numbers (batch_stack.py)", () => {
  it("the stacking pool is in the library; ESI's IoU on two rectangles", () => {
    for (const c of STACKABLE) expect(LIBRARY.has(c), c).toBe(true);
    expect(xyIou({ min: [0, 0], max: [2, 1] }, { min: [1, 0], max: [3, 1] })).toBeCloseTo(1 / 3, 12);
    expect(PHYSICS_STEP_S).toBe(1 / 240);
  });

  it("each task has 2 or 3 stackable objects (both counts occur), settled 60 ESI steps of 4 x 1/240 s, checked at 2 cm, IoU 0.1, upright 0.9", () => {
    const counts = new Set<number>();
    for (const t of tasks) {
      const m = meta(t);
      const objs = objectsOf(t);
      expect(objs.length).toBeGreaterThanOrEqual(2);
      expect(objs.length).toBeLessThanOrEqual(3);
      counts.add(objs.length);
      for (const o of objs) expect(STACKABLE).toContain(o.category);
      expect(new Set(objs.map((o) => o.category)).size).toBe(objs.length);
      expect([m.settle_steps, m.physics_steps_per_step, m.physics_step_s]).toEqual([60, 4, 1 / 240]);
      expect([m.on_top_min_dz_m, m.on_top_min_xy_iou, m.upright_min_dot]).toEqual([0.02, 0.1, 0.9]);
      expect(m.trials).toHaveLength(objs.length === 3 ? 6 : 2);
      expect(m.object_count).toBe(objs.length);
    }
    expect([...counts].sort()).toEqual([2, 3]);
  });

  it("footprints are rescaled to the largest natural one, uniformly (Z by the same factor)", () => {
    for (const t of tasks) {
      const objs = objectsOf(t);
      const natural = objs.map((o) => footprint(buildModel(o.model).extent));
      const target = Math.max(...natural);
      objs.forEach((o, i) => {
        expect(typeof o.scale).toBe("number");
        // the scale is rounded to 4 decimals: the footprint matches to that
        expect(o.scale as number).toBeCloseTo(target / natural[i]!, 4);
        expect(Math.abs(footprint(o.extent) - target) / target).toBeLessThan(1e-3);
        expect(o.extent[2]).toBeCloseTo(buildModel(o.model).extent[2] * (o.scale as number), 4);
      });
      expect(meta(t).unified_xy_extent_m).toBeCloseTo(target, 4);
    }
  });

  it("the label follows ESI's checks on the recorded numbers; the answer is every stable order, bottom first", () => {
    for (const t of tasks) {
      const m = meta(t);
      for (const tr of m.trials) {
        const holds = tr.on_top.every((p) => p.dz_m > 0.02 && p.xy_iou >= 0.1) && tr.upright_dot.every((d) => d >= 0.9);
        // the recorded numbers are rounded: only a trial whose numbers sit off the thresholds is checked
        const nearThreshold =
          tr.on_top.some((p) => Math.abs(p.dz_m - 0.02) < 1e-4 || Math.abs(p.xy_iou - 0.1) < 1e-4) || tr.upright_dot.some((d) => Math.abs(d - 0.9) < 1e-4);
        if (!nearThreshold) expect(tr.stable, tr.order.join(">")).toBe(holds);
      }
      // every permutation once, in ESI's order
      expect(m.trials.map((tr) => tr.order)).toEqual(PERMUTATIONS[m.object_categories.length]!.map((p) => p.map((i) => m.object_categories[i]!)));
      const stable = m.trials.filter((tr) => tr.stable).map((tr) => tr.order);
      expect(stable.length).toBeGreaterThan(0);
      expect(t.answer_format).toBe("any_ordering");
      expect(t.answer_spec).toEqual({ kind: "any_ordering", items: [...m.object_categories].sort(), accepted: stable });
      expect(t.answer).toBe(JSON.stringify(stable[0]));
      expect(t.options).toEqual([...m.object_categories].sort());
      expect(t.question).toBe(`How should you stack ${m.object_categories.join(", ")} to maximize stability?`);
    }
  });

  it("a replay of every trial ends in the recorded world, bit for bit; an order labelled stable is stacked, upright and at rest, and still stands 60 steps later", () => {
    let stableSeen = 0,
      unstableSeen = 0;
    for (const t of tasks) {
      for (const tr of meta(t).trials) {
        const r = replay(t, tr, SETTLE_PHYSICS_STEPS);
        expect(r.atLabel.hash).toBe(tr.snapshot_sha256);
        if (!tr.stable) {
          unstableSeen++;
          continue;
        }
        stableSeen++;
        for (const s of [r.atLabel, r.later]) {
          s.dz.forEach((dz) => expect(dz).toBeGreaterThan(0.02));
          s.iou.forEach((iou) => expect(iou).toBeGreaterThanOrEqual(0.1));
          s.up.forEach((up) => expect(up).toBeGreaterThanOrEqual(0.9));
        }
        expect(r.atLabel.speed).toBeLessThan(0.005);
      }
    }
    // the checks above ran on both kinds
    expect(stableSeen).toBeGreaterThan(0);
    expect(unstableSeen).toBeGreaterThan(0);
  }, 120_000);

  it("the initial scene has the objects side by side on the floor, unstacked and upright, every one seen by the first view", () => {
    for (const t of tasks) {
      const objs = [...objectsOf(t)].sort((a, b) => a.position[0] - b.position[0]);
      for (const o of objs) {
        expect(o.support).toBe("floor");
        expect(Math.abs(zRange(o)[0])).toBeLessThan(0.003);
        const q = o.orientation;
        expect(1 - 2 * (q.x * q.x + q.y * q.y)).toBeGreaterThan(0.999);
      }
      // a row along X with ESI's 8 cm gaps (less what settling moves them)
      for (let i = 1; i < objs.length; i++) {
        const gap = objs[i]!.position[0] - objs[i]!.extent[0] / 2 - (objs[i - 1]!.position[0] + objs[i - 1]!.extent[0] / 2);
        expect(gap).toBeGreaterThan(0.07);
        expect(gap).toBeLessThan(0.09);
      }
      expect([...t.relevant_object_ids].sort()).toEqual(objs.map((o) => o.id).sort());
      for (const o of objs) expect(t.view_object_existence[0]!.visible).toContain(o.id);
    }
  });

  it("the same seed draws the same task, trials and answer included", () => {
    expect(generateTask("stacking_stability", "stacking-test", 2)).toEqual(tasks[2]);
  });
});
