/**
 * ESI-Bench camera poses (ESI-Bench's released camera conventions): `quaternion_xyzw` is the world orientation of
 * OmniGibson's viewer camera, a USD camera (local -Z forward, +Y up, +X right), scalar last, built by
 * look_at_quaternion with zero roll. esi3d's agent pose is (position, yaw, pitch) of the view direction.
 */
import type { Vec3 } from "../../core/math/vec.js";
import { quatToMat } from "../../core/math/quat.js";
import type { Field } from "./record.js";
import { viewNumberOf } from "./viewNumber.js";

export type QuatXyzw = [number, number, number, number];

/** |forward.z| above this is a (near-)vertical view: its heading comes from the image-up axis instead. */
const VERTICAL_VIEW_COS = 0.999999;

/** Yaw, pitch and roll (radians) of a USD camera orientation. */
export function usdCameraAngles(q: QuatXyzw): { yaw: number; pitch: number; roll: number } {
  const R = quatToMat({ x: q[0], y: q[1], z: q[2], w: q[3] });
  const forward: Vec3 = [-R[0][2], -R[1][2], -R[2][2]];
  const up: Vec3 = [R[0][1], R[1][1], R[2][1]];
  const right: Vec3 = [R[0][0], R[1][0], R[2][0]];
  const fz = Math.max(-1, Math.min(1, forward[2]));
  const pitch = Math.asin(fz);
  // looking straight down, esi3d's image-up points along the yaw direction (looking up: against it)
  const yaw = Math.abs(fz) < VERTICAL_VIEW_COS ? Math.atan2(forward[1], forward[0]) : fz < 0 ? Math.atan2(up[1], up[0]) : Math.atan2(-up[1], -up[0]);
  // roll: how far the right axis leaves the horizontal plane
  const roll = Math.asin(Math.max(-1, Math.min(1, right[2])));
  return { yaw, pitch, roll };
}

/** Largest roll (rad) a recorded pose may have: ESI's look_at gives exactly 0 (measured max 0.00 deg). */
const MAX_VIEW_ROLL_RAD = (1 * Math.PI) / 180;

export interface DraftView {
  name: string;
  view: number | null;
  position: Vec3;
  quat: QuatXyzw;
  kind?: string;
  /** Visibility flags by object key ("obj1", "targets[0]", ...). */
  flags: Map<string, boolean>;
}

/** A view from a dict holding position and quaternion_xyzw (directly or under camera_pose / pose). */
export function readView(f: Field, name: string, kind?: string): DraftView {
  const holder = f.at("camera_pose").exists ? f.at("camera_pose") : f.at("pose").exists ? f.at("pose") : f;
  const position = holder.at("position").vec3();
  const quat = holder.at("quaternion_xyzw").vec(4) as QuatXyzw;
  const norm = Math.hypot(...quat);
  if (!(norm > 0.5)) holder.at("quaternion_xyzw").refuse("not a rotation (norm far from 1)");
  const roll = usdCameraAngles(quat).roll;
  if (Math.abs(roll) > MAX_VIEW_ROLL_RAD)
    holder.at("quaternion_xyzw").refuse(`camera roll ${((roll * 180) / Math.PI).toFixed(2)} deg: esi3d's agent camera has none`);
  return { name, view: viewNumberOf(name), position, quat, ...(kind ? { kind } : {}), flags: new Map() };
}
