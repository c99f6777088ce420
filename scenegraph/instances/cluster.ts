/**
 * A proto-node: the downsampled points of one object hypothesis plus the raw cloud points behind them,
 * so every node can be traced back to its pixels.
 */
import { voxelDownsample } from "../primitives/voxelDownsample.js";
import { dbscanDetailed } from "../primitives/dbscan.js";
import { VoxelHashGrid } from "../primitives/hashGrid.js";

export interface Cluster {
  /** Downsampled points (voxel means). */
  xyz: Float32Array;
  /** Indices into the point cloud of the raw points this cluster holds. */
  members: Uint32Array;
  /** Category votes (label -> raw points). */
  votes: Map<string, number>;
  /** View index -> raw points from that view. */
  views: Map<number, number>;
  /** Number of 2D detections merged into it. */
  detections: number;
  /** Segments (evidence keys) merged into it. */
  segments: number[];
  min: [number, number, number];
  max: [number, number, number];
  grid: VoxelHashGrid | null;
}

export function gather(xyz: Float32Array, idx: ArrayLike<number>): Float32Array {
  const out = new Float32Array(idx.length * 3);
  for (let k = 0; k < idx.length; k++) {
    const i = idx[k]!;
    out[3 * k] = xyz[3 * i]!;
    out[3 * k + 1] = xyz[3 * i + 1]!;
    out[3 * k + 2] = xyz[3 * i + 2]!;
  }
  return out;
}

export function boundsOf(p: Float32Array): { min: [number, number, number]; max: [number, number, number] } {
  const min: [number, number, number] = [Infinity, Infinity, Infinity], max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < p.length; i += 3)
    for (let a = 0; a < 3; a++) {
      const v = p[i + a]!;
      if (v < min[a]!) min[a] = v;
      if (v > max[a]!) max[a] = v;
    }
  return { min, max };
}

/**
 * Downsamples the raw points `members` of the cloud and, when `denoise` is given, keeps only the largest
 * DBSCAN cluster (ConceptGraphs' process_pcd; the original is kept when that cluster is tiny).
 */
export function makeCluster(cloudXyz: Float32Array, members: Uint32Array, voxelM: number, denoise: { epsM: number; minPoints: number; minKeep: number } | null): { xyz: Float32Array; members: Uint32Array } {
  const raw = gather(cloudXyz, members);
  const ds = voxelDownsample(raw, voxelM);
  if (!denoise || ds.count < denoise.minKeep) return { xyz: ds.xyz, members };
  const { labels, clusterCount } = dbscanDetailed(ds.xyz, denoise.epsM, denoise.minPoints);
  if (clusterCount <= 1 && !labels.includes(-1)) return { xyz: ds.xyz, members };
  const size = new Int32Array(clusterCount);
  for (const l of labels) if (l >= 0) size[l]!++;
  let best = -1;
  for (let c = 0; c < clusterCount; c++) if (best < 0 || size[c]! > size[best]!) best = c;
  if (best < 0 || size[best]! < denoise.minKeep) return { xyz: ds.xyz, members };
  const keepVoxel = new Uint8Array(ds.count);
  let n = 0;
  for (let v = 0; v < ds.count; v++) if (labels[v] === best) (keepVoxel[v] = 1), n++;
  const xyz = new Float32Array(n * 3);
  for (let v = 0, k = 0; v < ds.count; v++) if (keepVoxel[v]) xyz.set(ds.xyz.subarray(3 * v, 3 * v + 3), 3 * k++);
  const kept: number[] = [];
  for (let m = 0; m < members.length; m++) if (keepVoxel[ds.voxelOfPoint[m]!]) kept.push(members[m]!);
  return { xyz, members: Uint32Array.from(kept) };
}

export function clusterGrid(c: Cluster, radius: number): VoxelHashGrid {
  if (!c.grid || c.grid.cellSize < radius) c.grid = new VoxelHashGrid(c.xyz, radius);
  return c.grid;
}

/** Fraction of `a`'s points with a point of `b` within `radius` (ConceptGraphs' overlap ratio). */
export function overlapRatio(a: Float32Array, bGrid: VoxelHashGrid, radius: number): number {
  const n = a.length / 3;
  if (n === 0) return 0;
  let hit = 0;
  for (let i = 0; i < n; i++) if (bGrid.anyWithin(a[3 * i]!, a[3 * i + 1]!, a[3 * i + 2]!, radius)) hit++;
  return hit / n;
}

export function aabbGap(a: Cluster, b: Cluster): number {
  let g = 0;
  for (let k = 0; k < 3; k++) g = Math.max(g, a.min[k]! - b.max[k]!, b.min[k]! - a.max[k]!);
  return g;
}

export function majorityLabel(votes: Map<string, number>): string | null {
  let best: string | null = null, n = -1;
  for (const [l, c] of [...votes.entries()].sort((x, y) => (x[0] < y[0] ? -1 : 1))) if (c > n) [best, n] = [l, c];
  return best;
}
