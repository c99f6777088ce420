/** Principal axes: eigen-decomposition of a known symmetric matrix, and no lateral spread for a collinear set. */
import { describe, expect, it } from "vitest";
import type { Vec3 } from "../../core/math/vec.js";
import { centroid, principalSpreads, symmetricEigen } from "../../reconstruct/principalAxes.js";

describe("principal axes", () => {
  it("symmetric eigen-decomposition and principal spreads", () => {
    const { values, vectors } = symmetricEigen([
      [2, 1, 0],
      [1, 2, 0],
      [0, 0, 5],
    ]);
    expect(values.map((v) => +v.toFixed(12))).toEqual([5, 3, 1]);
    expect(Math.abs(vectors[1]![0]!)).toBeCloseTo(Math.SQRT1_2, 12);
    const line: Vec3[] = [
      [0, 0, 0],
      [1, 1, 0],
      [2, 2, 0],
    ];
    // A collinear set has no lateral spread: up to rounding (an eigenvalue of ~1 ulp is a spread of ~1e-8 m).
    const [along, across] = principalSpreads(line);
    expect(across / along).toBeLessThan(1e-6);
  });
  it("the centroid is the mean point", () => {
    expect(
      centroid([
        [0, 0, 0],
        [2, 4, -6],
      ]),
    ).toEqual([1, 2, -3]);
  });
});
