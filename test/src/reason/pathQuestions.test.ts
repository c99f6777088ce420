import { describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { openOptions, parsePathQuestion } from "../../../src/reason/pathQuestions.js";
import { createShortcutReasoner } from "../../../src/reason/shortcut.js";
import type { Task } from "../../../core/task/schema.js";

// ESI-Bench's released records (Cognitive Mapping/Traversable Passage), verbatim
const ESI_Q000 =
  "On the shortest path from living_room_0 to living_room_1, which intermediate room do you pass through among these options: storage_room_0, kitchen_0, storage_room_1, living_room_1?";
const ESI_GROCERY =
  "On the shortest path from bathroom_0 to grocery_store_0, which intermediate room do you pass through among these options: corridor_0, bathroom_0, grocery_store_0?";

describe("path questions: the rooms the text fixes", () => {
  it("reads ESI's Traversable Passage records: the endpoints among the options are ruled out", async () => {
    const p = parsePathQuestion(ESI_Q000)!;
    expect(p).toMatchObject({ kind: "intermediate", start: "living_room_0", goal: "living_room_1" });
    expect(openOptions(p, ["storage_room_0", "kitchen_0", "storage_room_1", "living_room_1"])).toEqual(["storage_room_0", "kitchen_0", "storage_room_1"]);
    // grocery_store q_000: both endpoints offered, so the text alone leaves ESI's answer corridor_0
    const g = await createShortcutReasoner().answer({
      task: {
        subcategory: "traversable_passage",
        question: ESI_GROCERY,
        answer_format: "choice",
        options: ["corridor_0", "bathroom_0", "grocery_store_0"],
      } as Task,
    });
    expect(g).toMatchObject({ answer: "corridor_0", method: "shortcut-exclusion:traversable_passage", confidence: 1 });
  });

  it("reads navigation steps: the start and the written steps are ruled out; a last blank is the goal", () => {
    const q =
      "You are beginning in the kitchen 0. You want to navigate to the bedroom 0. At each step, choose the next region you should explore. 1. Choose the next region to explore. [please fill in] 2. Choose the next region to explore. dining_room_0 3. Choose the next region to explore. bedroom_0 You have reached the final destination.";
    const p = parsePathQuestion(q)!;
    expect(p).toMatchObject({
      kind: "next-step",
      start: "kitchen_0",
      goal: "bedroom_0",
      steps: [null, "dining_room_0", "bedroom_0"],
      blank: 0,
      before: "kitchen_0",
      after: "dining_room_0",
    });
    expect(openOptions(p, ["dining_room_0", "kitchen_0", "storage_room_0", "living_room_0"])).toEqual(["storage_room_0", "living_room_0"]);
    const last = parsePathQuestion(q.replace("[please fill in] 2.", "living_room_0 2.").replace("bedroom_0 You have", "[please fill in] You have"))!;
    expect(last.after).toBeNull();
    expect(openOptions(last, ["kitchen_0", "bedroom_0", "storage_room_0"])).toEqual(["bedroom_0"]);
  });

  it("never rules out the true answer of a built-in path task", () => {
    for (const sub of ["traversable_passage", "long_term_navigation"] as const)
      for (let i = 0; i < 12; i++) {
        const t = generateTask(sub, "path-text", i);
        const p = parsePathQuestion(t.question);
        expect(p, t.question).not.toBeNull();
        expect(openOptions(p!, t.options), `${sub} ${i}: ${t.question}`).toContain(t.answer);
      }
  });

  it("is no path question for the other subcategories' texts", () => {
    for (const sub of ["connectivity", "regional_boundary", "spatial_distance", "rigid_containment"] as const)
      expect(parsePathQuestion(generateTask(sub, "path-text", 0).question)).toBeNull();
  });
});
