/** Deformable's programs (src/reason/deformablePrograms.ts) in the 3D, 2D and shortcut arms, on generated tasks. */
import { describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { renderBundle } from "../../../bridge/sim/capture.js";
import { buildScene } from "../../../bridge/sim/scene.js";
import { visibleCounts } from "../../../bridge/sim/generate/visibility.js";
import { buildModel, LIBRARY } from "../../../core/objects/library.js";
import type { Task } from "../../../core/task/schema.js";
import { truthGraph } from "../../../scenegraph/truth.js";
import type { SceneGraph } from "../../../scenegraph/types.js";
import { createSymbolicReasoner } from "../../../src/reason/symbolic.js";
import { createSymbolic2dReasoner } from "../../../src/reason/symbolic2d.js";
import { createShortcutReasoner } from "../../../src/reason/shortcut.js";

const N = 4;
const tasks: Task[] = Array.from({ length: N }, (_, i) => generateTask("deformable", "deformable-programs-test", i));
const clothOf = (t: Task) => t.objects.find((o) => o.category === "cloth")!;
/** The same task as a reasoner could be handed it with another label: no metadata, another option as the answer. */
const relabelled = (t: Task): Task => ({ ...t, label_metadata: {}, answer: t.options.find((o) => o !== t.answer)! });
/** What a perfect reconstruction of a task's views holds: the true nodes of the objects some view shows. */
function seenGraph(t: Task, seen: ReadonlySet<number>): SceneGraph {
  const g = truthGraph(t);
  return { ...g, nodes: g.nodes.filter((n) => seen.has(Number(n.id.slice(1)))), relations: [] };
}
/** What the views show while the cloth still covers the object: those before the ground-truth trajectory lifts it. */
const seenIn = (t: Task) => {
  const lift = t.action_trajectory.findIndex((a) => a.startsWith("pick_up("));
  return new Set(t.view_object_existence.slice(0, lift < 0 ? undefined : lift + 1).flatMap((v) => v.visible));
};
const typicalHeight = (option: string) => {
  const ms = LIBRARY.get(option.replace(/ /g, "_"))!.models;
  return ms.reduce((s, m) => s + buildModel(m.id).extent[2], 0) / ms.length;
};

/**
 * The task after the cloth is lifted, as the engine does it (the shared design): `support` undefined and the cloth
 * at the hand, here 0.2 m behind the initial camera and 0.2 m below it, out of its view.
 */
function lifted(t: Task): Task {
  const c = clothOf(t);
  const [x, y, z] = t.agent_initial.position;
  const held = { ...c, position: [x - 0.2 * Math.cos(t.agent_initial.yaw), y - 0.2 * Math.sin(t.agent_initial.yaw), z - 0.2] as [number, number, number] };
  delete held.support;
  return { ...t, objects: t.objects.map((o) => (o.id === c.id ? held : o)) };
}

describe("deformable, covered: only the drape is seen", () => {
  it("3D: the option whose typical height is nearest the drape's top, at low confidence, never the label", async () => {
    const r = createSymbolicReasoner();
    for (const t of tasks) {
      const g = seenGraph(t, seenIn(t));
      expect(g.nodes.some((n) => n.label === LIBRARY.get(t.answer.replace(/ /g, "_"))!.category)).toBe(false);
      const a = await r.answer({ task: t, graph: g });
      const top = clothOf(t).position[2] + clothOf(t).extent[2] / 2;
      const nearest = [...t.options].sort((p, q) => Math.abs(typicalHeight(p) - top) - Math.abs(typicalHeight(q) - top))[0];
      expect(a.answer).toBe(nearest);
      expect(a.confidence!).toBeLessThanOrEqual(0.5);
      expect((await r.answer({ task: relabelled(t), graph: g })).answer).toBe(a.answer);
    }
  });

  it("3D: a higher drape moves the answer to a taller option (it decides by the drape's shape)", async () => {
    const r = createSymbolicReasoner();
    const t = tasks[0]!;
    const g = seenGraph(t, seenIn(t));
    const byHeight = [...t.options].sort((p, q) => typicalHeight(p) - typicalHeight(q));
    for (const option of [byHeight[0]!, byHeight[3]!]) {
      const h = typicalHeight(option);
      const nodes = g.nodes.map((n) =>
        n.label === "cloth" ? { ...n, aabb: { min: n.aabb.min, max: [n.aabb.max[0], n.aabb.max[1], h] as [number, number, number] } } : n,
      );
      expect((await r.answer({ task: t, graph: { ...g, nodes } })).answer).toBe(option);
    }
  });

  it("2D: reads the cloth's mask in the initial view, at low confidence, never the label", async () => {
    const r = createSymbolic2dReasoner();
    for (const t of tasks) {
      const bundle = renderBundle(t, "single");
      const a = await r.answer({ task: t, bundle });
      expect(a.raw.join(" ")).toMatch(/mask \d+ \(cloth\) aspect/);
      expect(a.confidence!).toBeLessThanOrEqual(0.5);
      expect((await r.answer({ task: relabelled(t), bundle })).answer).toBe(a.answer);
    }
  });

  it("shortcut: the generic choice prior, option A (ESI shuffles A-D, the plan balances the slot: no position is favoured)", async () => {
    for (const t of tasks) expect((await createShortcutReasoner().answer({ task: t })).answer).toBe(t.options[0]);
  });
});

describe("deformable, uncovered: the cloth lifted shows the object", () => {
  it("3D and 2D answer the object they see", async () => {
    for (const t of tasks) {
      const up = lifted(t);
      const target = t.label_metadata.target_id as number;
      const counts = visibleCounts(buildScene(up), up.camera, up.agent_initial, 0.5);
      expect(counts.get(target) ?? 0).toBeGreaterThan(50);
      const a3 = await createSymbolicReasoner().answer({ task: up, graph: seenGraph(up, new Set([...counts.keys()])) });
      expect(a3.answer).toBe(t.answer);
      const a2 = await createSymbolic2dReasoner().answer({ task: up, bundle: renderBundle(up, "single") });
      expect(a2.answer).toBe(t.answer);
    }
  });
});
