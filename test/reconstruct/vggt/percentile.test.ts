/** numpy's percentile, method "linear", on float32 values: the confidence threshold VGGT's demo applies. */
import { describe, expect, it } from "vitest";
import { percentileLinear } from "../../../reconstruct/vggt/percentile.js";

describe("percentileLinear (numpy default linear interpolation)", () => {
  // Expected values: numpy 1.24 np.percentile(np.array(vals, dtype=np.float32), p), printed with repr().
  const vals = Float32Array.from([1.0, 7.25, 3.5, 2.0, 9.75, 1.5, 4.125, 8.0, 5.5, 6.0, 2.75]);
  const cases: [number, number][] = [
    [0, 1.0],
    [10, 1.5],
    [25, 2.375],
    [33.3, 2.9974999999999996],
    [50, 4.125],
    [66.7, 5.835],
    [90, 8.0],
    [99, 9.575000000000001],
    [100, 9.75],
  ];
  for (const [p, want] of cases) it(`p = ${p}`, () => expect(percentileLinear(vals, p)).toBe(want));
  it("on 1000 float32 confidences (numpy's float32 difference rounding)", () => {
    // v2 = (1 + exp(linspace(-2, 3, 1000))).astype(float32)[::-1]
    const lin = (j: number) => (j === 999 ? 3 : j * (5 / 999) - 2); // numpy: arange·step + start, last = stop
    const v2 = Float32Array.from({ length: 1000 }, (_, i) => 1 + Math.exp(lin(999 - i)));
    expect(percentileLinear(v2, 12.5)).toBe(1.252839982509613);
    expect(percentileLinear(v2, 50)).toBe(2.6487263441085815);
    expect(percentileLinear(v2, 87.3)).toBe(11.644053988456724);
  });
  it("does not modify its input and handles one value", () => {
    const a = Float32Array.from([3, 1, 2]);
    percentileLinear(a, 50);
    expect(Array.from(a)).toEqual([3, 1, 2]);
    expect(percentileLinear(Float32Array.from([4]), 37)).toBe(4);
  });
});
