/**
 * Math.hypot(a, b, c), the same number bit for bit, without the engine's call overhead: V8's builtin copies
 * its arguments into a fresh array on every call, and the renderer's shading and the noise model's warp
 * normals call it per pixel. The steps are V8's (the largest magnitude; the squares of the magnitudes scaled
 * by it, summed in argument order with Kahan compensation; the square root, scaled back); infinities and NaN
 * go to Math.hypot itself. test/core/hypot.test.ts checks it against Math.hypot.
 */
export function hypot3(a: number, b: number, c: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  c = Math.abs(c);
  let max = a;
  if (b > max) max = b;
  if (c > max) max = c;
  if (!(max < Infinity) || a !== a || b !== b || c !== c) return Math.hypot(a, b, c);
  if (max === 0) return 0;
  let n = a / max;
  let summand = n * n;
  let sum = summand;
  let comp = sum - summand;
  n = b / max;
  summand = n * n - comp;
  let next = sum + summand;
  comp = next - sum - summand;
  sum = next;
  n = c / max;
  summand = n * n - comp;
  next = sum + summand;
  return Math.sqrt(next) * max;
}
