import { describe, expect, it } from "vitest";
import { majorityVote } from "../../../src/reason/vote.js";
import type { ReasonerAnswer } from "../../../src/reason/types.js";

const parsed = (answer: string, confidence: number | null = 0.5, extra: Partial<ReasonerAnswer> = {}): ReasonerAnswer => ({
  status: "parsed",
  answer,
  confidence,
  raw: [`{"answer": "${answer}"}`],
  method: "json",
  latencyMs: 10,
  ...extra,
});
const invalid = (): ReasonerAnswer => ({
  status: "invalid",
  answer: null,
  confidence: null,
  raw: ["hmm", "still hmm"],
  method: "none",
  reprompted: true,
  reason: "no answer",
  failure: { class: "invalid_reply", message: "no answer" },
  latencyMs: 20,
});

describe("majority vote over samples", () => {
  it("takes the most frequent answer, its samples' mean confidence, and the share of all samples that gave it", () => {
    const v = majorityVote([parsed("no", 0.9), parsed("yes", 0.6), invalid(), parsed("yes", 0.8)]);
    expect(v.answer).toMatchObject({ status: "parsed", answer: "yes", reprompted: true });
    expect(v.answer.confidence).toBeCloseTo(0.7, 12);
    expect(v.answers).toEqual(["no", "yes", null, "yes"]);
    expect(v.agreement).toBe(0.5);
    expect(v.answer.raw).toEqual(['{"answer": "no"}', '{"answer": "yes"}', "hmm", "still hmm", '{"answer": "yes"}']);
  });

  it("breaks a tie for the answer reached first in sample order", () => {
    expect(majorityVote([parsed("b"), parsed("a"), parsed("a"), parsed("b")]).answer.answer).toBe("b");
    expect(majorityVote([parsed("a"), parsed("b"), parsed("b"), parsed("a")]).answer.answer).toBe("a");
  });

  it("with no parsed sample ends as the first sample did, agreement 0", () => {
    const v = majorityVote([invalid(), invalid()]);
    expect(v.answer).toMatchObject({ status: "invalid", answer: null, failure: { class: "invalid_reply" } });
    expect(v.agreement).toBe(0);
    expect(v.answers).toEqual([null, null]);
  });

  it("sums token usage and keeps a null confidence when no majority sample stated one", () => {
    const v = majorityVote([
      parsed("x", null, { usage: { inputTokens: 10, outputTokens: 2 } }),
      parsed("x", null, { usage: { inputTokens: 10, outputTokens: 3 } }),
    ]);
    expect(v.answer.usage).toEqual({ inputTokens: 20, outputTokens: 5 });
    expect(v.answer.confidence).toBeNull();
    expect(v.agreement).toBe(1);
  });
});
