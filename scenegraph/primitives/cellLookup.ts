/**
 * CellLookup: a read-only map from packed cell keys (0 <= key < 2^53) to cell ids, for the random
 * lookups of radius queries at arbitrary points. Built once from the ascending distinct keys of a
 * sorted grid (id = position in that list). Two layouts behind one monomorphic class:
 *  - dense: a direct Int32Array over the whole grid, when it is not much larger than the cell count;
 *  - hashed: open addressing with linear probing over Float64 keys.
 */

/** Largest grid (cells) for the dense layout: 2^23 Int32 = 32 MiB. */
const DENSE_CELL_LIMIT = 1 << 23;
/** The dense layout is used only while grid cells <= DENSE_CELLS_PER_OCCUPIED * occupied cells. */
const DENSE_CELLS_PER_OCCUPIED = 8;

/**
 * A hashed lookup also keeps one bit per grid cell (occupied or not) while the grid has at most this many
 * cells (2^24: a 2 MiB bitmap). Most cells a radius query visits are empty (object surfaces fill a thin
 * shell of their grid), and the bit answers those without hashing and probing: fusion's overlap queries
 * (pointOverlapRatio) spent most of their time there.
 */
const OCCUPANCY_BITMAP_LIMIT = 1 << 24;

const EMPTY = -1;

/** 32-bit mix of a 53-bit integer key (its low and high words). */
function mix(key: number): number {
  const lo = key >>> 0;
  const hi = (key / 4294967296) >>> 0;
  let h = Math.imul(lo ^ Math.imul(hi, 0x27d4eb2d), 0x9e3779b1);
  h ^= h >>> 15;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

export class CellLookup {
  private readonly dense: Int32Array | null;
  /** Hashed layout: bit k of word k >>> 5 is set when cell k is occupied (null above OCCUPANCY_BITMAP_LIMIT). */
  private readonly occupied: Int32Array | null;
  private readonly keys: Float64Array;
  private readonly vals: Int32Array;
  private readonly mask: number;

  /**
   * @param cellKeys distinct keys; key cellKeys[i] maps to id i
   * @param gridCells total cells of the grid (nx*ny*nz); every key is below it
   */
  constructor(cellKeys: Float64Array, gridCells: number, layout?: "dense" | "hashed") {
    const m = cellKeys.length;
    const useDense = layout === "dense" || (layout === undefined && gridCells <= DENSE_CELL_LIMIT && gridCells <= DENSE_CELLS_PER_OCCUPIED * m + 4096);
    if (useDense) {
      const dense = new Int32Array(gridCells).fill(EMPTY);
      for (let i = 0; i < m; i++) dense[cellKeys[i]!] = i;
      this.dense = dense;
      this.occupied = null;
      this.keys = new Float64Array(0);
      this.vals = new Int32Array(0);
      this.mask = 0;
      return;
    }
    let cap = 16;
    while (cap < 2 * m) cap *= 2;
    const keys = new Float64Array(cap);
    const vals = new Int32Array(cap).fill(EMPTY);
    const mask = cap - 1;
    for (let i = 0; i < m; i++) {
      const k = cellKeys[i]!;
      let s = mix(k) & mask;
      while (vals[s] !== EMPTY) s = (s + 1) & mask;
      keys[s] = k;
      vals[s] = i;
    }
    this.dense = null;
    this.occupied = gridCells <= OCCUPANCY_BITMAP_LIMIT ? occupancyBits(cellKeys, gridCells) : null;
    this.keys = keys;
    this.vals = vals;
    this.mask = mask;
  }

  /** Id of `key`, or -1 if the cell is empty. */
  get(key: number): number {
    const dense = this.dense;
    if (dense !== null) return dense[key]!;
    const occupied = this.occupied;
    if (occupied !== null && (occupied[key >>> 5]! & (1 << (key & 31))) === 0) return EMPTY;
    const keys = this.keys,
      vals = this.vals,
      mask = this.mask;
    let s = mix(key) & mask;
    for (;;) {
      const v = vals[s]!;
      if (v === EMPTY || keys[s] === key) return v;
      s = (s + 1) & mask;
    }
  }
}

/** One bit per cell of a grid of `gridCells` cells, set for the cells in `cellKeys`. */
function occupancyBits(cellKeys: Float64Array, gridCells: number): Int32Array {
  const bits = new Int32Array(Math.ceil(gridCells / 32));
  for (let i = 0; i < cellKeys.length; i++) {
    const k = cellKeys[i]!;
    bits[k >>> 5] = bits[k >>> 5]! | (1 << (k & 31));
  }
  return bits;
}
