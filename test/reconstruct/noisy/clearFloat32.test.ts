/** clearFloat32 declines a double whose neighbours round to another float32 (a rounding midpoint) and rounds the rest. */
import { describe, expect, it } from "vitest";
import { clearFloat32 } from "../../../reconstruct/noisy/clearFloat32.js";

describe("clearFloat32", () => {
  it("declines the cheap quotient next to a float32 rounding midpoint and takes it elsewhere", () => {
    // 1.5 and 1.5 + 2^-23 are neighbouring float32s; their midpoint is a double
    const mid = 1.5 + 2 ** -24;
    for (const d of [0, 2 ** -52, -(2 ** -52), 2 ** -49, -(2 ** -49)]) expect(clearFloat32(mid + d)).toBeNaN();
    expect(clearFloat32(mid + 2 ** -44)).toBe(Math.fround(mid + 2 ** -44));
    expect(clearFloat32(mid - 2 ** -44)).toBe(Math.fround(mid - 2 ** -44));
    expect(clearFloat32(0.75)).toBe(0.75);
    expect(clearFloat32(0)).toBe(0);
  });
});
