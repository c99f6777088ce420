/** Geometry of placed task objects: their boxes (core/geometry.ts YawBox), surface samples and surface gaps. */
import type { Vec3 } from "../math/vec.js";
import { quatToMat } from "../math/quat.js";
import type { TaskObject } from "../task/schema.js";
import { objectWorldTriangles, shapeOf } from "./shape.js";
import { minPointDistance, type YawBox } from "../geometry.js";

export function objectBox(o: Pick<TaskObject, "position" | "orientation" | "extent">): YawBox {
  const R = quatToMat(o.orientation);
  return { centre: [...o.position] as Vec3, extent: [o.extent[0], o.extent[1], o.extent[2]], yaw: Math.atan2(R[1][0], R[0][0]) };
}

/**
 * The gravity-aligned box that holds the object as it stands. An object that only yaws is its own box (extent
 * exactly as recorded); a tilted one (a rotation about a horizontal axis, e.g. Inclined Plane's board) is
 * enclosed by the box of its own yaw whose side along each axis is the tilted box's projection onto it, so its
 * height is how far it really rises rather than its own thickness.
 */
export function uprightEnclosingBox(o: Pick<TaskObject, "position" | "orientation" | "extent">): YawBox {
  const box = objectBox(o);
  const { x, y } = o.orientation;
  if (x === 0 && y === 0) return box;
  const R = quatToMat(o.orientation);
  const c = Math.cos(box.yaw),
    s = Math.sin(box.yaw);
  // rows of Rz(-yaw) R: the object's own axes seen from its yaw frame
  const rows = [0, 1, 2].map((j) => [0, 1, 2].map((i) => (j === 0 ? c * R[0][i]! + s * R[1][i]! : j === 1 ? -s * R[0][i]! + c * R[1][i]! : R[2][i]!)));
  const extent = rows.map((row) => row.reduce((sum, m, i) => sum + Math.abs(m) * o.extent[i]!, 0)) as Vec3;
  return { centre: box.centre, extent, yaw: box.yaw };
}

/** Points on a triangle soup's surface, about `spacingM` apart (deterministic barycentric grid per triangle). */
function sampleTriangles(t: ArrayLike<number>, spacingM: number): Float32Array {
  const pts: number[] = [];
  for (let i = 0; i < t.length; i += 9) {
    const a: Vec3 = [t[i]!, t[i + 1]!, t[i + 2]!],
      b: Vec3 = [t[i + 3]!, t[i + 4]!, t[i + 5]!],
      c: Vec3 = [t[i + 6]!, t[i + 7]!, t[i + 8]!];
    const longest = Math.max(
      Math.hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]),
      Math.hypot(c[0] - a[0], c[1] - a[1], c[2] - a[2]),
      Math.hypot(c[0] - b[0], c[1] - b[1], c[2] - b[2]),
    );
    const n = Math.max(1, Math.ceil(longest / spacingM));
    for (let u = 0; u <= n; u++)
      for (let v = 0; v + u <= n; v++) {
        const w = n - u - v;
        pts.push((a[0] * w + b[0] * u + c[0] * v) / n, (a[1] * w + b[1] * u + c[1] * v) / n, (a[2] * w + b[2] * u + c[2] * v) / n);
      }
  }
  return Float32Array.from(pts);
}

const localSampleCache = new Map<string, Float32Array>();

/** Surface samples of an object, placed in the world (samples are cached per model, scale and spacing). */
export function surfaceSamples(object: TaskObject, spacingM: number): Float32Array {
  const o = shapeOf(object);
  const key = `${o.model}|${JSON.stringify(o.scale)}|${spacingM}`;
  let local = localSampleCache.get(key);
  if (!local) {
    local = sampleTriangles(objectWorldTriangles({ ...o, position: [0, 0, 0], orientation: { x: 0, y: 0, z: 0, w: 1 } }), spacingM);
    localSampleCache.set(key, local);
  }
  const R = quatToMat(o.orientation);
  const [px, py, pz] = o.position;
  const out = new Float32Array(local.length);
  for (let i = 0; i < local.length; i += 3) {
    const x = local[i]!,
      y = local[i + 1]!,
      z = local[i + 2]!;
    out[i] = R[0][0] * x + R[0][1] * y + R[0][2] * z + px;
    out[i + 1] = R[1][0] * x + R[1][1] * y + R[1][2] * z + py;
    out[i + 2] = R[2][0] * x + R[2][1] * y + R[2][2] * z + pz;
  }
  return out;
}

/** Sampling spacing for surface gaps (m): fine enough for the 2 mm contact tolerance of the generator. */
const SURFACE_SAMPLE_SPACING_M = 0.0025;

/** Surface gap between two objects (m), capped at `cutoff`. */
export function surfaceGap(a: TaskObject, b: TaskObject, cutoff = 0.25): number {
  return minPointDistance(surfaceSamples(a, SURFACE_SAMPLE_SPACING_M), surfaceSamples(b, SURFACE_SAMPLE_SPACING_M), cutoff);
}
