/**
 * All-points k-nearest-neighbour distances on a uniform grid: the engine of statistical outlier
 * removal. Points are scanned cell by cell; each point looks at the 27 cells around it, its own cell
 * first, then face, edge and corner neighbours (nearest first, so the k-best list settles early and
 * later candidates are rejected by one comparison). The list is kept sorted (insertion into a small
 * array beats a binary heap here: fewer unpredictable branches). A point is finished when its k-th
 * distance is provably shorter than the distance to any cell outside the 27; the rare points that
 * fail (outliers, sparse borders) get a best-first search over coarse blocks of cells.
 *
 * Exactness: the k smallest squared distances, each computed as ((dx*dx) + dy*dy) + dz*dz in double
 * (nanoflann's expression), in ascending order, i.e. exactly Open3D's KDTreeFlann::SearchKNN lists.
 */
import { checkPositiveInt, computeBounds, pointCount } from "./bounds.js";
import { CellLookup } from "./cellLookup.js";
import { VoxelHashGrid } from "./hashGrid.js";
import { sortByKey } from "./radixSort.js";

/**
 * Target number of points per occupied cell, as a fraction of k. For a surface sampled at density rho,
 * the k-NN radius R satisfies rho*pi*R^2 = k and a cell of side R holds about 1.2*rho*R^2 = 0.38k points;
 * 0.6k keeps nearly every search inside the first 27 cells (0.5-0.75 measured equally fast on the 1M scene).
 */
export const KNN_CELL_OCCUPANCY_PER_K = 0.6;
/** Points sampled (evenly spaced in index order) to estimate the density. */
export const KNN_DENSITY_SAMPLE = 65536;
/** Coarse block side, in cells, for the best-first search of the points the 27 cells do not settle. */
export const KNN_COARSE_FACTOR = 8;
/** Guard against rounding in the "no unscanned point can be closer" tests (relative, on squared distances). */
const SAFE = 1 - 1e-9;

/** Cell size for all-points k-NN on this cloud (see KNN_CELL_OCCUPANCY_PER_K). */
export function knnCellSize(xyz: Float32Array, k: number): number {
  const n = pointCount(xyz);
  const b = computeBounds(xyz);
  const ex = b.maxX - b.minX, ey = b.maxY - b.minY, ez = b.maxZ - b.minZ;
  const extent = Math.max(ex, ey, ez);
  if (!(extent > 0)) return 1; // all points coincide: any cell works
  const stride = Math.max(1, Math.floor(n / KNN_DENSITY_SAMPLE));
  const m = Math.ceil(n / stride);
  // Start from the density of the bounding box's largest face, then correct from measured occupancy.
  const faces = [ex * ey, ex * ez, ey * ez].sort((a, c) => c - a);
  let h = Math.sqrt(((faces[0]! || extent * extent) * k) / n);
  if (!(h > 0)) h = extent;
  const target = Math.max(1, KNN_CELL_OCCUPANCY_PER_K * k);
  const lo = new Uint32Array(m);
  for (let iter = 0; iter < 4; iter++) {
    const nx = Math.floor(ex / h) + 1, ny = Math.floor(ey / h) + 1, nz = Math.floor(ez / h) + 1;
    if (nx * ny * nz >= 4294967296) {
      h *= 2;
      continue;
    }
    for (let j = 0, i = 0; j < m; j++, i += stride) {
      const ix = Math.floor((xyz[3 * i]! - b.minX) / h);
      const iy = Math.floor((xyz[3 * i + 1]! - b.minY) / h);
      const iz = Math.floor((xyz[3 * i + 2]! - b.minZ) / h);
      lo[j] = ix + nx * iy + nx * ny * iz;
    }
    const { start } = sortByKey(lo.slice(), null, nx * ny * nz - 1);
    let s2 = 0;
    for (let c = 0; c + 1 < start.length; c++) {
      const cnt = start[c + 1]! - start[c]!;
      s2 += cnt * cnt;
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
  checkPositiveInt(k, "k");
  const n = pointCount(xyz);
  const avg = new Float64Array(n);
  if (n === 0) return avg;
  const h = cellSize ?? knnCellSize(xyz, k);
  const grid = new VoxelHashGrid(xyz, h);
  const kk = Math.min(k, n);
  const S = grid.sorted, cs = grid.cellStart, order = grid.order, coords = grid.cellCoords;
  const nb = nearFirstNeighbors(grid);
  const ox = grid.originX, oy = grid.originY, oz = grid.originZ, nx = grid.nx, ny = grid.ny, nz = grid.nz;
  const buf = new Float64Array(kk);
  let coarse: CoarseBlocks | null = null;
  let fallbacks = 0;

  for (let c = 0; c < grid.cellCount; c++) {
    const b0 = cs[c]!, b1 = cs[c + 1]!;
    const cx = coords[3 * c]!, cy = coords[3 * c + 1]!, cz = coords[3 * c + 2]!;
    const j0 = nb.start[c]!, j1 = nb.start[c + 1]!;
    for (let p = b0; p < b1; p++) {
      const px = S[3 * p]!, py = S[3 * p + 1]!, pz = S[3 * p + 2]!;
      let cnt = 0, worst = Infinity;
      for (let j = j0; j < j1; j++) {
        const nc = nb.ids[j]!;
        for (let q = cs[nc]!, qe = cs[nc + 1]!; q < qe; q++) {
          const dx = px - S[3 * q]!, dy = py - S[3 * q + 1]!, dz = pz - S[3 * q + 2]!;
          const d2 = dx * dx + dy * dy + dz * dz;
          if (d2 < worst) {
            let t = cnt < kk ? cnt++ : kk - 1;
            while (t > 0 && buf[t - 1]! > d2) {
              buf[t] = buf[t - 1]!;
              t--;
            }
            buf[t] = d2;
            if (cnt === kk) worst = buf[kk - 1]!;
          }
        }
      }
      // Settled when no cell outside the 27 can hold a closer point (sides beyond the grid are empty).
      const gx0 = cx <= 1 ? Infinity : px - (ox + (cx - 1) * h);
      const gx1 = cx >= nx - 2 ? Infinity : ox + (cx + 2) * h - px;
      const gy0 = cy <= 1 ? Infinity : py - (oy + (cy - 1) * h);
      const gy1 = cy >= ny - 2 ? Infinity : oy + (cy + 2) * h - py;
      const gz0 = cz <= 1 ? Infinity : pz - (oz + (cz - 1) * h);
      const gz1 = cz >= nz - 2 ? Infinity : oz + (cz + 2) * h - pz;
      let gap = gx0 < gx1 ? gx0 : gx1;
      if (gy0 < gap) gap = gy0;
      if (gy1 < gap) gap = gy1;
      if (gz0 < gap) gap = gz0;
      if (gz1 < gap) gap = gz1;
      if (!(gap === Infinity || (cnt === kk && worst <= gap * gap * SAFE))) {
        coarse ??= new CoarseBlocks(grid, KNN_COARSE_FACTOR);
        cnt = coarse.knn(px, py, pz, kk, buf);
        fallbacks++;
      }
      let sum = 0;
      for (let q = 0; q < cnt; q++) sum += Math.sqrt(buf[q]!);
      avg[order[p]!] = sum / cnt;
    }
  }
  knnStats.cellSize = h;
  knnStats.fallbacks = fallbacks;
  return avg;
}

/** grid.neighborCells() reordered per cell: itself, then face, edge and corner neighbours. */
function nearFirstNeighbors(grid: VoxelHashGrid): { start: Int32Array; ids: Int32Array } {
  const { start, ids } = grid.neighborCells();
  const out = new Int32Array(ids.length);
  const co = grid.cellCoords;
  for (let c = 0; c < grid.cellCount; c++) {
    let k = start[c]!;
    const cx = co[3 * c]!, cy = co[3 * c + 1]!, cz = co[3 * c + 2]!;
    for (let cls = 0; cls <= 3; cls++) {
      for (let j = start[c]!; j < start[c + 1]!; j++) {
        const nc = ids[j]!;
        const m = Math.abs(co[3 * nc]! - cx) + Math.abs(co[3 * nc + 1]! - cy) + Math.abs(co[3 * nc + 2]! - cz);
        if (m === cls) out[k++] = nc;
      }
    }
  }
  return { start, ids: out };
}

/**
 * Blocks of F x F x F grid cells, for exact k-NN of points far from everything: blocks are visited in
 * growing shells around the query, each shell's blocks nearest first, and a block is opened only while
 * its box is closer than the current k-th distance.
 */
class CoarseBlocks {
  private readonly grid: VoxelHashGrid;
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

  constructor(grid: VoxelHashGrid, f: number) {
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
    const S = g.sorted, cs = g.cellStart;
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
          for (let q = cs[c]!, qe = cs[c + 1]!; q < qe; q++) {
            const dx = x - S[3 * q]!, dy = y - S[3 * q + 1]!, dz = z - S[3 * q + 2]!;
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
