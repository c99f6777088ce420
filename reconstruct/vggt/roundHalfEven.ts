/** Python's round() for the sizes VGGT's loader computes. */

/** Python's round(): round half to even (differs from Math.round on exact .5). */
export function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f; // exact for |x| < 2^52
  if (d < 0.5) return f;
  if (d > 0.5) return f + 1;
  return f % 2 === 0 ? f : f + 1;
}
