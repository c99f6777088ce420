/**
 * Unobserved Change's programs on generated tasks. GT-passive views (each phase's boxes opened and looked into): the
 * 3D program on a graph from ground-truth depth and masks, and the 2D program on the masks, read each box's contents
 * per phase and answer right. Single views (each phase's primary view, boxes closed): both decline, since closed boxes
 * are no evidence of what is inside. None reads the label: the same views under another label give the same answer.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { renderBundle } from "../../../bridge/sim/capture.js";
import type { Task } from "../../../core/task/schema.js";
import type { FrameBundle } from "../../../core/bundle/io.js";
import { graphOfBundle } from "../../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../../scenegraph/pipelineOptions.js";
import type { SceneGraph } from "../../../scenegraph/types.js";
import { createSymbolicReasoner } from "../../../src/reason/symbolic.js";
import { createSymbolic2dReasoner } from "../../../src/reason/symbolic2d.js";
import { createShortcutReasoner } from "../../../src/reason/shortcut.js";

const N = 10;
const tasks: Task[] = Array.from({ length: N }, (_, i) => generateTask("unobserved_change", "change-programs-test", i));
const relabelled = (t: Task): Task => ({ ...t, answer: t.options.find((o) => o !== t.answer)!, label_metadata: {} });
const gtGraph = async (bundle: FrameBundle): Promise<SceneGraph> =>
  (await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse({ source: "gt" }), { diagnose: false })).graph;

describe("Unobserved Change programs", () => {
  const gt = new Map<string, { bundle: FrameBundle; graph: SceneGraph }>();
  const single = new Map<string, { bundle: FrameBundle; graph: SceneGraph }>();
  beforeAll(async () => {
    for (const t of tasks) {
      const b = renderBundle(t, "gt");
      gt.set(t.task_id, { bundle: b, graph: await gtGraph(b) });
      const s = renderBundle(t, "single");
      single.set(t.task_id, { bundle: s, graph: await gtGraph(s) });
    }
  }, 600_000);

  it("gt views, graph from ground truth: the 3D program answers right on every task whose boxes were seen into in both phases", async () => {
    const r = createSymbolicReasoner();
    let right = 0;
    for (const t of tasks) {
      const { bundle, graph } = gt.get(t.task_id)!;
      const a = await r.answer({ task: t, graph, bundle });
      expect(a.status, a.raw.join("\n")).toBe("parsed");
      expect(a.answer, `${t.task_id}: ${a.raw.join("\n")}`).toBe(t.answer);
      right++;
      expect((await r.answer({ task: relabelled(t), graph, bundle })).answer).toBe(a.answer);
    }
    expect(right).toBe(N);
  });

  it("gt views, masks: the 2D program answers right", async () => {
    const r = createSymbolic2dReasoner();
    const answers = [];
    for (const t of tasks) {
      const a = await r.answer({ task: t, bundle: gt.get(t.task_id)!.bundle });
      answers.push({ id: t.task_id, status: a.status, right: a.answer === t.answer, raw: a.raw.join(" | ") });
    }
    const right = answers.filter((x) => x.right).length;
    expect(right, JSON.stringify(answers, null, 1)).toBe(N);
  });

  it("single views (boxes closed): both arms decline rather than guess", async () => {
    for (const t of tasks) {
      const { bundle, graph } = single.get(t.task_id)!;
      const a3 = await createSymbolicReasoner().answer({ task: t, graph, bundle });
      expect(a3.status, a3.raw.join("\n")).toBe("unanswerable");
      const a2 = await createSymbolic2dReasoner().answer({ task: t, bundle });
      expect(a2.status, a2.raw.join("\n")).toBe("unanswerable");
    }
  });

  it("a graph without the views' record (no bundle) shows no box opened: the program declines", async () => {
    const t = tasks[0]!;
    const a = await createSymbolicReasoner().answer({ task: t, graph: gt.get(t.task_id)!.graph });
    expect(a.status).toBe("unanswerable");
  });

  it("shortcut: each form's most common answer in ESI's records (no, no_change, yellow box)", async () => {
    for (const t of tasks) {
      const a = await createShortcutReasoner().answer({ task: t });
      expect(["no", "no_change", "yellow box"]).toContain(a.answer);
    }
  });
});
