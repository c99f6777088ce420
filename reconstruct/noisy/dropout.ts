/**
 * The `dropout` component's choice of pixels: the lowest `fraction` of all pixels with depth by their
 * float32 confidence c = fround(1 + exp(L)) (ties: the first in point order) lose their depth. The choice is
 * made on each pixel's log-confidence L (confidence.ts viewLogConfidence), so exp runs only for pixels near
 * the cut, and the cloud takes it only for the points it keeps: over a run that is a third of the pixels
 * or fewer (structure is left out, and a quarter to a half are dropped), where every pixel used to pay it.
 *
 * Exactly the pixels of a selection over every c, by these steps:
 * 1. the k-th smallest L, by a histogram of L over LOG_BUCKETS equal buckets (its bucket index is non-decreasing
 *    in L) and a sort of the one bucket that holds it; the cut is its confidence, `threshold`;
 * 2. every pixel is classed below, tied with or above the cut: by L alone outside [lowL, highL], bounds
 *    taken from the cut's float32 rounding interval with margins for exp's and log's rounding errors (so a
 *    pixel below lowL has c < threshold whatever exp's last bit), and by c itself inside;
 * 3. the classes prove the cut (at most k pixels below it, more than k at or below it: the definition of
 *    the k-th smallest c); should exp's last bits ever order two pixels against their L, the proof fails,
 *    and the caller makes the depths again and chooses over every c (`dropOverConfidences`): exact either way.
 */
import { confidenceOfLog } from "./confidence.js";
import { countAndKthAtLeastOne } from "./filters.js";

/**
 * The histogram of L (step 1): LOG_BUCKETS equal buckets over [LOG_LOW, LOG_HIGH), values outside in the
 * end buckets, so a bucket's index is non-decreasing in L. A fixed range lets each view's L be counted
 * right after it is made, while it is still in cache. Indoors L lies within about ±8 (CONF_LOG_BASE and the
 * jitter's ±4.3σ table, less the penalties and 0.15 per metre of depth): a bucket holds a few hundred of a
 * bundle's pixels; depths beyond ~80 m share the lowest, which only costs a larger sort there.
 * Each pixel's bucket is kept (16 bits, NO_BUCKET without depth): the later passes read a quarter of the
 * bytes of L and settle most pixels by bucket alone.
 */
const LOG_BUCKETS = 65535,
  LOG_LOW = -16,
  LOG_HIGH = 16;
const LOG_SCALE = LOG_BUCKETS / (LOG_HIGH - LOG_LOW);
/** The bucket of a pixel without depth (NaN L): above every bucket of a finite L. */
const NO_BUCKET = LOG_BUCKETS;

/** The top bucket (L ≥ LOG_HIGH, and the last sliver below it). */
const TOP_BUCKET = LOG_BUCKETS - 1;
/**
 * The bucket of an L that is finite or −∞: 0 below LOG_LOW, TOP_BUCKET from there on at the top, else
 * ⌊(L − LOG_LOW)·LOG_SCALE⌋. One scaled value settles all three cases (x < 0 exactly when L < LOG_LOW, and
 * x ≥ LOG_BUCKETS from LOG_HIGH on, as LOG_SCALE is exact), and `| 0` is the floor of an x in [0, TOP_BUCKET):
 * the same buckets as three comparisons, a Math.min and a Math.floor, in 0.43 instead of 0.57 ms per view.
 */
const bucketOf = (L: number): number => {
  const x = (L - LOG_LOW) * LOG_SCALE;
  return x < 0 ? 0 : x >= TOP_BUCKET ? TOP_BUCKET : x | 0;
};

/** The histogram of the log-confidences of a bundle's views, added view by view, with each pixel's bucket. */
export class LogConfidenceHistogram {
  readonly counts = new Uint32Array(LOG_BUCKETS);
  /** Per view added: each pixel's bucket (NO_BUCKET without depth). */
  readonly bucketMaps: Uint16Array[] = [];
  /** Pixels with depth (a finite L). */
  total = 0;

  /** Counts a view's L; `buckets` (as long as `logs`) receives each pixel's bucket. */
  add(logs: Float64Array, buckets: Uint16Array = new Uint16Array(logs.length)): void {
    if (buckets.length !== logs.length) throw new RangeError(`LogConfidenceHistogram.add: ${buckets.length} buckets for ${logs.length} pixels`);
    this.total += countInto(logs, this.counts, buckets);
    this.bucketMaps.push(buckets);
  }
}

/**
 * Counts each finite L into its bucket and records the bucket per pixel; returns how many. A loop function
 * of its own: inside `add`, V8 compiled the loop on the stack before the store after it had ever run, and
 * left that code at the store on every later call (docs/design.md: hot loops and the JIT).
 */
function countInto(logs: Float64Array, counts: Uint32Array, buckets: Uint16Array): number {
  let n = 0;
  for (let q = 0; q < logs.length; q++) {
    const L = logs[q]!;
    if (L !== L) {
      buckets[q] = NO_BUCKET;
      continue;
    }
    const b = bucketOf(L);
    buckets[q] = b;
    counts[b]!++;
    n++;
  }
  return n;
}

/** The cut: `dropped` pixels (the K = round(fraction · total) lowest) go, at or below `threshold`. */
export interface DropoutCut {
  dropped: number;
  /** The K-th smallest confidence (a float32 value). */
  threshold: number;
}

/** How pixels compare with the cut: by L below lowL and above highL, by their confidence in between. */
interface Classes {
  threshold: number;
  lowL: number;
  highL: number;
}

/**
 * Drops the pixels of the cut: depth[i][q] ← 0 for the chosen pixels of view i, `logs[i]` being its L per
 * pixel (NaN without depth) and `histogram` theirs. Returns the cut (null when K is 0: nothing dropped), or
 * "unproven" when step 3's proof failed: the depths are then half done, and the caller makes them again and
 * calls dropOverConfidences.
 */
export function applyDropout(
  logs: readonly Float64Array[],
  histogram: LogConfidenceHistogram,
  depths: readonly Float32Array[],
  fraction: number,
): DropoutCut | null | "unproven" {
  const K = Math.round(fraction * histogram.total);
  if (K === 0) return null;
  const k = K - 1;
  const classes = classesOf(Math.fround(confidenceOfLog(kthSmallestLog(logs, histogram, k))));
  const { below, ties } = dropBelow(logs, histogram.bucketMaps, depths, classes);
  // the proof of step 3: at most k pixels below the cut, more than k at or below it
  if (!(below <= k && k < below + ties.length / 2)) return "unproven";
  // the first K − below tied pixels in point order
  for (let t = 0; t < 2 * (K - below); t += 2) depths[ties[t]!]![ties[t + 1]!] = 0;
  return { dropped: K, threshold: classes.threshold };
}

/** The same cut as applyDropout, chosen over every pixel's float32 confidence (its fallback). */
export function dropOverConfidences(logs: readonly Float64Array[], depths: readonly Float32Array[], fraction: number): DropoutCut | null {
  const conf = logs.map((a) => Float32Array.from(a, (L) => (L === L ? confidenceOfLog(L) : 0)));
  const { kth } = countAndKthAtLeastOne(conf, (n) => {
    const K = Math.round(fraction * n);
    return K > 0 ? K - 1 : null;
  });
  if (!kth) return null;
  let ties = kth.k + 1 - kth.below;
  conf.forEach((c, i) => {
    const d = depths[i]!;
    for (let q = 0; q < c.length; q++) {
      const x = c[q]!;
      if (x < 1 || x > kth.value || (x === kth.value && ties-- <= 0)) continue;
      d[q] = 0;
    }
  });
  return { dropped: kth.k + 1, threshold: kth.value };
}

/** The k-th smallest (0-based) finite L (step 1): its bucket by the histogram, then a sort of the bucket. */
function kthSmallestLog(logs: readonly Float64Array[], histogram: LogConfidenceHistogram, k: number): number {
  const hist = histogram.counts;
  let b = 0,
    before = 0;
  while (before + hist[b]! <= k) before += hist[b++]!;
  const members = new Float64Array(hist[b]!);
  let m = 0;
  for (let i = 0; i < logs.length; i++) m = collectBucket(logs[i]!, histogram.bucketMaps[i]!, b, members, m);
  return members.sort()[k - before]!;
}

/** Appends the L of a view's pixels in bucket `b` to `members` from index m; returns the new m. */
function collectBucket(logs: Float64Array, buckets: Uint16Array, b: number, members: Float64Array, m: number): number {
  for (let q = 0; q < buckets.length; q++) if (buckets[q] === b) members[m++] = logs[q]!;
  return m;
}

/** 2^-52, the spacing of doubles in [1, 2). */
const DOUBLE_EPSILON = 2 ** -52;
/**
 * Margin on L (natural log units) for the rounding of Math.log and Math.exp: each is within an ulp, and at
 * |L| < 745 an ulp of a log is below 1.2e-13; a margin of 1e-12 leaves room for both.
 */
const LOG_MARGIN = 1e-12;

const F32 = new Float32Array(1);
const F32_BITS = new Uint32Array(F32.buffer);
/** The float32 next to a positive finite float32 x, below (-1) or above (+1). */
function float32Step(x: number, step: -1 | 1): number {
  F32[0] = x;
  F32_BITS[0] = F32_BITS[0]! + step;
  return F32[0]!;
}

/**
 * The classes of a cut at confidence `threshold` (a float32). 1 + exp(L) rounds to a float32 below it when
 * it is below the midpoint m to the float32 under it; exp's and the sum's rounding move it by at most 2 ulps
 * of m, so exp(L) ≤ m − 1 − 4ε·m is enough, and that holds for every L < log(m − 1 − 4ε·m) − LOG_MARGIN.
 * The same above the cut, mirrored.
 */
function classesOf(threshold: number): Classes {
  const mLow = (float32Step(threshold, -1) + threshold) / 2,
    mHigh = (threshold + float32Step(threshold, 1)) / 2;
  const low = mLow - 1 - 4 * DOUBLE_EPSILON * mLow,
    high = mHigh - 1 + 4 * DOUBLE_EPSILON * mHigh;
  return { threshold, lowL: low > 0 ? Math.log(low) - LOG_MARGIN : -Infinity, highL: Math.log(high) + LOG_MARGIN };
}

/**
 * Sets the depth of the pixels below the cut to 0 (step 2) and lists those tied with it, as (view, pixel)
 * pairs in point order. A bucket below lowL's holds only L < lowL and one above highL's only L > highL (the
 * bucket index is non-decreasing in L), so L is read only in the buckets from lowL's to highL's.
 */
function dropBelow(
  logs: readonly Float64Array[],
  bucketMaps: readonly Uint16Array[],
  depths: readonly Float32Array[],
  c: Classes,
): { below: number; ties: number[] } {
  const bLow = bucketOf(c.lowL),
    bHigh = bucketOf(c.highL);
  const ties: number[] = [];
  let below = 0;
  // a plain loop, not a callback: V8 compiled a callback's loop anew for every call (19 times in a 12-unit run)
  for (let i = 0; i < logs.length; i++) below += dropViewBelow(logs[i]!, bucketMaps[i]!, depths[i]!, i, bLow, bHigh, c.lowL, c.highL, c.threshold, ties);
  return { below, ties };
}

/**
 * dropBelow over view i; returns the pixels dropped. A loop function of its own that returns a number: ending
 * in a property store, V8 compiled its loop on the stack before that store had ever run, and discarded the
 * code there on every later call (docs/design.md: hot loops and the JIT).
 *
 * Outside the buckets [bLow, bHigh] the loop has no branch: which pixels fall below the cut is as random as
 * their jitter, so a branch on it was mispredicted about every fourth pixel. `off >>> 31` is 1 for a bucket
 * below bLow (off < 0) and 0 above bHigh, and depth × (1 − that) is 0 or the depth itself (× 1 changes no
 * value; a pixel without depth is in NO_BUCKET, above the cut). 0.55 → 0.33 ms per view in isolation.
 */
function dropViewBelow(
  a: Float64Array,
  buckets: Uint16Array,
  d: Float32Array,
  i: number,
  bLow: number,
  bHigh: number,
  lowL: number,
  highL: number,
  threshold: number,
  ties: number[],
): number {
  let below = 0;
  const span = bHigh - bLow;
  for (let q = 0; q < buckets.length; q++) {
    const off = buckets[q]! - bLow;
    if (off >>> 0 > span) {
      const under = off >>> 31;
      d[q] = d[q]! * (1 - under);
      below += under;
      continue;
    }
    const L = a[q]!;
    if (L < lowL) {
      d[q] = 0;
      below++;
    } else if (L <= highL) {
      const x = Math.fround(confidenceOfLog(L));
      if (x < threshold) {
        d[q] = 0;
        below++;
      } else if (x === threshold) ties.push(i, q);
    }
  }
  return below;
}
