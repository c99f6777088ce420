/**
 * VoxelHashGrid: a uniform grid over a point cloud for fixed-radius queries (DBSCAN, radius outlier
 * removal, point-overlap ratios). Points are radix-sorted by cell, cells numbered in raster order
 * (x fastest, then y, then z), and the coordinates copied in that order, so a query touches a few
 * contiguous runs of memory even when the input order is shuffled.
 *
 * Radius convention (Open3D / nanoflann): a point is "within r" of a query when the squared distance,
 * computed in double as ((dx*dx) + dy*dy) + dz*dz, is strictly less than r*r.
 */
import { CellLookup } from "./cellLookup.js";
import { checkPositive, computeBounds, pointCount } from "./bounds.js";
import { sortPointsByCell, unpackCellKeys } from "./radixSort.js";

/**
 * Relative margin added to cell ranges (and to the DBSCAN cell size) so that rounding in
 * (p - origin) / cell can never put two points closer than the radius more than one cell apart.
 */
export const GRID_ROUNDING_MARGIN = 1e-9;

export interface GridOptions {
  /** Force the layout of the cell lookup table (benchmarks/tests); by default chosen from the grid size. */
  layout?: "dense" | "hashed";
}

export class VoxelHashGrid {
  readonly count: number;
  readonly cellSize: number;
  readonly originX: number;
  readonly originY: number;
  readonly originZ: number;
  readonly nx: number;
  readonly ny: number;
  readonly nz: number;
  /** Number of non-empty cells. */
  readonly cellCount: number;
  /** Packed key ix + nx*(iy + ny*iz) of each cell, ascending: cells are numbered in raster order. */
  readonly cellKeys: Float64Array;
  /** Sorted positions of cell c are cellStart[c] .. cellStart[c+1]-1. */
  readonly cellStart: Int32Array;
  /** ix, iy, iz of each cell. */
  readonly cellCoords: Int32Array;
  /** Sorted position -> original point index (ascending within a cell). */
  readonly order: Int32Array;
  /** Original point index -> sorted position. */
  readonly positionOf: Int32Array;
  /** Sorted position -> cell id. */
  readonly sortedCell: Int32Array;
  /** x, y, z per sorted position (the input values, copied). */
  readonly sorted: Float32Array;
  private readonly layout: "dense" | "hashed" | undefined;
  private lookup: CellLookup | null = null;
  private neighbors: { start: Int32Array; ids: Int32Array } | null = null;

  constructor(xyz: Float32Array, cellSize: number, opts: GridOptions = {}) {
    checkPositive(cellSize, "cellSize");
    const n = pointCount(xyz);
    this.count = n;
    this.cellSize = cellSize;
    this.layout = opts.layout;
    if (n === 0) {
      this.originX = this.originY = this.originZ = 0;
      this.nx = this.ny = this.nz = 0;
      this.cellCount = 0;
      this.cellKeys = new Float64Array(0);
      this.cellStart = new Int32Array(1);
      this.cellCoords = new Int32Array(0);
      this.order = new Int32Array(0);
      this.positionOf = new Int32Array(0);
      this.sortedCell = new Int32Array(0);
      this.sorted = new Float32Array(0);
      return;
    }
    const b = computeBounds(xyz);
    const ox = b.min[0],
      oy = b.min[1],
      oz = b.min[2];
    const nx = Math.floor((b.max[0] - ox) / cellSize) + 1;
    const ny = Math.floor((b.max[1] - oy) / cellSize) + 1;
    const nz = Math.floor((b.max[2] - oz) / cellSize) + 1;
    if (nx * ny * nz >= 2 ** 53) throw new RangeError(`cellSize ${cellSize} is too small for a cloud this large`);
    this.originX = ox;
    this.originY = oy;
    this.originZ = oz;
    this.nx = nx;
    this.ny = ny;
    this.nz = nz;

    const s = sortPointsByCell(xyz, ox, oy, oz, cellSize, nx, ny, nz);
    const order = s.order,
      start = s.start,
      keys = s.keys;
    const nc = keys.length;
    const positionOf = new Int32Array(n);
    const sortedCell = new Int32Array(n);
    const sorted = new Float32Array(3 * n);
    const coords = new Int32Array(3 * nc);
    unpackCellKeys(keys, nx, ny, coords);
    for (let c = 0; c < nc; c++) {
      for (let p = start[c]!, e = start[c + 1]!; p < e; p++) {
        const i = order[p]!;
        positionOf[i] = p;
        sortedCell[p] = c;
        sorted[3 * p] = xyz[3 * i]!;
        sorted[3 * p + 1] = xyz[3 * i + 1]!;
        sorted[3 * p + 2] = xyz[3 * i + 2]!;
      }
    }
    this.cellCount = nc;
    this.cellKeys = keys;
    this.cellStart = start;
    this.cellCoords = coords;
    this.order = order;
    this.positionOf = positionOf;
    this.sortedCell = sortedCell;
    this.sorted = sorted;
  }

  private cells(): CellLookup {
    if (this.lookup === null) this.lookup = new CellLookup(this.cellKeys, this.nx * this.ny * this.nz, this.layout);
    return this.lookup;
  }

  /** Id of the non-empty cell at integer coordinates, or -1. */
  cellAt(ix: number, iy: number, iz: number): number {
    if (ix < 0 || iy < 0 || iz < 0 || ix >= this.nx || iy >= this.ny || iz >= this.nz) return -1;
    return this.cells().get(ix + this.nx * (iy + this.ny * iz));
  }

  /**
   * For every cell, the ids of the non-empty cells within one step on each axis (27-neighbourhood,
   * itself included), ascending. CSR layout: ids[start[c] .. start[c+1]-1]. Built once, cached.
   */
  neighborCells(): { start: Int32Array; ids: Int32Array } {
    if (this.neighbors) return this.neighbors;
    const nc = this.cellCount,
      nx = this.nx,
      ny = this.ny,
      nz = this.nz,
      nxy = nx * ny;
    const keys = this.cellKeys,
      coords = this.cellCoords;
    const start = new Int32Array(nc + 1);
    let ids = new Int32Array(Math.max(64, nc * 9));
    let k = 0;
    // For a fixed row offset (dy, dz), the lowest key of interest, key(c) + dy*nx + dz*nxy - 1, only
    // grows with c: one forward-moving pointer per offset finds every row in linear total time.
    const ptr = new Int32Array(9);
    for (let c = 0; c < nc; c++) {
      const key = keys[c]!;
      const cx = coords[3 * c]!,
        cy = coords[3 * c + 1]!,
        cz = coords[3 * c + 2]!;
      if (k + 27 > ids.length) {
        const next = new Int32Array(ids.length * 2);
        next.set(ids);
        ids = next;
      }
      let j = 0;
      for (let dz = -1; dz <= 1; dz++) {
        for (let dy = -1; dy <= 1; dy++, j++) {
          if (cy + dy < 0 || cy + dy >= ny || cz + dz < 0 || cz + dz >= nz) continue;
          const row = key + dy * nx + dz * nxy;
          const lo = cx > 0 ? row - 1 : row;
          const hi = cx < nx - 1 ? row + 1 : row;
          let p = ptr[j]!;
          while (p < nc && keys[p]! < lo) p++;
          ptr[j] = p;
          while (p < nc && keys[p]! <= hi) ids[k++] = p++;
        }
      }
      start[c + 1] = k;
    }
    this.neighbors = { start, ids: ids.slice(0, k) };
    return this.neighbors;
  }

  /** Visits every point strictly within r of (x, y, z): fn(originalIndex, squaredDistance). */
  forEachWithin(x: number, y: number, z: number, r: number, fn: (index: number, d2: number) => void): void {
    if (this.count === 0) return;
    const r2 = r * r;
    const h = this.cellSize,
      rr = r * (1 + GRID_ROUNDING_MARGIN);
    const x0 = Math.max(0, Math.floor((x - rr - this.originX) / h)),
      x1 = Math.min(this.nx - 1, Math.floor((x + rr - this.originX) / h));
    const y0 = Math.max(0, Math.floor((y - rr - this.originY) / h)),
      y1 = Math.min(this.ny - 1, Math.floor((y + rr - this.originY) / h));
    const z0 = Math.max(0, Math.floor((z - rr - this.originZ) / h)),
      z1 = Math.min(this.nz - 1, Math.floor((z + rr - this.originZ) / h));
    const S = this.sorted,
      start = this.cellStart,
      order = this.order,
      cells = this.cells();
    for (let iz = z0; iz <= z1; iz++) {
      for (let iy = y0; iy <= y1; iy++) {
        for (let ix = x0; ix <= x1; ix++) {
          const c = cells.get(ix + this.nx * (iy + this.ny * iz));
          if (c < 0) continue;
          for (let p = start[c]!, e = start[c + 1]!; p < e; p++) {
            const dx = x - S[3 * p]!,
              dy = y - S[3 * p + 1]!,
              dz = z - S[3 * p + 2]!;
            const d2 = dx * dx + dy * dy + dz * dz;
            if (d2 < r2) fn(order[p]!, d2);
          }
        }
      }
    }
  }

  /** Original indices of the points strictly within r of (x, y, z), appended to `out`. */
  within(x: number, y: number, z: number, r: number, out: number[] = []): number[] {
    this.forEachWithin(x, y, z, r, (i) => out.push(i));
    return out;
  }

  /** Number of points strictly within r of (x, y, z). */
  countWithin(x: number, y: number, z: number, r: number): number {
    let k = 0;
    this.forEachWithin(x, y, z, r, () => k++);
    return k;
  }

  /**
   * Whether any point lies strictly within r of (x, y, z); stops at the first one. Its own loop rather
   * than forEachWithin with a stopping callback: the callback made pointOverlapRatio (fusion's hot loop)
   * about 25 % slower on 1.5 M queries. The point's own cell is searched first: the answer does not depend
   * on the order, and an overlapping point (most of fusion's) usually has its neighbour there.
   */
  anyWithin(x: number, y: number, z: number, r: number): boolean {
    if (this.count === 0) return false;
    const r2 = r * r;
    const h = this.cellSize,
      rr = r * (1 + GRID_ROUNDING_MARGIN);
    const x0 = Math.max(0, Math.floor((x - rr - this.originX) / h)),
      x1 = Math.min(this.nx - 1, Math.floor((x + rr - this.originX) / h));
    const y0 = Math.max(0, Math.floor((y - rr - this.originY) / h)),
      y1 = Math.min(this.ny - 1, Math.floor((y + rr - this.originY) / h));
    const z0 = Math.max(0, Math.floor((z - rr - this.originZ) / h)),
      z1 = Math.min(this.nz - 1, Math.floor((z + rr - this.originZ) / h));
    const cells = this.cells();
    const cx = Math.floor((x - this.originX) / h),
      cy = Math.floor((y - this.originY) / h),
      cz = Math.floor((z - this.originZ) / h);
    const own = cx >= x0 && cx <= x1 && cy >= y0 && cy <= y1 && cz >= z0 && cz <= z1 ? cells.get(cx + this.nx * (cy + this.ny * cz)) : -1;
    if (own >= 0 && this.cellHit(own, x, y, z, r2)) return true;
    for (let iz = z0; iz <= z1; iz++) {
      for (let iy = y0; iy <= y1; iy++) {
        for (let ix = x0; ix <= x1; ix++) {
          const c = cells.get(ix + this.nx * (iy + this.ny * iz));
          if (c >= 0 && c !== own && this.cellHit(c, x, y, z, r2)) return true;
        }
      }
    }
    return false;
  }

  /** Whether a point of cell `c` lies strictly within sqrt(r2) of (x, y, z). */
  private cellHit(c: number, x: number, y: number, z: number, r2: number): boolean {
    const S = this.sorted;
    for (let p = this.cellStart[c]!, e = this.cellStart[c + 1]!; p < e; p++) {
      const dx = x - S[3 * p]!,
        dy = y - S[3 * p + 1]!,
        dz = z - S[3 * p + 2]!;
      if (dx * dx + dy * dy + dz * dz < r2) return true;
    }
    return false;
  }
}

/**
 * Number of points (itself included) strictly within r of every point, by sorted position (grid.order). One
 * pass over each pair of adjacent cells, counting both ends of each pair: half the distance tests of
 * querying every point separately.
 */
export function neighborCountsSorted(grid: VoxelHashGrid, r: number): Int32Array {
  if (!(grid.cellSize >= r * (1 + GRID_ROUNDING_MARGIN))) {
    throw new RangeError(`neighborCounts: grid cell ${grid.cellSize} must be at least the radius ${r} times (1 + GRID_ROUNDING_MARGIN)`);
  }
  const n = grid.count;
  const countsSorted = new Int32Array(n);
  const r2 = r * r;
  const S = grid.sorted,
    cs = grid.cellStart;
  const { start: nbStart, ids: nbIds } = grid.neighborCells();
  for (let c = 0; c < grid.cellCount; c++) {
    const b0 = cs[c]!,
      b1 = cs[c + 1]!;
    // pairs inside the cell (self included: d2 = 0 < r2)
    for (let p = b0; p < b1; p++) {
      const px = S[3 * p]!,
        py = S[3 * p + 1]!,
        pz = S[3 * p + 2]!;
      let k = 1;
      for (let q = p + 1; q < b1; q++) {
        const dx = px - S[3 * q]!,
          dy = py - S[3 * q + 1]!,
          dz = pz - S[3 * q + 2]!;
        if (dx * dx + dy * dy + dz * dz < r2) {
          k++;
          countsSorted[q]!++;
        }
      }
      countsSorted[p]! += k;
    }
    // pairs with each later adjacent cell
    for (let j = nbStart[c]!, je = nbStart[c + 1]!; j < je; j++) {
      const nc = nbIds[j]!;
      if (nc <= c) continue;
      const q0 = cs[nc]!,
        q1 = cs[nc + 1]!;
      for (let p = b0; p < b1; p++) {
        const px = S[3 * p]!,
          py = S[3 * p + 1]!,
          pz = S[3 * p + 2]!;
        let k = 0;
        for (let q = q0; q < q1; q++) {
          const dx = px - S[3 * q]!,
            dy = py - S[3 * q + 1]!,
            dz = pz - S[3 * q + 2]!;
          if (dx * dx + dy * dy + dz * dz < r2) {
            k++;
            countsSorted[q]!++;
          }
        }
        countsSorted[p]! += k;
      }
    }
  }
  return countsSorted;
}
