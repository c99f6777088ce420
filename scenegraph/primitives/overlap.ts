/**
 * Point-set overlap and proximity between two clouds (objects).
 *  - pointOverlapRatio(a, b, r): the fraction of a's points with some b point strictly within r
 *    (ConceptGraphs `compute_overlap_matrix`, HOV-SG). Asymmetric: compute both directions.
 *  - minPointDistance(a, b): the exact smallest point-to-point distance (the "touching" relation).
 */
import { checkPositive, computeBounds, pointCount } from "./bounds.js";
import { GRID_ROUNDING_MARGIN, VoxelHashGrid } from "./hashGrid.js";
import { KdTree3 } from "./kdtree.js";

/** ConceptGraphs: a detection point "overlaps" a node when within one voxel (0.025 m) of its points. */
export const OVERLAP_RADIUS_M = 0.025;
/** ConceptGraphs `merge_overlap_thresh`: merge node i into j when overlap(i -> j) > 0.7. */
export const MERGE_OVERLAP_THRESHOLD = 0.7;
/** BBQ's purely spatial post-merge: mutual overlap > 0.3 in both directions. */
export const MUTUAL_OVERLAP_THRESHOLD = 0.3;
/** Touching: min point distance < 0.03 m for GT depth (0.05 m for VGGT); ESI places touching objects ~0.01 m apart. */
export const TOUCHING_DISTANCE_M = 0.03;

/**
 * Fraction of a's points that have at least one b point strictly closer than `radius`. `b` may be a
 * prebuilt grid of b (any cell size; about `radius` is fastest) to reuse across calls.
 */
export function pointOverlapRatio(a: Float32Array, b: Float32Array | VoxelHashGrid, radius: number): number {
  checkPositive(radius, "radius");
  const na = pointCount(a, "a");
  if (na === 0) return 0;
  const grid = b instanceof VoxelHashGrid ? b : new VoxelHashGrid(b, radius * (1 + GRID_ROUNDING_MARGIN));
  if (grid.count === 0) return 0;
  // b's bounds grown by the radius: a points outside cannot overlap
  const x0 = grid.originX - radius, y0 = grid.originY - radius, z0 = grid.originZ - radius;
  const x1 = grid.originX + grid.nx * grid.cellSize + radius, y1 = grid.originY + grid.ny * grid.cellSize + radius, z1 = grid.originZ + grid.nz * grid.cellSize + radius;
  let hits = 0;
  for (let i = 0; i < na; i++) {
    const x = a[3 * i]!, y = a[3 * i + 1]!, z = a[3 * i + 2]!;
    if (x < x0 || y < y0 || z < z0 || x > x1 || y > y1 || z > z1) continue;
    if (grid.anyWithin(x, y, z, radius)) hits++;
  }
  return hits / na;
}

export interface ClosestPair {
  /** Euclidean distance (m); Infinity when a set is empty. */
  distance: number;
  /** Index of the point in a and in b (-1 when a set is empty). */
  indexA: number;
  indexB: number;
}

/**
 * Exact minimum distance between a point of a and a point of b (kd-tree of the larger set, nearest
 * queries from the smaller one, each bounded by the best distance so far). `stopBelow`: return as soon
 * as a pair closer than this is found (enough for a yes/no "touching" test).
 */
export function minPointDistance(a: Float32Array, b: Float32Array, opts: { stopBelow?: number } = {}): ClosestPair {
  const na = pointCount(a, "a"), nb = pointCount(b, "b");
  if (na === 0 || nb === 0) return { distance: Infinity, indexA: -1, indexB: -1 };
  const swap = na > nb;
  const query = swap ? b : a, target = swap ? a : b, nq = swap ? nb : na;
  const tree = new KdTree3(target);
  const tb = computeBounds(target);
  let best = Infinity, bq = -1, bt = -1;
  const stop = opts.stopBelow ?? 0;
  for (let i = 0; i < nq; i++) {
    const x = query[3 * i]!, y = query[3 * i + 1]!, z = query[3 * i + 2]!;
    // cheap lower bound: distance to the target's bounding box
    const dx = x < tb.minX ? tb.minX - x : x > tb.maxX ? x - tb.maxX : 0;
    const dy = y < tb.minY ? tb.minY - y : y > tb.maxY ? y - tb.maxY : 0;
    const dz = z < tb.minZ ? tb.minZ - z : z > tb.maxZ ? z - tb.maxZ : 0;
    if (dx * dx + dy * dy + dz * dz >= best * best) continue;
    const j = tree.nearest(x, y, z, best);
    if (j >= 0) {
      best = Math.sqrt(tree.lastNearestD2);
      bq = i;
      bt = j;
      if (best < stop) break;
    }
  }
  return swap ? { distance: best, indexA: bt, indexB: bq } : { distance: best, indexA: bq, indexB: bt };
}
