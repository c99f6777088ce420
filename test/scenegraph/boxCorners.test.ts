/** Node box corners in Open3D's order (the export test checks them against Open3D itself), a flat box thickened to 1 mm. */
import { describe, expect, it } from "vitest";
import { boxCorners } from "../../scenegraph/boxCorners.js";

describe("boxCorners (bbox_np)", () => {
  it("gives a flat box (a side of 0) the least side, so Open3D's create_from_points can rebuild it", () => {
    const c = boxCorners({ centre: [1, 2, 3], extent: [0, 0.5, 0.2], yaw: 0 });
    const xs = [0, 1, 2, 3, 4, 5, 6, 7].map((k) => c[3 * k]!);
    expect(Math.max(...xs) - Math.min(...xs)).toBeCloseTo(0.001, 12);
    // corner 0 is centre - x - y - z, corner 4 centre + x + y + z (Open3D's order)
    expect(Array.from(c.subarray(0, 3))).toEqual([1 - 0.0005, 1.75, 2.9]);
    expect(Array.from(c.subarray(12, 15))).toEqual([1 + 0.0005, 2.25, 3.1]);
  });
});
