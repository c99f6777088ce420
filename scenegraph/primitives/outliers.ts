/**
 * Outlier removal with Open3D's exact semantics (Open3D 0.16, PointCloud.cpp).
 *
 * Statistical (RemoveStatisticalOutliers):
 *  - per point: the nbNeighbors nearest points *including the point itself* (distance 0), their
 *    distances sqrt'ed and summed nearest first, divided by the number found -> avg[i];
 *  - cloud mean = (sum of the avg[i] > 0, in index order) / (number of points), std = sqrt(sum of
 *    (avg[i] - mean)^2 over avg[i] > 0, in index order / (number of points - 1))  (Bessel);
 *  - keep i when 0 < avg[i] < mean + stdRatio * std.  (So exact duplicates of nbNeighbors-1 others,
 *    whose avg is 0, are dropped, as in Open3D.)
 * Radius (RemoveRadiusOutliers): keep i when the number of points strictly within radius, itself
 * included, is greater than nbPoints.
 */
import { checkPositive, checkPositiveInt, pointCount } from "./bounds.js";
import { withMeanKnnDistances } from "./knnGrid.js";
import { GRID_ROUNDING_MARGIN, VoxelHashGrid, neighborCounts } from "./hashGrid.js";

/** Keep mask (1 = inlier) of Open3D's remove_statistical_outlier(nbNeighbors, stdRatio). */
export function statisticalOutlierRemoval(xyz: Float32Array, nbNeighbors: number, stdRatio: number): Uint8Array {
  checkPositiveInt(nbNeighbors, "nbNeighbors");
  checkPositive(stdRatio, "stdRatio");
  const n = pointCount(xyz);
  const keep = new Uint8Array(n);
  if (n === 0) return keep;
  withMeanKnnDistances(xyz, nbNeighbors, (avg) => {
    // Open3D: valid_distances counts every point with a non-empty k-NN list (all of them), while the
    // sums skip avg <= 0.
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const a = avg[i]!;
      if (a > 0) sum += a;
    }
    const mean = sum / n;
    let sq = 0;
    for (let i = 0; i < n; i++) {
      const a = avg[i]!;
      sq += a > 0 ? (a - mean) * (a - mean) : 0;
    }
    const std = Math.sqrt(sq / (n - 1));
    const threshold = mean + stdRatio * std;
    for (let i = 0; i < n; i++) {
      const a = avg[i]!;
      keep[i] = a > 0 && a < threshold ? 1 : 0;
    }
  });
  return keep;
}

/** Keep mask (1 = inlier) of Open3D's remove_radius_outlier(nbPoints, radius). */
export function radiusOutlierRemoval(xyz: Float32Array, nbPoints: number, radius: number): Uint8Array {
  checkPositiveInt(nbPoints, "nbPoints");
  checkPositive(radius, "radius");
  const n = pointCount(xyz);
  const keep = new Uint8Array(n);
  if (n === 0) return keep;
  const grid = new VoxelHashGrid(xyz, radius * (1 + 2 * GRID_ROUNDING_MARGIN));
  const counts = neighborCounts(grid, radius);
  for (let i = 0; i < n; i++) keep[i] = counts[i]! > nbPoints ? 1 : 0;
  return keep;
}
