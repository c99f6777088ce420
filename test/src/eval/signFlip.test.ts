/** The sign-flip test over tasks against brute-force counts of sign vectors. */
import { describe, expect, it } from "vitest";
import { signFlipTotalsP } from "../../../src/eval/signFlip.js";

/** The sign-flip p by brute force: every one of the 2^K sign vectors, counted. */
function bruteSignFlipP(counts: readonly number[]): number {
  const observed = Math.abs(counts.reduce((s, d) => s + d, 0));
  let extreme = 0;
  for (let mask = 0; mask < 1 << counts.length; mask++) if (Math.abs(counts.reduce((s, d, i) => s + (mask & (1 << i) ? -d : d), 0)) >= observed) extreme++;
  return extreme / (1 << counts.length);
}

describe("the sign-flip test over tasks' totals", () => {
  it("is exact on integer totals: brute force over every sign vector agrees, and one task is never significant", () => {
    for (const counts of [[3], [2, -1], [1, 1, 1, 1, 1], [3, 2, 0, -1, 2, 1, 3, -2, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [0, 0]])
      expect(signFlipTotalsP(counts), counts.join(",")).toBeCloseTo(bruteSignFlipP(counts), 12);
    expect(signFlipTotalsP([3])).toBe(1);
    expect(signFlipTotalsP(Array(10).fill(3))).toBeCloseTo(2 / 1024, 14);
  });

  it("the sign flip over real-valued task totals is exact on common fractions, and sampled past them", () => {
    // thirds and halves: exactly the integer test on the totals times 6
    const thirds = [1 / 3, -2 / 3, 1, 0.5, -1 / 6, 2 / 3, 1 / 3];
    expect(signFlipTotalsP(thirds)).toBeCloseTo(bruteSignFlipP(thirds.map((d) => Math.round(d * 6))), 12);
    expect(signFlipTotalsP([1, 1, 1, 1, 1, 1, 1, 1, 1, 1])).toBeCloseTo(2 / 1024, 14);
    // a denominator past SIGNFLIP_MAX_DENOMINATOR (7919 is prime): seeded sampled flips (20,000 of them), within their Monte Carlo error
    const odd = [1, 1, 1, 1, 1, 1, 1, 1 / 7919, -1, 1];
    const exact = bruteSignFlipP(odd.map((d) => Math.round(d * 7919)));
    expect(Math.abs(signFlipTotalsP(odd) - exact)).toBeLessThan(4 * Math.sqrt((exact * (1 - exact)) / 20_000) + 1 / 20_000);
    expect(signFlipTotalsP(odd)).toBe(signFlipTotalsP(odd));
  });
});
