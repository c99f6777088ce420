/** Specular Reflection's generators (bridge/sim/generate/mirror.ts): ESI's construction numbers, on generated tasks. */
import { describe, expect, it } from "vitest";
import { directAndReflectedCounts, VISIBLE_MIN_PX } from "../../../bridge/sim/generate/visibility.js";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { buildScene } from "../../../bridge/sim/scene.js";
import { poseToExtrinsic, projectPoint } from "../../../core/math/camera.js";
import { buildModel } from "../../../core/objects/library.js";
import { mirrorPlane, reflectPoint, seenThroughMirror, signedPlaneDistance } from "../../../core/objects/mirror.js";
import type { Task } from "../../../core/task/schema.js";

const N = 6;
const SEED = "mirror-tasks-test";
const generate = (sub: Task["subcategory"]) => Array.from({ length: N }, (_, i) => generateTask(sub as never, SEED, i));
const authoring = generate("reflection_authoring");
const spatial = generate("mirror_spatial_relations");
const correspondence = generate("mirror_correspondence");

const mirrorOf = (t: Task) => {
  const ms = t.objects.filter((o) => o.category === "mirror");
  expect(ms).toHaveLength(1);
  return mirrorPlane(ms[0]!);
};
const pose = (t: Task) => ({ position: t.agent_initial.position, yaw: t.agent_initial.yaw, pitch: t.agent_initial.pitch });
const counts = (t: Task) => directAndReflectedCounts(buildScene(t), t.camera, pose(t));
const obj = (t: Task, id: unknown) => t.objects.find((o) => o.id === id)!;
const equivalentRadius = (model: string) => {
  const e = buildModel(model).extent;
  return Math.cbrt((3 * e[0] * e[1] * e[2]) / (4 * Math.PI));
};
const xy = (p: readonly number[]) => [p[0]!, p[1]!] as const;
const deg = (r: number) => (r * 180) / Math.PI;

describe("Specular Reflection generators: the mirror and the camera (ESI Q.16-Q.18)", () => {
  it("one floor mirror facing the room centre within 30°, the camera 0.8 m up, 2.0 m (3.0 m for Correspondence) in front with a small lateral offset, level, aimed at the mirror's centre", () => {
    for (const [tasks, ahead] of [
      [authoring, 2.0],
      [spatial, 2.0],
      [correspondence, 3.0],
    ] as const)
      for (const t of tasks) {
        const m = mirrorOf(t);
        const toCentre = Math.atan2(-m.centre[1], -m.centre[0]);
        const facing = Math.atan2(m.normal[1], m.normal[0]);
        const off = Math.abs(((deg(facing - toCentre) + 540) % 360) - 180);
        expect(off).toBeLessThanOrEqual(30 + 1e-6);
        expect(m.normal[2]).toBeCloseTo(0, 9);
        const cam = t.agent_initial.position;
        expect(cam[2]).toBeCloseTo(0.8, 6);
        const rel = [cam[0] - m.centre[0], cam[1] - m.centre[1]];
        expect(rel[0]! * m.normal[0] + rel[1]! * m.normal[1]).toBeCloseTo(ahead, 3);
        expect(Math.abs(rel[0]! * m.u[0] + rel[1]! * m.u[1])).toBeLessThanOrEqual(0.35 + 1e-3);
        expect(t.agent_initial.pitch).toBeCloseTo(0, 6);
        expect(Math.abs(((deg(t.agent_initial.yaw - Math.atan2(-rel[1]!, -rel[0]!)) + 540) % 360) - 180)).toBeLessThan(0.01);
        // the mirror in ESI's records: half width 0.45-0.48 m, centre 1.14 m up
        expect(m.half_width_m).toBeGreaterThanOrEqual(0.44);
        expect(m.half_width_m).toBeLessThanOrEqual(0.49);
        expect(m.centre[2]).toBeCloseTo(1.14, 6);
      }
  });

  it("objects come from ESI's pool: equivalent-sphere radius 0.02-0.20 m", () => {
    for (const t of [...authoring, ...spatial, ...correspondence])
      for (const o of t.objects.filter((x) => x.role === "target")) {
        expect(equivalentRadius(o.model)).toBeGreaterThanOrEqual(0.02);
        expect(equivalentRadius(o.model)).toBeLessThanOrEqual(0.2);
      }
  });
});

describe("Reflection Authoring (ESI Q.16)", () => {
  it("asks ESI's yes/no question, balanced", () => {
    for (const t of authoring) {
      expect(t.question).toMatch(/^In this image, you can see an? [a-z ]+\. Are you seeing it through the mirror\?$/);
      expect(t.options).toEqual(["yes", "no"]);
    }
    expect(authoring.filter((t) => t.answer === "yes")).toHaveLength(N / 2);
  });

  it("yes: at least 1.0 m (and at most 1.8 m) in front of the mirror, in the mirror only; no: directly only, beside or beyond the mirror's reach, more than 2.5 m from the camera", () => {
    for (const t of authoring) {
      const m = mirrorOf(t);
      const target = obj(t, t.label_metadata.target_id);
      const depth = signedPlaneDistance(m, target.position);
      const { direct, reflected } = counts(t);
      const d = direct.get(target.id) ?? 0,
        r = reflected.get(target.id) ?? 0;
      if (t.answer === "yes") {
        expect(depth).toBeGreaterThanOrEqual(1.0);
        expect(depth).toBeLessThanOrEqual(1.8);
        expect(d).toBe(0);
        expect(r).toBeGreaterThanOrEqual(VISIBLE_MIN_PX);
      } else {
        expect(r).toBe(0);
        expect(d).toBeGreaterThanOrEqual(VISIBLE_MIN_PX);
        const cam = t.agent_initial.position;
        expect(Math.hypot(target.position[0] - cam[0], target.position[1] - cam[1])).toBeGreaterThan(2.5);
        const u = (target.position[0] - m.centre[0]) * m.u[0] + (target.position[1] - m.centre[1]) * m.u[1];
        const beside = Math.abs(u) >= m.half_width_m + 0.12 && Math.abs(depth) <= 0.55;
        expect(beside || depth >= 1.35).toBe(true);
      }
    }
  });
});

describe("Spatial Relations (mirror) (ESI Q.17)", () => {
  it("two objects of two categories, both shown by the mirror, 0.55-1.8 m in front of it, at least 0.26 m apart; the answer is the one whose real position is nearer the camera in 3D", () => {
    for (const t of spatial) {
      expect(t.options).toEqual(["A", "B"]);
      const [a, b] = [obj(t, t.label_metadata.a_id), obj(t, t.label_metadata.b_id)];
      expect(a.category).not.toBe(b.category);
      expect(t.question).toContain(`object A (${a.category.replace(/_/g, " ")}) and object B (${b.category.replace(/_/g, " ")})`);
      const m = mirrorOf(t);
      const { reflected } = counts(t);
      for (const o of [a, b]) {
        const depth = signedPlaneDistance(m, o.position);
        expect(depth).toBeGreaterThanOrEqual(0.55);
        expect(depth).toBeLessThanOrEqual(1.8);
        expect(reflected.get(o.id) ?? 0).toBeGreaterThanOrEqual(VISIBLE_MIN_PX);
      }
      expect(Math.hypot(a.position[0] - b.position[0], a.position[1] - b.position[1])).toBeGreaterThanOrEqual(0.26);
      const cam = t.agent_initial.position;
      const dist = (p: readonly number[]) => Math.hypot(p[0]! - cam[0], p[1]! - cam[1], p[2]! - cam[2]);
      expect(t.answer).toBe(dist(a.position) <= dist(b.position) ? "A" : "B");
    }
    expect(new Set(spatial.map((t) => t.answer))).toEqual(new Set(["A", "B"]));
  });
});

describe("Correspondence (ESI Q.18)", () => {
  it("three identical objects, all seen directly; the target 1.0-2.0 m out on the reflected viewing ray, seen in the mirror; the others 0.7-1.2 m from it across the ray, at least 0.30 m apart; the answer is its place in the image", () => {
    for (const t of correspondence) {
      expect(t.options).toEqual(["left", "middle", "right"]);
      const ids = t.label_metadata.object_ids as number[];
      const three = ids.map((id) => obj(t, id));
      expect(new Set(three.map((o) => o.model)).size).toBe(1);
      const m = mirrorOf(t);
      const cam = t.agent_initial.position;
      const target = obj(t, t.label_metadata.target_id);
      // on the reflected ray of the camera's line to the mirror's centre, in XY
      const inc = [m.centre[0] - cam[0], m.centre[1] - cam[1]];
      const L = Math.hypot(inc[0]!, inc[1]!);
      const dn = (inc[0]! * m.normal[0] + inc[1]! * m.normal[1]) / L;
      const refl = [inc[0]! / L - 2 * dn * m.normal[0], inc[1]! / L - 2 * dn * m.normal[1]];
      const rel = [target.position[0] - m.centre[0], target.position[1] - m.centre[1]];
      const along = rel[0]! * refl[0]! + rel[1]! * refl[1]!;
      expect(along).toBeGreaterThanOrEqual(1.0 - 1e-3);
      expect(along).toBeLessThanOrEqual(2.0 + 1e-3);
      expect(Math.abs(rel[0]! * refl[1]! - rel[1]! * refl[0]!)).toBeLessThan(1e-3);
      for (const o of three.filter((x) => x !== target)) {
        const d = Math.hypot(o.position[0] - target.position[0], o.position[1] - target.position[1]);
        expect(d).toBeGreaterThanOrEqual(0.7 - 1e-3);
        expect(d).toBeLessThanOrEqual(1.2 + 1e-3);
      }
      for (const o of three) expect(Math.abs(deg(2 * Math.atan2(o.orientation.z, o.orientation.w)))).toBeLessThanOrEqual(28 + 1e-3);
      for (let i = 0; i < 3; i++)
        for (let j = i + 1; j < 3; j++) expect(Math.hypot(...xy(three[i]!.position).map((v, k) => v - xy(three[j]!.position)[k]!))).toBeGreaterThanOrEqual(0.3);
      const { direct, reflected } = counts(t);
      for (const o of three) expect(direct.get(o.id) ?? 0).toBeGreaterThanOrEqual(VISIBLE_MIN_PX);
      expect(reflected.get(target.id) ?? 0).toBeGreaterThanOrEqual(VISIBLE_MIN_PX);
      expect(seenThroughMirror(m, cam, reflectPoint(m, target.position), 0, 0)).toBe(true);
      const E = poseToExtrinsic(pose(t));
      const K = { fx: 1, fy: 1, cx: 0, cy: 0 };
      const order = [...three].sort((p, q) => projectPoint(E, K, p.position).u - projectPoint(E, K, q.position).u);
      expect(t.answer).toBe(["left", "middle", "right"][order.indexOf(target)]);
    }
    expect(new Set(correspondence.map((t) => t.answer))).toEqual(new Set(["left", "middle", "right"]));
  });
});
