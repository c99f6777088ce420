/** The Gaussian table: 2^16 equiprobable standard-normal values, ascending, symmetric, variance exactly 1, tails near 4.3 sigma. */
import { describe, expect, it } from "vitest";
import { NORMAL_TABLE } from "../../../reconstruct/noisy/normalTable.js";

describe("NORMAL_TABLE", () => {
  it("holds 2^16 ascending values, symmetric about 0, with mean 0 and variance 1", () => {
    const n = NORMAL_TABLE.length;
    expect(n).toBe(1 << 16);
    let sum = 0,
      ss = 0,
      unordered = 0,
      asymmetry = 0;
    for (let i = 0; i < n; i++) {
      if (i > 0 && !(NORMAL_TABLE[i]! > NORMAL_TABLE[i - 1]!)) unordered++;
      asymmetry = Math.max(asymmetry, Math.abs(NORMAL_TABLE[i]! + NORMAL_TABLE[n - 1 - i]!));
      sum += NORMAL_TABLE[i]!;
      ss += NORMAL_TABLE[i]! * NORMAL_TABLE[i]!;
    }
    expect(unordered).toBe(0);
    expect(asymmetry).toBeLessThan(1e-6);
    expect(sum / n).toBeCloseTo(0, 6);
    expect(ss / n).toBeCloseTo(1, 6);
  });

  it("puts the standard normal's quantiles at the bin centres: the median bins at 0, the tails near 4.3 sigma", () => {
    const n = NORMAL_TABLE.length;
    expect(Math.abs(NORMAL_TABLE[n / 2]!)).toBeLessThan(1e-4);
    // the quartiles of N(0, 1): +-0.6745
    expect(NORMAL_TABLE[n / 4]!).toBeCloseTo(-0.6745, 3);
    expect(NORMAL_TABLE[n - 1]!).toBeGreaterThan(4.2);
    expect(NORMAL_TABLE[n - 1]!).toBeLessThan(4.4);
  });
});
