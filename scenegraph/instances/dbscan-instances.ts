/**
 * `--instances dbscan`: label-agnostic clustering of the non-structure points (voxel-downsampled, then
 * DBSCAN); each cluster is a node, labelled by the majority vote of its points' mask categories when
 * masks exist.
 */
import type { PointCloud } from "../../reconstruct/pointcloud.js";
import { voxelDownsample } from "../primitives/voxelDownsample.js";
import { dbscanDetailed } from "../primitives/dbscan.js";
import { gather, type Cluster } from "./cluster.js";
import { boundsOf } from "../../src/core/geometry.js";
import type { InstanceParams } from "./params.js";

export function dbscanInstances(cloud: PointCloud, isStructure: Uint8Array, p: InstanceParams, categoryOfPoint: ((i: number) => string | null) | null): Cluster[] {
  const idx: number[] = [];
  for (let i = 0; i < cloud.count; i++) if (!isStructure[i]) idx.push(i);
  if (idx.length === 0) return [];
  const raw = gather(cloud.xyz, idx);
  const ds = voxelDownsample(raw, p.voxelM);
  const { labels, clusterCount } = dbscanDetailed(ds.xyz, p.dbscanEpsM, p.dbscanMinPoints);
  const voxelsOf: number[][] = Array.from({ length: clusterCount }, () => []);
  for (let v = 0; v < ds.count; v++) if (labels[v]! >= 0) voxelsOf[labels[v]!]!.push(v);
  const membersOf: number[][] = Array.from({ length: clusterCount }, () => []);
  for (let k = 0; k < idx.length; k++) {
    const l = labels[ds.voxelOfPoint[k]!]!;
    if (l >= 0) membersOf[l]!.push(idx[k]!);
  }
  const out: Cluster[] = [];
  for (let c = 0; c < clusterCount; c++) {
    const xyz = new Float32Array(voxelsOf[c]!.length * 3);
    voxelsOf[c]!.forEach((v, k) => xyz.set(ds.xyz.subarray(3 * v, 3 * v + 3), 3 * k));
    const members = Uint32Array.from(membersOf[c]!);
    const votes = new Map<string, number>();
    for (const i of members) {
      const cat = categoryOfPoint ? categoryOfPoint(i) : null;
      if (cat) votes.set(cat, (votes.get(cat) ?? 0) + 1);
    }
    const { min, max } = boundsOf(xyz);
    out.push({ xyz, members, votes, detections: 1, segments: [], min, max, grid: null });
  }
  return out.filter((c) => c.xyz.length / 3 >= p.minNodeVoxels);
}
