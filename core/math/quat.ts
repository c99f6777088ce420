/** Unit quaternions, stored as {x, y, z, w} (scalar last, as VGGT's pose encoding and OmniGibson use). */
import type { Mat3 } from "./vec.js";

export interface Quat {
  x: number;
  y: number;
  z: number;
  w: number;
}

export function quatFromYaw(yaw: number): Quat {
  return { x: 0, y: 0, z: Math.sin(yaw / 2), w: Math.cos(yaw / 2) };
}

/**
 * Rotation matrix of a quaternion. Uses s = 2/|q|^2 so that a non-normalised quaternion is normalised
 * implicitly, exactly as VGGT's `quat_to_mat` does.
 */
export function quatToMat(q: Quat): Mat3 {
  const { x, y, z, w } = q;
  const s = 2 / (x * x + y * y + z * z + w * w);
  return [
    [1 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w)],
    [s * (x * y + z * w), 1 - s * (x * x + z * z), s * (y * z - x * w)],
    [s * (x * z - y * w), s * (y * z + x * w), 1 - s * (x * x + y * y)],
  ];
}

/** Quaternion of a rotation matrix (Shepperd's method), standardised so that w >= 0. */
export function matToQuat(m: Mat3): Quat {
  const tr = m[0][0] + m[1][1] + m[2][2];
  let x: number, y: number, z: number, w: number;
  if (tr > 0) {
    const s = Math.sqrt(tr + 1) * 2;
    w = 0.25 * s;
    x = (m[2][1] - m[1][2]) / s;
    y = (m[0][2] - m[2][0]) / s;
    z = (m[1][0] - m[0][1]) / s;
  } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
    const s = Math.sqrt(1 + m[0][0] - m[1][1] - m[2][2]) * 2;
    w = (m[2][1] - m[1][2]) / s;
    x = 0.25 * s;
    y = (m[0][1] + m[1][0]) / s;
    z = (m[0][2] + m[2][0]) / s;
  } else if (m[1][1] > m[2][2]) {
    const s = Math.sqrt(1 + m[1][1] - m[0][0] - m[2][2]) * 2;
    w = (m[0][2] - m[2][0]) / s;
    x = (m[0][1] + m[1][0]) / s;
    y = 0.25 * s;
    z = (m[1][2] + m[2][1]) / s;
  } else {
    const s = Math.sqrt(1 + m[2][2] - m[0][0] - m[1][1]) * 2;
    w = (m[1][0] - m[0][1]) / s;
    x = (m[0][2] + m[2][0]) / s;
    y = (m[1][2] + m[2][1]) / s;
    z = 0.25 * s;
  }
  const n = Math.hypot(x, y, z, w);
  const sign = w < 0 ? -1 : 1;
  return { x: (sign * x) / n, y: (sign * y) / n, z: (sign * z) / n, w: (sign * w) / n };
}

/** The product a ⊗ b: rotate by b, then by a. */
export function quatMul(a: Quat, b: Quat): Quat {
  return {
    w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
    y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
    z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
  };
}

/** The rotation by `angle` (rad) about the unit `axis`. */
export function quatFromAxisAngle(axis: readonly [number, number, number], angle: number): Quat {
  const s = Math.sin(angle / 2);
  return { x: axis[0] * s, y: axis[1] * s, z: axis[2] * s, w: Math.cos(angle / 2) };
}
