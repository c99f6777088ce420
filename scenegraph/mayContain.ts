/**
 * `flags.may_contain` (issue 46): a container whose inside no view has shown may hold something the graph
 * cannot see. A container is a node whose label is an open container (its `interior`, core/objects/
 * containers.ts) or a node a lid-labelled node rests on. Its inside counts as seen when points (of any node:
 * its own inner floor and walls, or what lies in it) cover at least SEEN_INSIDE_MIN_COVERAGE of its interior's
 * footprint cells below the rim. A closed lid's points lie above the rim, and a container seen only from the
 * side shows its outer walls, which lie outside the interior's footprint: both leave it `may_contain`.
 */
import { FUSION_VOXEL_M } from "./instances/params.js";
import { lidOf } from "./manipulation.js";
import type { GraphNode } from "./types.js";

/** Ours: half the interior's footprint seen from above is a look inside (a few contents hide the rest of its floor). */
const SEEN_INSIDE_MIN_COVERAGE = 0.5;
/**
 * The footprint cells' size, and how far inside the rim and the walls a point must lie to be inside (m): one
 * fusion voxel (a node's points are voxel means, so a wall's points may stand that far from the wall).
 */
const CELL_M = FUSION_VOXEL_M;

/** Whether a node is a container: an open container's label, or a lid resting on it. */
function isContainer(nodes: readonly GraphNode[], n: GraphNode): boolean {
  return n.interior !== undefined || lidOf(nodes, n) !== null;
}

/**
 * Sets `flags.may_contain` on every container node (true until its inside is seen) and clears it on the
 * others. `points[k]`: node k's points (voxel means).
 */
export function markMayContain(nodes: GraphNode[], points: readonly Float32Array[]): void {
  for (const n of nodes) delete n.flags.may_contain;
  for (const n of nodes) if (isContainer(nodes, n)) n.flags.may_contain = insideCoverage(n, nodes, points) < SEEN_INSIDE_MIN_COVERAGE;
}

/** The share of the container's interior footprint cells that hold a point below its rim. */
function insideCoverage(n: GraphNode, nodes: readonly GraphNode[], points: readonly Float32Array[]): number {
  const extent = n.interior?.extent ?? n.box.extent;
  // the clear footprint, one cell in from the walls; the interior's height down from the rim
  const halfA = extent[0] / 2 - CELL_M,
    halfB = extent[1] / 2 - CELL_M;
  // a footprint too thin to hold a cell: the views showed a face of it, not its inside
  if (halfA <= 0 || halfB <= 0) return 0;
  const rim = n.aabb.max[2];
  const zHi = rim - CELL_M,
    zLo = rim - extent[2] - CELL_M;
  const cos = Math.cos(n.box.yaw),
    sin = Math.sin(n.box.yaw);
  const [cx, cy] = n.box.centre;
  const cellsA = Math.max(1, Math.ceil((2 * halfA) / CELL_M)),
    cellsB = Math.max(1, Math.ceil((2 * halfB) / CELL_M));
  const seen = new Uint8Array(cellsA * cellsB);
  nodes.forEach((m, k) => {
    if (m.aabb.max[2] < zLo || m.aabb.min[2] > zHi) return;
    const xyz = points[k]!;
    for (let i = 0; i < xyz.length; i += 3) {
      const z = xyz[i + 2]!;
      if (z < zLo || z > zHi) continue;
      const dx = xyz[i]! - cx,
        dy = xyz[i + 1]! - cy;
      const a = dx * cos + dy * sin,
        b = -dx * sin + dy * cos;
      if (Math.abs(a) > halfA || Math.abs(b) > halfB) continue;
      const ia = Math.min(cellsA - 1, Math.floor((a + halfA) / CELL_M)),
        ib = Math.min(cellsB - 1, Math.floor((b + halfB) / CELL_M));
      seen[ia * cellsB + ib] = 1;
    }
  });
  return seen.reduce((s, v) => s + v, 0) / seen.length;
}
