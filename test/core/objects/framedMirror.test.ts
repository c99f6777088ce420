/** framedMirror and mirrorFrame (core/objects/mirror.ts): the pane's reflective rectangle where asked, the frame behind it. */
import { describe, expect, it } from "vitest";
import { framedMirror, mirrorFrame, mirrorPlane } from "../../../core/objects/mirror.js";
import { quatToMat } from "../../../core/math/quat.js";
import type { Vec3 } from "../../../core/math/vec.js";

describe("framedMirror", () => {
  it("puts the reflective face at faceCentre, facing yaw, width x height, and the frame's face half a pane behind it", () => {
    const yaw = 2.1;
    const faceCentre: Vec3 = [1.5, -0.7, 1.1];
    const [mirror, frame] = framedMirror({ mirrorId: 40, frameId: 41, faceCentre, yaw, width: 0.9, height: 1.7 });
    const plane = mirrorPlane(mirror);
    for (let k = 0; k < 3; k++) expect(plane.centre[k]).toBeCloseTo(faceCentre[k]!, 12);
    expect(plane.normal[0]).toBeCloseTo(Math.cos(yaw), 12);
    expect(plane.normal[1]).toBeCloseTo(Math.sin(yaw), 12);
    expect(plane.normal[2]).toBeCloseTo(0, 12);
    expect([plane.half_width_m, plane.half_height_m]).toEqual([0.45, 0.85]);
    expect(mirror).toMatchObject({ id: 40, category: "mirror" });
    // the frame: same axes, its +x face at the pane's centre plane, wider and higher than the pane by its border on each side
    expect(frame).toMatchObject({ id: 41, category: "mirror_frame", orientation: mirror.orientation });
    const framePlane = mirrorPlane(frame);
    const behind = (faceCentre[0] - framePlane.centre[0]) * plane.normal[0] + (faceCentre[1] - framePlane.centre[1]) * plane.normal[1];
    expect(behind).toBeCloseTo(mirror.extent[0] / 2, 12);
    expect(framePlane.half_width_m - plane.half_width_m).toBeCloseTo(framePlane.half_height_m - plane.half_height_m, 12);
    expect(framePlane.half_width_m).toBeGreaterThan(plane.half_width_m);
  });

  it("mirrorFrame follows a tilted mirror's own axes", () => {
    const [mirror] = framedMirror({ mirrorId: 40, frameId: 41, faceCentre: [0, 0, 1], yaw: 0, width: 1, height: 1 });
    const tilted = { ...mirror, orientation: { x: 0, y: Math.sin(0.2), z: 0, w: Math.cos(0.2) } };
    const frame = mirrorFrame(tilted, 41);
    const R = quatToMat(tilted.orientation);
    const d = [0, 1, 2].map((k) => tilted.position[k]! - frame.position[k]!);
    // the offset is along the tilted +x axis only
    const along = d[0]! * R[0][0] + d[1]! * R[1][0] + d[2]! * R[2][0];
    expect(Math.hypot(d[0]!, d[1]!, d[2]!)).toBeCloseTo(Math.abs(along), 12);
    expect(along).toBeGreaterThan(0);
  });
});
