import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { meanRelativeAccuracy } from "../../../src/eval/meanRelativeAccuracy.js";
import { needs } from "../../helpers/system.js";

const numpy = needs("python3-numpy");

describe("meanRelativeAccuracy (VSI-Bench)", () => {
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
