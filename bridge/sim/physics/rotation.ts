/**
 * Rotations fed to the physics engine, built only from + - * / and sqrt, which IEEE 754 rounds the same on
 * every platform. Math.sin and Math.cos carry no such promise (an engine may use its own approximation), and a
 * last-bit difference in a body's start pose grows into a different settled scene: Rapier's deterministic
 * build is only deterministic for deterministic inputs.
 */
import type { Quat } from "../../../core/math/quat.js";

/** Terms of the Taylor series: for |x| <= pi the 20th term is below 1e-25, far past double precision. */
const SERIES_TERMS = 20;

/** sin and cos of `x` (radians, |x| <= pi) by their Taylor series. */
export function exactSinCos(x: number): { sin: number; cos: number } {
  if (!(Math.abs(x) <= Math.PI)) throw new RangeError(`exactSinCos: angle ${x} outside [-pi, pi]`);
  const x2 = x * x;
  let sin = 0;
  let cos = 0;
  let sinTerm = x;
  let cosTerm = 1;
  for (let n = 0; n < SERIES_TERMS; n++) {
    sin += sinTerm;
    cos += cosTerm;
    sinTerm = (-sinTerm * x2) / ((2 * n + 2) * (2 * n + 3));
    cosTerm = (-cosTerm * x2) / ((2 * n + 1) * (2 * n + 2));
  }
  return { sin, cos };
}

/** The rotation by `angle` (radians, |angle| <= pi) about a world axis. */
export function axisRotation(axis: "x" | "y" | "z", angle: number): Quat {
  const { sin, cos } = exactSinCos(angle / 2);
  return { x: axis === "x" ? sin : 0, y: axis === "y" ? sin : 0, z: axis === "z" ? sin : 0, w: cos };
}

/** q scaled to unit length (a rounded record's quaternion is a little off). */
export function normalized(q: Quat): Quat {
  const n = Math.sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  if (!(n > 0)) throw new RangeError("normalized: zero quaternion");
  return { x: q.x / n, y: q.y / n, z: q.z / n, w: q.w / n };
}
