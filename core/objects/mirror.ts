/**
 * Planar mirrors. A mirror is a task object of category `mirror`: a slab whose box's +x face (object axes) is the
 * reflective rectangle, as ESI-Bench records a mirror (its normal along the object's +x, its width along +y). Its
 * frame, when it has one, is an object of its own (any category), so the mirror's id marks exactly its reflective
 * surface and the slab around it.
 *
 * The mirror image of a point p in the plane through q with unit normal n is p − 2((p − q)·n)n.
 */
import type { Mat34, Vec3 } from "../math/vec.js";
import { quatFromYaw, quatToMat } from "../math/quat.js";
import type { MirrorPlane } from "../bundle/schema.js";
import type { TaskObject } from "../task/schema.js";
import { PROXY_BOX_MODEL } from "./library.js";

export const MIRROR_CATEGORY = "mirror";
/** The category of a mirror's frame: an object of its own, so the mirror's id marks only the pane. */
const MIRROR_FRAME_CATEGORY = "mirror_frame";

/** A mirror pane's thickness (m; ours): glass and backing of a floor mirror, a couple of centimetres. */
export const MIRROR_PANE_THICKNESS_M = 0.02;
/** A frame's depth (m; ours): its face lies half the pane's thickness behind the reflective face. */
const MIRROR_FRAME_DEPTH_M = 0.04;
/** A frame's border around the pane (m; ours): a 10 cm wooden frame of a floor mirror. */
export const MIRROR_FRAME_BORDER_M = 0.1;

/** Where a framed mirror stands: its reflective face's centre, the yaw its normal faces, the face's size (m). */
export interface FramedMirrorSpec {
  mirrorId: number;
  frameId: number;
  faceCentre: Vec3;
  yaw: number;
  width: number;
  height: number;
}

/** A box object of the unit proxy box scaled to `extent`, so any renderer draws it as that exact box. */
function boxObject(id: number, category: string, position: Vec3, orientation: TaskObject["orientation"], extent: Vec3, color: string): TaskObject {
  return {
    id,
    category,
    model: PROXY_BOX_MODEL,
    name: `the ${category.replace(/_/g, " ")}`,
    role: category,
    position,
    orientation: { ...orientation },
    extent,
    scale: [...extent],
    color,
    transparent: false,
  };
}

/**
 * The frame of a mirror object: a box MIRROR_FRAME_DEPTH_M deep just behind its pane (the frame's face half the pane's
 * thickness behind the reflective face), MIRROR_FRAME_BORDER_M wider than the pane on every side, in the mirror's axes.
 */
export function mirrorFrame(mirror: Pick<TaskObject, "position" | "orientation" | "extent">, frameId: number): TaskObject {
  const R = quatToMat(mirror.orientation);
  const n: Vec3 = [R[0][0], R[1][0], R[2][0]];
  const back = MIRROR_FRAME_DEPTH_M / 2;
  const p = mirror.position;
  const b = MIRROR_FRAME_BORDER_M;
  return boxObject(
    frameId,
    MIRROR_FRAME_CATEGORY,
    [p[0] - back * n[0], p[1] - back * n[1], p[2] - back * n[2]],
    mirror.orientation,
    [MIRROR_FRAME_DEPTH_M, mirror.extent[1] + 2 * b, mirror.extent[2] + 2 * b],
    "brown",
  );
}

/** A vertical mirror whose reflective face (its box's +x face) is centred at faceCentre, facing `yaw`, and its frame. */
export function framedMirror(spec: FramedMirrorSpec): [TaskObject, TaskObject] {
  const back = MIRROR_PANE_THICKNESS_M / 2;
  const c = spec.faceCentre;
  const mirror = boxObject(
    spec.mirrorId,
    MIRROR_CATEGORY,
    [c[0] - back * Math.cos(spec.yaw), c[1] - back * Math.sin(spec.yaw), c[2]],
    quatFromYaw(spec.yaw),
    [MIRROR_PANE_THICKNESS_M, spec.width, spec.height],
    "grey",
  );
  return [mirror, mirrorFrame(mirror, spec.frameId)];
}

/**
 * How far (m) a triangle's vertices may lie off the mirror's plane and still be part of its reflective face:
 * float32 world coordinates of a room (|x| < 100 m) round by under 1e-5 m, and a mirror slab is millimetres thick.
 */
const ON_PLANE_TOLERANCE_M = 1e-4;

/** The reflective rectangle of a mirror object: the +x face of its box. */
export function mirrorPlane(obj: Pick<TaskObject, "id" | "position" | "orientation" | "extent">): MirrorPlane {
  const R = quatToMat(obj.orientation);
  const axis = (k: 0 | 1 | 2): Vec3 => [R[0][k], R[1][k], R[2][k]];
  const normal = axis(0);
  const half = obj.extent[0] / 2;
  return {
    id: obj.id,
    centre: [obj.position[0] + half * normal[0], obj.position[1] + half * normal[1], obj.position[2] + half * normal[2]],
    normal,
    u: axis(1),
    v: axis(2),
    half_width_m: obj.extent[1] / 2,
    half_height_m: obj.extent[2] / 2,
  };
}

/** Which of a mirror's world triangles (9 floats each) lie in its reflective plane: 1 per reflective triangle. */
export function reflectiveTriangles(tris: Float32Array, plane: MirrorPlane): Uint8Array {
  const [qx, qy, qz] = plane.centre,
    [nx, ny, nz] = plane.normal;
  const out = new Uint8Array(tris.length / 9);
  for (let t = 0; t < out.length; t++) {
    let on = true;
    for (let k = 0; k < 3 && on; k++) {
      const o = t * 9 + 3 * k;
      on = Math.abs((tris[o]! - qx) * nx + (tris[o + 1]! - qy) * ny + (tris[o + 2]! - qz) * nz) <= ON_PLANE_TOLERANCE_M;
    }
    out[t] = on ? 1 : 0;
  }
  return out;
}

/**
 * The reflection about the mirror's plane as a 3×4 affine map [I − 2nnᵀ | 2(q·n)n]: p ↦ p − 2((p − q)·n)n.
 * Its own inverse, with determinant −1.
 */
export function reflectionMatrix(plane: MirrorPlane): Mat34 {
  const n = plane.normal;
  const qn = plane.centre[0] * n[0] + plane.centre[1] * n[1] + plane.centre[2] * n[2];
  const row = (i: 0 | 1 | 2): [number, number, number, number] => [
    (i === 0 ? 1 : 0) - 2 * n[i]! * n[0],
    (i === 1 ? 1 : 0) - 2 * n[i]! * n[1],
    (i === 2 ? 1 : 0) - 2 * n[i]! * n[2],
    2 * qn * n[i]!,
  ];
  return [row(0), row(1), row(2)];
}

/** E·M: the camera-from-world extrinsic of the camera E's mirror image (det −1: it sees the scene mirrored). */
export function reflectedExtrinsic(E: Mat34, M: Mat34): Mat34 {
  const row = (i: 0 | 1 | 2): [number, number, number, number] => {
    const e = E[i];
    const out: [number, number, number, number] = [0, 0, 0, e[3]];
    for (let j = 0; j < 4; j++) for (let k = 0; k < 3; k++) out[j]! += e[k]! * M[k]![j]!;
    return out;
  };
  return [row(0), row(1), row(2)];
}

/** The rectangle and plane of a mirror: what the "seen through it" tests read (a graph's mirror entry has them too). */
export type MirrorRectangle = Pick<MirrorPlane, "centre" | "normal" | "u" | "v" | "half_width_m" | "half_height_m">;

/** Signed distance (m) of p from the mirror's plane: positive on its reflecting side, negative behind it. */
export function signedPlaneDistance(plane: Pick<MirrorPlane, "centre" | "normal">, p: readonly number[]): number {
  const q = plane.centre,
    n = plane.normal;
  return (p[0]! - q[0]) * n[0] + (p[1]! - q[1]) * n[1] + (p[2]! - q[2]) * n[2];
}

/** The mirror image of p about the mirror's plane. */
export function reflectPoint(plane: Pick<MirrorPlane, "centre" | "normal">, p: readonly number[]): Vec3 {
  const d = 2 * signedPlaneDistance(plane, p),
    n = plane.normal;
  return [p[0]! - d * n[0], p[1]! - d * n[1], p[2]! - d * n[2]];
}

/**
 * Where the segment from `camera`, on the plane's reflecting side, to p, behind the plane by more than `behindM`,
 * crosses the plane; null when they are not on those sides.
 */
export function planeCrossing(plane: Pick<MirrorPlane, "centre" | "normal">, camera: readonly number[], p: readonly number[], behindM: number): Vec3 | null {
  const dc = signedPlaneDistance(plane, camera),
    dp = signedPlaneDistance(plane, p);
  if (dc <= 0 || dp >= -behindM) return null;
  const t = dc / (dc - dp);
  return [camera[0]! + t * (p[0]! - camera[0]!), camera[1]! + t * (p[1]! - camera[1]!), camera[2]! + t * (p[2]! - camera[2]!)];
}

/** Coordinates of a point of the plane along the rectangle's u and v axes, from its centre. */
export function rectangleCoordinates(plane: Pick<MirrorPlane, "centre" | "u" | "v">, x: readonly number[]): [number, number] {
  const r = [0, 1, 2].map((k) => x[k]! - plane.centre[k]!);
  const dot = (a: Vec3) => r[0]! * a[0] + r[1]! * a[1] + r[2]! * a[2];
  return [dot(plane.u), dot(plane.v)];
}

/**
 * Whether `camera`, on the mirror's reflecting side, sees the point p (behind the plane by more than `behindM`)
 * through the mirror: the segment from the camera to p crosses the plane inside the rectangle grown by `marginM`.
 * What a camera sees there is the mirror's reflection, so a reconstruction that takes it for geometry puts it there.
 */
export function seenThroughMirror(plane: MirrorRectangle, camera: readonly number[], p: readonly number[], behindM: number, marginM: number): boolean {
  const x = planeCrossing(plane, camera, p, behindM);
  if (!x) return false;
  const [a, b] = rectangleCoordinates(plane, x);
  return Math.abs(a) <= plane.half_width_m + marginM && Math.abs(b) <= plane.half_height_m + marginM;
}
