/**
 * `--instances dbscan`: label-agnostic clustering of the non-structure points (voxel-downsampled, then
 * DBSCAN); each cluster is a node, labelled by the majority vote of its points' mask categories when
 * masks exist.
 */
import type { PointCloud } from "../../reconstruct/pointcloud.js";
import { voxelDownsample } from "../primitives/voxelDownsample.js";
import { dbscanDetailed } from "../primitives/dbscan.js";
import { gather, type Cluster } from "./cluster.js";
import { boundsOf } from "../../core/geometry.js";
import { tallyIds } from "../../core/idTally.js";
import type { InstanceParams } from "./params.js";

/**
 * `categoryOfId` names the category a point with that instance id votes for (null: no vote); null when
 * there are no masks. Every per-point step works on typed arrays: the clusters' voxels and members are
 * grouped by a counting sort over the labels (each in ascending order), and votes are counted per id.
 */
export function dbscanInstances(
  cloud: PointCloud,
  isStructure: Uint8Array,
  p: InstanceParams,
  categoryOfId: ((id: number) => string | null) | null,
): Cluster[] {
  // null: every point (a cloud the graph pipeline built without structure, as masks say which it is)
  const idx = nonStructure(isStructure, cloud.count);
  const n = idx ? idx.length : cloud.count;
  if (n === 0) return [];
  const raw = idx ? gather(cloud.xyz, idx) : cloud.xyz.subarray(0, 3 * n);
  const ds = voxelDownsample(raw, p.voxelM);
  const { labels, clusterCount } = dbscanDetailed(ds.xyz, p.dbscanEpsM, p.dbscanMinPoints);
  const voxels = groupByLabel(labels, clusterCount, ds.count, null);
  const pointLabel = new Int32Array(n);
  const voxelOfPoint = ds.voxelOfPoint;
  for (let k = 0; k < n; k++) pointLabel[k] = labels[voxelOfPoint[k]!]!;
  const members = groupByLabel(pointLabel, clusterCount, n, idx);
  const out: Cluster[] = [];
  for (let c = 0; c < clusterCount; c++) {
    const vs = voxels.items.subarray(voxels.start[c]!, voxels.start[c + 1]!);
    if (vs.length < p.minNodeVoxels) continue;
    const xyz = gather(ds.xyz, vs);
    // a view into the grouped members, not a copy: no caller writes a cluster's members
    const m = members.items.subarray(members.start[c]!, members.start[c + 1]!);
    const votes = categoryOfId ? votesOf(m, cloud.instance, categoryOfId) : new Map<string, number>();
    const { min, max } = boundsOf(xyz);
    out.push({ xyz, members: m, votes, detections: 1, segments: [], min, max, grid: null });
  }
  return out;
}

/** The indices of the points that are not structure, or null when that is every point. */
function nonStructure(isStructure: Uint8Array, count: number): Uint32Array | null {
  let n = 0;
  for (let i = 0; i < count; i++) if (!isStructure[i]) n++;
  if (n === count) return null;
  const idx = new Uint32Array(n);
  for (let i = 0, k = 0; i < count; i++) if (!isStructure[i]) idx[k++] = i;
  return idx;
}

/**
 * Items 0..n-1 with label >= 0 (item k is `map[k]`, or k itself without a map) grouped by label with a
 * stable counting sort: group c is items[start[c]..start[c+1]), in ascending k.
 */
function groupByLabel(labels: Int32Array, groups: number, n: number, map: Uint32Array | null): { items: Uint32Array; start: Uint32Array } {
  const start = new Uint32Array(groups + 1);
  for (let k = 0; k < n; k++) if (labels[k]! >= 0) start[labels[k]! + 1]!++;
  for (let c = 0; c < groups; c++) start[c + 1]! += start[c]!;
  const items = new Uint32Array(start[groups]!);
  const next = start.slice(0, groups);
  for (let k = 0; k < n; k++) {
    const l = labels[k]!;
    if (l >= 0) items[next[l]!++] = map ? map[k]! : k;
  }
  return { items, start };
}

/**
 * The category votes of a cluster's members: counted per instance id, then summed per category, with the
 * categories in the order their first vote came (as a vote per point would insert them).
 */
function votesOf(members: Uint32Array, instance: Uint16Array, categoryOfId: (id: number) => string | null): Map<string, number> {
  const { ids, counts } = tallyIds(instance, members);
  const votes = new Map<string, number>();
  ids.forEach((id, j) => {
    const cat = categoryOfId(id);
    if (cat) votes.set(cat, (votes.get(cat) ?? 0) + counts[j]!);
  });
  return votes;
}
