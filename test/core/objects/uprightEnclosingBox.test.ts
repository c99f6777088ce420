/** uprightEnclosingBox (core/objects/geometry.ts): the gravity-aligned box around an object as it stands. */
import { describe, expect, it } from "vitest";
import { objectBox, uprightEnclosingBox } from "../../../core/objects/geometry.js";
import { matToQuat, quatFromYaw } from "../../../core/math/quat.js";
import type { Mat3, Vec3 } from "../../../core/math/vec.js";

const extent: Vec3 = [0.5, 0.3, 0.02];
const position: Vec3 = [1, 2, 0.3];
/** The rotation yaw psi about Z after a tilt t about Y, as a matrix Rz(psi) Ry(t). */
const yawAfterTilt = (psi: number, t: number): Mat3 => {
  const [cp, sp, ct, st] = [Math.cos(psi), Math.sin(psi), Math.cos(t), Math.sin(t)];
  return [
    [cp * ct, -sp, cp * st],
    [sp * ct, cp, sp * st],
    [-st, 0, ct],
  ];
};

describe("uprightEnclosingBox", () => {
  it("an object that only yaws is its own box, exactly", () => {
    const o = { position, orientation: quatFromYaw(0.7), extent };
    expect(uprightEnclosingBox(o)).toEqual(objectBox(o));
  });

  it("a board tilted t about Y and yawed psi: the box keeps psi, its run and rise are the tilted board's projections", () => {
    const psi = 0.6,
      t = (31 * Math.PI) / 180;
    const b = uprightEnclosingBox({ position, orientation: matToQuat(yawAfterTilt(psi, t)), extent });
    expect(b.yaw).toBeCloseTo(psi, 12);
    expect(b.centre).toEqual(position);
    expect(b.extent[0]).toBeCloseTo(0.5 * Math.cos(t) + 0.02 * Math.sin(t), 12);
    expect(b.extent[1]).toBeCloseTo(0.3, 12);
    expect(b.extent[2]).toBeCloseTo(0.5 * Math.sin(t) + 0.02 * Math.cos(t), 12);
  });

  it("a box turned a quarter turn about X stands on its side: its y and z sides swap", () => {
    const b = uprightEnclosingBox({ position, orientation: { x: Math.SQRT1_2, y: 0, z: 0, w: Math.SQRT1_2 }, extent });
    expect(b.extent[0]).toBeCloseTo(0.5, 12);
    expect(b.extent[1]).toBeCloseTo(0.02, 12);
    expect(b.extent[2]).toBeCloseTo(0.3, 12);
  });
});
