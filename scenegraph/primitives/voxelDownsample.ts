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

/** Grids up to this many cells use a direct lookup table (2^24 Int32 = 64 MiB) ... */
const VOXEL_DENSE_CELL_LIMIT = 1 << 24;
/**
 * ... while the table is at most this many cells per point; otherwise a radix sort groups the points.
 * Measured (bench/primitives.ts scenes, 2.3 M-cell grid): the table wins from 100 k points up
 * (1 M points: ~35 ms vs ~55 ms).
 */
const VOXEL_DENSE_CELLS_PER_POINT = 32;
/**
 * The dense path emits voxels in raster order by scanning the table while it has at most this many cells
 * per occupied voxel, and by sorting the voxels' keys beyond (a scan reads every cell; a sort costs a few
 * tens of ns per voxel). Measured on the stages bench's heavy bundle (bench/stages.ts), 6 noisy graphs: a
 * scan always, 240-246 ms a graph; sorting beyond 16, 64 or 256 cells a voxel, 231-236 ms (no difference
 * between those three); the gt graph the same either way.
 */
const VOXEL_SCAN_CELLS_PER_VOXEL = 64;

export interface VoxelDownsampleOptions {
  /** r, g, b per input point; averaged per voxel (mean rounded to the nearest integer). */
  rgb?: Uint8Array;
  /** Force how points are grouped (tests/benchmarks); by default chosen from the grid size. Same result either way. */
  grouping?: "dense" | "sort";
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
    return {
      count: 0,
      xyz: new Float32Array(0),
      voxelOfPoint: new Int32Array(0),
      pointsPerVoxel: new Int32Array(0),
      ...(opts.rgb ? { rgb: new Uint8Array(0) } : {}),
    };
  }
  const b = computeBounds(xyz);
  // Exactly Open3D's expressions: GetMinBound() - voxel_size3 * 0.5, then (p - min) / voxel_size.
  const half = voxelSize * 0.5;
  const ox = b.min[0] - half,
    oy = b.min[1] - half,
    oz = b.min[2] - half;
  const nx = Math.floor((b.max[0] - ox) / voxelSize) + 1;
  const ny = Math.floor((b.max[1] - oy) / voxelSize) + 1;
  const nz = Math.floor((b.max[2] - oz) / voxelSize) + 1;
  // Open3D refuses voxel indices beyond int range; we need the packed key below 2^53.
  if (nx > 2147483647 || ny > 2147483647 || nz > 2147483647 || nx * ny * nz >= 2 ** 53) {
    throw new RangeError(`voxelSize ${voxelSize} is too small for a cloud of this extent`);
  }
  const cells = nx * ny * nz;
  const voxelOfPoint = new Int32Array(n);
  const dense = opts.grouping ? opts.grouping === "dense" : cells <= VOXEL_DENSE_CELL_LIMIT && cells <= VOXEL_DENSE_CELLS_PER_POINT * n;
  let nv: number;
  let out: Float32Array, pointsPerVoxel: Int32Array;
  if (dense) {
    // Dense grid, one pass over the points: a table lookup gives each voxel an id in first-seen order
    // and the point is added to that voxel's sums (so each voxel sums its points in input order, as
    // Open3D does). The voxels are then renumbered into raster order (key order), by a scan of the table
    // or by sorting the occupied keys.
    // (Each loop lives in its own small function: V8 then optimises it whole, instead of entering a
    // long function's later loops unoptimised.)
    // voxel id + 1 per cell, 0 = empty, and per voxel its sums and count: kept between calls (DenseScratch),
    // all zero on entry and left so
    const { table, sums, counts, keys } = denseScratch(cells, Math.min(n, cells));
    nv = assignAndSum(xyz, ox, oy, oz, voxelSize, nx, nx * ny, table, voxelOfPoint, sums, counts, keys);
    out = new Float32Array(3 * nv);
    pointsPerVoxel = new Int32Array(nv);
    const remap = new Int32Array(nv);
    // raster order by a scan of the table, or, when the voxels are few for the table, by sorting their keys
    if (cells <= VOXEL_SCAN_CELLS_PER_VOXEL * nv) emitInKeyOrder(table, cells, sums, counts, out, pointsPerVoxel, remap);
    else emitSorted(table, keys.subarray(0, nv).sort(), sums, counts, out, pointsPerVoxel, remap);
    applyRemap(voxelOfPoint, remap);
  } else {
    // Sparse or huge grid: stable radix sort of the voxel keys (raster order), then sums streamed in
    // input order (the sums array is small, 3 doubles per voxel, so the scattered adds stay in cache).
    const { order, start } = sortPointsByCell(xyz, ox, oy, oz, voxelSize, nx, ny, nz);
    nv = start.length - 1;
    for (let v = 0; v < nv; v++) for (let p = start[v]!, e = start[v + 1]!; p < e; p++) voxelOfPoint[order[p]!] = v;
    const sums = new Float64Array(3 * nv);
    pointsPerVoxel = new Int32Array(nv);
    for (let i = 0, o = 0; i < n; i++, o += 3) {
      const v = voxelOfPoint[i]!;
      sums[3 * v]! += xyz[o]!;
      sums[3 * v + 1]! += xyz[o + 1]!;
      sums[3 * v + 2]! += xyz[o + 2]!;
      pointsPerVoxel[v]!++;
    }
    out = new Float32Array(3 * nv);
    for (let v = 0; v < nv; v++) {
      const c = pointsPerVoxel[v]!;
      out[3 * v] = sums[3 * v]! / c;
      out[3 * v + 1] = sums[3 * v + 1]! / c;
      out[3 * v + 2] = sums[3 * v + 2]! / c;
    }
  }

  const result: VoxelDownsampleResult = { count: nv, xyz: out, voxelOfPoint, pointsPerVoxel };
  if (opts.rgb) {
    const rgb = opts.rgb;
    const cs = new Float64Array(3 * nv);
    for (let i = 0; i < n; i++) {
      const v = voxelOfPoint[i]!;
      cs[3 * v]! += rgb[3 * i]!;
      cs[3 * v + 1]! += rgb[3 * i + 1]!;
      cs[3 * v + 2]! += rgb[3 * i + 2]!;
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

/**
 * Voxel id (first-seen order) of every point, and per-voxel sums in input order; returns the voxel count.
 * A run of points in one voxel (neighbouring pixels of a view often are) is summed in locals started from
 * the voxel's sums: the same additions in the same order, without a store and reload per point.
 */
function assignAndSum(
  xyz: Float32Array,
  ox: number,
  oy: number,
  oz: number,
  voxelSize: number,
  nx: number,
  nxy: number,
  table: Int32Array,
  voxelOfPoint: Int32Array,
  sums: Float64Array,
  counts: Int32Array,
  keys: Int32Array,
): number {
  const n = voxelOfPoint.length;
  let next = 0,
    runKey = -1,
    v = -1,
    sx = 0,
    sy = 0,
    sz = 0,
    c = 0;
  for (let i = 0, o = 0; i < n; i++, o += 3) {
    const x = xyz[o]!,
      y = xyz[o + 1]!,
      z = xyz[o + 2]!;
    const key = Math.floor((x - ox) / voxelSize) + nx * Math.floor((y - oy) / voxelSize) + nxy * Math.floor((z - oz) / voxelSize);
    if (key !== runKey) {
      if (v >= 0) (sums[3 * v] = sx), (sums[3 * v + 1] = sy), (sums[3 * v + 2] = sz), (counts[v] = c);
      runKey = key;
      v = table[key]! - 1;
      if (v < 0) {
        v = next++;
        table[key] = v + 1;
        keys[v] = key;
      }
      (sx = sums[3 * v]!), (sy = sums[3 * v + 1]!), (sz = sums[3 * v + 2]!), (c = counts[v]!);
    }
    voxelOfPoint[i] = v;
    sx += x;
    sy += y;
    sz += z;
    c++;
  }
  if (v >= 0) (sums[3 * v] = sx), (sums[3 * v + 1] = sy), (sums[3 * v + 2] = sz), (counts[v] = c);
  return next;
}

/**
 * Means in raster (key) order; remap[first-seen id] = output index. Clears what assignAndSum wrote (the
 * table's cells, the voxels' sums and counts) as it reads it, so the scratch is all zero again.
 */
function emitInKeyOrder(
  table: Int32Array,
  cells: number,
  sums: Float64Array,
  counts: Int32Array,
  out: Float32Array,
  pointsPerVoxel: Int32Array,
  remap: Int32Array,
): void {
  for (let k = 0, r = 0; k < cells; k++) {
    const v = table[k]! - 1;
    if (v < 0) continue;
    table[k] = 0;
    emitVoxel(v, r++, sums, counts, out, pointsPerVoxel, remap);
  }
}

/** emitInKeyOrder over the occupied cells' keys, sorted, instead of the whole table. */
function emitSorted(
  table: Int32Array,
  sortedKeys: Int32Array,
  sums: Float64Array,
  counts: Int32Array,
  out: Float32Array,
  pointsPerVoxel: Int32Array,
  remap: Int32Array,
): void {
  for (let r = 0; r < sortedKeys.length; r++) {
    const k = sortedKeys[r]!;
    const v = table[k]! - 1;
    table[k] = 0;
    emitVoxel(v, r, sums, counts, out, pointsPerVoxel, remap);
  }
}

/** Writes voxel `v` (first-seen id) as output point `r`, and clears its sums and count. */
function emitVoxel(v: number, r: number, sums: Float64Array, counts: Int32Array, out: Float32Array, pointsPerVoxel: Int32Array, remap: Int32Array): void {
  remap[v] = r;
  const c = counts[v]!;
  // Open3D: point_ / double(num_of_points_); the Float32Array store rounds like numpy's astype(float32).
  out[3 * r] = sums[3 * v]! / c;
  out[3 * r + 1] = sums[3 * v + 1]! / c;
  out[3 * r + 2] = sums[3 * v + 2]! / c;
  pointsPerVoxel[r] = c;
  sums[3 * v] = sums[3 * v + 1] = sums[3 * v + 2] = 0;
  counts[v] = 0;
}

/**
 * The dense path's working arrays, kept between calls: fusion downsamples every detection of every view, and
 * fresh arrays for each (a table of up to 32 cells per point, sums per voxel) cost their pages' first touch
 * every time (~2.5 ms per MB here, reconstruct/pointcloud.ts CloudArena). Grids above DENSE_SCRATCH_MAX_CELLS
 * get fresh arrays, so one huge cloud does not pin up to 64 MiB for the rest of the process.
 */
interface DenseScratch {
  table: Int32Array;
  sums: Float64Array;
  counts: Int32Array;
  /** per voxel, its cell (first-seen order); any values on entry */
  keys: Int32Array;
}

/** 2^22 cells (16 MiB of table): the largest a detection of the suite's heavy bundles needs is below it. */
const DENSE_SCRATCH_MAX_CELLS = 1 << 22;
let scratch: DenseScratch = { table: new Int32Array(0), sums: new Float64Array(0), counts: new Int32Array(0), keys: new Int32Array(0) };

/** All-zero arrays for `cells` cells and `voxels` voxels. */
function denseScratch(cells: number, voxels: number): DenseScratch {
  if (cells > DENSE_SCRATCH_MAX_CELLS)
    return { table: new Int32Array(cells), sums: new Float64Array(3 * voxels), counts: new Int32Array(voxels), keys: new Int32Array(voxels) };
  if (scratch.table.length < cells || scratch.counts.length < voxels) {
    // grown by half again at least, so a run's slowly growing detections reallocate a few times only
    const c = Math.min(DENSE_SCRATCH_MAX_CELLS, Math.max(cells, scratch.table.length, Math.ceil(scratch.table.length * 1.5)));
    const v = Math.min(c, Math.max(voxels, scratch.counts.length, Math.ceil(scratch.counts.length * 1.5)));
    scratch = { table: new Int32Array(c), sums: new Float64Array(3 * v), counts: new Int32Array(v), keys: new Int32Array(v) };
  }
  return scratch;
}

function applyRemap(ids: Int32Array, remap: Int32Array): void {
  for (let i = 0; i < ids.length; i++) ids[i] = remap[ids[i]!]!;
}
