import { describe, expect, it } from "vitest";
import { concatFloat32, concatUint32 } from "../../core/concat.js";

describe("concat", () => {
  it("joins typed arrays end to end into a new array, views at an offset included", () => {
    const a = new Float32Array([1.5, 2]),
      b = new Float32Array([9, 3, 4]).subarray(1);
    const out = concatFloat32([a, b, new Float32Array(0)]);
    expect([...out]).toEqual([1.5, 2, 3, 4]);
    expect(out).not.toBe(a);
    expect([...concatUint32([new Uint32Array([7]), new Uint32Array([8, 9])])]).toEqual([7, 8, 9]);
    const one = new Uint32Array([5]);
    expect(concatUint32([one])).not.toBe(one);
    expect(concatUint32([]).length).toBe(0);
  });
});
