/**
 * DBSCAN with Open3D's exact semantics (PointCloud::ClusterDBSCAN, Open3D 0.16):
 *  - neighbours of p: all points q with squared distance < eps^2, p itself included;
 *  - p is a core point when it has >= minPoints neighbours (itself counted);
 *  - points are visited in input order; an unvisited core point seeds the next cluster label
 *    (0, 1, 2, ...), an unvisited non-core point is marked noise (-1);
 *  - a cluster grows from its seed through core points; every neighbour of a core point that is noise
 *    or unvisited joins it; points already in an earlier cluster keep their label.
 * So a border point reachable from two clusters belongs to the one created first, exactly as in Open3D:
 * labels are identical to Open3D's, numbering included (Open3D's unordered_set traversal order does not
 * change which points a cluster collects, only the order it collects them in).
 *
 * Neighbours come from a VoxelHashGrid with cells of eps (plus a rounding margin), so each point scans
 * its 27 adjacent cells: O(n) for the bounded densities of downsampled clouds.
 */
import { checkPositive, checkPositiveInt, pointCount } from "./bounds.js";
import { GRID_ROUNDING_MARGIN, VoxelHashGrid, neighborCountsSorted } from "./hashGrid.js";

/** Label of points in no cluster (Open3D's value). */
const NOISE_LABEL = -1;

export interface DbscanResult {
  /** Cluster label per input point, -1 for noise. */
  labels: Int32Array;
  /** Number of clusters (labels are 0..clusterCount-1). */
  clusterCount: number;
}

export function dbscanDetailed(xyz: Float32Array, eps: number, minPoints: number): DbscanResult {
  checkPositive(eps, "eps");
  checkPositiveInt(minPoints, "minPoints");
  const n = pointCount(xyz);
  if (n === 0) return { labels: new Int32Array(0), clusterCount: 0 };
  const grid = new VoxelHashGrid(xyz, eps * (1 + 2 * GRID_ROUNDING_MARGIN));
  const counts = neighborCountsSorted(grid, eps);
  const eps2 = eps * eps;
  const S = grid.sorted,
    cs = grid.cellStart,
    cellOf = grid.sortedCell,
    pos = grid.positionOf;
  const { start: nbStart, ids: nbIds } = grid.neighborCells();

  // Labels by sorted position: -2 unvisited, -1 noise, >= 0 cluster.
  const lab = new Int32Array(n).fill(-2);
  const stack = new Int32Array(n);
  let cluster = 0;
  for (let idx = 0; idx < n; idx++) {
    const s = pos[idx]!;
    if (lab[s] !== -2) continue;
    if (counts[s]! < minPoints) {
      lab[s] = NOISE_LABEL;
      continue;
    }
    lab[s] = cluster;
    let top = 0;
    stack[top++] = s;
    while (top > 0) {
      const a = stack[--top]!;
      const ax = S[3 * a]!,
        ay = S[3 * a + 1]!,
        az = S[3 * a + 2]!;
      const c = cellOf[a]!;
      for (let j = nbStart[c]!, je = nbStart[c + 1]!; j < je; j++) {
        const nc = nbIds[j]!;
        for (let q = cs[nc]!, qe = cs[nc + 1]!; q < qe; q++) {
          if (lab[q]! >= 0) continue;
          const dx = ax - S[3 * q]!,
            dy = ay - S[3 * q + 1]!,
            dz = az - S[3 * q + 2]!;
          if (dx * dx + dy * dy + dz * dz < eps2) {
            lab[q] = cluster;
            if (counts[q]! >= minPoints) stack[top++] = q;
          }
        }
      }
    }
    cluster++;
  }
  const labels = new Int32Array(n);
  const order = grid.order;
  for (let p = 0; p < n; p++) labels[order[p]!] = lab[p]!;
  return { labels, clusterCount: cluster };
}
