/**
 * Grouping points by grid cell with a stable LSD radix sort of packed cell keys (0 <= key < 2^53).
 * Radix passes read memory sequentially and scatter into <= 4096 buckets, which on shuffled clouds
 * beats a hash table whose every probe is a cache miss. Stability matters: within a cell, indices stay
 * in input order (Open3D sums a voxel's points in input order).
 */

export interface SortedCells {
  /** Sorted position -> original point index (ascending within a cell). */
  order: Int32Array;
  /** Distinct cell keys, ascending (raster order: x fastest, then y, then z). */
  keys: Float64Array;
  /** Positions of cell j are start[j] .. start[j+1]-1. */
  start: Int32Array;
}

/**
 * Caller-owned working arrays for a sort of up to `length` points (each at least that long), so that
 * repeated sorts reuse memory instead of faulting in fresh pages. The returned order is a view of one
 * of the index arrays: valid until the scratch is used again.
 */
export interface SortScratch {
  lo: Uint32Array;
  lo2: Uint32Array;
  idx: Int32Array;
  idx2: Int32Array;
}

/** Largest radix digit (bits): 4096 buckets, a 16 KiB histogram that stays in L1. */
const MAX_DIGIT_BITS = 12;

/**
 * Sorts the points of xyz by cell key ix + nx*iy + nx*ny*iz, with i = floor((p - origin) / cellSize)
 * in double per axis (the expression Open3D's voxel downsampling uses). Every point must fall in
 * [0, nx) x [0, ny) x [0, nz): callers derive origin and n* from the cloud's bounds.
 */
export function sortPointsByCell(
  xyz: Float32Array,
  ox: number,
  oy: number,
  oz: number,
  cellSize: number,
  nx: number,
  ny: number,
  nz: number,
  scratch?: SortScratch,
): SortedCells {
  const n = xyz.length / 3;
  const nxy = nx * ny;
  const maxKey = nxy * nz - 1;
  if (maxKey < 4294967296) {
    const lo = scratch ? scratch.lo.subarray(0, n) : new Uint32Array(n);
    for (let i = 0, o = 0; i < n; i++, o += 3) {
      const ix = Math.floor((xyz[o]! - ox) / cellSize);
      const iy = Math.floor((xyz[o + 1]! - oy) / cellSize);
      const iz = Math.floor((xyz[o + 2]! - oz) / cellSize);
      lo[i] = ix + nx * iy + nxy * iz;
    }
    return sortByKey(lo, null, maxKey, scratch);
  }
  // keys over 32 bits (huge grids): fresh arrays, the scratch has no room for the high words
  const lo = new Uint32Array(n),
    hi = new Uint32Array(n);
  for (let i = 0, o = 0; i < n; i++, o += 3) {
    const ix = Math.floor((xyz[o]! - ox) / cellSize);
    const iy = Math.floor((xyz[o + 1]! - oy) / cellSize);
    const iz = Math.floor((xyz[o + 2]! - oz) / cellSize);
    const k = ix + nx * iy + nxy * iz;
    lo[i] = k >>> 0;
    hi[i] = (k / 4294967296) >>> 0;
  }
  return sortByKey(lo, hi, maxKey);
}

/** ix, iy, iz of each packed key ix + nx*(iy + ny*iz) (sortPointsByCell's keys), into `coords`. */
export function unpackCellKeys(keys: Float64Array, nx: number, ny: number, coords: Int32Array): void {
  const nxy = nx * ny;
  for (let c = 0; c < keys.length; c++) {
    const key = keys[c]!;
    const iz = Math.floor(key / nxy);
    const rem = key - iz * nxy;
    const iy = Math.floor(rem / nx);
    coords[3 * c] = rem - iy * nx;
    coords[3 * c + 1] = iy;
    coords[3 * c + 2] = iz;
  }
}

/**
 * Stable sort of indices 0..n-1 by key i = lo[i] + 2^32 * hi[i] (hi null when all keys < 2^32);
 * maxKey bounds the keys and sets the number of passes. lo and hi are consumed (overwritten).
 */
function sortByKey(lo: Uint32Array, hi: Uint32Array | null, maxKey: number, scratch?: SortScratch): SortedCells {
  const n = lo.length;
  const bits = Math.max(1, Math.ceil(Math.log2(maxKey + 1)));
  const passes = Math.ceil(bits / MAX_DIGIT_BITS);
  const digitBits = Math.ceil(bits / passes);
  const radix = 1 << digitBits;
  const mask = radix - 1;
  const hist = new Int32Array(radix);

  const reuse = scratch !== undefined && hi === null;
  let curLo: Uint32Array = lo,
    curHi: Uint32Array | null = hi,
    curIdx: Int32Array = reuse ? scratch.idx.subarray(0, n) : new Int32Array(n);
  for (let i = 0; i < n; i++) curIdx[i] = i;
  let nxtLo: Uint32Array = reuse ? scratch.lo2.subarray(0, n) : new Uint32Array(n),
    nxtHi: Uint32Array | null = hi ? new Uint32Array(n) : null;
  let nxtIdx: Int32Array = reuse ? scratch.idx2.subarray(0, n) : new Int32Array(n);

  for (let pass = 0; pass < passes; pass++) {
    const shift = pass * digitBits;
    hist.fill(0);
    if (curHi === null) {
      for (let i = 0; i < n; i++) hist[(curLo[i]! >>> shift) & mask]!++;
    } else {
      for (let i = 0; i < n; i++) hist[digit(curLo, curHi, i, shift, mask)]!++;
    }
    let sum = 0;
    for (let d = 0; d < radix; d++) {
      const c = hist[d]!;
      hist[d] = sum;
      sum += c;
    }
    if (curHi === null) {
      for (let i = 0; i < n; i++) {
        const k = curLo[i]!;
        const p = hist[(k >>> shift) & mask]!++;
        nxtLo[p] = k;
        nxtIdx[p] = curIdx[i]!;
      }
    } else {
      for (let i = 0; i < n; i++) {
        const p = hist[digit(curLo, curHi, i, shift, mask)]!++;
        nxtLo[p] = curLo[i]!;
        nxtHi![p] = curHi[i]!;
        nxtIdx[p] = curIdx[i]!;
      }
    }
    const tLo = curLo,
      tHi = curHi,
      tIdx = curIdx;
    curLo = nxtLo;
    curHi = nxtHi;
    curIdx = nxtIdx;
    nxtLo = tLo;
    nxtHi = tHi;
    nxtIdx = tIdx;
  }

  let runs = 0;
  for (let p = 0; p < n; p++) {
    if (p === 0 || curLo[p] !== curLo[p - 1] || (curHi !== null && curHi[p] !== curHi[p - 1])) runs++;
  }
  const keys = new Float64Array(runs);
  const start = new Int32Array(runs + 1);
  let r = -1;
  for (let p = 0; p < n; p++) {
    if (p === 0 || curLo[p] !== curLo[p - 1] || (curHi !== null && curHi[p] !== curHi[p - 1])) {
      r++;
      keys[r] = curLo[p]! + (curHi !== null ? curHi[p]! * 4294967296 : 0);
      start[r] = p;
    }
  }
  start[runs] = n;
  return { order: curIdx, keys, start };
}

function digit(lo: Uint32Array, hi: Uint32Array, i: number, shift: number, mask: number): number {
  if (shift >= 32) return (hi[i]! >>> (shift - 32)) & mask;
  if (shift === 0) return lo[i]! & mask;
  return ((lo[i]! >>> shift) | (hi[i]! << (32 - shift))) & mask;
}
