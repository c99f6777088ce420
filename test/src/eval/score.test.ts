import { describe, expect, it } from "vitest";
import { parseAnswer } from "../../../src/reason/parse.js";
import { scoreAnswer } from "../../../src/eval/score.js";

const count = { answer_format: "integer" as const, options: ["2", "3", "4", "5"], answer: "4" };
const choice = { answer_format: "choice" as const, options: ["mug", "bowl", "plate"], answer: "bowl" };

describe("scoreAnswer", () => {
  it("scores exact matches", () => {
    expect(scoreAnswer(parseAnswer('{"answer": "B"}', { ...choice, optionLabels: "letters" }), choice)).toEqual({ scored: true, correct: true });
    // unlettered options: "B" names none of them, so there is nothing to score
    expect(scoreAnswer(parseAnswer('{"answer": "B"}', choice), choice)).toEqual({ scored: false, status: "unparsed" });
    expect(scoreAnswer(parseAnswer('{"answer": "bowl"}', choice), choice)).toEqual({ scored: true, correct: true });
    expect(scoreAnswer(parseAnswer('{"answer": "plate"}', choice), choice)).toEqual({ scored: true, correct: false });
  });
  it("adds MRA for integer answers", () => {
    const s = scoreAnswer(parseAnswer('{"answer": 3}', count), count);
    expect(s).toMatchObject({ scored: true, correct: false });
    // |3 − 4|/4 = 0.25: passes 1−θ ∈ {0.50 … 0.25} (the official '<='), 6 of 10
    expect(s.scored && s.mra).toBeCloseTo(0.6, 12);
    expect(scoreAnswer(parseAnswer('{"answer": 40}', count), count)).toMatchObject({ correct: false, mra: 0 });
  });
  it("leaves unparsed results unscored, with VSI's worst-case MRA for integers", () => {
    expect(scoreAnswer(parseAnswer("no clue", count), count)).toEqual({ scored: false, status: "unparsed", mraWorstCase: 0 });
    expect(scoreAnswer(parseAnswer("no clue", choice), choice)).toEqual({ scored: false, status: "unparsed" });
  });
  it("scores a reasoner's answer record, and leaves an unanswerable one unscored", () => {
    expect(scoreAnswer({ status: "parsed", answer: "bowl" }, choice)).toEqual({ scored: true, correct: true });
    expect(scoreAnswer({ status: "unanswerable", answer: null }, choice)).toEqual({ scored: false, status: "unanswerable" });
  });
});
