import { describe, expect, it } from "vitest";
import { structuredChance } from "../../../src/eval/score.js";
import { creditOf } from "../../../src/eval/summary.js";

describe("chance of a structured answer", () => {
  it("guesses each part, step or pair among its own options", () => {
    const two = ["left of", "right of"];
    expect(
      structuredChance({
        kind: "parts",
        parts: [
          { key: "A", options: two, answer: two[0]! },
          { key: "C", options: two, answer: two[1]! },
        ],
      }),
    ).toBe(0.25);
    expect(
      structuredChance({
        kind: "step_sequence",
        steps: [
          { options: ["a", "b", "c"], answer: "a" },
          { options: two, answer: two[0]! },
        ],
      }),
    ).toBeCloseTo(1 / 6);
    expect(
      structuredChance({
        kind: "assignment",
        targets: ["x", "y"],
        pairs: [
          { item: "p", target: "x" },
          { item: "q", target: "y" },
          { item: "r", target: "x" },
        ],
      }),
    ).toBe(0.125);
    expect(
      structuredChance({
        kind: "any_ordering",
        items: ["a", "b", "c"],
        accepted: [
          ["a", "b", "c"],
          ["a", "c", "b"],
        ],
      }),
    ).toBeCloseTo(2 / 6);
  });

  it("is what a declined item is credited, where the record carries it", () => {
    const declined = { status: "unanswerable" as const, correct: null, options: ["left of", "right of"], circular: undefined };
    expect(creditOf(declined)).toBe(0.5);
    expect(creditOf({ ...declined, chance: 0.25 })).toBe(0.25);
  });
});
