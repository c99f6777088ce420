/**
 * Agent Observation's generator (bridge/sim/generate/agentObservation.ts): ESI's construction numbers, read in
 * src/dataset_generation/task_multi_agent/batch_multi_agent.py (PROXIMITY_THRESH 1.0, NUM_OBJECTS_MIN/MAX 1-3,
 * MIN_PATH_WAYPOINTS 10, select_valid_start_goal's min_sep 2.0, side offset = robot half-width + 0.15, one category,
 * options 0-3, the observer at the robot's box top looking at its base + 0.05 m) and measured in its 133 released
 * records (a frame every 0.385 m walked; observer 1.09-1.62 m above the robot's start z), on generated tasks.
 */
import { describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { captureBundle } from "../../../bridge/sim/capture.js";
import { buildModel, ROBOT_CATEGORY } from "../../../core/objects/library.js";
import { polylineDistance } from "../../../core/math/polyline.js";
import { idCounts } from "../../../core/idTally.js";
import type { Task } from "../../../core/task/schema.js";

const N = 18;
const SEED = "agent-observation-test";
const tasks = Array.from({ length: N }, (_, i) => generateTask("agent_observation", SEED, i));

type XY = [number, number];
const pathOf = (t: Task) => t.label_metadata.path_waypoints as XY[];
const categoryOf = (t: Task) => t.label_metadata.object_category as string;
const robotIn = (objects: Task["objects"]) => {
  const r = objects.filter((o) => o.category === ROBOT_CATEGORY);
  expect(r).toHaveLength(1);
  return r[0]!;
};
const robotHalf = buildModel(`${ROBOT_CATEGORY}/0`).extent[0] / 2;
const pathLength = (p: XY[]) => p.slice(1).reduce((s, q, i) => s + Math.hypot(q[0] - p[i]![0], q[1] - p[i]![1]), 0);

describe("Agent Observation generator: the walk, the objects and the question (batch_multi_agent.py)", () => {
  it("plans a path of 10+ waypoints between a start and goal at least 2.0 m apart", () => {
    for (const t of tasks) {
      const p = pathOf(t);
      expect(p.length).toBeGreaterThanOrEqual(10);
      expect(Math.hypot(p.at(-1)![0] - p[0]![0], p.at(-1)![1] - p[0]![1])).toBeGreaterThanOrEqual(2.0 - 0.25); // goal snapped to the 0.25 m lattice
    }
  });

  it("places 1-3 objects of one category; the passed ones beside the path at the robot's half-width + 0.15 m, the others beyond 1.0 m", () => {
    const counts = new Set<string>();
    for (const t of tasks) {
      const cat = categoryOf(t);
      const mine = t.objects.filter((o) => o.category === cat);
      expect(mine.length).toBeGreaterThanOrEqual(1);
      expect(mine.length).toBeLessThanOrEqual(3);
      const d = mine.map((o) => polylineDistance(o.position, pathOf(t)));
      const passed = d.filter((x) => x < 1.0);
      // ESI: side_offset = robot half-width + 0.15; its records' dist_to_path 0.22-1.01 m
      for (const x of passed) expect(x).toBeCloseTo(robotHalf + 0.15, 3);
      for (const x of d.filter((x) => x >= 1.0)) expect(x).toBeGreaterThanOrEqual(1.3);
      // the answer is the count re-derived here from the placed objects and the path
      expect(t.answer).toBe(String(passed.length));
      counts.add(t.answer);
    }
    expect([...counts].sort()).toEqual(["0", "1", "2", "3"]);
  });

  it("asks ESI's question with ESI's options 0-3", () => {
    for (const t of tasks) {
      expect(t.options).toEqual(["0", "1", "2", "3"]);
      expect(t.answer_format).toBe("integer");
      expect(t.question).toBe(`How many ${categoryOf(t).replace(/_/g, " ")} objects did the robot pass within 1.0 m during its walk? Answer 0, 1, 2, or 3.`);
    }
  });
});

describe("Agent Observation generator: the observer's frames (the task's phases)", () => {
  it("one phase per 0.385 m walked from the start; only the robot moves, along the path, facing along it", () => {
    for (const t of tasks) {
      const phases = t.phases!;
      const L = pathLength(pathOf(t));
      expect(phases.length).toBe(Math.floor(L / 0.385 + 1e-9) + 1);
      expect(robotIn(phases[0]!.objects).position.slice(0, 2)).toEqual(pathOf(t)[0]);
      const others = (os: Task["objects"]) => JSON.stringify(os.filter((o) => o.category !== ROBOT_CATEGORY));
      for (const ph of phases) {
        expect(others(ph.objects)).toBe(others(t.objects));
        const r = robotIn(ph.objects);
        expect(polylineDistance(r.position, pathOf(t))).toBeLessThan(1e-3);
        expect(r.position[2]).toBeCloseTo(buildModel(`${ROBOT_CATEGORY}/0`).extent[2] / 2, 4);
      }
      for (let k = 1; k < phases.length; k++) {
        const a = robotIn(phases[k - 1]!.objects).position,
          b = robotIn(phases[k]!.objects).position;
        // straight stretches keep the spacing; a frame across a corner cuts it
        expect(Math.hypot(b[0] - a[0], b[1] - a[1])).toBeLessThanOrEqual(0.385 + 1e-3);
        expect(Math.hypot(b[0] - a[0], b[1] - a[1])).toBeGreaterThan(0.385 / Math.SQRT2 - 1e-3);
      }
    }
  });

  it("the observer stays at the start, at the robot's height (ESI: the robot's box top), turned to the robot's base + 0.05 m in every frame", () => {
    for (const t of tasks) {
      const eye = t.phases![0]!.agent!.position;
      // ESI's records: the observer 1.09-1.62 m above the robot's start z (robot_bbox_top_z)
      expect(eye[2]).toBeCloseTo(buildModel(`${ROBOT_CATEGORY}/0`).extent[2], 4);
      expect(eye[2]).toBeGreaterThanOrEqual(1.09);
      expect(eye[2]).toBeLessThanOrEqual(1.62);
      // behind the start by the robot's half-width and the agent's body clearance, never farther than 0.5 m
      expect(Math.hypot(eye[0] - pathOf(t)[0]![0], eye[1] - pathOf(t)[0]![1])).toBeLessThan(0.5);
      for (const ph of t.phases!) {
        expect(ph.agent!.position).toEqual(eye);
        const r = robotIn(ph.objects).position;
        const dx = r[0] - eye[0],
          dy = r[1] - eye[1];
        expect(Math.abs(Math.atan2(Math.sin(ph.agent!.yaw - Math.atan2(dy, dx)), Math.cos(ph.agent!.yaw - Math.atan2(dy, dx))))).toBeLessThan(1e-3);
        expect(ph.agent!.pitch).toBeCloseTo(Math.atan2(0.05 - eye[2], Math.hypot(dx, dy)), 3);
      }
    }
  });

  it("every phase's view shows the robot, stamped with its phase", () => {
    for (const t of tasks.slice(0, 6)) {
      const { manifest, payloads } = captureBundle(t, "single");
      expect(manifest.views.map((v) => v.phase)).toEqual(t.phases!.map((_, k) => k));
      const robotId = robotIn(t.objects).id;
      payloads.forEach((p, k) => expect(idCounts(p.ids).get(robotId) ?? 0, `${t.task_id} phase ${k}`).toBeGreaterThanOrEqual(50));
    }
  });
});
