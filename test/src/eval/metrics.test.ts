import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { brierScore, calibration, expectedCalibrationError, meanConfidenceByOutcome, summarize } from "../../../src/eval/metrics.js";
import { wilsonInterval } from "../../../core/math/proportion.js";
import { MRA_THRESHOLDS, meanRelativeAccuracy } from "../../../src/eval/score.js";
import { needs } from "../../helpers/system.js";

const numpy = needs("python3-numpy");

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

describe("meanRelativeAccuracy (VSI-Bench)", () => {
  it("has the ten hard-coded thresholds, as numpy's linspace gives them", () => {
    expect(MRA_THRESHOLDS).toEqual([0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.8999999999999999, 0.95]);
    expect(MRA_THRESHOLDS[8]).not.toBe(0.9);
  });
  it("hand-computed examples", () => {
    expect(meanRelativeAccuracy(4, 4)).toBe(1);
    // 12 % error passes θ = 0.50…0.85, fails 0.90 and 0.95 (the reference's worked example)
    expect(meanRelativeAccuracy(112, 100)).toBeCloseTo(0.8, 12);
    expect(meanRelativeAccuracy(88, 100)).toBeCloseTo(0.8, 12);
    // 12.5 %: same
    expect(meanRelativeAccuracy(7, 8)).toBeCloseTo(0.8, 12);
    // 25 % exactly: passes 1−θ ∈ {0.50, 0.45, 0.40, 0.35, 0.30, 0.25} ('<=')
    expect(meanRelativeAccuracy(5, 4)).toBeCloseTo(0.6, 12);
    // 33 %: passes 0.50, 0.45, 0.40, 0.35
    expect(meanRelativeAccuracy(2, 3)).toBeCloseTo(0.4, 12);
    // more than 50 % error scores 0 (exactly 50 % passes θ = 0.50)
    expect(meanRelativeAccuracy(2, 4)).toBeCloseTo(0.1, 12);
    expect(meanRelativeAccuracy(1, 4)).toBe(0);
    expect(meanRelativeAccuracy(9, 3)).toBe(0);
    expect(meanRelativeAccuracy(-3, 3)).toBe(0);
  });
  it("uses the official code's '<=' in float64 at relative errors of exactly 0.05·k", () => {
    // 10 % exactly: 0.1 <= 1 − 0.8999999999999999 = 0.10000000000000009, so θ = 0.90 passes too (the paper's '<': 0.8)
    expect(meanRelativeAccuracy(11, 10)).toBeCloseTo(0.9, 12);
    // 5 % exactly: 0.05 <= 0.050000000000000044 passes every threshold (strict: 0.9)
    expect(meanRelativeAccuracy(21, 20)).toBe(1);
    // 50 % exactly: 0.5 <= 1 − 0.5 passes θ = 0.50 only (strict: 0)
    expect(meanRelativeAccuracy(6, 4)).toBeCloseTo(0.1, 12);
    expect(meanRelativeAccuracy(1, 2)).toBeCloseTo(0.1, 12);
    expect(meanRelativeAccuracy(3, 2)).toBeCloseTo(0.1, 12);
    // 25 % exactly: 0.25 <= 1 − 0.75 = 0.25 passes θ = 0.50…0.75, six of ten (strict: 0.5)
    expect(meanRelativeAccuracy(3, 4)).toBeCloseTo(0.6, 12);
    // 20 % exactly fails θ = 0.80 in float64: 1 − 0.8 = 0.19999999999999996 < 0.2, so 0.6, not the exact 0.7
    expect(meanRelativeAccuracy(6, 5)).toBeCloseTo(0.6, 12);
    // 45 % exactly fails θ = 0.55 the same way (1 − 0.55 = 0.44999999999999996): 0.1, not 0.2
    expect(meanRelativeAccuracy(29, 20)).toBeCloseTo(0.1, 12);
  });
  it.skipIf(numpy.skip)(numpy.title("agrees with the official code run by numpy on every pair 0 <= ŷ <= 60, 1 <= y <= 40"), () => {
    // the official rule, verbatim: abs(pred - target) / target <= 1 - linspace(.5, .95, int((.95 - .5) / .05 + 2))
    const py = execFileSync(
      "/usr/bin/python3",
      [
        "-c",
        `
import json, numpy as np
conf = np.linspace(0.5, 0.95, int((0.95 - 0.5) / 0.05 + 2))
print(json.dumps([[float((abs(p - g) / g <= 1 - conf).mean()) for p in range(61)] for g in range(1, 41)]))
`,
      ],
      { encoding: "utf8" },
    );
    const official = JSON.parse(py) as number[][];
    let boundary = 0;
    for (let g = 1; g <= 40; g++)
      for (let p = 0; p <= 60; p++) {
        expect(meanRelativeAccuracy(p, g), `ŷ=${p}, y=${g}`).toBe(official[g - 1]![p]);
        if ((20 * Math.abs(p - g)) % g === 0 && Math.abs(p - g) <= g / 2) boundary++;
      }
    expect(boundary).toBeGreaterThan(100); // the grid holds many exact 0.05·k errors, where the rules differ
  });
  it("scores an unparseable prediction 0 and handles y = 0", () => {
    expect(meanRelativeAccuracy(null, 5)).toBe(0);
    expect(meanRelativeAccuracy(undefined, 5)).toBe(0);
    expect(meanRelativeAccuracy(Number.NaN, 5)).toBe(0);
    expect(meanRelativeAccuracy(0, 0)).toBe(1);
    expect(meanRelativeAccuracy(1, 0)).toBe(0);
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
    const { ece, bins } = expectedCalibrationError(items);
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
    const { bins } = expectedCalibrationError([
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
    expect(expectedCalibrationError(xs).ece).toBeCloseTo(0, 12);
  });
  it("Brier score, hand-computed", () => {
    // 3·0.05² + 0.95² + 0.75² + 3·0.25² = 1.66, over 8
    expect(brierScore(items)).toBeCloseTo(0.2075, 12);
  });
  it("mean confidence when right vs wrong", () => {
    const m = meanConfidenceByOutcome(items);
    expect(m.right.mean).toBeCloseTo(0.775, 12);
    expect(m.right.n).toBe(4);
    expect(m.wrong.mean).toBeCloseTo(0.425, 12);
    expect(m.wrong.n).toBe(4);
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
