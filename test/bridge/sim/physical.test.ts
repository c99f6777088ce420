import { describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { interiorOf } from "../../../core/objects/containers.js";
import { objectWorldTriangles } from "../../../core/objects/shape.js";
import { bestFit, fitMargin, LIQUID_VOLUME_MIN_RATIO } from "../../../core/task/rules.js";
import type { Task, TaskObject } from "../../../core/task/schema.js";
import { truthGraph } from "../../../scenegraph/truth.js";
import { createSymbolicReasoner } from "../../../src/reason/symbolic.js";
import { createSymbolic2dReasoner } from "../../../src/reason/symbolic2d.js";
import { backprojectViews } from "../../../reconstruct/gt/backproject.js";
import { bundleCategories } from "../../../reconstruct/categories.js";
import { buildSceneGraph } from "../../../scenegraph/build.js";
import { bundleOf } from "../../scenegraph/helpers.js";

/** ESI's options name an object without its article ("medium packing box"). */
const optionName = (o: TaskObject): string => o.name.replace(/^the /, "");
/** ESI's container `scale_ratio` per size class, from its sample records (small 0.911-0.944, fit 1.306-1.370, big 1.682-1.724). */
const ESI_SCALE_RATIO = { small: [0.91, 0.944], fit: [1.306, 1.37], big: [1.682, 1.724] } as const;

const N = 4;
const rigid = Array.from({ length: N }, (_, i) => generateTask("rigid_containment", "physical-test", i));
const liquid = Array.from({ length: N }, (_, i) => generateTask("liquid_volume", "physical-test", i));
const byId = (t: Task, id: number) => t.objects.find((o) => o.id === id)!;

describe("container models: the rendered walls are the declared interior", () => {
  it("no mesh vertex lies inside a scaled container's interior, and its inner walls touch the interior's sides", () => {
    const t = rigid[0]!;
    for (const c of t.objects.filter((o) => o.role === "container")) {
      const i = interiorOf(c.category, c.extent)!;
      // the container in its own frame: the interior is centred in x, y and runs from the inner bottom to the rim
      const local: TaskObject = { ...c, position: [0, 0, 0], orientation: { x: 0, y: 0, z: 0, w: 1 } };
      const tris = objectWorldTriangles(local);
      const [hx, hy] = [i.extent[0] / 2, i.extent[1] / 2];
      const z0 = c.extent[2] / 2 - i.extent[2];
      let inside = 0,
        onWallX = 0;
      for (let k = 0; k < tris.length; k += 3) {
        const [x, y, z] = [tris[k]!, tris[k + 1]!, tris[k + 2]!];
        if (Math.abs(x) < hx - 1e-4 && Math.abs(y) < hy - 1e-4 && z > z0 + 1e-4) inside++;
        if (Math.abs(Math.abs(x) - hx) < 1e-4) onWallX++;
      }
      expect(inside, c.name).toBe(0);
      expect(onWallX, c.name).toBeGreaterThan(0);
    }
  });
});

describe("Rigid Containment generation", () => {
  it("follows ESI's template and ratios, and its answer is the smallest container the object fits", () => {
    for (const t of rigid) {
      expect(t.question).toMatch(/^Which container does the .+ best fit inside: the .+( or the .+)+\?$/);
      const [objId, ...boxIds] = t.relevant_object_ids;
      const obj = byId(t, objId!);
      const boxes = boxIds.map((id) => byId(t, id));
      expect(t.options).toEqual(boxes.map(optionName));
      // recomputed here from the placed objects, independently of the generator's derive()
      const best = bestFit(
        obj.extent,
        boxes.map((b) => ({ item: b, interior: interiorOf(b.category, b.extent)! })),
      );
      expect(optionName(best!)).toBe(t.answer);
      const meta = t.label_metadata.containers as Array<{ name: string; size: keyof typeof ESI_SCALE_RATIO; ratio: number }>;
      for (const m of meta) {
        const [lo, hi] = ESI_SCALE_RATIO[m.size];
        expect(m.ratio).toBeGreaterThanOrEqual(lo - 1e-4);
        expect(m.ratio).toBeLessThanOrEqual(hi + 1e-4);
        const b = boxes.find((x) => optionName(x) === m.name)!;
        // the small class never fits, the others always do
        expect(fitMargin(obj.extent, interiorOf(b.category, b.extent)!.extent) >= 0).toBe(m.size !== "small");
      }
      for (const id of t.relevant_object_ids) expect(t.view_object_existence.some((v) => v.visible.includes(id))).toBe(true);
    }
  }, 60_000);
});

describe("Liquid Volume generation", () => {
  it("follows ESI's template (left first), its interiors differ by ESI's smallest ratio, and the answer is the larger interior", () => {
    for (const t of liquid) {
      expect(t.question).toMatch(/^Which container has a larger volume: the .+ or the .+\?$/);
      const [l, r] = t.relevant_object_ids.map((id) => byId(t, id)) as [TaskObject, TaskObject];
      expect(t.options).toEqual([optionName(l), optionName(r)]);
      const vl = interiorOf(l.category, l.extent)!.volume_m3,
        vr = interiorOf(r.category, r.extent)!.volume_m3;
      expect(Math.max(vl, vr) / Math.min(vl, vr)).toBeGreaterThanOrEqual(LIQUID_VOLUME_MIN_RATIO);
      expect(t.answer).toBe(optionName(vl > vr ? l : r));
      expect(t.label_metadata.gt_larger).toBe(vl > vr ? "left" : "right");
      // box order reversed: the larger interior sits in the smaller box
      const box = (o: TaskObject) => o.extent[0] * o.extent[1] * o.extent[2];
      expect(t.label_metadata.box_order_reversed).toBe(box(vl > vr ? l : r) < box(vl > vr ? r : l));
    }
  }, 60_000);

  it("reverses the box order in some tasks, so outer size alone does not answer", () => {
    const flags = Array.from({ length: 12 }, (_, i) => generateTask("liquid_volume", "reversal", i).label_metadata.box_order_reversed);
    expect(flags).toContain(true);
    expect(flags).toContain(false);
  }, 60_000);
});

describe("programs on the new subcategories", () => {
  it("the graph oracle answers from the interiors the graph carries, not the boxes, and declines without them", async () => {
    const r = createSymbolicReasoner();
    for (const t of [...rigid, ...liquid]) {
      const g = truthGraph(t);
      expect((await r.answer({ task: t, graph: g })).answer, t.task_id).toBe(t.answer);
      // without the interior (a label that is no container) the program declines instead of guessing
      for (const n of g.nodes) delete n.interior;
      const a = await r.answer({ task: t, graph: g });
      expect(a.status).toBe("unanswerable");
      expect(a.reason).toMatch(/carries no interior/);
    }
  });

  it("a reconstructed graph's container nodes carry interiors near the true ones, and both programs answer from a bundle", async () => {
    const t = liquid[0]!;
    const b = bundleOf(t, "single");
    const structure = new Set(b.manifest.instances.filter((e) => e.structure).map((e) => e.id));
    const cloud = backprojectViews(b.views, bundleCategories(b), { excludeIds: structure });
    const graph = buildSceneGraph(cloud, b, { masks: "instance", instances: "fusion" }).graph;
    for (const id of t.relevant_object_ids) {
      const o = byId(t, id);
      const n = graph.nodes.find((x) => x.label === o.category);
      expect(n?.interior, o.name).toBeDefined();
      // one view sees only the front: the box (and so the interior) is partial, but of the right order
      const truth = interiorOf(o.category, o.extent)!.volume_m3;
      expect(n!.interior!.volume_m3 / truth).toBeGreaterThan(0.3);
      expect(n!.interior!.volume_m3 / truth).toBeLessThan(2);
    }
    const a3 = await createSymbolicReasoner().answer({ task: t, graph });
    expect(a3.status).toBe("parsed");
    const a2 = await createSymbolic2dReasoner().answer({ task: t, bundle: b });
    expect(a2.status).toBe("parsed");
    expect(t.options).toContain(a2.answer);
  }, 60_000);
});
