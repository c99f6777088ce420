/** The table of standard-normal values the noise model draws its Gaussian samples from (fillNormals). */

/** Inverse of the standard normal CDF (Acklam's rational approximation, relative error < 1.2e-9). */
function normalQuantile(p: number): number {
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  if (p > 1 - lo) return -normalQuantile(1 - p);
  const q = p - 0.5,
    r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

/** Bits of uniform randomness per Gaussian sample drawn by `fillNormals`: two samples per Rng.nextUint32(). */
const NORMAL_TABLE_BITS = 16;

/**
 * 2^16 equiprobable standard-normal values (the quantiles at the bin centres, rescaled to variance exactly
 * 1): a sample is one table entry chosen by 16 random bits. Tails are cut at ≈ 4.3σ (probability 3e-5
 * beyond), which is immaterial for noise fields; it makes drawing millions of samples per view cheap.
 */
export const NORMAL_TABLE: Float32Array = (() => {
  const n = 1 << NORMAL_TABLE_BITS;
  const t = new Float64Array(n);
  let ss = 0;
  for (let i = 0; i < n; i++) {
    t[i] = normalQuantile((i + 0.5) / n);
    ss += t[i]! * t[i]!;
  }
  const k = 1 / Math.sqrt(ss / n);
  return Float32Array.from(t, (v) => v * k);
})();
