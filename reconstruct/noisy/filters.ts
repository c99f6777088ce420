/**
 * Image-sized building blocks of the noise model, all on typed arrays with reusable scratch buffers:
 * Gaussian fields (white or box-correlated), depth discontinuities, dilation, box means and selection.
 */
import type { Rng } from "../../core/math/rng.js";
import type { PixelBox } from "../../core/pixelBox.js";
import { EDGE_MIN_JUMP_M, EDGE_REL_JUMP } from "./params.js";
import { NORMAL_TABLE } from "./normalTable.js";

/** Fills out[0..n) with independent standard normals (table lookup, two per 32 random bits). */
export function fillNormals(rng: Rng, out: Float32Array, n = out.length): void {
  const T = NORMAL_TABLE,
    words = NORMAL_WORDS;
  const pairs = n >> 1;
  // the random words in chunks from Rng.fillUint32: the same stream as one nextUint32 per pair
  for (let done = 0, i = 0; done < pairs; ) {
    const m = Math.min(words.length, pairs - done);
    rng.fillUint32(words, m);
    for (let k = 0; k < m; k++, i += 2) {
      const u = words[k]!;
      out[i] = T[u & 0xffff]!;
      out[i + 1] = T[u >>> 16]!;
    }
    done += m;
  }
  if (n & 1) out[n - 1] = T[rng.nextUint32() >>> 16]!;
}

/** fillNormals' chunk of random words (16 KiB: stays in L1 cache). */
const NORMAL_WORDS = new Uint32Array(4096);

/** Sum over a sliding window of `w` samples, 'valid' mode: out has n - w + 1 entries, at stride `stride`. */
function slidingSum(src: Float32Array, srcOff: number, n: number, w: number, dst: Float32Array, dstOff: number): void {
  let s = 0;
  for (let k = 0; k < w; k++) s += src[srcOff + k]!;
  dst[dstOff] = s;
  for (let x = 1; x + w <= n; x++) {
    s += src[srcOff + x + w - 1]! - src[srcOff + x - 1]!;
    dst[dstOff + x] = s;
  }
}

/**
 * Numbered scratch buffers, reused across views and calls (fresh memory is expensive to touch on these
 * machines, ~1–2.5 ms per MB). `get` gives exactly n entries, holding whatever the last user left.
 */
export class FieldScratch {
  private bufs: Float32Array[] = [];
  private bytes: Uint8Array[] = [];
  private ints: Int32Array[] = [];
  private doubles: Float64Array[] = [];
  private shorts: Uint16Array[] = [];
  get(i: number, n: number): Float32Array {
    return numbered(this.bufs, i, n, (k) => new Float32Array(k));
  }
  getBytes(i: number, n: number): Uint8Array {
    return numbered(this.bytes, i, n, (k) => new Uint8Array(k));
  }
  getInts(i: number, n: number): Int32Array {
    return numbered(this.ints, i, n, (k) => new Int32Array(k));
  }
  getDoubles(i: number, n: number): Float64Array {
    return numbered(this.doubles, i, n, (k) => new Float64Array(k));
  }
  getShorts(i: number, n: number): Uint16Array {
    return numbered(this.shorts, i, n, (k) => new Uint16Array(k));
  }
}

/** Buffer i of `list`, grown to at least n entries, as exactly n entries. */
function numbered<T extends Float32Array | Float64Array | Uint8Array | Uint16Array | Int32Array>(list: T[], i: number, n: number, make: (n: number) => T): T {
  let b = list[i];
  if (!b || b.length < n) list[i] = b = make(n);
  return b.length === n ? b : (b.subarray(0, n) as T);
}

/**
 * A W×H field of unit-variance Gaussian noise, correlated by a box filter of radius r applied twice in x
 * and in y (≈ a Gaussian of σ ≈ sqrt((w² − 1) / 6) px, w = 2r + 1). The white noise is drawn on a grid
 * padded by 2r on each side so the field is stationary up to the image border. r = 0 gives white noise.
 * `out` gets the unnormalised sums; the field at p is Math.fround(out[p] · k), k the number returned (the
 * caller scales only the pixels it reads: the same float32 the whole-image pass would have stored).
 *
 * With `box`, only the box's pixels of `out` are computed (the rest keeps stale values): the noise rows
 * below the box are not drawn (the stream stops there; the caller draws nothing more from `rng`), the row
 * sums stop at the box's right edge and the column sums run over its columns only. Every value inside is
 * the whole image's, bit for bit: each running sum starts where it always does and takes the same steps.
 * A cloud without the room's structure reads about 15 % of a view's pixels, whose box is about 39 % of it.
 */
export function correlatedField(
  rng: Rng,
  W: number,
  H: number,
  r: number,
  out: Float32Array,
  scratch: FieldScratch,
  box: PixelBox = { x0: 0, x1: W - 1, y1: H - 1 },
): number {
  const { x0, x1 } = box;
  if (r <= 0) {
    fillNormals(rng, out, normalsPrefix((box.y1 + 1) * W, W * H));
    return 1;
  }
  const w = 2 * r + 1;
  const Wp = W + 4 * r,
    Hp = H + 4 * r,
    W1 = W + 2 * r;
  // each 1-D pass pair is the triangle kernel (w - |i|), whose squared weights sum to w(2w² + 1)/3
  const norm = 1 / ((w * (2 * w * w + 1)) / 3);
  if (box.y1 < 0 || x1 < x0) return norm;
  // padded rows 0..y1 + 4r
  const rows = Math.min(Hp, box.y1 + 1 + 4 * r);
  const src = scratch.get(0, Wp * Hp);
  fillNormals(rng, src, normalsPrefix(rows * Wp, Wp * Hp));
  // rows: Wp -> W1 -> W, through one row of scratch (it stays in cache), up to column x1
  const a = scratch.get(1, W1),
    b = scratch.get(2, W * Hp);
  for (let y = 0; y < rows; y++) {
    slidingSum(src, y * Wp, x1 + 1 + 4 * r, w, a, 0);
    slidingSum(a, 0, x1 + 1 + 2 * r, w, b, y * W);
  }
  // columns, a whole row (x0..x1) at a time: rows -> rows - 2r -> rows - 4r
  const c = scratch.get(3, W * (H + 2 * r));
  colSlidingSum(b, W, x0, x1, rows, w, c);
  colSlidingSum(c, W, x0, x1, rows - 2 * r, w, out);
  return norm;
}

/**
 * How many of `total` normals to draw for the first `needed`: an even count but at the very end, because
 * fillNormals draws two per random word and an odd last one from a word of its own, so the first `needed`
 * are then those of drawing all `total`.
 */
function normalsPrefix(needed: number, total: number): number {
  return needed >= total ? total : Math.min(total, needed + (needed & 1));
}

/** Sliding sums of `w` rows down columns x0..x1 of `src` (n rows): dst gets n − w + 1 rows. */
function colSlidingSum(src: Float32Array, W: number, x0: number, x1: number, n: number, w: number, dst: Float32Array): void {
  const rows = n - w + 1;
  for (let x = x0; x <= x1; x++) dst[x] = 0;
  for (let k = 0; k < w; k++) for (let x = x0, o = k * W; x <= x1; x++) dst[x] = dst[x]! + src[o + x]!;
  for (let y = 1; y < rows; y++) {
    const o = y * W,
      prev = (y - 1) * W,
      add = (y + w - 1) * W,
      sub = (y - 1) * W;
    for (let x = x0; x <= x1; x++) dst[o + x] = dst[prev + x]! + src[add + x]! - src[sub + x]!;
  }
}

export const isValid = (d: number): boolean => d > 0 && d <= Number.MAX_VALUE;

/** Marks both pixels of every horizontal or vertical neighbour pair of valid depths that is a discontinuity. */
export function depthDiscontinuities(depth: Float32Array, W: number, H: number, out: Uint8Array): number {
  out.fill(0, 0, W * H);
  // isValid of both and the jump test, cheapest first: almost every neighbour pair is within EDGE_MIN_JUMP_M,
  // which one subtraction settles (a pair with a non-valid depth fails a test either way). Rows, then
  // columns, so no pixel tests whether it has a right or a lower neighbour: twice as fast as one pass. Each
  // pixel is counted when first marked (jumps are rare), not by a pass of its own. The thresholds are read
  // into locals once and the tests are written out in the loop: with the imported constants read through a
  // helper that tested all four, this was 1.75x slower (0.70 against 0.40 ms per view).
  const minJump = EDGE_MIN_JUMP_M,
    relJump = EDGE_REL_JUMP;
  let n = 0;
  for (let y = 0; y < H; y++) {
    const o = y * W;
    let a = depth[o]!;
    for (let p = o + 1, end = o + W; p < end; p++) {
      const b = depth[p]!;
      if (isJumpOf(a, b, minJump, relJump) && isValid(a) && isValid(b)) n += mark(out, p - 1) + mark(out, p);
      a = b;
    }
  }
  for (let p = 0, end = (H - 1) * W; p < end; p++) {
    const a = depth[p]!,
      b = depth[p + W]!;
    if (isJumpOf(a, b, minJump, relJump) && isValid(a) && isValid(b)) n += mark(out, p) + mark(out, p + W);
  }
  return n;
}

/** Sets out[p]; 1 if it was not set before. */
function mark(out: Uint8Array, p: number): number {
  if (out[p]) return 0;
  out[p] = 1;
  return 1;
}

/** Is the step between two valid depths a discontinuity (relJump of the nearer depth and minJump)? */
function isJumpOf(a: number, b: number, minJump: number, relJump: number): boolean {
  const diff = Math.abs(a - b);
  return diff > minJump && diff > relJump * Math.min(a, b);
}

/**
 * A sparse mask is dilated by stamping each set pixel's square while at most this many pixels are stamped
 * per image pixel; a denser one by the separable passes, which cost about 4 steps per pixel. Depth edges,
 * the masks dilated here, are ~0.4 % of a built-in bundle's pixels: their 5×5 stamps cost 0.1 per pixel.
 */
const DILATE_STAMP_BUDGET = 4;

/** Dilation of a 0/1 mask by a (2r+1)² square (Chebyshev distance ≤ r). */
export function dilate(mask: Uint8Array, W: number, H: number, r: number, out: Uint8Array, tmp: Uint8Array): void {
  if (r <= 0) {
    out.set(mask.subarray(0, W * H));
    return;
  }
  const n = W * H,
    side = 2 * r + 1;
  const most = Math.floor((DILATE_STAMP_BUDGET * n) / (side * side));
  const set = setPixels(mask, n, most);
  if (set.length > most) return dilateSeparable(mask, W, H, r, out, tmp);
  out.fill(0, 0, n);
  for (let k = 0; k < set.length; k++) {
    const p = set[k]!,
      x = p % W,
      y = (p - x) / W;
    const x0 = x > r ? x - r : 0,
      x1 = x + r < W ? x + r : W - 1,
      y1 = y + r < H ? y + r : H - 1;
    for (let yy = y > r ? y - r : 0; yy <= y1; yy++) for (let q = yy * W + x0, end = yy * W + x1; q <= end; q++) out[q] = 1;
  }
}

/**
 * The set pixels of mask[0, n), in order (a view of one array per thread: read it before the next call), or
 * more than `most` of them as soon as there are more than `most`. The mask is read four bytes at a time where its
 * bytes start on a word boundary, so the all-zero words of a sparse mask (nearly all of them) cost one test
 * per four pixels: depth edges and edge bands are ~0.4 % and a few per cent of a view's pixels.
 */
export function setPixels(mask: Uint8Array, n: number, most = n): Int32Array {
  const wordCount = mask.byteOffset % 4 === 0 ? n >> 2 : 0;
  const words = new Uint32Array(mask.buffer, wordCount > 0 ? mask.byteOffset : 0, wordCount);
  let m = 0;
  for (let w = 0; w < wordCount && m <= most; w++) if (words[w] !== 0) m = collectSet(mask, 4 * w, 4 * w + 4, m);
  return setIndex.subarray(0, m <= most ? collectSet(mask, 4 * wordCount, n, m) : m);
}

/** setPixels' list (one array per thread, grown as needed). */
let setIndex = new Int32Array(4096);

/** Appends the set pixels of mask[from, to) to setIndex from index m (growing it); returns the new m. */
function collectSet(mask: Uint8Array, from: number, to: number, m: number): number {
  for (let p = from; p < to; p++) {
    if (mask[p] === 0) continue;
    if (m === setIndex.length) {
      const grown = new Int32Array(2 * m);
      grown.set(setIndex);
      setIndex = grown;
    }
    setIndex[m++] = p;
  }
  return m;
}

/** dilate by passes: per row, the distance to the last set pixel forwards and backwards; then per column. */
function dilateSeparable(mask: Uint8Array, W: number, H: number, r: number, out: Uint8Array, tmp: Uint8Array): void {
  // horizontal: distance to the last set pixel, forwards and backwards
  for (let y = 0; y < H; y++) {
    const o = y * W;
    let last = -Infinity;
    for (let x = 0; x < W; x++) {
      if (mask[o + x]) last = x;
      tmp[o + x] = x - last <= r ? 1 : 0;
    }
    last = Infinity;
    for (let x = W - 1; x >= 0; x--) {
      if (mask[o + x]) last = x;
      if (last - x <= r) tmp[o + x] = 1;
    }
  }
  // vertical, the same on columns
  for (let x = 0; x < W; x++) {
    let last = -Infinity;
    for (let y = 0; y < H; y++) {
      if (tmp[y * W + x]) last = y;
      out[y * W + x] = y - last <= r ? 1 : 0;
    }
    last = Infinity;
    for (let y = H - 1; y >= 0; y--) {
      if (tmp[y * W + x]) last = y;
      if (last - y <= r) out[y * W + x] = 1;
    }
  }
}

/**
 * Mean of `src` over the (2r+1)² window clipped to the image (running sums; O(1) per pixel). The column
 * pass keeps one running sum per column and walks the image row by row (memory order); each column's sum
 * sees the same additions in the same order as a walk down that column.
 */
export function boxMean(src: Float32Array, W: number, H: number, r: number, out: Float32Array, tmp: Float32Array): void {
  const area = rowWindowWidths(W, r);
  // two rows at a time: two independent running sums keep the FPU busy (an odd last row goes with itself)
  for (let y = 0; y < H; y += 2) boxMeanRowPair(src, y * W, tmp, src, Math.min(y + 1, H - 1) * W, tmp, W, r, area);
  boxMeanColumns(tmp, W, H, r, out, new Float64Array(W));
}

/** boxMean of two images at once (the same values as two boxMean calls; `tmpA`, `tmpB` are scratch). */
function boxMeanPair(
  a: Float32Array,
  b: Float32Array,
  W: number,
  H: number,
  r: number,
  outA: Float32Array,
  outB: Float32Array,
  tmpA: Float32Array,
  tmpB: Float32Array,
): void {
  const area = rowWindowWidths(W, r);
  for (let y = 0; y < H; y++) boxMeanRowPair(a, y * W, tmpA, b, y * W, tmpB, W, r, area);
  const s = new Float64Array(W);
  boxMeanColumns(tmpA, W, H, r, outA, s);
  boxMeanColumns(tmpB, W, H, r, outB, s);
}

/** The clipped window's width at every column (the same for every row). */
function rowWindowWidths(W: number, r: number): Float64Array {
  const area = new Float64Array(W);
  for (let x = 0; x < W; x++) area[x] = Math.min(W - 1, x + r) - Math.max(0, x - r) + 1;
  return area;
}

/**
 * The row means of row `oa` of `a` into `ta` and of row `ob` of `b` into `tb`, interleaved. Each running
 * sum stores its mean, then adds the sample entering the window (x + r + 1 < W), then takes out the one
 * leaving it (x − r ≥ 0); the loops are split where those conditions change.
 */
function boxMeanRowPair(
  a: Float32Array,
  oa: number,
  ta: Float32Array,
  b: Float32Array,
  ob: number,
  tb: Float32Array,
  W: number,
  r: number,
  area: Float64Array,
): void {
  let sa = 0,
    sb = 0;
  for (let x = 0; x <= Math.min(r, W - 1); x++) {
    sa += a[oa + x]!;
    sb += b[ob + x]!;
  }
  const addEnd = Math.max(0, W - r - 1),
    subStart = Math.min(r, W);
  const lo = Math.min(addEnd, subStart),
    hi = Math.max(addEnd, subStart);
  let x = 0;
  for (; x < lo; x++) {
    ta[oa + x] = sa / area[x]!;
    tb[ob + x] = sb / area[x]!;
    sa += a[oa + x + r + 1]!;
    sb += b[ob + x + r + 1]!;
  }
  if (addEnd > subStart) {
    for (; x < hi; x++) {
      ta[oa + x] = sa / area[x]!;
      tb[ob + x] = sb / area[x]!;
      sa += a[oa + x + r + 1]!;
      sb += b[ob + x + r + 1]!;
      sa -= a[oa + x - r]!;
      sb -= b[ob + x - r]!;
    }
  } else {
    for (; x < hi; x++) {
      ta[oa + x] = sa / area[x]!;
      tb[ob + x] = sb / area[x]!;
    }
  }
  for (; x < W; x++) {
    ta[oa + x] = sa / area[x]!;
    tb[ob + x] = sb / area[x]!;
    sa -= a[oa + x - r]!;
    sb -= b[ob + x - r]!;
  }
}

function boxMeanColumns(tmp: Float32Array, W: number, H: number, r: number, out: Float32Array, s: Float64Array): void {
  s.fill(0);
  for (let y = 0; y <= Math.min(r, H - 1); y++) for (let x = 0, o = y * W; x < W; x++) s[x] = s[x]! + tmp[o + x]!;
  for (let y = 0; y < H; y++) {
    const lo = Math.max(0, y - r),
      hi = Math.min(H - 1, y + r),
      area = hi - lo + 1,
      o = y * W;
    const add = y + r + 1 < H ? (y + r + 1) * W : -1,
      sub = y - r >= 0 ? (y - r) * W : -1;
    for (let x = 0; x < W; x++) {
      let v = s[x]!;
      out[o + x] = v / area;
      if (add >= 0) v += tmp[add + x]!;
      if (sub >= 0) v -= tmp[sub + x]!;
      s[x] = v;
    }
  }
}

/** Histogram scratch of the order statistics (one per thread: the module's functions never nest). */
const HIST = new Uint32Array(65536);

/**
 * The k-th smallest (0-based) of the values in [lo, hi] of a set of arrays, lo > 0 (values outside, e.g. the
 * 0 of pixels without depth, are ignored), for one or two k at once (`ks` ascending), and how many values
 * are below each. Exact, in two passes: a histogram of the top 16 bits of the float32 bit pattern (monotone
 * for positive floats), then a sort of the bucket(s) that hold the k-th values. `ksOf` may be a function of
 * how many values lie in [lo, hi] (`total`, counted by the first pass); no k means no second pass.
 */
function orderStatistics(
  arrays: readonly Float32Array[],
  ksOf: readonly number[] | ((total: number) => readonly number[]),
  lo: number,
  hi: number,
): { values: number[]; below: number[]; total: number } {
  const hist = HIST;
  hist.fill(0);
  let total = 0;
  for (const a of arrays) {
    const bits = new Uint32Array(a.buffer, a.byteOffset, a.length);
    for (let i = 0; i < a.length; i++) {
      const x = a[i]!;
      if (x >= lo && x <= hi) {
        hist[bits[i]! >>> 16]!++;
        total++;
      }
    }
  }
  const ks = typeof ksOf === "function" ? ksOf(total) : ksOf;
  if (ks.length === 0) return { values: [], below: [], total };
  const buckets: number[] = [],
    before: number[] = [];
  let bucket = 0,
    cum = 0;
  for (const k of ks) {
    for (; bucket < 65536; bucket++) {
      if (cum + hist[bucket]! > k) break;
      cum += hist[bucket]!;
    }
    if (bucket === 65536) throw new RangeError(`kthSmallest: k = ${k} is beyond the ${cum} values`);
    buckets.push(bucket);
    before.push(cum);
  }
  // the values of the first bucket, then (if another) of the second
  const b0 = buckets[0]!,
    b1 = buckets[buckets.length - 1]!;
  const v0 = new Float32Array(hist[b0]!),
    v1 = b1 === b0 ? v0 : new Float32Array(hist[b1]!);
  let m0 = 0,
    m1 = 0;
  for (const a of arrays) {
    const bits = new Uint32Array(a.buffer, a.byteOffset, a.length);
    for (let i = 0; i < a.length; i++) {
      const x = a[i]!;
      if (!(x >= lo && x <= hi)) continue;
      const b = bits[i]! >>> 16;
      if (b === b0) v0[m0++] = x;
      else if (b === b1) v1[m1++] = x;
    }
  }
  v0.sort();
  if (v1 !== v0) v1.sort();
  const values: number[] = [],
    below: number[] = [];
  ks.forEach((k, i) => {
    const vals = buckets[i] === b0 ? v0 : v1;
    const v = vals[k - before[i]!]!;
    let first = k - before[i]!;
    while (first > 0 && vals[first - 1] === v) first--;
    values.push(v);
    below.push(before[i]! + first);
  });
  return { values, below, total };
}

/**
 * The values ≥ 1 in a set of arrays (the confidences of pixels with depth): how many there are (`total`),
 * and for k = kOf(total) (0-based; null for none) the k-th smallest and how many values are below it. One
 * histogram pass gives both, so the count needs no pass of its own.
 */
export function countAndKthAtLeastOne(
  arrays: readonly Float32Array[],
  kOf: (total: number) => number | null,
): { total: number; kth: { k: number; value: number; below: number } | null } {
  let k: number | null = null;
  const r = orderStatistics(arrays, (total) => ((k = kOf(total)) === null ? [] : [k]), 1, Infinity);
  return { total: r.total, kth: k === null ? null : { k, value: r.values[0]!, below: r.below[0]! } };
}

/**
 * The k-th smallest (0-based) valid depths (isValid) of a depth map, for each k of `ks` (ascending, one or
 * two). Every positive float32 is ≥ Number.MIN_VALUE, so [MIN_VALUE, MAX_VALUE] is exactly isValid.
 */
export function kthSmallestValid(depth: Float32Array, ks: readonly number[]): number[] {
  return orderStatistics([depth], ks, Number.MIN_VALUE, Number.MAX_VALUE).values;
}

/**
 * Absolute central-difference luma gradient (one-sided at the border): |∂x| + |∂y| in grey levels per
 * pixel. `luma` gets the Rec. 601 luma of `rgb`; `out` the gradient. Shared by the confidence's texture
 * cue and the textureless component.
 */
export function lumaGradient(rgb: Uint8Array, W: number, H: number, luma: Float32Array, out: Float32Array): void {
  for (let p = 0, o = 0; p < W * H; p++, o += 3) luma[p] = 0.299 * rgb[o]! + 0.587 * rgb[o + 1]! + 0.114 * rgb[o + 2]!;
  for (let y = 0; y < H; y++) {
    const up = y > 0 ? -W : 0,
      down = y + 1 < H ? W : 0,
      ky = up && down ? 0.5 : 1;
    const o = y * W;
    // the border columns one-sided (weight 1), the others central (weight 1/2): the same sums as a test
    // per pixel, in a loop without one
    if (W === 1) {
      out[o] = Math.abs(luma[o]! - luma[o]!) + ky * Math.abs(luma[o + down]! - luma[o + up]!);
      continue;
    }
    out[o] = Math.abs(luma[o + 1]! - luma[o]!) + ky * Math.abs(luma[o + down]! - luma[o + up]!);
    for (let p = o + 1, end = o + W - 1; p < end; p++) out[p] = 0.5 * Math.abs(luma[p + 1]! - luma[p - 1]!) + ky * Math.abs(luma[p + down]! - luma[p + up]!);
    const last = o + W - 1;
    out[last] = Math.abs(luma[last]! - luma[last - 1]!) + ky * Math.abs(luma[last + down]! - luma[last + up]!);
  }
}

/**
 * Distance (px, 3-4 chamfer metric divided by 3: exact along rows and columns, within 6 % on diagonals;
 * Borgefors 1986) from every pixel to the nearest pixel with `mask` set. Pixels with no set pixel in the
 * image get W + H. `scratch` (W·H entries) holds the metric while it is built.
 */
export function chamferDistance(mask: Uint8Array, W: number, H: number, out: Float32Array, scratch: Int32Array = new Int32Array(W * H)): void {
  // every distance is a whole number of thirds at most 3 (W + H), so integers give the same values a
  // float32 map did (its sums were exact below 2^24) with integer minima
  for (let y = 0; y < H; y++) chamferRowForward(mask, scratch, W, y, 3 * (W + H));
  for (let y = H - 1; y >= 0; y--) chamferRowBackward(scratch, out, W, H, y);
}

const imin = (a: number, b: number): number => (a < b ? a : b);

/** The forward pass of the chamfer metric over row y (neighbours left and above), from the mask. */
function chamferRowForward(mask: Uint8Array, m: Int32Array, W: number, y: number, far: number): void {
  const o = y * W;
  if (y === 0) {
    let left = (m[0] = mask[0] ? 0 : far);
    for (let x = 1; x < W; x++) m[x] = left = mask[x] ? 0 : imin(far, left + 3);
    return;
  }
  // x = 0 has no left or upper-left neighbour, x = W − 1 no upper-right one
  let left = mask[o] ? 0 : imin(far, m[o - W]! + 3);
  if (W > 1) left = imin(left, m[o - W + 1]! + 4);
  m[o] = left;
  // the row above first: only the last minimum waits for the pixel to the left
  for (let x = 1, p = o + 1; x < W; x++, p++) {
    let v = mask[p] ? 0 : imin(far, m[p - W]! + 3);
    v = imin(v, m[p - W - 1]! + 4);
    if (x + 1 < W) v = imin(v, m[p - W + 1]! + 4);
    m[p] = left = imin(v, left + 3);
  }
}

/** The backward pass over row y (neighbours right and below), writing the row's final distances to `out`. */
function chamferRowBackward(m: Int32Array, out: Float32Array, W: number, H: number, y: number): void {
  const o = y * W,
    last = o + W - 1,
    cap = W + H;
  let right = m[last]!;
  if (y < H - 1) {
    right = imin(right, m[last + W]! + 3);
    if (W > 1) right = imin(right, m[last + W - 1]! + 4);
  }
  m[last] = right;
  out[last] = Math.min(right / 3, cap);
  for (let p = last - 1; p >= o; p--) {
    let v = m[p]!;
    if (y < H - 1) {
      v = imin(v, m[p + W]! + 3);
      v = imin(v, m[p + W + 1]! + 4);
      if (p > o) v = imin(v, m[p + W - 1]! + 4);
    }
    m[p] = right = imin(v, right + 3);
    out[p] = Math.min(right / 3, cap);
  }
}

/**
 * Mean of the valid depths of `depth` over a (2r+1)² window, applied twice (≈ a Gaussian of σ ≈ r/√1.5),
 * clipped to the image; pixels without valid depth get 0 and do not count.
 */
export function validDepthSmooth(depth: Float32Array, W: number, H: number, r: number, out: Float32Array, scratch: FieldScratch): void {
  const n = W * H;
  const val = scratch.get(10, n),
    cnt = scratch.get(11, n),
    mv = scratch.get(12, n),
    mc = scratch.get(13, n),
    tmp = scratch.get(14, n),
    tmp2 = scratch.get(15, n);
  for (let p = 0; p < n; p++) {
    const ok = isValid(depth[p]!);
    val[p] = ok ? depth[p]! : 0;
    cnt[p] = ok ? 1 : 0;
  }
  boxMeanPair(val, cnt, W, H, r, mv, mc, tmp, tmp2);
  for (let p = 0; p < n; p++) {
    val[p] = mc[p]! > 0 ? mv[p]! / mc[p]! : 0;
    cnt[p] = mc[p]! > 0 ? 1 : 0;
  }
  // the second pass straight into `out` (the same division, stored as float32 once, as val was)
  boxMeanPair(val, cnt, W, H, r, mv, mc, tmp, tmp2);
  for (let p = 0; p < n; p++) out[p] = isValid(depth[p]!) && mc[p]! > 0 ? mv[p]! / mc[p]! : 0;
}

/** Cubic B-spline weights of the four control points around fractional position t ∈ [0, 1). */
function bspline(t: number, w: Float64Array): void {
  const t2 = t * t,
    t3 = t2 * t;
  w[0] = (1 - 3 * t + 3 * t2 - t3) / 6;
  w[1] = (4 - 6 * t2 + 3 * t3) / 6;
  w[2] = (1 + 3 * t + 3 * t2 - 3 * t3) / 6;
  w[3] = t3 / 6;
}

/**
 * A smooth random field over a W×H image: a cubic B-spline through a grid of independent standard
 * normals, `cells` cells across the width (square cells), then shifted to mean 0 and scaled to RMS 1 over
 * the image, so that an amplitude times this field has exactly that RMS and changes no overall scale.
 * Draws (cells + 3) × (rows + 3) normals from `rng`, rows = ceil(cells·H/W). `out` gets the spline values;
 * the unit field is their `scaled` value by the FieldScale returned (only the pixels read are scaled).
 */
export function smoothUnitField(rng: Rng, W: number, H: number, cells: number, out: Float32Array): FieldScale {
  const c = Math.max(1, Math.round(cells));
  const rows = Math.max(1, Math.ceil((c * H) / W));
  const gw = c + 3,
    gh = rows + 3;
  const g = new Float64Array(gw * gh);
  for (let k = 0; k < g.length; k++) g[k] = rng.normal();
  const cell = W / c;
  const wx = new Float64Array(4),
    wy = new Float64Array(4);
  const colW = new Float64Array(4 * W),
    colI = new Int32Array(W);
  for (let x = 0; x < W; x++) {
    const u = (x + 0.5) / cell,
      i = Math.min(c - 1, Math.floor(u));
    bspline(u - i, wx);
    colI[x] = i;
    for (let k = 0; k < 4; k++) colW[4 * x + k] = wx[k]!;
  }
  // separable: the x-interpolation of every grid row at every column, once (the same products and sums,
  // in the same order, as interpolating per pixel)
  const hx = new Float64Array(gh * W);
  for (let r = 0; r < gh; r++) {
    for (let x = 0; x < W; x++) {
      const row = r * gw + colI[x]!;
      hx[r * W + x] = colW[4 * x]! * g[row]! + colW[4 * x + 1]! * g[row + 1]! + colW[4 * x + 2]! * g[row + 2]! + colW[4 * x + 3]! * g[row + 3]!;
    }
  }
  let sum = 0,
    sum2 = 0;
  for (let y = 0; y < H; y++) {
    const v = (y + 0.5) / cell,
      j = Math.min(rows - 1, Math.floor(v));
    bspline(v - j, wy);
    const w0 = wy[0]!,
      w1 = wy[1]!,
      w2 = wy[2]!,
      w3 = wy[3]!;
    const h0 = j * W,
      h1 = h0 + W,
      h2 = h1 + W,
      h3 = h2 + W;
    for (let x = 0, p = y * W; x < W; x++, p++) {
      let f = 0;
      f += w0 * hx[h0 + x]!;
      f += w1 * hx[h1 + x]!;
      f += w2 * hx[h2 + x]!;
      f += w3 * hx[h3 + x]!;
      out[p] = f;
      sum += f;
      sum2 += f * f;
    }
  }
  const n = W * H,
    mean = sum / n,
    sd = Math.sqrt(Math.max(1e-30, sum2 / n - mean * mean));
  return { mean, sd };
}

/**
 * Gives a zero-mean unit-RMS field heavier tails, in place: f ← sign(f)·|f|^power, then back to mean 0 and
 * RMS 1. `field` holds stored values under `scale` (see FieldScale), and so it does after, under the scale
 * returned. power 1 leaves it Gaussian; 3 puts ~4.5 % of a Gaussian field's pixels beyond twice the RMS
 * (a Gaussian has 4.6 % beyond 2σ but its mean |f| is 0.80, against 0.41 here: most pixels err little,
 * a few regions err a lot).
 */
export function heavyTail(field: Float32Array, scale: FieldScale, power: number): FieldScale {
  if (power === 1) return scale;
  const n = field.length;
  let sum = 0,
    sum2 = 0;
  if (power === 3) {
    // a float32's square is exact in a double, so f*f*f rounds the exact cube once: the correctly rounded
    // |f|^3. V8's Math.pow(f, 3) is one ulp off that for ~10 % of float32 inputs (checked exactly with
    // BigInt, never closer) and costs ~100 ns a call; test/reconstruct/noisyFilters.test.ts has both checks
    for (let p = 0; p < n; p++) {
      const f = scaled(field[p]!, scale),
        h = f * f * f;
      field[p] = h;
      sum += h;
      sum2 += h * h;
    }
  } else
    for (let p = 0; p < n; p++) {
      const f = scaled(field[p]!, scale),
        h = Math.sign(f) * Math.pow(Math.abs(f), power);
      field[p] = h;
      sum += h;
      sum2 += h * h;
    }
  const mean = sum / n,
    sd = Math.sqrt(Math.max(1e-30, sum2 / n - mean * mean));
  return { mean, sd };
}

/**
 * How a stored field becomes the zero-mean unit-RMS one: value = fround((stored − mean) / sd), exactly the
 * float32 a pass over the whole image would have stored, computed only where a caller reads it.
 */
export interface FieldScale {
  mean: number;
  sd: number;
}

/** The unit-field value of a stored one (see FieldScale). */
export function scaled(stored: number, s: FieldScale): number {
  return Math.fround((stored - s.mean) / s.sd);
}
