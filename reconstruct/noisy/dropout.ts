/**
 * Dropout without the exponential of every pixel. The cloud drops the K points of lowest confidence
 * c = fround(1 + exp(L)) (ties: the first in point order) and keeps c for the rest; most pixels are dropped
 * or left out of the cloud (excluded ids), so their c is never read, if we can tell which side of the
 * threshold they fall on from L alone.
 *
 * Pixels are put in buckets of L, BUCKET_WIDTH wide (monotone in L). Let j be the bucket of the K-th
 * smallest L. Exact c is computed for buckets j − 1 .. j + 1 (the band) only; a pixel p below the band has
 * c_p below the threshold, one above it has c_p above it. Proof for below (above is the mirror): every pixel q
 * in a bucket ≥ j has L_q ≥ L_p + BUCKET_WIDTH − 2^-47 and, by the guard, L_q ≥ EXACT_GUARD_LOG; for such
 * pairs c_p < c_q (below); at least N − K + 1 pixels lie in buckets ≥ j, so at most K − 1 have c ≤ c_p and
 * c_p is below the K-th smallest. Hence the threshold is the (K − below)-th smallest c of the band, and
 * only band pixels can tie with it.
 *
 * Why c_p < c_q: 1 + e^L grows by a factor of at least 1 + 5.2e-6 over BUCKET_WIDTH when the upper end is
 * at least EXACT_GUARD_LOG (e^-8 · (1 − e^-1/64)); the float32 store moves each value by at most 2^-24 of
 * itself, so the two floats differ as long as Math.exp is within 1e-12 of e^L, relatively. V8's Math.exp
 * (fdlibm's e_exp.c) is documented to err by less than 1 ulp (2^-52); nothing here needs it monotone.
 * test/reconstruct/noisy-dropout.test.ts checks the ordering on a dense grid of L and against the plain
 * ranking of every pixel.
 */
import { kthSmallestAtLeastOne } from "./filters.js";
import { confidenceOf } from "./confidence.js";

/** Width of a log-confidence bucket (a power of two, so the bucket index is one rounding from L). */
export const BUCKET_WIDTH = 1 / 64;
/** Lowest L with a bucket of its own; lower ones share the first bucket (L ≥ −7 on built-in scenes). */
const BUCKETS_FROM_LOG = -16;
/** Buckets: L up to 16 (higher ones share the last; L ≤ 3 + 3σ of jitter ≈ 6 on built-in scenes). */
const BUCKET_COUNT = 32 / BUCKET_WIDTH;
/**
 * The band's lower edge must be at least this L for the proof above (where 1 + e^L flattens towards 1
 * buckets stop ordering float32 confidences); below it every pixel is ranked by its exact confidence.
 */
export const EXACT_GUARD_LOG = -8;

/** The bucket of L (not NaN): monotone in L, as one rounding (the subtraction) and a truncation are. */
function bucketOf(L: number): number {
  const t = (L - BUCKETS_FROM_LOG) / BUCKET_WIDTH;
  return t < 0 ? 0 : t >= BUCKET_COUNT ? BUCKET_COUNT - 1 : t | 0;
}

/** Bucket of a pixel without depth (in no band, never dropped). */
const NO_DEPTH_BUCKET = 0xffff;

/** The log-confidence buckets of a whole cloud build: one map per view, and their histogram. */
export class LogBuckets {
  readonly hist = new Uint32Array(BUCKET_COUNT);
  readonly maps: Uint16Array[] = [];
  /** Buckets one view's log-confidence map into `out` (a reused buffer is fine) and counts them. */
  add(L: Float64Array, out: Uint16Array): void {
    const hist = this.hist;
    for (let q = 0; q < L.length; q++) {
      const x = L[q]!;
      if (x === x) hist[(out[q] = bucketOf(x))]!++;
      else out[q] = NO_DEPTH_BUCKET;
    }
    this.maps.push(out);
  }
}

/** Where dropout cuts: buckets below `lo` are dropped, above `hi` kept, the band's pixels by their confidence. */
export interface DropoutCut {
  lo: number;
  hi: number;
  /** The K-th smallest confidence (float32). */
  threshold: number;
  /** Pixels of confidence `threshold` to drop too (the first in point order). */
  ties: number;
}

/** The cut that drops the K (≥ 1) lowest confidences of the log-confidence maps `logMaps` (NaN: no depth, not ranked), bucketed in `buckets`. */
export function dropoutCut(logMaps: readonly Float64Array[], buckets: LogBuckets, K: number): DropoutCut {
  const hist = buckets.hist;
  let j = 0, before = 0;
  for (; j < BUCKET_COUNT && before + hist[j]! < K; j++) before += hist[j]!;
  if (j === BUCKET_COUNT) throw new RangeError(`dropoutCut: K = ${K} is beyond the ${before} pixels with depth`);
  const exact = BUCKETS_FROM_LOG + j * BUCKET_WIDTH < EXACT_GUARD_LOG;
  const lo = exact ? 0 : j - 1, hi = exact ? BUCKET_COUNT - 1 : j + 1;
  let below = 0, inBand = 0;
  for (let b = 0; b <= Math.min(hi, BUCKET_COUNT - 1); b++) {
    if (b < lo) below += hist[b]!;
    else inBand += hist[b]!;
  }
  const band = new Float32Array(inBand);
  let m = 0;
  logMaps.forEach((L, i) => {
    const B = buckets.maps[i]!;
    for (let q = 0; q < B.length; q++) {
      const b = B[q]!;
      if (b >= lo && b <= hi) band[m++] = confidenceOf(L[q]!);
    }
  });
  const { value, below: bandBelow } = kthSmallestAtLeastOne([band], K - 1 - below);
  return { lo, hi, threshold: value, ties: K - below - bandBelow };
}

/**
 * Drops one view's pixels under the cut (depth 0), views in point order; returns the ties still to drop
 * after it (start with cut.ties). `B`: the view's bucket map, `L` its log-confidence.
 */
export function applyDropoutCut(L: Float64Array, B: Uint16Array, depth: Float32Array, cut: DropoutCut, ties: number): number {
  const { lo, hi, threshold } = cut;
  for (let q = 0; q < B.length; q++) {
    const b = B[q]!;
    if (b > hi) continue;
    if (b >= lo) {
      const c = confidenceOf(L[q]!);
      if (c > threshold) continue;
      if (c === threshold) {
        if (ties <= 0) continue;
        ties--;
      }
    }
    depth[q] = 0;
  }
  return ties;
}
