/**
 * Thinning the displayed cloud to a point budget, so a 30-view page stays small and interactive.
 *
 * Clouds within DISPLAY_POINT_BUDGET are shown whole. Larger ones are voxel-thinned: one representative
 * point (the first in cloud order, so it keeps its own colour, confidence, view and node) per cell of a
 * voxel grid, separately for each node inside a cell, so that a small node next to another never
 * disappears into its neighbour's voxel. The voxel size starts at DISPLAY_VOXEL_START_M and grows until
 * the result fits: surfaces dominate a room-scale cloud, so the count falls like 1/size², and the next
 * size is predicted from that with a small margin (two or three passes in practice).
 *
 * Only what is drawn is thinned: node membership, counts, PLY/GLB exports and the graph itself use the
 * full cloud.
 */
import { voxelDownsample } from "../../../scenegraph/primitives/voxelDownsample.js";
import type { DownsampleInfo } from "./types.js";

/**
 * Points drawn at most. Measured (docs/viewer.md): 300 k points are ~4 MB of page data (14 bytes each
 * with quantised positions) and draw at interactive rates even on Chromium's software WebGL
 * (SwiftShader), while a 30-view GT-depth cloud can hold 1.7 M points.
 */
const DISPLAY_POINT_BUDGET = 300_000;
/** First voxel size tried (m): 4 mm keeps the shape of the smallest library objects (2.5 cm across). */
const DISPLAY_VOXEL_START_M = 0.004;
/** Margin on the predicted voxel size, so the next pass usually fits without a third. */
const DISPLAY_VOXEL_MARGIN = 1.05;
/** Give up growing after this many passes (the last result is used even if above budget; never in practice). */
const DISPLAY_MAX_PASSES = 12;

export interface DisplaySample {
  /** Indices into the cloud of the points drawn, ascending. */
  indices: Uint32Array;
  info: DownsampleInfo;
}

/** One representative per (voxel, node) cell; at most two nodes per voxel (a third in one voxel is dropped). */
function representatives(voxelOfPoint: Int32Array, voxels: number, nodeOf: Uint16Array): Uint32Array {
  const first = new Int32Array(voxels).fill(-1),
    second = new Int32Array(voxels).fill(-1);
  let count = 0;
  for (let i = 0; i < voxelOfPoint.length; i++) {
    const v = voxelOfPoint[i]!;
    const f = first[v]!;
    if (f < 0) {
      first[v] = i;
      count++;
    } else if (nodeOf[f] !== nodeOf[i] && second[v]! < 0) {
      second[v] = i;
      count++;
    }
  }
  const out = new Uint32Array(count);
  let k = 0;
  for (let v = 0; v < voxels; v++) {
    if (first[v]! >= 0) out[k++] = first[v]!;
    if (second[v]! >= 0) out[k++] = second[v]!;
  }
  return out.sort();
}

/**
 * The points to draw. `nodeOf[i]` is 1 + the node of point i (0 = none): cells are kept per node so every
 * node stays visible.
 */
export function displaySample(xyz: Float32Array, nodeOf: Uint16Array, budget = DISPLAY_POINT_BUDGET): DisplaySample {
  const total = nodeOf.length;
  if (total <= budget) {
    const indices = new Uint32Array(total);
    for (let i = 0; i < total; i++) indices[i] = i;
    return { indices, info: { total, shown: total, method: "all", voxel_m: null, budget } };
  }
  let size = DISPLAY_VOXEL_START_M;
  let picked: Uint32Array = new Uint32Array(0);
  for (let pass = 0; pass < DISPLAY_MAX_PASSES; pass++) {
    const v = voxelDownsample(xyz, size);
    picked = representatives(v.voxelOfPoint, v.count, nodeOf);
    if (picked.length <= budget) break;
    size *= Math.sqrt(picked.length / budget) * DISPLAY_VOXEL_MARGIN;
  }
  return { indices: picked, info: { total, shown: picked.length, method: "voxel", voxel_m: Math.round(size * 1e5) / 1e5, budget } };
}
