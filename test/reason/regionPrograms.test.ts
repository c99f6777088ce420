import { describe, expect, it } from "vitest";
import { generateTask } from "../../bridge/sim/generate/suite.js";
import { truthGraph } from "../../scenegraph/truth.js";
import { decide } from "../../src/reason/symbolic.js";
import { queryOf } from "../../src/reason/query.js";

const SUBS = ["connectivity", "traversable_passage", "regional_boundary", "long_term_navigation"] as const;

describe("Cognitive Mapping programs", () => {
  it("answer from the region layer: a doorway removed from the graph flips Connectivity", () => {
    for (let i = 0; i < 6; i++) {
      const task = generateTask("connectivity", "programs-test", i);
      if (task.answer !== "Yes") continue;
      const g = truthGraph(task);
      const [, a, b] = /Are (\S+) and (\S+) adjacent/.exec(task.question)!;
      g.regions!.doorways = g.regions!.doorways.filter((d) => !(d.rooms.includes(a!) && d.rooms.includes(b!)));
      const d = decide(g, queryOf(task));
      expect("answer" in d && d.answer).toBe("No");
      return;
    }
    throw new Error("no Yes task drawn");
  });

  it("read no layout: without a region layer every program declines", () => {
    for (const sub of SUBS) {
      const task = generateTask(sub, "programs-test", 0);
      const g = truthGraph(task);
      delete g.regions;
      expect("unanswerable" in decide(g, queryOf(task))).toBe(true);
    }
  });

  it("Regional Boundary follows the node: moving the object's node to another room changes the answer", () => {
    for (let i = 0; i < 8; i++) {
      const task = generateTask("regional_boundary", "programs-test", i);
      const m = /Which room does (\S+) belong to/.exec(task.question);
      if (!m) continue;
      const g = truthGraph(task);
      const node = g.nodes.find((n) => n.label === m[1])!;
      const from = g.regions!.rooms.find((r) => r.objects.includes(node.id))!;
      const to = g.regions!.rooms.find((r) => r.id !== from.id && task.options.includes(r.id))!;
      from.objects = from.objects.filter((x) => x !== node.id);
      to.objects.push(node.id);
      const d = decide(g, queryOf(task));
      expect("answer" in d && d.answer).toBe(to.id);
      return;
    }
    throw new Error("no belong-to task drawn");
  });
});
