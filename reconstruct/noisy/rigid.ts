/**
 * Small rigid-motion helpers for the pose components: rotations from rotation vectors, and products of
 * camera-from-world extrinsics [R | t] (x_cam = R·x_world + t).
 */
import type { Mat3, Mat34, Vec3 } from "../../core/math/vec.js";

/** Rodrigues: the rotation matrix of rotation vector w (radians). */
export function rotationFromVector(wx: number, wy: number, wz: number): Mat3 {
  const th = Math.hypot(wx, wy, wz);
  if (th === 0)
    return [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ];
  const kx = wx / th,
    ky = wy / th,
    kz = wz / th,
    s = Math.sin(th),
    c = 1 - Math.cos(th);
  return [
    [1 + c * (-ky * ky - kz * kz), -s * kz + c * kx * ky, s * ky + c * kx * kz],
    [s * kz + c * kx * ky, 1 + c * (-kx * kx - kz * kz), -s * kx + c * ky * kz],
    [-s * ky + c * kx * kz, s * kx + c * ky * kz, 1 + c * (-kx * kx - ky * ky)],
  ];
}

/** Angle (degrees) of a rotation matrix. */
export function rotationAngleDeg(R: Mat3): number {
  const c = (R[0][0] + R[1][1] + R[2][2] - 1) / 2;
  return (Math.acos(Math.max(-1, Math.min(1, c))) * 180) / Math.PI;
}

/** The extrinsic of a rigid motion: rotation R, translation t. */
export function extrinsic(R: Mat3, t: Vec3): Mat34 {
  return [
    [R[0][0], R[0][1], R[0][2], t[0]],
    [R[1][0], R[1][1], R[1][2], t[1]],
    [R[2][0], R[2][1], R[2][2], t[2]],
  ];
}

/** A·B: first B, then A. */
export function composeExtrinsics(A: Mat34, B: Mat34): Mat34 {
  const out = [
    [0, 0, 0, 0],
    [0, 0, 0, 0],
    [0, 0, 0, 0],
  ] as unknown as Mat34;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 4; j++) {
      let s = j === 3 ? A[i]![3]! : 0;
      for (let k = 0; k < 3; k++) s += A[i]![k]! * B[k]![j]!;
      out[i]![j] = s;
    }
  }
  return out;
}
