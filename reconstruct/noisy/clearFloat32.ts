/** Rounding a double to a float32 when every double near it rounds the same way: the warp's cheap cosine relies on it. */

/**
 * 2^-47 (relative): the cheap quotient and the defined cosine differ by under 10 double ulps (2^-49.7: each
 * hypot about 2.5 ulps, each sum of three positive squares about 2, the square root halving, four more
 * roundings), and a float32 ulp is 2^-23, so the definition is evaluated for about one cosine in 2^22.
 */
const COS32_MARGIN = 2 ** -47;

/**
 * fround(c) when every double within COS32_MARGIN (relative) of c rounds to the same float32, NaN otherwise:
 * rounding is monotone, so the two ends of that interval settle it.
 */
export function clearFloat32(c: number): number {
  const f = Math.fround(c);
  return Math.fround(c * (1 - COS32_MARGIN)) === f && Math.fround(c * (1 + COS32_MARGIN)) === f ? f : NaN;
}
