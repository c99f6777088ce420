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
  const n = at ? at.length : values.length;
  for (let k = 0; k < n; k++) {
    const id = values[at ? at[k]! : k]!;
    if (counter[id]!++ === 0) ids.push(id);
  }
  const counts = ids.map((id) => counter[id]!);
  for (const id of ids) counter[id] = 0;
  return { ids, counts };
}
