import { describe, expect, it } from "vitest";
import { computeRelations, type RelNode } from "../../scenegraph/relations.js";
import type { YawBox } from "../../core/geometry.js";

/** Points on a box's surface at 1 cm spacing (enough for closest distances). */
function boxNode(id: string, centre: [number, number, number], extent: [number, number, number], yaw = 0): RelNode {
  const pts: number[] = [];
  const c = Math.cos(yaw),
    s = Math.sin(yaw);
  const step = 0.01;
  for (let x = -extent[0] / 2; x <= extent[0] / 2 + 1e-9; x += step)
    for (let y = -extent[1] / 2; y <= extent[1] / 2 + 1e-9; y += step)
      for (let z = -extent[2] / 2; z <= extent[2] / 2 + 1e-9; z += step) {
        const onFace = [Math.abs(Math.abs(x) - extent[0] / 2), Math.abs(Math.abs(y) - extent[1] / 2), Math.abs(Math.abs(z) - extent[2] / 2)].some(
          (d) => d < step / 2,
        );
        if (onFace) pts.push(centre[0] + c * x - s * y, centre[1] + s * x + c * y, centre[2] + z);
      }
  const box: YawBox = { centre, extent, yaw };
  return { id, box, xyz: Float32Array.from(pts) };
}

const has = (rels: ReturnType<typeof computeRelations>, a: string, p: string, b: string) =>
  rels.some((r) => r.subject === a && r.predicate === p && r.object === b);

describe("relations", () => {
  const view = { position: [0, -3, 1.2] as [number, number, number], yaw: Math.PI / 2 }; // looking along +y: right is +x

  it("on / supports, with the margin to the nearest threshold", () => {
    const table = boxNode("t", [0, 0, 0.375], [1.0, 0.6, 0.75]);
    const mug = boxNode("m", [0.1, 0, 0.8], [0.08, 0.08, 0.1]); // bottom at 0.75 = table top
    const rels = computeRelations([table, mug], view);
    expect(has(rels, "m", "on", "t")).toBe(true);
    expect(has(rels, "t", "supports", "m")).toBe(true);
    expect(rels.find((r) => r.predicate === "on")!.margin_m).toBeCloseTo(0.03, 3); // 3 cm below the upper bound
    // lifted 10 cm: no longer on, but above
    const lifted = computeRelations([table, boxNode("m", [0.1, 0, 0.9], [0.08, 0.08, 0.1])], view);
    expect(has(lifted, "m", "on", "t")).toBe(false);
    expect(has(lifted, "m", "above", "t")).toBe(true);
  });

  it("inside / contains", () => {
    const glass = boxNode("g", [0, 0, 0.065], [0.09, 0.09, 0.13]);
    const nut = boxNode("n", [0.01, 0, 0.025], [0.03, 0.03, 0.03]);
    const rels = computeRelations([glass, nut], view);
    expect(has(rels, "n", "inside", "g")).toBe(true);
    expect(has(rels, "g", "contains", "n")).toBe(true);
    const behind = computeRelations([glass, boxNode("n", [0.07, 0, 0.025], [0.03, 0.03, 0.03])], view);
    expect(has(behind, "n", "inside", "g")).toBe(false);
  });

  it("touching up to 2.5 cm, near up to 0.5 m, with closest-point distances", () => {
    const a = boxNode("a", [0, 0, 0.1], [0.2, 0.2, 0.2]);
    const touching = computeRelations([a, boxNode("b", [0.21, 0, 0.1], [0.2, 0.2, 0.2])], view);
    const t = touching.find((r) => r.predicate === "touching")!;
    expect(t.closest_distance_m).toBeCloseTo(0.01, 2);
    expect(t.margin_m).toBeCloseTo(0.015, 2);
    const near = computeRelations([a, boxNode("b", [0.3, 0, 0.1], [0.2, 0.2, 0.2])], view);
    expect(near.some((r) => r.predicate === "touching")).toBe(false);
    expect(near.find((r) => r.predicate === "near")!.closest_distance_m).toBeCloseTo(0.1, 2);
    expect(computeRelations([a, boxNode("b", [1.5, 0, 0.1], [0.2, 0.2, 0.2])], view)).toEqual([]);
  });

  it("left/right and in front/behind from the agent's initial view", () => {
    const a = boxNode("a", [-0.3, 0, 0.1], [0.1, 0.1, 0.1]);
    const b = boxNode("b", [0.0, 0.3, 0.1], [0.1, 0.1, 0.1]);
    const rels = computeRelations([a, b], view);
    expect(has(rels, "a", "left_of", "b")).toBe(true);
    expect(has(rels, "b", "right_of", "a")).toBe(true);
    expect(has(rels, "a", "in_front_of", "b")).toBe(true); // nearer to the viewer at y = -3
    expect(has(rels, "b", "behind", "a")).toBe(true);
    // inside the dead-zone: no left/right
    const close = computeRelations([a, boxNode("b", [-0.25, 0.3, 0.1], [0.1, 0.1, 0.1])], view);
    expect(close.some((r) => r.predicate === "left_of" || r.predicate === "right_of")).toBe(false);
  });
});
