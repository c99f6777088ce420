/**
 * A proto-node: the downsampled points of one object hypothesis plus the raw cloud points behind them,
 * so every node can be traced back to its pixels.
 */
import { voxelDownsample } from "../primitives/voxelDownsample.js";
import { dbscanDetailed } from "../primitives/dbscan.js";
import { VoxelHashGrid } from "../primitives/hashGrid.js";
import { StatsAccumulator, type MemberStats, type VoxelStats } from "./memberStats.js";

export interface Cluster {
  /** Downsampled points (voxel means). */
  xyz: Float32Array;
  /** Indices into the point cloud of the raw points this cluster holds. */
  members: Uint32Array;
  /** Category votes (label -> raw points). */
  votes: Map<string, number>;
  /** Sums over the raw members when composed from detections (fusion); absent: read from the members. */
  stats?: MemberStats;
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

export interface DenoiseRule {
  epsM: number;
  minPoints: number;
  /** Keep everything when the largest cluster (or the whole set) has fewer points than this. */
  minKeep: number;
}

/**
 * ConceptGraphs' denoising: the points of the largest DBSCAN cluster, as a mask; null means keep all
 * (the set is tiny, has one cluster and no noise, or its largest cluster is tiny).
 */
export function largestClusterMask(xyz: Float32Array, count: number, d: DenoiseRule): Uint8Array | null {
  if (count < d.minKeep) return null;
  const { labels, clusterCount } = dbscanDetailed(xyz, d.epsM, d.minPoints);
  if (clusterCount <= 1 && !labels.includes(-1)) return null;
  const size = new Int32Array(clusterCount);
  for (const l of labels) if (l >= 0) size[l]!++;
  let best = -1;
  for (let c = 0; c < clusterCount; c++) if (best < 0 || size[c]! > size[best]!) best = c;
  if (best < 0 || size[best]! < d.minKeep) return null;
  const keep = new Uint8Array(count);
  for (let v = 0; v < count; v++) if (labels[v] === best) keep[v] = 1;
  return keep;
}

/** Compacts voxels by a keep mask; returns the kept points and each old index's new index (-1 dropped). */
export function compactVoxels(xyz: Float32Array, count: number, keep: Uint8Array): { xyz: Float32Array; newIndex: Int32Array } {
  const newIndex = new Int32Array(count).fill(-1);
  let n = 0;
  for (let v = 0; v < count; v++) if (keep[v]) newIndex[v] = n++;
  const out = new Float32Array(n * 3);
  for (let v = 0; v < count; v++) if (keep[v]) out.set(xyz.subarray(3 * v, 3 * v + 3), 3 * newIndex[v]!);
  return { xyz: out, newIndex };
}

export interface DenoisedCluster {
  /** Downsampled points that survived denoising. */
  xyz: Float32Array;
  /** Raw cloud points that survived. */
  members: Uint32Array;
  /** For each surviving member, the index of its voxel in `xyz`. */
  memberVoxel: Int32Array;
}

/**
 * Downsamples the raw points `members` of the cloud and, when `denoise` is given, keeps only the largest
 * DBSCAN cluster (ConceptGraphs' process_pcd; the original is kept when that cluster is tiny).
 */
export function makeCluster(cloudXyz: Float32Array, members: Uint32Array, voxelM: number, denoise: DenoiseRule | null): DenoisedCluster {
  const raw = gather(cloudXyz, members);
  const ds = voxelDownsample(raw, voxelM);
  const keep = denoise ? largestClusterMask(ds.xyz, ds.count, denoise) : null;
  if (!keep) return { xyz: ds.xyz, members, memberVoxel: ds.voxelOfPoint };
  const { xyz, newIndex } = compactVoxels(ds.xyz, ds.count, keep);
  const kept = new Uint32Array(members.length),
    keptVoxel = new Int32Array(members.length);
  let k = 0;
  for (let m = 0; m < members.length; m++) {
    const v = newIndex[ds.voxelOfPoint[m]!]!;
    if (v >= 0) (kept[k] = members[m]!), (keptVoxel[k++] = v);
  }
  return { xyz, members: kept.slice(0, k), memberVoxel: keptVoxel.slice(0, k) };
}

/** A single-view detection as fusion keeps it: its denoised points and its per-voxel sums. */
export interface FusedPart extends DenoisedCluster {
  stats: VoxelStats;
}

/**
 * The final denoising of a fused node from its detections' voxels (not from its raw points again):
 * the detections' voxels are downsampled together, the largest DBSCAN cluster is kept, and raw members are
 * kept or dropped through their detection voxel -> node voxel mapping. The node's stats are summed over
 * the detections' surviving voxels, and a detection whose voxels all survive keeps its members array
 * whole, so the cost grows with the detections' voxels, not with the node's raw points.
 */
export function denoiseFused(
  parts: readonly FusedPart[],
  voxelM: number,
  denoise: DenoiseRule,
): { xyz: Float32Array; members: Uint32Array; stats: MemberStats } {
  const total = parts.reduce((s, d) => s + d.xyz.length, 0);
  const union = new Float32Array(total);
  const offsets: number[] = [];
  let o = 0;
  for (const d of parts) {
    offsets.push(o / 3);
    union.set(d.xyz, o);
    o += d.xyz.length;
  }
  const ds = voxelDownsample(union, voxelM);
  const keep = largestClusterMask(ds.xyz, ds.count, denoise) ?? new Uint8Array(ds.count).fill(1);
  const { xyz, newIndex } = compactVoxels(ds.xyz, ds.count, keep);
  const nMembers = parts.reduce((s, d) => s + d.members.length, 0);
  const members = new Uint32Array(nMembers);
  const acc = new StatsAccumulator();
  const k = keptMembers(parts, offsets, ds.voxelOfPoint, newIndex, acc, members);
  return { xyz, members: k === nMembers ? members : members.slice(0, k), stats: acc.result() };
}

/**
 * The raw members of the parts' voxels that survived denoising (`newIndex` ≥ 0), into `members` in part
 * order (returns how many), with their voxels' stats added to `acc`. A function of its own, not a loop
 * inside denoiseFused, which inlines the downsampling and DBSCAN: V8 then compiles this small loop on its
 * own instead of recompiling that large function around it.
 */
function keptMembers(
  parts: readonly FusedPart[],
  offsets: readonly number[],
  voxelOfPoint: Int32Array,
  newIndex: Int32Array,
  acc: StatsAccumulator,
  members: Uint32Array,
): number {
  let k = 0;
  for (let i = 0; i < parts.length; i++) {
    const d = parts[i]!;
    const voxels = d.xyz.length / 3;
    const alive = new Uint8Array(voxels);
    let all = true;
    for (let v = 0; v < voxels; v++) {
      if (newIndex[voxelOfPoint[offsets[i]! + v]!]! >= 0) alive[v] = 1;
      else all = false;
    }
    acc.addVoxels(d.stats, alive);
    if (all) {
      members.set(d.members, k);
      k += d.members.length;
      continue;
    }
    for (let m = 0; m < d.members.length; m++) if (alive[d.memberVoxel[m]!]) members[k++] = d.members[m]!;
  }
  return k;
}

export function clusterGrid(c: Cluster, radius: number): VoxelHashGrid {
  if (!c.grid || c.grid.cellSize < radius) c.grid = new VoxelHashGrid(c.xyz, radius);
  return c.grid;
}

export function aabbGap(a: Cluster, b: Cluster): number {
  let g = 0;
  for (let k = 0; k < 3; k++) g = Math.max(g, a.min[k]! - b.max[k]!, b.min[k]! - a.max[k]!);
  return g;
}

export function majorityLabel(votes: Map<string, number>): string | null {
  let best: string | null = null,
    n = -1;
  for (const [l, c] of [...votes.entries()].sort((x, y) => (x[0] < y[0] ? -1 : 1))) if (c > n) [best, n] = [l, c];
  return best;
}
