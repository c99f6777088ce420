/**
 * KdTree3: a static 3D kd-tree over a Float32Array xyz cloud, in the style of kdbush (V. Agafonkin):
 * one implicit balanced tree stored as a permutation of the points (no node objects), built by
 * Floyd-Rivest selection of the median, leaves of at most `nodeSize` points. Unlike kdbush it is 3D,
 * splits each node on the widest side of its cell, and answers k-nearest-neighbour queries with a
 * bounded max-heap as well as radius queries.
 *
 * Distances are squared Euclidean in double, ((dx*dx) + dy*dy) + dz*dz, the same expression nanoflann
 * (Open3D's KDTreeFlann) evaluates, so k-NN distance lists match Open3D's bit for bit. Radius queries
 * use Open3D's convention: strictly less than r*r.
 */
import { computeBounds, pointCount } from "./bounds.js";

/**
 * Leaf size (Open3D's KDTreeFlann builds nanoflann with 15). Measured 8-64 on the 1M gen_scene cloud:
 * 32 was fastest for build, 20-NN and radius queries, though within ~20 % of 16 and 64.
 */
const KD_LEAF_SIZE = 32;

const STACK = 256;

export class KdTree3 {
  readonly count: number;
  readonly nodeSize: number;
  /** Tree position -> original point index. */
  readonly ids: Int32Array;
  /** x, y, z per tree position. */
  readonly coords: Float32Array;
  /** Split axis (0 x, 1 y, 2 z) at each internal node's median position. */
  readonly axes: Uint8Array;
  // scratch, reused across queries (a tree is not shared between threads)
  private heapD = new Float64Array(32);
  private heapI = new Int32Array(32);
  private readonly stackL = new Int32Array(STACK);
  private readonly stackR = new Int32Array(STACK);
  private readonly stackB = new Float64Array(STACK);

  constructor(xyz: Float32Array, nodeSize = KD_LEAF_SIZE) {
    const n = pointCount(xyz);
    if (!Number.isInteger(nodeSize) || nodeSize < 1) throw new RangeError(`nodeSize must be a positive integer, got ${nodeSize}`);
    this.count = n;
    this.nodeSize = nodeSize;
    this.ids = new Int32Array(n);
    for (let i = 0; i < n; i++) this.ids[i] = i;
    this.coords = xyz.slice();
    this.axes = new Uint8Array(n);
    if (n === 0) return;
    const b = computeBounds(xyz);
    const bounds = new Float64Array(6 * 128);
    bounds[0] = b.min[0];
    bounds[1] = b.min[1];
    bounds[2] = b.min[2];
    bounds[3] = b.max[0];
    bounds[4] = b.max[1];
    bounds[5] = b.max[2];
    this.build(0, n - 1, bounds, 0);
  }

  private build(left: number, right: number, bb: Float64Array, depth: number): void {
    if (right - left <= this.nodeSize) return;
    const o = 6 * depth;
    const ex = bb[o + 3]! - bb[o]!,
      ey = bb[o + 4]! - bb[o + 1]!,
      ez = bb[o + 5]! - bb[o + 2]!;
    const axis = ex >= ey ? (ex >= ez ? 0 : 2) : ey >= ez ? 1 : 2;
    const m = (left + right) >> 1;
    select(this.ids, this.coords, m, left, right, axis);
    this.axes[m] = axis;
    const split = this.coords[3 * m + axis]!;
    const c = o + 6;
    for (let t = 0; t < 6; t++) bb[c + t] = bb[o + t]!;
    bb[c + 3 + axis] = split;
    this.build(left, m - 1, bb, depth + 1);
    for (let t = 0; t < 6; t++) bb[c + t] = bb[o + t]!;
    bb[c + axis] = split;
    this.build(m + 1, right, bb, depth + 1);
  }

  /**
   * The k nearest points to (x, y, z), nearest first, written to outIdx (original indices) and outD2
   * (squared distances). Returns how many were found (min(k, count)). Ties at equal distance come in
   * an unspecified but deterministic order.
   */
  knn(x: number, y: number, z: number, k: number, outIdx?: Int32Array, outD2?: Float64Array): { count: number; indices: Int32Array; d2: Float64Array } {
    if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
    const idx = outIdx ?? new Int32Array(Math.min(k, this.count));
    const d2 = outD2 ?? new Float64Array(Math.min(k, this.count));
    const cnt = this.knnRaw(x, y, z, k);
    if (idx.length < cnt || d2.length < cnt) throw new RangeError(`knn: output arrays hold fewer than ${cnt} entries`);
    const hd = this.heapD,
      hi = this.heapI;
    sortPairsAscending(hd, hi, cnt);
    for (let t = 0; t < cnt; t++) {
      idx[t] = this.ids[hi[t]!]!;
      d2[t] = hd[t]!;
    }
    return { count: cnt, indices: idx, d2 };
  }

  /** Nearest point to (x, y, z) strictly closer than maxDist: its original index, or -1. */
  nearest(x: number, y: number, z: number, maxDist = Infinity): number {
    const r = this.nearestRaw(x, y, z, maxDist * maxDist);
    return r < 0 ? -1 : this.ids[r]!;
  }

  /** Squared distance of the point found by the last `nearest` call (Infinity if none). */
  lastNearestD2 = Infinity;

  /** Original indices of the points strictly within r of (x, y, z), appended to `out` (tree order). */
  within(x: number, y: number, z: number, r: number, out: number[] = []): number[] {
    const n = this.count;
    if (n === 0) return out;
    const r2 = r * r;
    const C = this.coords,
      A = this.axes,
      ids = this.ids,
      ns = this.nodeSize;
    const sL = this.stackL,
      sR = this.stackR;
    let sp = 0;
    sL[0] = 0;
    sR[0] = n - 1;
    sp = 1;
    while (sp > 0) {
      sp--;
      const l = sL[sp]!,
        rr = sR[sp]!;
      if (rr - l <= ns) {
        for (let i = l; i <= rr; i++) {
          const dx = x - C[3 * i]!,
            dy = y - C[3 * i + 1]!,
            dz = z - C[3 * i + 2]!;
          if (dx * dx + dy * dy + dz * dz < r2) out.push(ids[i]!);
        }
        continue;
      }
      const m = (l + rr) >> 1;
      const mx = C[3 * m]!,
        my = C[3 * m + 1]!,
        mz = C[3 * m + 2]!;
      const dx = x - mx,
        dy = y - my,
        dz = z - mz;
      if (dx * dx + dy * dy + dz * dz < r2) out.push(ids[m]!);
      const a = A[m]!;
      const diff = a === 0 ? dx : a === 1 ? dy : dz;
      if (diff - r <= 0) {
        sL[sp] = l;
        sR[sp] = m - 1;
        sp++;
      }
      if (diff + r >= 0) {
        sL[sp] = m + 1;
        sR[sp] = rr;
        sp++;
      }
    }
    return out;
  }

  /** k-NN into the internal heap (tree positions, unsorted max-heap); returns the count. */
  private knnRaw(x: number, y: number, z: number, k: number): number {
    if (k > this.heapD.length) {
      this.heapD = new Float64Array(k);
      this.heapI = new Int32Array(k);
    }
    return knnSearch(this.coords, this.axes, this.count, this.nodeSize, x, y, z, k, this.heapD, this.heapI, this.stackL, this.stackR, this.stackB);
  }

  /**
   * The bounding box of every node's points (float32, 6 per node: min x y z, max x y z), at the node's key
   * position (cellKey), built on the first nearest() call: a tree that only answers k-NN and radius queries
   * never pays for it.
   */
  private cellBounds: Float32Array | null = null;

  private boundsOfCells(): Float32Array {
    if (!this.cellBounds) {
      this.cellBounds = new Float32Array(6 * this.count);
      if (this.count > 0) fillCellBounds(this.coords, this.nodeSize, 0, this.count - 1, this.cellBounds);
    }
    return this.cellBounds;
  }

  /**
   * knnSearch's walk for k = 1, started from a bound (maxD2) and without the heap: the closest-pair loops
   * call it per point. A node is skipped when the squared distance to the bounding box of its points is not
   * below the best so far: every point in it is at least that far (the float32 bounds are its points' own
   * coordinates, and the rounded differences, squares and sums are monotone), so no skipped node holds a
   * strictly closer point, and the point found, visited in the same order, is the one a walk without the
   * boxes finds. The closest-pair queries mostly prove that nothing lies within a radius, and the boxes of a
   * dense surface's cells skip most of what a bound by the splits alone visits.
   */
  private nearestRaw(x: number, y: number, z: number, maxD2: number): number {
    const n = this.count;
    let best = -1,
      worst = maxD2;
    if (n === 0) return -1;
    const C = this.coords,
      A = this.axes,
      ns = this.nodeSize,
      B = this.boundsOfCells();
    const sL = this.stackL,
      sR = this.stackR;
    sL[0] = 0;
    sR[0] = n - 1;
    let sp = 1;
    while (sp > 0) {
      sp--;
      const l = sL[sp]!,
        r = sR[sp]!;
      const leaf = r - l <= ns;
      if (cellD2(B, leaf ? l : (l + r) >> 1, x, y, z) >= worst) continue;
      if (leaf) {
        for (let i = l; i <= r; i++) {
          const dx = x - C[3 * i]!,
            dy = y - C[3 * i + 1]!,
            dz = z - C[3 * i + 2]!;
          const d2 = dx * dx + dy * dy + dz * dz;
          if (d2 < worst) {
            worst = d2;
            best = i;
          }
        }
        continue;
      }
      const m = (l + r) >> 1;
      const dx = x - C[3 * m]!,
        dy = y - C[3 * m + 1]!,
        dz = z - C[3 * m + 2]!;
      const d2 = dx * dx + dy * dy + dz * dz;
      if (d2 < worst) {
        worst = d2;
        best = m;
      }
      const a = A[m]!;
      const diff = a === 0 ? dx : a === 1 ? dy : dz;
      // the far child first (visited last)
      if (diff < 0) {
        sL[sp] = m + 1;
        sR[sp] = r;
      } else {
        sL[sp] = l;
        sR[sp] = m - 1;
      }
      sp++;
      if (diff < 0) {
        sL[sp] = l;
        sR[sp] = m - 1;
      } else {
        sL[sp] = m + 1;
        sR[sp] = r;
      }
      sp++;
    }
    this.lastNearestD2 = best < 0 ? Infinity : worst;
    return best;
  }
}

/** Squared distance from (x, y, z) to the box of the node keyed k in B (0 inside). */
function cellD2(B: Float32Array, k: number, x: number, y: number, z: number): number {
  const o = 6 * k;
  const x0 = B[o]!,
    y0 = B[o + 1]!,
    z0 = B[o + 2]!,
    x1 = B[o + 3]!,
    y1 = B[o + 4]!,
    z1 = B[o + 5]!;
  const dx = x < x0 ? x0 - x : x > x1 ? x - x1 : 0;
  const dy = y < y0 ? y0 - y : y > y1 ? y - y1 : 0;
  const dz = z < z0 ? z0 - z : z > z1 ? z - z1 : 0;
  return dx * dx + dy * dy + dz * dz;
}

/**
 * The bounding boxes of the nodes of range [l, r] into B, each at its key: a leaf's first position, an
 * internal node's median (positions are each a leaf point or one median, so keys never collide).
 */
function fillCellBounds(C: Float32Array, ns: number, l: number, r: number, B: Float32Array): void {
  if (r - l <= ns) {
    let x0 = Infinity,
      y0 = Infinity,
      z0 = Infinity,
      x1 = -Infinity,
      y1 = -Infinity,
      z1 = -Infinity;
    for (let i = l; i <= r; i++) {
      const x = C[3 * i]!,
        y = C[3 * i + 1]!,
        z = C[3 * i + 2]!;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      if (z < z0) z0 = z;
      if (z > z1) z1 = z;
    }
    const o = 6 * l;
    B[o] = x0;
    B[o + 1] = y0;
    B[o + 2] = z0;
    B[o + 3] = x1;
    B[o + 4] = y1;
    B[o + 5] = z1;
    return;
  }
  const m = (l + r) >> 1;
  fillCellBounds(C, ns, l, m - 1, B);
  fillCellBounds(C, ns, m + 1, r, B);
  const kl = m - 1 - l <= ns ? 6 * l : 6 * ((l + m - 1) >> 1),
    kr = r - m - 1 <= ns ? 6 * (m + 1) : 6 * ((m + 1 + r) >> 1);
  const o = 6 * m;
  for (let a = 0; a < 3; a++) {
    const c = C[3 * m + a]!;
    B[o + a] = Math.min(c, B[kl + a]!, B[kr + a]!);
    B[o + 3 + a] = Math.max(c, B[kl + 3 + a]!, B[kr + 3 + a]!);
  }
}

/** k-NN search; the result is an unsorted max-heap of tree positions in heapI, squared distances in heapD. */
function knnSearch(
  C: Float32Array,
  A: Uint8Array,
  n: number,
  ns: number,
  x: number,
  y: number,
  z: number,
  k: number,
  heapD: Float64Array,
  heapI: Int32Array,
  sL: Int32Array,
  sR: Int32Array,
  sB: Float64Array,
): number {
  if (n === 0) return 0;
  let cnt = 0;
  let worst = Infinity;
  sL[0] = 0;
  sR[0] = n - 1;
  sB[0] = 0;
  let sp = 1;
  while (sp > 0) {
    sp--;
    const l = sL[sp]!,
      r = sR[sp]!,
      bnd = sB[sp]!;
    if (bnd >= worst) continue;
    if (r - l <= ns) {
      for (let i = l; i <= r; i++) {
        const dx = x - C[3 * i]!,
          dy = y - C[3 * i + 1]!,
          dz = z - C[3 * i + 2]!;
        const d2 = dx * dx + dy * dy + dz * dz;
        if (d2 < worst) {
          cnt = heapPush(heapD, heapI, cnt, k, d2, i);
          if (cnt === k) worst = heapD[0]!;
        }
      }
      continue;
    }
    const m = (l + r) >> 1;
    const dx = x - C[3 * m]!,
      dy = y - C[3 * m + 1]!,
      dz = z - C[3 * m + 2]!;
    const d2 = dx * dx + dy * dy + dz * dz;
    if (d2 < worst) {
      cnt = heapPush(heapD, heapI, cnt, k, d2, m);
      if (cnt === k) worst = heapD[0]!;
    }
    const a = A[m]!;
    const diff = a === 0 ? dx : a === 1 ? dy : dz;
    const far = diff * diff > bnd ? diff * diff : bnd;
    if (diff < 0) {
      if (m < r) {
        sL[sp] = m + 1;
        sR[sp] = r;
        sB[sp] = far;
        sp++;
      }
      if (l < m) {
        sL[sp] = l;
        sR[sp] = m - 1;
        sB[sp] = bnd;
        sp++;
      }
    } else {
      if (l < m) {
        sL[sp] = l;
        sR[sp] = m - 1;
        sB[sp] = far;
        sp++;
      }
      if (m < r) {
        sL[sp] = m + 1;
        sR[sp] = r;
        sB[sp] = bnd;
        sp++;
      }
    }
  }
  return cnt;
}

/** Bounded max-heap insert: while not full, push; when full, replace the root (caller checked d2 < root). */
function heapPush(hd: Float64Array, hi: Int32Array, cnt: number, k: number, d2: number, id: number): number {
  if (cnt < k) {
    let i = cnt;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pd = hd[p]!;
      if (pd >= d2) break;
      hd[i] = pd;
      hi[i] = hi[p]!;
      i = p;
    }
    hd[i] = d2;
    hi[i] = id;
    return cnt + 1;
  }
  let i = 0;
  for (;;) {
    let c = 2 * i + 1;
    if (c >= k) break;
    if (c + 1 < k && hd[c + 1]! > hd[c]!) c++;
    const cd = hd[c]!;
    if (cd <= d2) break;
    hd[i] = cd;
    hi[i] = hi[c]!;
    i = c;
  }
  hd[i] = d2;
  hi[i] = id;
  return cnt;
}

/** Insertion sort of the first n (d, i) pairs by d ascending (n is small: a k-NN list). */
function sortPairsAscending(d: Float64Array, idx: Int32Array, n: number): void {
  for (let a = 1; a < n; a++) {
    const v = d[a]!,
      vi = idx[a]!;
    let b = a - 1;
    while (b >= 0 && d[b]! > v) {
      d[b + 1] = d[b]!;
      idx[b + 1] = idx[b]!;
      b--;
    }
    d[b + 1] = v;
    idx[b + 1] = vi;
  }
}

/** Floyd-Rivest selection: puts the k-th smallest (along axis) at k, smaller left, larger right. */
function select(ids: Int32Array, C: Float32Array, k: number, left: number, right: number, axis: number): void {
  while (right > left) {
    if (right - left > 600) {
      const n = right - left + 1;
      const m = k - left + 1;
      const z = Math.log(n);
      const s = 0.5 * Math.exp((2 * z) / 3);
      const sd = 0.5 * Math.sqrt((z * s * (n - s)) / n) * (m - n / 2 < 0 ? -1 : 1);
      const newLeft = Math.max(left, Math.floor(k - (m * s) / n + sd));
      const newRight = Math.min(right, Math.floor(k + ((n - m) * s) / n + sd));
      select(ids, C, k, newLeft, newRight, axis);
    }
    const t = C[3 * k + axis]!;
    let i = left;
    let j = right;
    swap(ids, C, left, k);
    if (C[3 * right + axis]! > t) swap(ids, C, left, right);
    while (i < j) {
      swap(ids, C, i, j);
      i++;
      j--;
      while (C[3 * i + axis]! < t) i++;
      while (C[3 * j + axis]! > t) j--;
    }
    if (C[3 * left + axis] === t) swap(ids, C, left, j);
    else {
      j++;
      swap(ids, C, j, right);
    }
    if (j <= k) left = j + 1;
    if (k <= j) right = j - 1;
  }
}

function swap(ids: Int32Array, C: Float32Array, i: number, j: number): void {
  const t = ids[i]!;
  ids[i] = ids[j]!;
  ids[j] = t;
  const a = 3 * i,
    b = 3 * j;
  const x = C[a]!,
    y = C[a + 1]!,
    z = C[a + 2]!;
  C[a] = C[b]!;
  C[a + 1] = C[b + 1]!;
  C[a + 2] = C[b + 2]!;
  C[b] = x;
  C[b + 1] = y;
  C[b + 2] = z;
}
