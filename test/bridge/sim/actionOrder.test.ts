/**
 * Action Order Inference (bridge/sim/generate/actionOrder.ts) on 18 generated tasks: the construction numbers against
 * ESI-Bench's generator src/dataset_generation/task_action_sequencing/batch_action.py (A_CORRECT_RATIO 1.30-1.50,
 * A_WRONG_RATIO_SM 0.88-0.93, C_CORRECT_RATIO 0.55-0.70, C_WRONG_RATIO_LG 1.10-1.30 of B's smaller footprint side,
 * ROW_GAP 0.20 m, the row A C B C A, ORBIT_RADIUS_PAD 0.5 m, ORBIT_HEIGHT_PAD 0.6 m, SETTLE_STEPS 60, its question
 * templates) and its runner hook src/active_explore/tasks/action.py (the view order 0, 2, 1, 3), and the label
 * against placements this test runs itself in the physics engine and ESI's relation rule written out again here.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { generateTask, prepareGenerators } from "../../../bridge/sim/generate/suite.js";
import { PhysicsWorld } from "../../../bridge/sim/physics/world.js";
import { addFloor } from "../../../bridge/sim/physics/settle.js";
import { bodyOf } from "../../../bridge/sim/physics/bodies.js";
import type { Task, TaskObject } from "../../../core/task/schema.js";

const N = 18;
const SEED = "action-order-test";
let tasks: Task[] = [];
beforeAll(async () => {
  await prepareGenerators(["action_order_inference"]);
  tasks = Array.from({ length: N }, (_, i) => generateTask("action_order_inference", SEED, i));
}, 300_000);

type Meta = { roles: Record<string, number>; row_order: string[]; role_count: number };
const meta = (t: Task) => t.label_metadata as unknown as Meta;
const obj = (t: Task, kind: string) => t.objects.find((o) => o.id === meta(t).roles[kind])!;
const minSide = (o: TaskObject) => Math.min(o.extent[0], o.extent[1]);
const parts = (t: Task) => JSON.parse(t.answer) as Record<string, string>;

/** ESI's spatial_relation_in_view, from the camera's eye and its look direction. */
function esiRelation(t: Task, o: TaskObject, ref: TaskObject): string {
  const { yaw, pitch } = t.agent_initial;
  const fwd = [Math.cos(pitch) * Math.cos(yaw), Math.cos(pitch) * Math.sin(yaw), Math.sin(pitch)];
  // right = fwd x up, cam_up = right x fwd
  const rn = Math.hypot(fwd[1]!, fwd[0]!);
  const right = [fwd[1]! / rn, -fwd[0]! / rn, 0];
  const up = [right[1]! * fwd[2]! - 0, 0 - right[0]! * fwd[2]!, right[0]! * fwd[1]! - right[1]! * fwd[0]!];
  const d = [0, 1, 2].map((k) => o.position[k]! - ref.position[k]!);
  const h = d[0]! * right[0]! + d[1]! * right[1]!;
  const v = d[0]! * up[0]! + d[1]! * up[1]! + d[2]! * up[2]!;
  return Math.abs(h) >= Math.abs(v) ? (h > 0 ? "right" : "left") : v > 0 ? "above" : "below";
}

/** Drops `upper` on the centre of `lower` (both squared), 240 physics steps (ESI's 60 at 4 per step); ESI's check_on_top. */
function fits(t: Task, fixed: TaskObject[], lower: TaskObject, upper: TaskObject): { fits: boolean; pose: TaskObject } {
  const w = new PhysicsWorld();
  try {
    addFloor(w, t.room.size as [number, number]);
    for (const o of fixed) w.addBody(bodyOf(o, { fixed: true }));
    const top = w.aabb(lower.id).max[2];
    w.addBody(
      bodyOf({ ...upper, position: [lower.position[0], lower.position[1], top + 0.005 + upper.extent[2] / 2], orientation: { x: 0, y: 0, z: 0, w: 1 } }),
    );
    w.step(240);
    const u = w.aabb(upper.id),
      l = w.aabb(lower.id);
    const within = u.max[0] - u.min[0] <= l.max[0] - l.min[0] && u.max[1] - u.min[1] <= l.max[1] - l.min[1];
    const p = w.pose(upper.id);
    return { fits: within && w.contacts(upper.id).includes(lower.id), pose: { ...upper, position: p.position, orientation: p.orientation } };
  } finally {
    w.free();
  }
}

describe("Action Order Inference: ESI's construction", () => {
  it("2 and 3 roles, balanced by the plan; B (scale 1) in the centre of ESI's row A C B C A, each pair on opposite sides", () => {
    const counts = { 2: 0, 3: 0 } as Record<number, number>;
    for (const t of tasks) {
      const m = meta(t);
      counts[m.role_count]!++;
      expect(m.row_order).toHaveLength(m.role_count === 3 ? 5 : 3);
      expect(m.row_order[(m.row_order.length - 1) / 2]).toBe("B");
      expect([m.row_order[0], m.row_order.at(-1)].sort()).toEqual(["A_correct", "A_wrong"]);
      if (m.role_count === 3) expect([m.row_order[1], m.row_order[3]].sort()).toEqual(["C_correct", "C_wrong"]);
      expect(obj(t, "B").scale).toBe(1);
      expect(t.objects.filter((o) => o.role === "target" || o.role === "reference")).toHaveLength(m.role_count * 2 - 1);
    }
    expect(counts[2]).toBe(N / 2);
    expect(counts[3]).toBe(N / 2);
  });

  it("scales: each candidate's smaller footprint side is ESI's ratio of B's (A 1.30-1.50 fits, 0.88-0.93 fails; C 0.55-0.70 fits, 1.10-1.30 fails)", () => {
    const ranges: Record<string, [number, number]> = { A_correct: [1.3, 1.5], A_wrong: [0.88, 0.93], C_correct: [0.55, 0.7], C_wrong: [1.1, 1.3] };
    for (const t of tasks) {
      const b = minSide(obj(t, "B"));
      for (const kind of meta(t).row_order.filter((k) => k !== "B")) {
        const o = obj(t, kind);
        // the extent is rounded to 0.1 mm: the ratio to within 0.002
        const r = minSide(o) / b;
        expect(r, `${t.task_id} ${kind}`).toBeGreaterThanOrEqual(ranges[kind]![0] - 0.002);
        expect(r, `${t.task_id} ${kind}`).toBeLessThanOrEqual(ranges[kind]![1] + 0.002);
        // the two candidates of a role share a model and a look
        const twin = obj(t, kind.endsWith("correct") ? kind.replace("correct", "wrong") : kind.replace("wrong", "correct"));
        expect([twin.model, twin.color]).toEqual([o.model, o.color]);
        expect(o.orientation).toEqual({ x: 0, y: 0, z: 0, w: 1 });
      }
    }
  });

  it("the row: on the floor along one axis, neighbours' boxes ROW_GAP 0.20 m apart", () => {
    for (const t of tasks) {
      const row = meta(t).row_order.map((k) => obj(t, k));
      const d = [row.at(-1)!.position[0] - row[0]!.position[0], row.at(-1)!.position[1] - row[0]!.position[1]];
      const n = Math.hypot(d[0]!, d[1]!);
      const axis = [d[0]! / n, d[1]! / n];
      const half = (o: TaskObject) => Math.abs((o.extent[0] / 2) * axis[0]!) + Math.abs((o.extent[1] / 2) * axis[1]!);
      for (let i = 1; i < row.length; i++) {
        const a = row[i - 1]!,
          b = row[i]!;
        const along = (b.position[0] - a.position[0]) * axis[0]! + (b.position[1] - a.position[1]) * axis[1]!;
        expect(along - half(a) - half(b), t.task_id).toBeCloseTo(0.2, 3);
        // on the line
        expect(Math.abs((b.position[0] - row[0]!.position[0]) * axis[1]! - (b.position[1] - row[0]!.position[1]) * axis[0]!)).toBeLessThan(1e-3);
      }
      // positions are kept to 0.1 mm
      for (const o of row) expect(Math.abs(o.position[2] - o.extent[2] / 2)).toBeLessThanOrEqual(1e-4 + 1e-9);
    }
  });

  it("the camera: ESI's orbit (radius = XY half-diagonal + 0.5 m, height = mid height + 0.6 radius + 0.6 m) at one of its 4 azimuths, aimed at the row's midpoint", () => {
    const azimuths: number[] = [];
    for (const t of tasks) {
      const row = meta(t).row_order.map((k) => obj(t, k));
      const lo = [0, 1, 2].map((k) => Math.min(...row.map((o) => o.position[k]! - o.extent[k]! / 2)));
      const hi = [0, 1, 2].map((k) => Math.max(...row.map((o) => o.position[k]! + o.extent[k]! / 2)));
      const r = Math.hypot((hi[0]! - lo[0]!) / 2, (hi[1]! - lo[1]!) / 2) + 0.5;
      const cz = (lo[2]! + hi[2]!) / 2;
      const c = [(row[0]!.position[0] + row.at(-1)!.position[0]) / 2, (row[0]!.position[1] + row.at(-1)!.position[1]) / 2];
      const eye = t.agent_initial.position;
      expect(Math.hypot(eye[0] - c[0]!, eye[1] - c[1]!)).toBeCloseTo(r, 2);
      expect(eye[2]).toBeCloseTo(cz + 0.6 * r + 0.6, 3);
      const az = Math.round(((Math.atan2(eye[1] - c[1]!, eye[0] - c[0]!) / (Math.PI / 2)) % 4) + 4) % 4;
      azimuths.push(az);
      const turn = Math.atan2(c[1]! - eye[1], c[0]! - eye[0]) - t.agent_initial.yaw;
      expect(Math.abs(((((turn + 3 * Math.PI) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI)) - Math.PI)).toBeLessThan(1e-3);
      expect(t.agent_initial.pitch).toBeCloseTo(Math.atan2(cz - eye[2], r), 3);
    }
    // the runner's first choice, azimuth 0, where the room allows it
    expect(azimuths.filter((a) => a === 0).length).toBeGreaterThan(N / 2);
  });

  it("the question is ESI's template; each part offers the two candidates' relations to B; the base's answer slot is balanced", () => {
    let first = 0;
    for (const t of tasks) {
      expect(t.answer_format).toBe("parts");
      const spec = t.answer_spec!;
      if (spec.kind !== "parts") throw new Error("parts");
      const m = meta(t);
      expect(spec.parts.map((p) => p.key)).toEqual(m.role_count === 3 ? ["A", "C"] : ["A"]);
      expect(t.options).toEqual(spec.parts[0]!.options);
      const b = obj(t, "B");
      for (const p of spec.parts)
        expect([...p.options].sort()).toEqual([esiRelation(t, obj(t, `${p.key}_correct`), b), esiRelation(t, obj(t, `${p.key}_wrong`), b)].sort());
      const [a0, a1] = spec.parts[0]!.options;
      const names = (c: string) => c.replace(/_/g, " ");
      if (m.role_count === 3) {
        const [c0, c1] = spec.parts[1]!.options;
        const [A, B, C] = [obj(t, "A_correct").category, b.category, obj(t, "C_correct").category].map(names);
        expect(t.question).toBe(
          `Which ${A} should go under the ${B} as its base, and which ${C} should go on top of the ${B}? The ${A} to the ${a0} or ${a1} of the ${B}? The ${C} to the ${c0} or ${c1} of the ${B}?`,
        );
      } else {
        const [A, B] = [obj(t, "A_correct").category, b.category].map(names);
        expect(t.question).toBe(`Which ${A} should you place under the ${B} as its base — the one to the ${a0} or the one to the ${a1} of the ${B}?`);
      }
      if (spec.parts[0]!.answer === a0) first++;
    }
    expect(first).toBe(N / 2);
  });
});

describe("Action Order Inference: the label is the placements' outcome", () => {
  it("B dropped on each A and each C on B (B on the A that fits): exactly one of each fits, and the answer names it by ESI's relation rule", () => {
    for (const t of tasks) {
      const m = meta(t);
      const b = obj(t, "B");
      const bases = ["A_correct", "A_wrong"].map((k) => ({ k, r: fits(t, [obj(t, k)], obj(t, k), b) }));
      const fit = bases.filter((x) => x.r.fits);
      expect(
        fit.map((x) => x.k),
        t.task_id,
      ).toEqual(["A_correct"]);
      const want: Record<string, string> = { A: esiRelation(t, obj(t, "A_correct"), b) };
      if (m.role_count === 3) {
        const bOnA = fit[0]!.r.pose;
        const tops = ["C_correct", "C_wrong"].map((k) => ({ k, r: fits(t, [obj(t, "A_correct"), bOnA], bOnA, obj(t, k)) }));
        expect(
          tops.filter((x) => x.r.fits).map((x) => x.k),
          t.task_id,
        ).toEqual(["C_correct"]);
        want.C = esiRelation(t, obj(t, "C_correct"), b);
      }
      expect(parts(t), t.task_id).toEqual(want);
    }
  });

  it("ESI's other 'wrong' draws would fit: an A 1.30 x A_correct holds B, a C 0.70 x C_correct sits within B (why they are not drawn)", () => {
    const t = tasks.find((x) => meta(x).role_count === 3)!;
    const b = obj(t, "B");
    const big = (o: TaskObject, k: number): TaskObject => ({
      ...o,
      extent: o.extent.map((e) => e * k) as TaskObject["extent"],
      scale: (o.scale as number) * k,
    });
    const aLarge = big(obj(t, "A_correct"), 1.3);
    expect(fits(t, [aLarge], aLarge, b).fits).toBe(true);
    const bOnA = fits(t, [obj(t, "A_correct")], obj(t, "A_correct"), b).pose;
    expect(fits(t, [obj(t, "A_correct"), bOnA], bOnA, big(obj(t, "C_correct"), 0.7)).fits).toBe(true);
  });

  it("the same seed draws the same task (the placements are deterministic)", () => {
    const again = generateTask("action_order_inference", SEED, 0);
    expect(again).toEqual(tasks[0]);
  });
});
