/**
 * Unobserved Change's construction against ESI-Bench's (src/dataset_generation/task_unobserved_changes/
 * batch_unobserved_changes.py, and its released records under dataset/json, Temporal Understanding/Unobserved Change):
 * box counts 1/1/3 per question type, ESI's three question templates and option lists, contents of at most 25 cm,
 * the change types, two phases with the boxes closed in each phase's primary view, and the phases rendered: the
 * ground-truth views of the two phases show the changed box's contents differ.
 */
import { describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { renderBundle } from "../../../bridge/sim/capture.js";
import { taskPhases } from "../../../core/task/phases.js";
import type { Task, TaskObject } from "../../../core/task/schema.js";
import { idCounts } from "../../../core/idTally.js";

const N = 18;
const tasks: Task[] = Array.from({ length: N }, (_, i) => generateTask("unobserved_change", "unobserved-change-test", i));
interface BoxMeta {
  box: number;
  lid: number;
  position_label: string;
  change_type: string;
  phase1_content: number | null;
  phase2_content: number | null;
}
const typeOf = (t: Task) => t.label_metadata.task_type as string;
const boxesOf = (t: Task) => t.label_metadata.boxes as BoxMeta[];
const byId = (objects: readonly TaskObject[], id: number | null) => (id === null ? null : (objects.find((o) => o.id === id) ?? null));

describe("Unobserved Change construction (ESI batch_unobserved_changes.py)", () => {
  it("ESI's question types in its released mix (60/42/46 of 148): 4/3/3 per ten tasks", () => {
    const first10 = tasks.slice(0, 10).map(typeOf);
    expect(first10.filter((x) => x === "change_detection")).toHaveLength(4);
    expect(first10.filter((x) => x === "change_identification")).toHaveLength(3);
    expect(first10.filter((x) => x === "current_state_reasoning")).toHaveLength(3);
  });

  it("ESI's templates, options and box counts (1, 1, 3: `_sample_box_count`)", () => {
    for (const t of tasks) {
      const type = typeOf(t);
      const boxes = boxesOf(t);
      if (type === "change_detection") {
        expect(t.question).toBe("Comparing Phase 1 and Phase 2, did the contents of any box change?");
        expect(t.options).toEqual(["yes", "no"]);
        expect(boxes).toHaveLength(1);
        expect(t.answer).toBe(boxes[0]!.change_type === "no_change" ? "no" : "yes");
      } else if (type === "change_identification") {
        expect(t.question).toBe("What happened to the contents of the box from Phase 1 to Phase 2?");
        expect(t.options).toEqual(["replace", "remove", "add", "no_change"]);
        expect(boxes).toHaveLength(1);
        expect(t.answer).toBe(boxes[0]!.change_type);
      } else {
        expect(t.question).toBe("Which box changed from Phase 1 to Phase 2: the brown box, the red box, or the yellow box?");
        expect(t.options).toEqual(["brown box", "red box", "yellow box"]);
        expect(boxes.map((b) => b.position_label)).toEqual(["brown", "red", "yellow"]);
        // exactly one changed box (ESI raises otherwise), by replace, remove or add
        const changed = boxes.filter((b) => b.change_type !== "no_change");
        expect(changed).toHaveLength(1);
        expect(["replace", "remove", "add"]).toContain(changed[0]!.change_type);
        expect(t.answer).toBe(`${changed[0]!.position_label} box`);
        expect(boxes.map((b) => byId(t.objects, b.box)!.color)).toEqual(["brown", "red", "yellow"]);
      }
    }
  });

  it("contents follow the change type; at most 25 cm, at least 5 cm on the longest edge; distinct categories in a task", () => {
    for (const t of tasks) {
      const [p1, p2] = taskPhases(t).map((ph) => ph.objects) as [TaskObject[], TaskObject[]];
      const cats: string[] = [];
      for (const b of boxesOf(t)) {
        const a = byId(p1, b.phase1_content),
          z = byId(p2, b.phase2_content);
        if (b.change_type === "add") expect([a, z !== null]).toEqual([null, true]);
        if (b.change_type === "remove") expect([a !== null, z]).toEqual([true, null]);
        if (b.change_type === "replace") expect(a!.category).not.toBe(z!.category);
        // a kept object is the same object in both phases
        if (b.change_type === "no_change") expect(b.phase1_content).toBe(b.phase2_content);
        // a removed or replaced object is gone from phase 2, an added one absent from phase 1
        if (b.phase1_content !== b.phase2_content) {
          expect(byId(p2, b.phase1_content)).toBeNull();
          expect(byId(p1, b.phase2_content)).toBeNull();
        }
        for (const o of [a, z]) {
          if (!o) continue;
          expect(Math.max(...o.extent)).toBeLessThanOrEqual(0.25);
          expect(Math.max(...o.extent)).toBeGreaterThanOrEqual(0.05);
          if (!cats.includes(o.category)) cats.push(o.category);
        }
        // boxes on the floor, each closed by its lid
        const box = byId(p1, b.box)!;
        expect(box.support).toBe("floor");
        expect(byId(p1, b.lid)!.support).toBe(box.id);
      }
      const contentIds = new Set(
        boxesOf(t)
          .flatMap((b) => [b.phase1_content, b.phase2_content])
          .filter((x) => x !== null),
      );
      expect(cats).toHaveLength(contentIds.size);
    }
  });

  it("two phases (ESI's Phase 1 and Phase 2), each seen from a viewpoint that sees every box closed", () => {
    for (const t of tasks) {
      const phases = taskPhases(t);
      expect(phases.map((p) => p.label)).toEqual(["Phase 1", "Phase 2"]);
      expect(phases[0]!.objects).toEqual(t.objects);
      expect(t.phases![0]!.agent!.position).toEqual(t.agent_initial.position);
      // ESI's primary view: eye 1.25 m up (AGENT_CAMERA_HEIGHT_M), looking at the boxes' mean bottom + min(0.12 m, half height)
      const boxes = boxesOf(t).map((b) => byId(t.objects, b.box)!);
      const look = [0, 1, 2].map(
        (k) => boxes.reduce((sum, o) => sum + (k < 2 ? o.position[k]! : o.position[2] - o.extent[2] / 2 + Math.min(0.12, o.extent[2] / 2)), 0) / boxes.length,
      );
      for (const ph of phases) {
        expect(ph.agent.position[2]).toBeCloseTo(1.25, 6);
        const [dx, dy, dz] = [0, 1, 2].map((k) => look[k]! - ph.agent.position[k]!);
        expect(ph.agent.yaw).toBeCloseTo(Math.atan2(dy!, dx!), 3);
        expect(ph.agent.pitch).toBeCloseTo(Math.atan2(dz!, Math.hypot(dx!, dy!)), 3);
      }
    }
  });

  it("ESI's mix of change types over the changed boxes: replace, remove and add all drawn", () => {
    const changes = tasks.flatMap((t) => boxesOf(t).map((b) => b.change_type));
    for (const c of ["replace", "remove", "add", "no_change"]) expect(changes).toContain(c);
  });
});

describe("Unobserved Change phases rendered", () => {
  it("single: one view per phase, stamped, no content visible; gt: the changed box's contents differ between the phases' views", () => {
    const changed = tasks.filter((t) => boxesOf(t).some((b) => b.change_type !== "no_change")).slice(0, 3);
    expect(changed.length).toBe(3);
    for (const t of changed) {
      const single = renderBundle(t, "single");
      expect(single.manifest.views.map((v) => v.phase)).toEqual([0, 1]);
      const contents = boxesOf(t)
        .flatMap((b) => [b.phase1_content, b.phase2_content])
        .filter((x): x is number => x !== null);
      for (const v of single.views) for (const id of contents) expect(idCounts(v.ids).get(id) ?? 0).toBe(0);
      const gt = renderBundle(t, "gt");
      const seenIn = (phase: number) => {
        const s = new Set<number>();
        gt.views.forEach((v, i) => {
          if ((gt.manifest.views[i]!.phase ?? 0) === phase) for (const [id, n] of idCounts(v.ids)) if (n > 0) s.add(id);
        });
        return s;
      };
      const [s1, s2] = [seenIn(0), seenIn(1)];
      const b = boxesOf(t).find((x) => x.change_type !== "no_change")!;
      if (b.phase1_content !== null) {
        expect(s1.has(b.phase1_content)).toBe(true);
        expect(s2.has(b.phase1_content)).toBe(false);
      }
      if (b.phase2_content !== null) {
        expect(s2.has(b.phase2_content)).toBe(true);
        expect(s1.has(b.phase2_content)).toBe(false);
      }
    }
  }, 240_000);
});
