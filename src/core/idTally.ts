/**
 * Counts of 16-bit instance ids (the bundles' id images, PointCloud.instance) in one typed counter per
 * thread instead of a Map update per pixel or point, the ids in order of first appearance as a Map would
 * insert them (callers sum floats in that order, so it must not change).
 */
const counter = new Uint32Array(65536);

export interface IdTally {
  /** the ids seen, in order of first appearance */
  ids: number[];
  /** counts[j]: how often ids[j] was seen */
  counts: number[];
}

/** The ids of `values` (at the positions `at`, or every position), counted. */
export function tallyIds(values: ArrayLike<number>, at?: ArrayLike<number>): IdTally {
  const ids: number[] = [];
  // one loop function per case, so neither tests `at` per element (these run over whole clouds and views);
  // functions of their own: with the loops here, V8 compiled them on the stack before the code after them
  // had ever run and discarded that code there on every later call (docs/design.md: hot loops and the JIT)
  if (at) countAt(values, at, ids);
  else countAll(values, ids);
  const counts = ids.map((id) => counter[id]!);
  for (const id of ids) counter[id] = 0;
  return { ids, counts };
}

function countAt(values: ArrayLike<number>, at: ArrayLike<number>, ids: number[]): void {
  for (let k = 0; k < at.length; k++) {
    const id = values[at[k]!]!;
    if (counter[id]!++ === 0) ids.push(id);
  }
}

function countAll(values: ArrayLike<number>, ids: number[]): void {
  for (let k = 0; k < values.length; k++) {
    const id = values[k]!;
    if (counter[id]!++ === 0) ids.push(id);
  }
}
