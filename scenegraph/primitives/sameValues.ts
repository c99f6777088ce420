/** Whether two typed arrays hold the same values (the content check of the caches keyed by content). */
export function sameValues(a: Uint16Array | Uint32Array, b: Uint16Array | Uint32Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
