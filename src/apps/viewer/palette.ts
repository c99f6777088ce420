/**
 * Colours shared by the page (src/apps/viewer/client) and the exports (PLY/GLB), so a node has the same colour
 * everywhere. Plain data, no imports: the browser bundle includes this file as is.
 */

/** Node status colours: green = right, orange = duplicate, purple = merged, red = hallucinated, brown = stale (where a moved object was), silver-blue = mirror ghost (a reflection). */
const STATUS_COLORS: Record<string, [number, number, number]> = {
  matched: [46, 204, 113],
  duplicate: [255, 159, 26],
  merged: [155, 89, 182],
  hallucinated: [231, 76, 60],
  stale: [141, 110, 99],
  mirror_ghost: [120, 170, 210],
};
/** True objects no node recovered (missed-lost, missed-unseen): magenta, unlike any status colour. */
export const MISSED_COLOR: [number, number, number] = [255, 64, 200];
/** A mirror's rectangle (the graph's `mirrors`): pale cyan, a glass's colour, unlike any status colour. */
export const MIRROR_COLOR: [number, number, number] = [180, 235, 245];
/** True boxes of objects that were recovered: a light grey wireframe, under the predicted boxes. */
export const TRUTH_COLOR: [number, number, number] = [200, 200, 210];
/** Points in no node (exports and the "by node" colouring). */
export const UNASSIGNED_COLOR: [number, number, number] = [120, 120, 128];

/**
 * Per-node colours by node index, cycling: Tableau 20's saturated half, chosen so neighbouring indices
 * (nodes are ordered by position, so neighbours in space) differ in hue.
 */
const NODE_PALETTE: Array<[number, number, number]> = [
  [31, 119, 180],
  [255, 127, 14],
  [44, 160, 44],
  [214, 39, 40],
  [148, 103, 189],
  [140, 86, 75],
  [227, 119, 194],
  [188, 189, 34],
  [23, 190, 207],
  [174, 199, 232],
  [255, 187, 120],
  [152, 223, 138],
  [255, 152, 150],
  [197, 176, 213],
  [196, 156, 148],
  [247, 182, 210],
  [219, 219, 141],
  [158, 218, 229],
];

export function nodeColor(index: number): [number, number, number] {
  return NODE_PALETTE[index % NODE_PALETTE.length]!;
}

export function statusColor(status: string): [number, number, number] {
  return STATUS_COLORS[status] ?? UNASSIGNED_COLOR;
}
