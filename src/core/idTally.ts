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
  // one loop per case, so neither tests `at` per element (these run over whole clouds and views)
  if (at) {
    for (let k = 0; k < at.length; k++) {
      const id = values[at[k]!]!;
      if (counter[id]!++ === 0) ids.push(id);
    }
  } else {
    for (let k = 0; k < values.length; k++) {
      const id = values[k]!;
      if (counter[id]!++ === 0) ids.push(id);
    }
  }
  const counts = ids.map((id) => counter[id]!);
  for (const id of ids) counter[id] = 0;
  return { ids, counts };
}
