/**
 * Agent Observation's programs (src/reason/agentObservationPrograms.ts) on generated tasks, through the real pipeline:
 * each phase's view rendered, graphs from the gt source (one robot node per phase), the 2D arm's masks; and the
 * shortcut's prior. The programs read the question and the evidence only: a task relabelled with another answer and
 * no metadata gets the same answer.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { renderBundle } from "../../../bridge/sim/capture.js";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import type { FrameBundle } from "../../../core/bundle/io.js";
import type { Task } from "../../../core/task/schema.js";
import { graphOfBundle } from "../../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../../scenegraph/pipelineOptions.js";
import type { SceneGraph } from "../../../scenegraph/types.js";
import { createSymbolicReasoner } from "../../../src/reason/symbolic.js";
import { createSymbolic2dReasoner } from "../../../src/reason/symbolic2d.js";
import { createShortcutReasoner } from "../../../src/reason/shortcut.js";

const N = 8;
const SEED = "agent-observation-programs-test";
const tasks = Array.from({ length: N }, (_, i) => generateTask("agent_observation", SEED, i));
const relabelled = (t: Task): Task => ({ ...t, label_metadata: {}, answer: t.options.find((o) => o !== t.answer)! });

const built: Array<{ task: Task; bundle: FrameBundle; gt: SceneGraph; fused: SceneGraph }> = [];
const graph = async (bundle: FrameBundle, time: "diff" | "fuse") =>
  (await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse({ source: "gt", time }))).graph;
beforeAll(async () => {
  for (const task of tasks) {
    const bundle = renderBundle(task, "single");
    built.push({ task, bundle, gt: await graph(bundle, "diff"), fused: await graph(bundle, "fuse") });
  }
}, 600_000);

const sym = createSymbolicReasoner();
const twoD = createSymbolic2dReasoner();

describe("Agent Observation, 3D arm", () => {
  it("gt source, diff graph: the robot's moves are its walk, and the category's nodes within 1.0 m of it are the answer", async () => {
    for (const { task, gt } of built) {
      const moves = gt.time!.changes.filter((c) => c.label === "robot" && c.change === "moved");
      expect(moves.length, task.task_id).toBeGreaterThanOrEqual(task.phases!.length - 2);
      const a = await sym.answer({ task, graph: gt });
      expect(a.answer, `${task.task_id}: ${a.raw.join(" | ")}`).toBe(task.answer);
      expect((await sym.answer({ task: relabelled(task), graph: gt })).answer).toBe(a.answer);
    }
  });

  it("gt source, fused graph: one robot node per phase, read in the order the phases saw them", async () => {
    for (const { task, fused } of built) {
      expect(fused.nodes.filter((n) => n.label === "robot")).toHaveLength(task.phases!.length);
      const a = await sym.answer({ task, graph: fused });
      expect(a.answer, `${task.task_id}: ${a.raw.join(" | ")}`).toBe(task.answer);
    }
  });

  it("declines without a robot in the graph", async () => {
    const { task, gt } = built[0]!;
    const changes = gt.time!.changes.filter((c) => c.label !== "robot");
    const a = await sym.answer({ task, graph: { ...gt, time: { ...gt.time!, changes }, nodes: gt.nodes.filter((n) => n.label !== "robot") } });
    expect(a.raw.join(" | ")).toMatch(/no robot/);
  });
});

describe("Agent Observation, 2D arm", () => {
  it("each phase's masks on the floor by size constancy: right on most tasks, never reading the answer", async () => {
    let right = 0;
    for (const { task, bundle } of built) {
      const a = await twoD.answer({ task, bundle });
      if (a.answer === task.answer) right++;
      expect(a.confidence).toBeLessThanOrEqual(0.6);
      expect((await twoD.answer({ task: relabelled(task), bundle })).answer).toBe(a.answer);
    }
    // measured 6 of 8 at this seed (11 of 18 at the generator test's): size constancy misplaces masks, and two objects
    // at one range from the observer read as one; chance is 2 of 8
    expect(right).toBeGreaterThanOrEqual(5);
  });
});

describe("Agent Observation, shortcut", () => {
  it("answers ESI's most common count (1, in 55 of 133 records) from the options alone", async () => {
    const s = createShortcutReasoner();
    for (const task of tasks) expect((await s.answer({ task })).answer).toBe("1");
  });
});
