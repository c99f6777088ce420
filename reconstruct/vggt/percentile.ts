/** numpy's percentile (method "linear") and the selection it rests on. */

/** k-th smallest (0-based) of a[lo..hi] in place (Hoare quickselect, median-of-three pivot). */
export function select(a: Float32Array | Float64Array, k: number): number {
  let lo = 0,
    hi = a.length - 1;
  while (hi > lo) {
    const mid = (lo + hi) >> 1;
    // median of three to the middle
    if (a[mid]! < a[lo]!) swap(a, mid, lo);
    if (a[hi]! < a[lo]!) swap(a, hi, lo);
    if (a[hi]! < a[mid]!) swap(a, hi, mid);
    const pivot = a[mid]!;
    let i = lo,
      j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        swap(a, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k]!;
  }
  return a[k]!;
}
function swap(a: Float32Array | Float64Array, i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}

/**
 * `np.percentile(values, p)` with numpy's default linear interpolation: index (n−1)·(p/100) into the sorted
 * values, then numpy's `_lerp` (a + d·t, or b − d·(1−t) when t ≥ 0.5), with d = b − a rounded to float32 as
 * numpy does for float32 input (checked against numpy 1.24 on random float32 data). Values must be finite.
 * O(n) by selection; `values` is not modified.
 */
export function percentileLinear(values: Float32Array, p: number): number {
  const n = values.length;
  if (n === 0) throw new Error("percentile of an empty set");
  if (!(p >= 0 && p <= 100)) throw new Error(`percentile ${p} outside [0, 100]`);
  const a = values.slice();
  const v = (n - 1) * (p / 100);
  if (v >= n - 1) return select(a, n - 1);
  const lo = Math.floor(v);
  const A = select(a, lo);
  // After selection everything right of `lo` is ≥ A: the next order statistic is their minimum.
  let B = Infinity;
  for (let i = lo + 1; i < n; i++) if (a[i]! < B) B = a[i]!;
  const t = v - lo;
  const d = Math.fround(B - A);
  return t >= 0.5 ? B - d * (1 - t) : A + d * t;
}
