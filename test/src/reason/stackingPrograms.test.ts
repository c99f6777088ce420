/** Stacking & Stability's programs (src/reason/stackingPrograms.ts) in the 3D, 2D and shortcut arms, on generated tasks. */
import { beforeAll, describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { loadPhysics } from "../../../bridge/sim/physics/world.js";
import { renderBundle } from "../../../bridge/sim/capture.js";
import type { AnswerSpec, Task } from "../../../core/task/schema.js";
import { truthGraph } from "../../../scenegraph/truth.js";
import { flatFaceShares, stackOrder } from "../../../src/reason/stackingPrograms.js";
import { createSymbolicReasoner } from "../../../src/reason/symbolic.js";
import { createSymbolic2dReasoner } from "../../../src/reason/symbolic2d.js";
import { createShortcutReasoner } from "../../../src/reason/shortcut.js";
import { scoreAnswer } from "../../../src/eval/score.js";

const N = 4;
let tasks: Task[] = [];
beforeAll(async () => {
  await loadPhysics();
  tasks = Array.from({ length: N }, (_, i) => generateTask("stacking_stability", "stacking-programs-test", i));
}, 60_000);

const specOf = (t: Task) => t.answer_spec as Extract<AnswerSpec, { kind: "any_ordering" }>;
const narrower = (label: string) => {
  const s = flatFaceShares(label)!;
  return Math.min(s.top, s.bottom);
};
/** The task as a reasoner could be handed it with its label changed: no metadata, another accepted order. */
const relabelled = (t: Task): Task => {
  const other = [...specOf(t).items].reverse();
  return { ...t, label_metadata: {}, answer: JSON.stringify(other), answer_spec: { kind: "any_ordering", items: specOf(t).items, accepted: [other] } };
};

describe("the shapes the programs know per label (the library's models)", () => {
  it("a box's top and bottom fill its footprint; a can's round faces about pi/4 of it; a bowl stands on a narrow foot; a candle ends in a wick", () => {
    for (const c of ["cardboard_box", "toy_block", "dice"]) expect(narrower(c), c).toBeGreaterThan(0.98);
    expect(flatFaceShares("can")!.bottom).toBeGreaterThan(0.7);
    expect(flatFaceShares("can")!.bottom).toBeLessThan(Math.PI / 4 + 0.01);
    expect(flatFaceShares("bowl")!.bottom).toBeLessThan(flatFaceShares("bowl")!.top / 2);
    expect(flatFaceShares("candle")!.top).toBeLessThan(0.01);
    expect(flatFaceShares("no_such_label")).toBeNull();
  });

  it("orders by the narrower flat face, then the larger footprint below, then as listed; declines a label without a shape", () => {
    const order = (ev: Array<[string, string, number]>) => {
      const d = stackOrder(
        ev.map(([item, label, footprint]) => ({ item, label, footprint })),
        [],
      );
      return "answer" in d ? JSON.parse(d.answer) : d.unanswerable;
    };
    expect(
      order([
        ["candle", "candle", 1],
        ["cardboard_box", "cardboard_box", 1],
      ]),
    ).toEqual(["cardboard_box", "candle"]);
    // two box-like objects: the larger footprint goes below
    expect(
      order([
        ["dice", "dice", 1],
        ["toy_block", "toy_block", 2],
      ]),
    ).toEqual(["toy_block", "dice"]);
    // equal in both: the listed order
    expect(
      order([
        ["dice", "dice", 1],
        ["toy_block", "toy_block", 1],
      ]),
    ).toEqual(["dice", "toy_block"]);
    expect(
      order([
        ["plate", "plate", 1],
        ["dice", "dice", 1],
      ]),
    ).toMatch(/no shape for the label plate/);
  });
});

describe("the arms on generated tasks", () => {
  it("3D (ground-truth graph): a permutation of the items, bottom first by the flat-face rule, scored as the run scores it; the label is never read", async () => {
    const r = createSymbolicReasoner();
    for (const t of tasks) {
      const a = await r.answer({ task: t, graph: truthGraph(t) });
      expect(a.status).toBe("parsed");
      const order = JSON.parse(a.answer!) as string[];
      expect([...order].sort()).toEqual(specOf(t).items);
      for (let k = 1; k < order.length; k++) expect(Math.round(narrower(order[k - 1]!) / 0.05)).toBeGreaterThanOrEqual(Math.round(narrower(order[k]!) / 0.05));
      const s = scoreAnswer(a, t);
      expect(s.scored && s.correct).toBe(specOf(t).accepted.some((o) => JSON.stringify(o) === a.answer));
      // the same graph with another label gives the same answer
      expect((await r.answer({ task: relabelled(t), graph: truthGraph(t) })).answer).toBe(a.answer);
    }
  });

  it("3D declines when an item has no node in the graph", async () => {
    const t = tasks[0]!;
    const g = truthGraph(t);
    const missing = specOf(t).items[0]!;
    const a = await createSymbolicReasoner().answer({ task: t, graph: { ...g, nodes: g.nodes.filter((n) => n.label !== missing) } });
    expect(a.status).toBe("unanswerable");
    expect(a.reason).toContain(`${missing} is not in the graph`);
  });

  it("2D (the initial view's masks): a permutation of the items by the same rule, the label never read", async () => {
    const r = createSymbolic2dReasoner();
    for (const t of tasks.slice(0, 2)) {
      const bundle = renderBundle(t, "single");
      const a = await r.answer({ task: t, bundle });
      expect(a.status, a.reason).toBe("parsed");
      const order = JSON.parse(a.answer!) as string[];
      expect([...order].sort()).toEqual(specOf(t).items);
      for (let k = 1; k < order.length; k++) expect(Math.round(narrower(order[k - 1]!) / 0.05)).toBeGreaterThanOrEqual(Math.round(narrower(order[k]!) / 0.05));
      expect(scoreAnswer(a, t).scored).toBe(true);
      expect((await r.answer({ task: relabelled(t), bundle })).answer).toBe(a.answer);
    }
  }, 60_000);

  it("shortcut: the items as listed, bottom first, scored", async () => {
    for (const t of tasks) {
      const a = await createShortcutReasoner().answer({ task: t });
      expect(a.answer).toBe(JSON.stringify(t.options));
      expect(scoreAnswer(a, t).scored).toBe(true);
    }
  });
});
