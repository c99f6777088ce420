/** --every keeps every n-th frame; --max-views then keeps that many of them, evenly spaced, first and last included. */
import { describe, expect, it } from "vitest";
import { subsample } from "../../../bridge/datasets/subsample.js";

describe("subsample", () => {
  it("keeps every n-th frame while they are no more than the maximum", () => {
    expect(subsample(10, 1, 30)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(subsample(10, 3, 30)).toEqual([0, 3, 6, 9]);
  });

  it("spreads the maximum evenly over the kept frames, first and last included", () => {
    expect(subsample(100, 1, 4)).toEqual([0, 33, 66, 99]);
    expect(subsample(100, 2, 3)).toEqual([0, 50, 98]);
  });

  it("keeps the first frame when only one may stay", () => {
    expect(subsample(100, 1, 1)).toEqual([0]);
  });
});
