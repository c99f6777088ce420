/**
 * Planar mirrors. A mirror is a task object of category `mirror`: a slab whose box's +x face (object axes) is the
 * reflective rectangle, as ESI-Bench records a mirror (its normal along the object's +x, its width along +y). Its
 * frame, when it has one, is an object of its own (any category), so the mirror's id marks exactly its reflective
 * surface and the slab around it.
 *
 * The mirror image of a point p in the plane through q with unit normal n is p − 2((p − q)·n)n.
 */
import type { Mat34, Vec3 } from "../math/vec.js";
import { quatToMat } from "../math/quat.js";
import type { MirrorPlane } from "../bundle/schema.js";
import type { TaskObject } from "../task/schema.js";

export const MIRROR_CATEGORY = "mirror";

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
