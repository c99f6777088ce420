/** Typed arrays joined end to end into one new array (a node's points or members and those merged into it). */

export function concatFloat32(parts: readonly Float32Array[]): Float32Array {
  return fill(new Float32Array(totalLength(parts)), parts);
}

export function concatUint32(parts: readonly Uint32Array[]): Uint32Array {
  return fill(new Uint32Array(totalLength(parts)), parts);
}

const totalLength = (parts: readonly ArrayLike<number>[]) => parts.reduce((n, a) => n + a.length, 0);

function fill<T extends { set(a: ArrayLike<number>, offset: number): void }>(out: T, parts: readonly ArrayLike<number>[]): T {
  let o = 0;
  for (const a of parts) out.set(a, o), (o += a.length);
  return out;
}
