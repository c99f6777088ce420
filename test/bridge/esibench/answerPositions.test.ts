/** Where the answer sits among the options: counts per slot, the counts expected without a bias, and whether the top slot is biased. */
import { describe, expect, it } from "vitest";
import { answerPositions } from "../../../bridge/esibench/answerPositions.js";

describe("answerPositions", () => {
  it("calls 167 of 167 answers in one slot, the release's Dimensional Size count, biased; an even split not", () => {
    const second = Array.from({ length: 167 }, () => ({ answer: "b", options: ["a", "b"] }));
    expect(answerPositions(second)).toMatchObject({ counts: [0, 167], biased: true, top: { slot: 1, share: 1 } });
    const even = Array.from({ length: 40 }, (_, i) => ({ answer: i % 2 ? "b" : "a", options: ["a", "b"] }));
    expect(answerPositions(even).biased).toBe(false);
  });

  it("sums 1/k over the tasks that have a slot for its expected count (mixed option counts)", () => {
    expect(
      answerPositions([
        { answer: "a", options: ["a", "b", "c"] },
        { answer: "a", options: ["a", "b"] },
      ]).expected,
    ).toEqual([0.833, 0.833, 0.333]);
  });

  it("skips tasks whose answer is not an option, and says nothing of none", () => {
    expect(answerPositions([{ answer: "z", options: ["a", "b"] }])).toEqual({ tasks: 0, counts: [], expected: [], top: null, biased: false });
  });
});
