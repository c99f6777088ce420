/** View numbers come from an image's name, never from its place in a list (the exporter sorted keyed lists as strings). */
import { describe, expect, it } from "vitest";
import { viewNumberOf } from "../../../bridge/esibench/viewNumber.js";

describe("viewNumberOf", () => {
  it("reads <n>.png and view_<n>_..., and nothing from orbit shifts, seeds or side views", () => {
    expect(["0.png", "10.png", "view_03_az056.png", "0_1.png", "3968592461.png", "initial_side_az090.png"].map(viewNumberOf)).toEqual([
      0,
      10,
      3,
      null,
      null,
      null,
    ]);
  });
});
