/**
 * Camera conventions, stated once (docs/conventions.md):
 * - World: right-handed, Z up, metres, radians.
 * - Camera axes: OpenCV (x right, y down, z forward).
 * - Extrinsic: camera-from-world [R | t] (3x4), X_cam = R * X_world + t, as VGGT returns it.
 * - Intrinsics fx, fy, cx, cy in pixels of that view's image; pixel (i, j) (column i, row j) has its
 *   centre at image coordinates (u, v) = (i, j), so a centred camera has cx = (W - 1) / 2.
 * - Depth: metric z-depth along the camera axis; 0 or non-finite = no measurement.
 * - Agent pose: camera optical centre `position`, `yaw` (0 = looking along +X, counter-clockwise seen from
 *   above), `pitch` (positive = looking up). Roll is always zero for the agent.
 */
import type { Mat3, Mat34, Vec3 } from "./vec.js";
import { dot, matVec, transpose } from "./vec.js";
import type { Quat } from "./quat.js";
import { matToQuat } from "./quat.js";

export interface Intrinsics {
  fx: number;
  fy: number;
  cx: number;
  cy: number;
}

export interface AgentPose {
  position: Vec3;
  yaw: number;
  pitch: number;
}

/** Intrinsics of a centred pinhole camera with square pixels and horizontal field of view `hfovDeg`. */
export function intrinsicsFromHfov(width: number, height: number, hfovDeg: number): Intrinsics {
  const f = width / 2 / Math.tan((hfovDeg * Math.PI) / 360);
  return { fx: f, fy: f, cx: (width - 1) / 2, cy: (height - 1) / 2 };
}

/** World-from-camera rotation columns: camera x (right), y (down), z (forward) expressed in the world. */
function cameraAxes(yaw: number, pitch: number): { right: Vec3; down: Vec3; forward: Vec3 } {
  const cy = Math.cos(yaw),
    sy = Math.sin(yaw),
    cp = Math.cos(pitch),
    sp = Math.sin(pitch);
  const forward: Vec3 = [cp * cy, cp * sy, sp];
  const right: Vec3 = [sy, -cy, 0];
  // down = forward x right keeps the frame right-handed (right x down = forward).
  const down: Vec3 = [
    forward[1] * right[2] - forward[2] * right[1],
    forward[2] * right[0] - forward[0] * right[2],
    forward[0] * right[1] - forward[1] * right[0],
  ];
  return { right, down, forward };
}

/** Camera-from-world rotation of an agent pose (rows are the camera axes in world coordinates). */
function poseRotation(pose: AgentPose): Mat3 {
  const { right, down, forward } = cameraAxes(pose.yaw, pose.pitch);
  return [right, down, forward];
}

export function poseToExtrinsic(pose: AgentPose): Mat34 {
  const R = poseRotation(pose);
  const t = matVec(R, pose.position).map((v) => -v) as Vec3;
  return [
    [R[0][0], R[0][1], R[0][2], t[0]],
    [R[1][0], R[1][1], R[1][2], t[1]],
    [R[2][0], R[2][1], R[2][2], t[2]],
  ];
}

export function extrinsicRotation(E: Mat34): Mat3 {
  return [
    [E[0][0], E[0][1], E[0][2]],
    [E[1][0], E[1][1], E[1][2]],
    [E[2][0], E[2][1], E[2][2]],
  ];
}

export function extrinsicTranslation(E: Mat34): Vec3 {
  return [E[0][3], E[1][3], E[2][3]];
}

/** Camera centre in world coordinates: C = -R^T t. */
export function cameraCentre(E: Mat34): Vec3 {
  const Rt = transpose(extrinsicRotation(E));
  const c = matVec(Rt, extrinsicTranslation(E));
  return [-c[0], -c[1], -c[2]];
}

/** Inverse of a camera-from-world extrinsic: the world-from-camera transform [R^T | -R^T t]. */
export function invertExtrinsic(E: Mat34): Mat34 {
  const Rt = transpose(extrinsicRotation(E));
  const c = cameraCentre(E);
  return [
    [Rt[0][0], Rt[0][1], Rt[0][2], c[0]],
    [Rt[1][0], Rt[1][1], Rt[1][2], c[1]],
    [Rt[2][0], Rt[2][1], Rt[2][2], c[2]],
  ];
}

function transformPoint(E: Mat34, p: Vec3): Vec3 {
  return [
    E[0][0] * p[0] + E[0][1] * p[1] + E[0][2] * p[2] + E[0][3],
    E[1][0] * p[0] + E[1][1] * p[1] + E[1][2] * p[2] + E[1][3],
    E[2][0] * p[0] + E[2][1] * p[1] + E[2][2] * p[2] + E[2][3],
  ];
}

/** Projects a world point; returns pixel coordinates (centre convention) and the camera z-depth. */
export function projectPoint(E: Mat34, K: Intrinsics, p: Vec3): { u: number; v: number; z: number } {
  const c = transformPoint(E, p);
  return { u: (K.fx * c[0]) / c[2] + K.cx, v: (K.fy * c[1]) / c[2] + K.cy, z: c[2] };
}

/** Body orientation of the agent as a quaternion (body x forward, y left, z up), for task records. */
export function poseQuaternion(pose: AgentPose): Quat {
  const { right, down, forward } = cameraAxes(pose.yaw, pose.pitch);
  const left: Vec3 = [-right[0], -right[1], -right[2]];
  const up: Vec3 = [-down[0], -down[1], -down[2]];
  // Columns of world-from-body are the body axes in world coordinates.
  const m: Mat3 = [
    [forward[0], left[0], up[0]],
    [forward[1], left[1], up[1]],
    [forward[2], left[2], up[2]],
  ];
  return matToQuat(m);
}

/** Maximum deviation of R R^T from identity and det(R); used to validate rotations read from files. */
export function rotationError(R: Mat3): { orthoError: number; det: number } {
  let err = 0;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) err = Math.max(err, Math.abs(dot(R[i]!, R[j]!) - (i === j ? 1 : 0)));
  }
  const det = dot(R[0], [R[1][1] * R[2][2] - R[1][2] * R[2][1], R[1][2] * R[2][0] - R[1][0] * R[2][2], R[1][0] * R[2][1] - R[1][1] * R[2][0]]);
  return { orthoError: err, det };
}
