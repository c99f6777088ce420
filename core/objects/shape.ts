/**
 * The world-space shape of a placed task object: its library model, scaled, rotated and moved to its pose.
 * The simulator renders it, and the ground truth samples its surface (core/objects/geometry.ts).
 */
import type { Vec3 } from "../math/vec.js";
import { quatToMat } from "../math/quat.js";
import type { TaskObject } from "../task/schema.js";
import { buildModel, hasModel, PROXY_BOX_MODEL } from "./library.js";

function scaleVector(scale: TaskObject["scale"]): Vec3 {
  return typeof scale === "number" ? [scale, scale, scale] : [scale[0], scale[1], scale[2]];
}

/**
 * The shape an object is rendered and sampled with: its library model, or, for a model the library does not
 * have (a user task's "laptop_01", a BEHAVIOR-1K model captured in OmniGibson, whose box capture.py reads
 * back), a box of its recorded extent: the unit proxy box scaled to it.
 */
export function shapeOf<T extends Pick<TaskObject, "model" | "extent" | "scale">>(o: T): T {
  if (hasModel(o.model)) return o;
  return { ...o, model: PROXY_BOX_MODEL, scale: [o.extent[0], o.extent[1], o.extent[2]] };
}

/** The object's model triangles (9 floats each), transformed to its world pose. */
export function objectWorldTriangles(obj: TaskObject): Float32Array {
  const model = buildModel(obj.model);
  const R = quatToMat(obj.orientation);
  const [sx, sy, sz] = scaleVector(obj.scale);
  const [px, py, pz] = obj.position;
  const out = new Float32Array(model.tris.length);
  for (let i = 0; i < model.tris.length; i += 3) {
    const x = model.tris[i]! * sx,
      y = model.tris[i + 1]! * sy,
      z = model.tris[i + 2]! * sz;
    out[i] = R[0][0] * x + R[0][1] * y + R[0][2] * z + px;
    out[i + 1] = R[1][0] * x + R[1][1] * y + R[1][2] * z + py;
    out[i + 2] = R[2][0] * x + R[2][1] * y + R[2][2] * z + pz;
  }
  return out;
}
