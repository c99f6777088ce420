/**
 * Structural Enclosure's programs on generated tasks. Closed (the passive views): the 3D program sees the lid nodes
 * resting on the box nodes and answers the fill prior's expected count at a low confidence; the 2D program the same
 * from lid masks. Opened (the lids swung up as the engine will, views into the boxes): the 3D program counts right.
 * None reads the label: the same views under another label give the same answer.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { renderBundle } from "../../../bridge/sim/capture.js";
import type { Task } from "../../../core/task/schema.js";
import { graphOfBundle } from "../../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../../scenegraph/pipelineOptions.js";
import type { SceneGraph } from "../../../scenegraph/types.js";
import { createSymbolicReasoner } from "../../../src/reason/symbolic.js";
import { createSymbolic2dReasoner } from "../../../src/reason/symbolic2d.js";
import { createShortcutReasoner } from "../../../src/reason/shortcut.js";
import { nearestOption } from "../../../src/reason/decision.js";
import { bundleAt, openedTask, posesIntoBoxes } from "../../bridge/sim/openedBoxes.js";

const N = 4;
const tasks: Task[] = Array.from({ length: N }, (_, i) => generateTask("structural_enclosure", "enclosure-programs-test", i));
const boxesOf = (t: Task) => t.objects.filter((o) => o.role === "container");
/** The task with another answer: what a program that read the label would follow. */
const relabelled = (t: Task): Task => {
  const other = t.options.find((o) => o !== t.answer)!;
  return { ...t, answer: other, label_metadata: {} };
};
const gtGraph = async (bundle: Parameters<typeof graphOfBundle>[0]): Promise<SceneGraph> =>
  (await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse({ source: "gt" }), { diagnose: false })).graph;

/** The initial view plus a view into each box. */
const intoBoxes = (t: Task) => [
  { position: t.agent_initial.position, yaw: t.agent_initial.yaw, pitch: t.agent_initial.pitch },
  ...posesIntoBoxes(t, boxesOf(t)),
];

describe("Structural Enclosure 3D program (graph from ground-truth depth and masks)", () => {
  const closed = new Map<string, SceneGraph>();
  const opened = new Map<string, SceneGraph>();
  beforeAll(async () => {
    for (const t of tasks) {
      closed.set(t.task_id, await gtGraph(bundleAt(t, intoBoxes(t))));
      opened.set(t.task_id, await gtGraph(bundleAt(openedTask(t), intoBoxes(t))));
    }
  }, 240_000);

  it("closed: no target in the graph, a lid node on every box node, the prior's expected count at low confidence", async () => {
    const r = createSymbolicReasoner();
    for (const t of tasks) {
      const g = closed.get(t.task_id)!;
      expect(g.nodes.filter((n) => n.label === t.label_metadata.category)).toEqual([]);
      const boxes = g.nodes.filter((n) => ["packing_box", "toy_box", "storage_bin"].includes(n.label)).length;
      expect(boxes).toBe(5);
      const a = await r.answer({ task: t, graph: g });
      expect(a.status).toBe("parsed");
      expect(a.answer).toBe(nearestOption(t.options, 0.5 * boxes));
      expect(a.confidence).toBeLessThan(0.5);
      expect(a.raw.join("\n")).toContain("never seen open");
      expect((await r.answer({ task: relabelled(t), graph: g })).answer).toBe(a.answer);
    }
  });

  it("opened: every target node inside its box node, the count is the answer, confidence 1", async () => {
    const r = createSymbolicReasoner();
    for (const t of tasks) {
      const g = opened.get(t.task_id)!;
      const a = await r.answer({ task: t, graph: g });
      expect(a.answer, a.raw.join("\n")).toBe(t.answer);
      expect(a.confidence).toBe(1);
      expect((await r.answer({ task: relabelled(t), graph: g })).answer).toBe(a.answer);
    }
  });
});

describe("Structural Enclosure 2D program and shortcut", () => {
  it("2D (passive views' masks): no target mask, the lids' masks as closed boxes, the prior's count at low confidence", async () => {
    const r = createSymbolic2dReasoner();
    for (const t of tasks.slice(0, 2)) {
      const bundle = renderBundle(t, "gt");
      const lids = Math.max(...bundle.views.map((v) => new Set([...v.ids].filter((id) => t.objects.find((o) => o.id === id)?.role === "lid")).size));
      const a = await r.answer({ task: t, bundle });
      expect(a.status, a.reason).toBe("parsed");
      expect(a.answer).toBe(nearestOption(t.options, 0.5 * lids));
      expect(a.confidence).toBeLessThan(0.5);
      expect((await r.answer({ task: relabelled(t), bundle })).answer).toBe(a.answer);
    }
  }, 60_000);

  it("shortcut: the option nearest the options' mean (majority-option), from the options alone", async () => {
    for (const t of tasks) {
      const a = await createShortcutReasoner().answer({ task: t });
      expect(a.answer).toBe(nearestOption(t.options, t.options.reduce((s, o) => s + Number(o), 0) / 4));
      expect((await createShortcutReasoner().answer({ task: relabelled(t) })).answer).toBe(a.answer);
    }
  });
});
