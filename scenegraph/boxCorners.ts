/** A node box's corners as ConceptGraphs stores them (`bbox_np`), in the order Open3D gives and rebuilds a box from. */
import type { YawBox } from "../core/geometry.js";

/**
 * Least side of a box in `bbox_np` (m): `load_serializable` rebuilds each box with Open3D's
 * `OrientedBoundingBox.create_from_points`, whose Qhull step fails on coplanar corners ("initial simplex is
 * flat"), so a flat node (points in one plane, a side of 0 in the graph) gets this thickness. ConceptGraphs'
 * own mapping never meets one: it drops detections whose box is under 1e-6 m^3 (slam/utils.py).
 */
const MIN_BOX_SIDE_M = 0.001;

/**
 * The 8 corners of a yaw box (sides at least MIN_BOX_SIDE_M) in Open3D's `OrientedBoundingBox.get_box_points()` order (what ConceptGraphs
 * stores as `bbox_np`): with half-axes x, y, z, centre −x−y−z, +x−y−z, −x+y−z, −x−y+z, +x+y+z, −x+y+z,
 * +x−y+z, +x+y−z.
 */
export function boxCorners(b: YawBox): Float64Array {
  const c = Math.cos(b.yaw),
    s = Math.sin(b.yaw);
  const [hx, hy, hz] = b.extent.map((e) => Math.max(e, MIN_BOX_SIDE_M) / 2) as [number, number, number];
  const ax = [c * hx, s * hx, 0],
    ay = [-s * hy, c * hy, 0],
    az = [0, 0, hz];
  const signs = [
    [-1, -1, -1],
    [1, -1, -1],
    [-1, 1, -1],
    [-1, -1, 1],
    [1, 1, 1],
    [-1, 1, 1],
    [1, -1, 1],
    [1, 1, -1],
  ];
  const out = new Float64Array(24);
  signs.forEach(([sx, sy, sz], k) => {
    for (let a = 0; a < 3; a++) out[3 * k + a] = b.centre[a]! + sx! * ax[a]! + sy! * ay[a]! + sz! * az[a]!;
  });
  return out;
}
