/**
 * Structural Enclosure (ESI Q.23) on generated tasks: ESI's construction numbers read from each task's geometry
 * (5 closed boxes as ESI's released records, one target or none per box near its centre, 4 consecutive integer
 * options), the boxes closed by lids resting on their rims, targets hidden in every passive view (rendered instance
 * ids) and shown by the ground-truth trajectory only once it opens their box, a task read back from its file passes the file checks, the closed boxes at rest under physics, determinism.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { LIBRARY } from "../../../core/objects/library.js";
import { renderBundle } from "../../../bridge/sim/capture.js";
import { loadPhysics } from "../../../bridge/sim/physics/world.js";
import { settle } from "../../../bridge/sim/physics/settle.js";
import { objectBox } from "../../../core/objects/geometry.js";
import { footprint, inFootprint } from "../../../core/geometry.js";
import { interiorOf } from "../../../core/objects/containers.js";
import { placementProblems, FILE_PENETRATION_TOLERANCE_M } from "../../../core/objects/placement.js";
import { parseTask } from "../../../core/task/io.js";
import type { Task, TaskObject } from "../../../core/task/schema.js";
import { bundleAt, openedTask, posesIntoBoxes } from "./openedBoxes.js";

const TASKS = 10;
const tasks: Task[] = Array.from({ length: TASKS }, (_, i) => generateTask("structural_enclosure", "enclosure-test", i));
/** The box types that open and close (ESI Q.23): the library's box containers. */
const BOX_TYPES = ["packing_box", "toy_box", "storage_bin"];
const boxesOf = (t: Task) => t.objects.filter((o) => BOX_TYPES.includes(o.category));
const lidsOf = (t: Task) => t.objects.filter((o) => LIBRARY.get(o.category)?.flags.lid);
const targetsOf = (t: Task) => t.objects.filter((o) => o.role === "target");
const top = (o: TaskObject) => o.position[2] + o.extent[2] / 2;
const bottom = (o: TaskObject) => o.position[2] - o.extent[2] / 2;

describe("structural_enclosure generator", () => {
  it("has ESI's 5 boxes, 4 consecutive integer options, and an answer that is the number of targets inside boxes", () => {
    for (const t of tasks) {
      expect(boxesOf(t)).toHaveLength(5);
      expect(boxesOf(t).every((o) => o.role === "container")).toBe(true);
      expect(t.answer_format).toBe("integer");
      expect(t.options).toHaveLength(4);
      const opts = t.options.map(Number);
      opts.forEach((o, i) => expect(o).toBe(opts[0]! + i));
      expect(opts[0]).toBeGreaterThanOrEqual(0);
      expect(t.options).toContain(t.answer);
      // the answer counts the asked category's objects whose centre lies in a box; no target stands outside one
      const category = t.label_metadata.category as string;
      expect(t.question).toMatch(/^How many .+ are there in the room\?$/);
      const inside = t.objects.filter(
        (o) => o.category === category && boxesOf(t).some((b) => inFootprint(objectBox(b), o.position[0], o.position[1]) && o.position[2] < top(b)),
      );
      expect(String(inside.length)).toBe(t.answer);
      expect(t.objects.filter((o) => o.category === category)).toHaveLength(inside.length);
    }
    // a random subset: over the tasks, both filled and empty boxes, and more than one count
    expect(new Set(tasks.map((t) => t.answer)).size).toBeGreaterThan(1);
    expect(tasks.some((t) => targetsOf(t).length < 5)).toBe(true);
  });

  it("puts at most one target in a box, near the centre of its interior, clear of walls and lid", () => {
    for (const t of tasks) {
      const boxes = boxesOf(t);
      const holders = targetsOf(t).map((o) => boxes.find((b) => b.id === o.support));
      expect(holders.every(Boolean)).toBe(true);
      expect(new Set(holders.map((b) => b!.id)).size).toBe(holders.length);
      for (const [k, o] of targetsOf(t).entries()) {
        const b = holders[k]!;
        const inner = interiorOf(b.category, b.extent)!.extent;
        // ESI places the target at the box's bbox centre (its released targets sit 2 cm from it at most)
        expect(Math.hypot(o.position[0] - b.position[0], o.position[1] - b.position[1])).toBeLessThan(0.02);
        expect(bottom(o)).toBeCloseTo(top(b) - inner[2], 3);
        expect(top(o)).toBeLessThan(top(b));
        // every corner of its footprint within the interior, 1 cm from the inner walls
        const interior = { ...objectBox(b), extent: inner };
        for (const [x, y] of footprint(objectBox(o))) expect(inFootprint(interior, x, y, 0.01)).toBe(true);
      }
    }
  });

  it("closes every box: one lid resting on its rim, overhanging its walls, the box its support", () => {
    for (const t of tasks) {
      const lids = lidsOf(t);
      expect(lids).toHaveLength(5);
      for (const b of boxesOf(t)) {
        const own = lids.filter((l) => l.support === b.id);
        expect(own).toHaveLength(1);
        const lid = own[0]!;
        expect(lid.role).toBe("lid");
        expect(bottom(lid)).toBeCloseTo(top(b), 3);
        expect(Math.hypot(lid.position[0] - b.position[0], lid.position[1] - b.position[1])).toBeLessThan(1e-3);
        expect(objectBox(lid).yaw).toBeCloseTo(objectBox(b).yaw, 3);
        expect(lid.extent[0]).toBeGreaterThan(b.extent[0]);
        expect(lid.extent[1]).toBeGreaterThan(b.extent[1]);
        // a plate of a stiff board's thickness plus its knob
        expect(lid.extent[2]).toBeGreaterThanOrEqual(0.01);
        expect(lid.extent[2]).toBeLessThanOrEqual(0.05);
      }
    }
  });

  it("hides every target in every passive view (rendered instance ids) and shows the boxes", () => {
    for (const t of tasks.slice(0, 4)) {
      const targets = new Set(targetsOf(t).map((o) => o.id));
      const boxes = new Set(boxesOf(t).map((o) => o.id));
      for (const paradigm of ["single", "multi"] as const) {
        const seen = new Set<number>();
        for (const v of renderBundle(t, paradigm).views) for (const id of v.ids) seen.add(id);
        expect([...seen].filter((id) => targets.has(id))).toEqual([]);
        expect([...seen].some((id) => boxes.has(id))).toBe(true);
      }
    }
  });

  it("has a ground-truth trajectory that opens boxes within the 29-action budget, and shows a target only after its box opens", () => {
    let opened = 0,
      shown = 0;
    for (const t of tasks.slice(0, 6)) {
      expect(t.action_trajectory.length).toBeLessThanOrEqual(29);
      // the view after action k is view k + 1; a box opened by action k shows its inside from view k + 1 on
      const openedAt = new Map<number, number>();
      t.action_trajectory.forEach((a, k) => {
        const m = /^open\(#(\d+)\)$/.exec(a);
        if (m) openedAt.set(Number(m[1]), k + 1);
      });
      expect([...openedAt.keys()].every((id) => boxesOf(t).some((b) => b.id === id))).toBe(true);
      opened += openedAt.size;
      const views = renderBundle(t, "gt").views;
      expect(views).toHaveLength(t.action_trajectory.length + 1);
      for (const target of targetsOf(t)) {
        const from = openedAt.get(target.support as number);
        const seenIn = views.flatMap((v, i) => (v.ids.includes(target.id) ? [i] : []));
        if (from === undefined) expect(seenIn).toEqual([]);
        else {
          expect(seenIn.every((i) => i >= from)).toBe(true);
          // opened from within reach and looked into: the target shows
          expect(seenIn.length).toBeGreaterThan(0);
          shown++;
        }
      }
    }
    // most boxes, not all: 5 boxes 1.6-3.4 m away are more than 29 steps of 0.25 m and 15 deg allow
    expect(opened).toBeGreaterThanOrEqual(6 * 2);
    expect(shown).toBeGreaterThan(0);
  });

  it("hides the targets from above a closed box, and shows every one once its lid is swung open (the check above can fail)", () => {
    for (const t of tasks.slice(0, 3)) {
      const poses = posesIntoBoxes(t, boxesOf(t));
      const idsIn = (x: Task) => {
        const seen = new Set<number>();
        for (const v of bundleAt(x, poses).views) for (const id of v.ids) seen.add(id);
        return seen;
      };
      const closed = idsIn(t),
        open = idsIn(openedTask(t));
      expect(targetsOf(t).filter((o) => closed.has(o.id))).toEqual([]);
      expect(targetsOf(t).filter((o) => !open.has(o.id))).toEqual([]);
    }
  });

  it("reads back from its file with no placement problem (a lid on its box and a target in it are declared by support)", () => {
    for (const t of tasks) {
      const back = parseTask(JSON.parse(JSON.stringify(t)), "enclosure.json");
      expect(placementProblems(back.room, back.objects, { tolerance: FILE_PENETRATION_TOLERANCE_M })).toEqual([]);
    }
  });

  it("is deterministic", () => {
    expect(generateTask("structural_enclosure", "enclosure-test", 3)).toEqual(tasks[3]);
  });
});

describe("structural_enclosure under physics", () => {
  beforeAll(loadPhysics);

  it("keeps closed boxes, lids and contents where they were placed when dropped and settled", () => {
    for (const t of tasks.slice(0, 3)) {
      const dropped = new Set(t.objects.filter((o) => o.role !== "furniture" && o.role !== "support").map((o) => o.id));
      const r = settle({ roomSize: t.room.size, objects: t.objects, dropped, steps: 240 });
      expect(r.problems).toEqual([]);
      t.objects.forEach((o, k) => {
        const s = r.objects[k]!;
        expect(Math.hypot(s.position[0] - o.position[0], s.position[1] - o.position[1], s.position[2] - o.position[2])).toBeLessThan(0.01);
      });
    }
  });
});
