/**
 * Voxel downsampling with Open3D's exact semantics (PointCloud::VoxelDownSample, Open3D 0.16):
 *   voxel_min_bound = min_bound - 0.5 * voxel                       (double)
 *   index           = floor((p - voxel_min_bound) / voxel)          (double, per axis)
 *   output point    = mean of the voxel's points, summed in double in input order, divided by the count
 * so every output coordinate, rounded to float32, is bit-identical to Open3D's. Open3D's output order is
 * that of its unordered_map (unspecified); ours is raster order of the voxel index (x fastest, then y,
 * then z), which keeps neighbouring voxels close in memory for the stages after it.
 */
import { checkPositive, computeBounds, pointCount } from "./bounds.js";
import { sortPointsByCell } from "./radixSort.js";

/** ConceptGraphs `downsample_voxel_size` per detection (GT depth); HOV-SG uses 0.02, SpatialRGPT 0.025. */
export const DOWNSAMPLE_VOXEL_M = 0.025;

export interface VoxelDownsampleOptions {
  /** r, g, b per input point; averaged per voxel (mean rounded to the nearest integer). */
  rgb?: Uint8Array;
}

export interface VoxelDownsampleResult {
  /** Number of output points (occupied voxels). */
  count: number;
  /** Mean x, y, z per voxel, Open3D's values rounded to float32. */
  xyz: Float32Array;
  /** For each input point, the index of its output point. */
  voxelOfPoint: Int32Array;
  /** Number of input points per output point. */
  pointsPerVoxel: Int32Array;
  /** Averaged colours, when `rgb` was given. */
  rgb?: Uint8Array;
}

export function voxelDownsample(xyz: Float32Array, voxelSize: number, opts: VoxelDownsampleOptions = {}): VoxelDownsampleResult {
  checkPositive(voxelSize, "voxelSize");
  const n = pointCount(xyz);
  if (opts.rgb && opts.rgb.length !== 3 * n) throw new RangeError(`rgb: length ${opts.rgb.length}, expected ${3 * n} (3 per point)`);
  if (n === 0) {
    return { count: 0, xyz: new Float32Array(0), voxelOfPoint: new Int32Array(0), pointsPerVoxel: new Int32Array(0), ...(opts.rgb ? { rgb: new Uint8Array(0) } : {}) };
  }
  const b = computeBounds(xyz);
  // Exactly Open3D's expressions: GetMinBound() - voxel_size3 * 0.5, then (p - min) / voxel_size.
  const half = voxelSize * 0.5;
  const ox = b.minX - half, oy = b.minY - half, oz = b.minZ - half;
  const nx = Math.floor((b.maxX - ox) / voxelSize) + 1;
  const ny = Math.floor((b.maxY - oy) / voxelSize) + 1;
  const nz = Math.floor((b.maxZ - oz) / voxelSize) + 1;
  // Open3D refuses voxel indices beyond int range; we need the packed key below 2^53.
  if (nx > 2147483647 || ny > 2147483647 || nz > 2147483647 || nx * ny * nz >= 2 ** 53) {
    throw new RangeError(`voxelSize ${voxelSize} is too small for a cloud of this extent`);
  }
  // Group by voxel with a stable radix sort: voxels come out in raster order, and each voxel's
  // points in input order, the order Open3D adds them in.
  const { order, start } = sortPointsByCell(xyz, ox, oy, oz, voxelSize, nx, ny, nz);
  const nv = start.length - 1;
  const out = new Float32Array(3 * nv);
  const pointsPerVoxel = new Int32Array(nv);
  const voxelOfPoint = new Int32Array(n);
  for (let v = 0; v < nv; v++) {
    const p0 = start[v]!, p1 = start[v + 1]!;
    let sx = 0, sy = 0, sz = 0;
    for (let p = p0; p < p1; p++) {
      const i = order[p]!;
      sx += xyz[3 * i]!;
      sy += xyz[3 * i + 1]!;
      sz += xyz[3 * i + 2]!;
      voxelOfPoint[i] = v;
    }
    const c = p1 - p0;
    // Open3D: point_ / double(num_of_points_); the Float32Array store rounds like numpy's astype(float32).
    out[3 * v] = sx / c;
    out[3 * v + 1] = sy / c;
    out[3 * v + 2] = sz / c;
    pointsPerVoxel[v] = c;
  }

  const result: VoxelDownsampleResult = { count: nv, xyz: out, voxelOfPoint, pointsPerVoxel };
  if (opts.rgb) {
    const rgb = opts.rgb;
    const cs = new Float64Array(3 * nv);
    for (let i = 0; i < n; i++) {
      const v = voxelOfPoint[i]!;
      cs[3 * v] += rgb[3 * i]!;
      cs[3 * v + 1] += rgb[3 * i + 1]!;
      cs[3 * v + 2] += rgb[3 * i + 2]!;
    }
    const outRgb = new Uint8Array(3 * nv);
    for (let v = 0; v < nv; v++) {
      const c = pointsPerVoxel[v]!;
      outRgb[3 * v] = Math.round(cs[3 * v]! / c);
      outRgb[3 * v + 1] = Math.round(cs[3 * v + 1]! / c);
      outRgb[3 * v + 2] = Math.round(cs[3 * v + 2]! / c);
    }
    result.rgb = outRgb;
  }
  return result;
}
