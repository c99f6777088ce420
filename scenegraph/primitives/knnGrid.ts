/**
 * All-points k-nearest-neighbour distances on a uniform grid: the engine of statistical outlier
 * removal. Points are sorted by cell (raster order); each point's candidates are the 27 cells around
 * it, which in raster order are 9 contiguous runs (cells x-1, x, x+1 of a row are neighbours in the
 * sort). The per-point work (distances under a threshold, a counting sort, the sum) runs in a
 * WebAssembly kernel (wasm/knnKernel.ts, knnKernelHost.ts). A point is finished there when its k-th
 * distance is provably shorter than the distance to any cell outside the 27; the rare points that
 * are not (outliers, sparse borders) get a best-first search over coarse blocks of cells here.
 *
 * Exactness: the k smallest squared distances, each computed as ((dx*dx) + dy*dy) + dz*dz in double
 * (nanoflann's expression), summed in ascending order, i.e. exactly what Open3D sums from
 * KDTreeFlann::SearchKNN's lists.
 */
import { checkPositiveInt, computeBounds, pointCount, type Bounds } from "./bounds.js";
import { CellLookup } from "./cellLookup.js";
import { KnnRun, keptSortScratch, resultsOver, type KernelGrid } from "./knnKernelHost.js";
import { sortByKey, sortPointsByCell, unpackCellKeys, type SortScratch } from "./radixSort.js";

/**
 * Target number of points per occupied cell, as a fraction of k. For a surface sampled at density rho,
 * the k-NN radius R satisfies rho*pi*R^2 = k and a cell of side R holds about 1.2*rho*R^2 = 0.38k points;
 * 0.6k keeps nearly every search inside the first 27 cells (0.5-0.75 measured equally fast on the 1M scene).
 */
export const KNN_CELL_OCCUPANCY_PER_K = 0.6;
/**
 * Cells fuller than this many times the target count as this full when estimating occupancy: such a
 * cell is a pile of (near-)duplicate points, which no cell size thins, and counting it fully would
 * shrink every other cell for its sake (1 % exact duplicates shrank them 43 %). On the bench scene the
 * fullest cell holds 2.7x the target, so the cap leaves ordinary clouds alone.
 */
export const KNN_OCCUPANCY_CAP = 4;
/**
 * Cells holding more than this many times k points have them ordered by position, so that copies of
 * one point sit together and the kernel computes each group once (otherwise m copies cost m^2).
 */
export const KNN_CROWDED_CELL_PER_K = 8;
/** Points sampled (evenly spaced in index order) to estimate the density. */
export const KNN_DENSITY_SAMPLE = 65536;
/** Coarse block side, in cells, for the best-first search of the points the 27 cells do not settle. */
export const KNN_COARSE_FACTOR = 8;
/**
 * First guess of a point's squared k-th distance: the previous point's, times this (points of a cell
 * have similar k-NN radii). Fewer than k points inside the guess double it. 1.25-2 measured within
 * 5 % of each other on the 1M scene (a larger guess sorts more values, a smaller one retries more).
 */
export const KNN_GUESS_GROWTH = 1.5;
/** Guard against rounding in the "no unscanned point can be closer" tests (relative, on squared distances). */
const SAFE = 1 - 1e-9;

/** Cell size for all-points k-NN on this cloud (see KNN_CELL_OCCUPANCY_PER_K); `b`: its bounds, if known. */
export function knnCellSize(xyz: Float32Array, k: number, b: Bounds = computeBounds(xyz)): number {
  const n = pointCount(xyz);
  const ex = b.max[0] - b.min[0], ey = b.max[1] - b.min[1], ez = b.max[2] - b.min[2];
  const extent = Math.max(ex, ey, ez);
  if (!(extent > 0)) return 1; // all points coincide: any cell works
  const stride = Math.max(1, Math.floor(n / KNN_DENSITY_SAMPLE));
  const m = Math.ceil(n / stride);
  // Start from the density of the bounding box's largest face, then correct from measured occupancy.
  const faces = [ex * ey, ex * ez, ey * ez].sort((a, c) => c - a);
  let h = Math.sqrt(((faces[0]! || extent * extent) * k) / n);
  if (!(h > 0)) h = extent;
  const target = Math.max(1, KNN_CELL_OCCUPANCY_PER_K * k);
  // a sampled cell's count, capped at KNN_OCCUPANCY_CAP times the target in sample terms, but never
  // below 4: in a sparse sample (large stride) ordinary cells hold 1-2 sampled points, and capping
  // those would bias the estimate (at 4 M points a cap of 1.8 made cells 31 % larger)
  const cap = 1 + Math.max(3, (KNN_OCCUPANCY_CAP * target - 1) / stride);
  const lo = new Uint32Array(m);
  for (let iter = 0; iter < 4; iter++) {
    const nx = Math.floor(ex / h) + 1, ny = Math.floor(ey / h) + 1, nz = Math.floor(ez / h) + 1;
    if (nx * ny * nz >= 4294967296) {
      h *= 2;
      continue;
    }
    for (let j = 0, i = 0; j < m; j++, i += stride) {
      const ix = Math.floor((xyz[3 * i]! - b.min[0]) / h);
      const iy = Math.floor((xyz[3 * i + 1]! - b.min[1]) / h);
      const iz = Math.floor((xyz[3 * i + 2]! - b.min[2]) / h);
      lo[j] = ix + nx * iy + nx * ny * iz;
    }
    const { start } = sortByKey(lo.slice(), null, nx * ny * nz - 1);
    let s2 = 0;
    for (let c = 0; c + 1 < start.length; c++) {
      const cnt = start[c + 1]! - start[c]!;
      s2 += cnt * Math.min(cnt, cap);
    }
    // point-weighted mean occupancy of the sample, scaled back to the full cloud (binomial thinning)
    const occ = Math.max(1e-9, (s2 / m - 1) * stride + 1);
    const factor = Math.min(4, Math.max(0.25, Math.sqrt(target / occ)));
    h *= factor;
    if (Math.abs(factor - 1) < 0.1) break;
  }
  return h;
}

/** Diagnostics of the last meanKnnDistances call (read by the benchmark). */
export const knnStats = { cellSize: 0, fallbacks: 0 };

/**
 * For every point, the mean distance to its k nearest points (itself included), summed nearest first
 * as Open3D does; by original index. `cellSize` overrides the density-based choice.
 */
export function meanKnnDistances(xyz: Float32Array, k: number, cellSize?: number): Float64Array {
  return withMeanKnnDistances(xyz, k, (avg) => avg.slice(), cellSize);
}

/**
 * meanKnnDistances without the copy: `use` gets the distances as a view of kept working memory, valid
 * only during the call, and must not start another k-NN computation, which would reuse that memory
 * (statistical outlier removal reduces them to a mask there).
 */
export function withMeanKnnDistances<T>(xyz: Float32Array, k: number, use: (avg: Float64Array) => T, cellSize?: number): T {
  checkPositiveInt(k, "k");
  const n = pointCount(xyz);
  if (n === 0) return use(new Float64Array(0));
  const b = computeBounds(xyz);
  const h = cellSize ?? knnCellSize(xyz, k, b);
  const kk = Math.min(k, n);
  const cells = sortIntoCells(xyz, h, b);
  groupCopies(xyz, cells, KNN_CROWDED_CELL_PER_K * k);
  const run = new KnnRun(n, cells.cellCount);
  const order = cells.order;
  const x = run.x, y = run.y, z = run.z;
  for (let p = 0; p < n; p++) {
    const i = order[p]!;
    x[p] = xyz[3 * i]!;
    y[p] = xyz[3 * i + 1]!;
    z[p] = xyz[3 * i + 2]!;
  }
  run.start.set(cells.cellStart);
  unpackCellKeys(cells.cellKeys, cells.nx, cells.ny, run.coords);
  const candidates = blockRows(cells, run.coords, run.rows);
  const left = run.run(candidates, kk, KNN_GUESS_GROWTH, cells);
  const out = run.out;
  if (left > 0) {
    const coarse = new CoarseBlocks({ ...cells, cellCoords: run.coords, x: run.x, y: run.y, z: run.z }, KNN_COARSE_FACTOR);
    const buf = new Float64Array(kk);
    for (let p = 0; p < n; p++) {
      if (out[p] !== -1) continue;
      const cnt = coarse.knn(run.x[p]!, run.y[p]!, run.z[p]!, kk, buf);
      let sum = 0;
      for (let q = 0; q < cnt; q++) sum += Math.sqrt(buf[q]!);
      out[p] = sum / cnt;
    }
  }
  const avg = resultsOver(cells.scratch, n); // the sort's key arrays are free now
  for (let p = 0; p < n; p++) avg[order[p]!] = out[p]!;
  knnStats.cellSize = h;
  knnStats.fallbacks = left;
  return use(avg);
}

/** In each cell of more than `crowded` points, orders the points by position (then index), so copies sit together. */
function groupCopies(xyz: Float32Array, cells: KnnCells, crowded: number): void {
  const { order, cellStart } = cells;
  const byPosition = (i: number, j: number): number =>
    xyz[3 * i]! - xyz[3 * j]! || xyz[3 * i + 1]! - xyz[3 * j + 1]! || xyz[3 * i + 2]! - xyz[3 * j + 2]! || i - j;
  for (let c = 0; c < cells.cellCount; c++) {
    if (cellStart[c + 1]! - cellStart[c]! > crowded) order.subarray(cellStart[c]!, cellStart[c + 1]!).sort(byPosition);
  }
}

/** A cloud sorted by grid cell (raster order: x fastest, then y, then z). */
interface KnnCells extends KernelGrid {
  cellCount: number;
  /** Packed key ix + nx*(iy + ny*iz) of each occupied cell, ascending. */
  cellKeys: Float64Array;
  /** Cell c holds sorted positions cellStart[c] .. cellStart[c+1]-1. */
  cellStart: Int32Array;
  /** Sorted position -> original point index. */
  order: Int32Array;
  /** The sort's working arrays (`order` is a view of one of them). */
  scratch: SortScratch;
}

/** With cell coordinates and sorted coordinates, for the coarse search. */
interface SortedCloud extends KnnCells {
  /** ix, iy, iz of each cell. */
  cellCoords: Int32Array;
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
}

function sortIntoCells(xyz: Float32Array, h: number, b: Bounds): KnnCells {
  const nx = Math.floor((b.max[0] - b.min[0]) / h) + 1, ny = Math.floor((b.max[1] - b.min[1]) / h) + 1, nz = Math.floor((b.max[2] - b.min[2]) / h) + 1;
  if (nx * ny * nz >= 2 ** 53) throw new RangeError(`cellSize ${h} is too small for a cloud this large`);
  const scratch = keptSortScratch(xyz.length / 3);
  const { order, keys, start } = sortPointsByCell(xyz, b.min[0], b.min[1], b.min[2], h, nx, ny, nz, scratch);
  return { originX: b.min[0], originY: b.min[1], originZ: b.min[2], cellSize: h, nx, ny, nz, cellCount: keys.length, cellKeys: keys, cellStart: start, order, scratch };
}

/**
 * For each cell, its 3x3x3 block as 9 runs of sorted positions [begin, end) into `rows`, one per row
 * (dy, dz): the row's cells x-1, x, x+1 are consecutive in raster order. Cells come in key order, so
 * each row's key range only moves forward: one forward-moving pair of cursors per (dy, dz) finds it,
 * without a lookup table over the whole grid. Returns the most points any block holds.
 */
function blockRows(cells: KnnCells, coords: Int32Array, rows: Int32Array): number {
  const { nx, ny, nz, cellCount, cellKeys: keys, cellStart } = cells;
  const first = new Int32Array(9), after = new Int32Array(9);
  let candidates = 0;
  for (let c = 0; c < cellCount; c++) {
    const key = keys[c]!;
    const cx = coords[3 * c]!, cy = coords[3 * c + 1]!, cz = coords[3 * c + 2]!;
    let total = 0;
    for (let j = 0; j < 9; j++) {
      const dy = (j % 3) - 1, dz = ((j / 3) | 0) - 1;
      const r = 18 * c + 2 * j;
      const y = cy + dy, z = cz + dz;
      if (y < 0 || y >= ny || z < 0 || z >= nz) {
        rows[r] = rows[r + 1] = 0;
        continue;
      }
      const mid = key + nx * (dy + ny * dz);
      const low = cx > 0 ? mid - 1 : mid, high = cx < nx - 1 ? mid + 1 : mid;
      let a = first[j]!;
      while (a < cellCount && keys[a]! < low) a++;
      first[j] = a;
      let e = Math.max(after[j]!, a);
      while (e < cellCount && keys[e]! <= high) e++;
      after[j] = e;
      rows[r] = cellStart[a]!;
      rows[r + 1] = cellStart[e]!;
      total += cellStart[e]! - cellStart[a]!;
    }
    if (total > candidates) candidates = total;
  }
  return candidates;
}

/**
 * Blocks of F x F x F grid cells, for exact k-NN of points far from everything: blocks are visited in
 * growing shells around the query, each shell's blocks nearest first, and a block is opened only while
 * its box is closer than the current k-th distance.
 */
class CoarseBlocks {
  private readonly grid: SortedCloud;
  private readonly f: number;
  private readonly bnx: number;
  private readonly bny: number;
  private readonly bnz: number;
  /** Fine cell ids grouped by block; block j holds cells[start[j] .. start[j+1]-1]. */
  private readonly cells: Int32Array;
  private readonly start: Int32Array;
  private readonly lookup: CellLookup;
  private pendId = new Int32Array(256);
  private pendD = new Float64Array(256);

  constructor(grid: SortedCloud, f: number) {
    this.grid = grid;
    this.f = f;
    const bnx = Math.floor((grid.nx - 1) / f) + 1, bny = Math.floor((grid.ny - 1) / f) + 1, bnz = Math.floor((grid.nz - 1) / f) + 1;
    this.bnx = bnx;
    this.bny = bny;
    this.bnz = bnz;
    const nc = grid.cellCount, co = grid.cellCoords;
    const total = bnx * bny * bnz;
    let sorted;
    if (total < 4294967296) {
      const lo = new Uint32Array(nc);
      for (let c = 0; c < nc; c++) lo[c] = Math.floor(co[3 * c]! / f) + bnx * (Math.floor(co[3 * c + 1]! / f) + bny * Math.floor(co[3 * c + 2]! / f));
      sorted = sortByKey(lo, null, total - 1);
    } else {
      const lo = new Uint32Array(nc), hi = new Uint32Array(nc);
      for (let c = 0; c < nc; c++) {
        const key = Math.floor(co[3 * c]! / f) + bnx * (Math.floor(co[3 * c + 1]! / f) + bny * Math.floor(co[3 * c + 2]! / f));
        lo[c] = key >>> 0;
        hi[c] = (key / 4294967296) >>> 0;
      }
      sorted = sortByKey(lo, hi, total - 1);
    }
    this.cells = sorted.order;
    this.start = sorted.start;
    this.lookup = new CellLookup(sorted.keys, total);
  }

  /** Exact k nearest squared distances to (x, y, z), ascending, into buf; returns the count. */
  knn(x: number, y: number, z: number, k: number, buf: Float64Array): number {
    const g = this.grid, f = this.f, bh = g.cellSize * f;
    const X = g.x, Y = g.y, Z = g.z, cs = g.cellStart, co = g.cellCoords, h = g.cellSize;
    const ox = g.originX, oy = g.originY, oz = g.originZ;
    // block of the query (clamped: the query is a cloud point, so inside the grid)
    const bx = Math.min(this.bnx - 1, Math.max(0, Math.floor(Math.floor((x - ox) / g.cellSize) / f)));
    const by = Math.min(this.bny - 1, Math.max(0, Math.floor(Math.floor((y - oy) / g.cellSize) / f)));
    const bz = Math.min(this.bnz - 1, Math.max(0, Math.floor(Math.floor((z - oz) / g.cellSize) / f)));
    let cnt = 0, worst = Infinity, pending = 0;
    for (let s = 0; ; s++) {
      // add the blocks of shell s to the pending list
      for (let iz = bz - s; iz <= bz + s; iz++) {
        if (iz < 0 || iz >= this.bnz) continue;
        for (let iy = by - s; iy <= by + s; iy++) {
          if (iy < 0 || iy >= this.bny) continue;
          const onShell = iz === bz - s || iz === bz + s || iy === by - s || iy === by + s;
          const step = onShell || s === 0 ? 1 : 2 * s;
          for (let ix = bx - s; ix <= bx + s; ix += step) {
            if (ix < 0 || ix >= this.bnx) continue;
            const id = this.lookup.get(ix + this.bnx * (iy + this.bny * iz));
            if (id < 0) continue;
            const d2 = boxD2(x, y, z, ox + ix * bh, oy + iy * bh, oz + iz * bh, bh);
            if (pending === this.pendId.length) this.growPending();
            // insertion keeps pending sorted by box distance, nearest first
            let t = pending++;
            while (t > 0 && this.pendD[t - 1]! > d2) {
              this.pendD[t] = this.pendD[t - 1]!;
              this.pendId[t] = this.pendId[t - 1]!;
              t--;
            }
            this.pendD[t] = d2;
            this.pendId[t] = id;
          }
        }
      }
      // open pending blocks, nearest first, while they can hold a closer point
      let opened = 0;
      while (opened < pending && (cnt < k || this.pendD[opened]! * SAFE < worst)) {
        const id = this.pendId[opened++]!;
        for (let j = this.start[id]!, je = this.start[id + 1]!; j < je; j++) {
          const c = this.cells[j]!;
          // skip a fine cell that cannot hold a closer point (a block is often only grazed)
          if (cnt === k && boxD2(x, y, z, ox + co[3 * c]! * h, oy + co[3 * c + 1]! * h, oz + co[3 * c + 2]! * h, h) * SAFE >= worst) continue;
          for (let q = cs[c]!, qe = cs[c + 1]!; q < qe; q++) {
            const dx = x - X[q]!, dy = y - Y[q]!, dz = z - Z[q]!;
            const d2 = dx * dx + dy * dy + dz * dz;
            if (d2 < worst) {
              let t = cnt < k ? cnt++ : k - 1;
              while (t > 0 && buf[t - 1]! > d2) {
                buf[t] = buf[t - 1]!;
                t--;
              }
              buf[t] = d2;
              if (cnt === k) worst = buf[k - 1]!;
            }
          }
        }
      }
      // drop the opened blocks from the pending list
      this.pendId.copyWithin(0, opened, pending);
      this.pendD.copyWithin(0, opened, pending);
      pending -= opened;
      // distance from the query to the outside of the shell-s box (sides beyond the grid are empty)
      const gx0 = bx - s <= 0 ? Infinity : x - (ox + (bx - s) * bh);
      const gx1 = bx + s >= this.bnx - 1 ? Infinity : ox + (bx + s + 1) * bh - x;
      const gy0 = by - s <= 0 ? Infinity : y - (oy + (by - s) * bh);
      const gy1 = by + s >= this.bny - 1 ? Infinity : oy + (by + s + 1) * bh - y;
      const gz0 = bz - s <= 0 ? Infinity : z - (oz + (bz - s) * bh);
      const gz1 = bz + s >= this.bnz - 1 ? Infinity : oz + (bz + s + 1) * bh - z;
      const gap = Math.min(gx0, gx1, gy0, gy1, gz0, gz1);
      if (gap === Infinity) break;
      if (cnt === k && worst <= gap * gap * SAFE) break;
    }
    return cnt;
  }

  private growPending(): void {
    const id = new Int32Array(this.pendId.length * 2);
    id.set(this.pendId);
    const d = new Float64Array(this.pendD.length * 2);
    d.set(this.pendD);
    this.pendId = id;
    this.pendD = d;
  }
}

/** Squared distance from a point to the axis-aligned cube [x0, x0+side] x [y0, ...] x [z0, ...]. */
function boxD2(x: number, y: number, z: number, x0: number, y0: number, z0: number, side: number): number {
  const dx = x < x0 ? x0 - x : x > x0 + side ? x - x0 - side : 0;
  const dy = y < y0 ? y0 - y : y > y0 + side ? y - y0 - side : 0;
  const dz = z < z0 ? z0 - z : z > z0 + side ? z - z0 - side : 0;
  return dx * dx + dy * dy + dz * dz;
}
