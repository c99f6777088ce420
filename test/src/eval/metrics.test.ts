import { describe, expect, it } from "vitest";
import { calibration, summarize } from "../../../src/eval/metrics.js";
import { wilsonInterval } from "../../../core/math/proportion.js";

describe("wilsonInterval", () => {
  it("matches the textbook values (R: prop.test(k, n, correct = FALSE))", () => {
    const w = wilsonInterval(8, 10);
    expect(w.p).toBe(0.8);
    expect(w.lo).toBeCloseTo(0.4901625, 6);
    expect(w.hi).toBeCloseTo(0.9433178, 6);
    const h = wilsonInterval(5, 10);
    expect(h.lo).toBeCloseTo(0.2365931, 6);
    expect(h.hi).toBeCloseTo(0.7634069, 6);
  });
  it("follows the formula for an arbitrary case", () => {
    const k = 37,
      n = 120,
      z = 1.959963984540054,
      p = k / n;
    const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
    const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
    const w = wilsonInterval(k, n);
    expect(w.lo).toBeCloseTo(centre - half, 12);
    expect(w.hi).toBeCloseTo(centre + half, 12);
  });
  it("pins the ends at 0 and 1 and stays inside [0, 1]", () => {
    const zero = wilsonInterval(0, 10);
    expect(zero.lo).toBe(0);
    expect(zero.hi).toBeCloseTo(0.2775328, 6);
    const all = wilsonInterval(10, 10);
    expect(all.hi).toBe(1);
    expect(all.lo).toBeCloseTo(0.7224672, 6);
  });
  it("gives [0, 1] and p = NaN for n = 0, and rejects nonsense", () => {
    expect(wilsonInterval(0, 0)).toEqual({ p: NaN, lo: 0, hi: 1 });
    expect(() => wilsonInterval(3, 2)).toThrow(RangeError);
    expect(() => wilsonInterval(1.5, 2)).toThrow(RangeError);
  });
});

describe("calibration", () => {
  // bin 9: four items at 0.95, 3 right (accuracy 0.75); bin 2: four at 0.25, 1 right (accuracy 0.25); one without confidence
  const items = [
    ...Array.from({ length: 3 }, () => ({ confidence: 0.95, correct: true })),
    { confidence: 0.95, correct: false },
    { confidence: 0.25, correct: true },
    ...Array.from({ length: 3 }, () => ({ confidence: 0.25, correct: false })),
    { correct: true },
  ];
  it("ECE with 10 equal-width bins, hand-computed", () => {
    const { ece, bins } = calibration(items);
    // (4/8)·|0.75 − 0.95| + (4/8)·|0.25 − 0.25| = 0.1
    expect(ece).toBeCloseTo(0.1, 12);
    expect(bins).toHaveLength(10);
    expect(bins[9]).toMatchObject({ lo: 0.9, hi: 1, n: 4, accuracy: 0.75 });
    expect(bins[9]!.meanConfidence).toBeCloseTo(0.95, 12);
    expect(bins[2]).toMatchObject({ n: 4, accuracy: 0.25 });
    expect(bins[5]!.n).toBe(0);
    expect(bins[5]!.accuracy).toBeNaN();
  });
  it("puts 1.0 in the last bin and 0 in the first", () => {
    const { bins } = calibration([
      { confidence: 1, correct: true },
      { confidence: 0, correct: false },
      { confidence: 0.3, correct: true },
    ]);
    expect(bins[9]!.n).toBe(1);
    expect(bins[0]!.n).toBe(1);
    expect(bins[3]!.n).toBe(1);
  });
  it("a perfectly calibrated set has ECE 0", () => {
    const xs = [
      ...Array.from({ length: 7 }, () => ({ confidence: 0.7, correct: true })),
      ...Array.from({ length: 3 }, () => ({ confidence: 0.7, correct: false })),
    ];
    expect(calibration(xs).ece).toBeCloseTo(0, 12);
  });
  it("Brier score, hand-computed", () => {
    // 3·0.05² + 0.95² + 0.75² + 3·0.25² = 1.66, over 8
    expect(calibration(items).brier).toBeCloseTo(0.2075, 12);
  });
  it("mean confidence when right vs wrong", () => {
    const m = calibration(items);
    expect(m.meanConfidenceRight.mean).toBeCloseTo(0.775, 12);
    expect(m.meanConfidenceRight.n).toBe(4);
    expect(m.meanConfidenceWrong.mean).toBeCloseTo(0.425, 12);
    expect(m.meanConfidenceWrong.n).toBe(4);
  });
  it("reports everything together and counts items without confidence", () => {
    const c = calibration(items);
    expect(c).toMatchObject({ n: 8, nWithoutConfidence: 1 });
    expect(c.ece).toBeCloseTo(0.1, 12);
    expect(calibration([{ correct: true }]).ece).toBeNaN();
  });
});

describe("accuracy aggregation", () => {
  const recs = [
    { task: "counting", scored: true, correct: true, mra: 1, chance: 0.25 },
    { task: "counting", scored: true, correct: false, mra: 0.8, chance: 0.25 },
    { task: "counting", scored: false, mra: 0, chance: 0.25 },
    { task: "contact", scored: true, correct: true, chance: 0.5 },
    { task: "contact", scored: true, correct: true, chance: 0.5 },
  ];
  it("summarises every item (an unscored one at its chance credit), the coverage, and the answered items", () => {
    const s = summarize(recs);
    expect(s).toMatchObject({ group: "all", n: 5, nScored: 4, nUnscored: 1, k: 3 });
    expect(s.accuracy.p).toBe(0.75);
    expect(s.accuracy).toEqual(wilsonInterval(3, 4));
    // 3 right + the declined counting item's 1/4, over all 5
    expect(s.score.p).toBeCloseTo(3.25 / 5, 15);
    expect(s.coverage).toEqual(wilsonInterval(4, 5));
    expect(s.mra!.mean).toBeCloseTo(0.6, 12);
    expect(s.mra!.n).toBe(3);
  });
  it("rejects a scored record without correctness", () => {
    expect(() => summarize([{ scored: true, chance: 0.5 }])).toThrow(/no boolean 'correct'/);
  });
});
