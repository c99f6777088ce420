/** Node attributes and evidence flags, from instance clusters. */
import type { Vec3 } from "../core/math/vec.js";
import { nameColor } from "../core/task/palette.js";
import type { PointCloud } from "../reconstruct/pointcloud.js";
import { aabb, yawBox } from "./primitives/boxes.js";
import type { Cluster } from "./instances/cluster.js";
import { majorityLabel } from "./instances/cluster.js";
import { statsOfMembers } from "./instances/memberStats.js";
import type { GraphNode, NodeSupport } from "./types.js";
import { boxVolume, type YawBox } from "../core/geometry.js";
import { interiorOf } from "../core/objects/containers.js";
import { nodePhysics } from "./physicalAttributes.js";

/** `low_support`: a node seen in a single view with fewer raw points than this (our choice: ~a 20x20 px mask). */
export const LOW_SUPPORT_MAX_POINTS = 400;
/** `possible_duplicate_of`: same-label nodes whose boxes overlap or come within this distance (m). */
export const DUPLICATE_NEAR_M = 0.05;
/** `fragment`: a node with at most this fraction of the points of a same-label node next to it. */
export const FRAGMENT_MAX_SHARE = 0.25;
/** Label of nodes without mask evidence (`--masks none`). */
const ANONYMOUS_LABEL = "object";

const r4 = (x: number) => Math.round(x * 10000) / 10000;
const rv = (v: readonly number[]) => v.map(r4) as Vec3;

/**
 * The mean of x,y,z triples: a node's centroid, and graphFromClusters' order of nodes. A loop function of
 * its own (docs/design.md: hot loops and the JIT): inside a callback made per call, V8 compiled it anew on
 * every call.
 */
export function meanPoint(xyz: Float32Array): [number, number, number] {
  let x = 0,
    y = 0,
    z = 0;
  const n = xyz.length / 3;
  for (let i = 0; i < n; i++) (x += xyz[3 * i]!), (y += xyz[3 * i + 1]!), (z += xyz[3 * i + 2]!);
  return [x / n, y / n, z / n];
}

/** The label of the node a cluster makes: its votes' majority ("object" without votes). */
export function nodeLabel(votes: Map<string, number>): string {
  return majorityLabel(votes) ?? ANONYMOUS_LABEL;
}

/** `centroid`: meanPoint(c.xyz), when the caller has it already (graphFromClusters orders the nodes by it). */
export function clusterToNode(c: Cluster, id: string, cloud: PointCloud, centroid: readonly number[] = meanPoint(c.xyz)): GraphNode {
  const n = c.xyz.length / 3;
  const box = yawBox(c.xyz);
  const bb = aabb(c.xyz);
  // the sums over raw points: composed from the detections for fused nodes, else read point by point
  const stats = c.stats ?? statsOfMembers(cloud, c.members);
  const conf = stats.confidence;
  const rgbSum = stats.rgb;
  const perView = new Map<number, NodeSupport>([...stats.views].map(([v, s]) => [v, { view: v, points: s.points, bbox: [...s.bbox] }]));
  const totalVotes = [...c.votes.values()].reduce((a, b) => a + b, 0);
  const dist: Record<string, number> = {};
  for (const [l, v] of [...c.votes.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)))
    dist[l] = Math.round((v / (totalVotes || 1)) * 1000) / 1000;
  const color = rgbSum.map((v) => Math.round(v / Math.max(1, c.members.length))) as [number, number, number];
  const boxJson: YawBox = { centre: rv(box.centre), extent: rv(box.extent), yaw: r4(box.yaw) };
  const label = nodeLabel(c.votes);
  const bounds = { min: rv(bb.min), max: rv(bb.max) };
  return {
    id,
    label,
    label_distribution: dist,
    centroid: rv(centroid),
    color,
    color_name: nameColor(color),
    box: boxJson,
    aabb: bounds,
    volume_m3: Math.round(boxVolume(box) * 1e6) / 1e6,
    ...nodeInterior(label, boxJson.extent),
    point_count: n,
    raw_point_count: c.members.length,
    views: [...perView.keys()].sort((a, b) => a - b),
    detections: c.detections,
    mean_confidence: Math.round((conf / Math.max(1, c.members.length)) * 1000) / 1000,
    flags: { low_support: false, possible_duplicate_of: [], fragment: false },
    support: [...perView.values()].sort((a, b) => a.view - b.view),
    physics: nodePhysics(c.xyz, boxJson, bounds),
  };
}

/** The `interior` field of a node labelled `label` with box extent `extent`: the label's wall model applied to the box (absent for a label that is no open container). */
export function nodeInterior(label: string, extent: readonly number[]): { interior?: { extent: Vec3; volume_m3: number } } {
  const i = interiorOf(label, extent);
  return i ? { interior: { extent: rv(i.extent), volume_m3: Math.round(i.volume_m3 * 1e7) / 1e7 } } : {};
}

function aabbGapM(a: GraphNode, b: GraphNode): number {
  let g = 0;
  for (let k = 0; k < 3; k++) g = Math.max(g, a.aabb.min[k]! - b.aabb.max[k]!, b.aabb.min[k]! - a.aabb.max[k]!);
  return g;
}

/** Evidence flags: the uncertainty-aware part of the graph that the paper asks for. */
export function computeFlags(nodes: GraphNode[]): void {
  for (const a of nodes) {
    a.flags.low_support = a.views.length <= 1 && a.raw_point_count < LOW_SUPPORT_MAX_POINTS;
    a.flags.possible_duplicate_of = [];
    a.flags.fragment = false;
    for (const b of nodes) {
      if (a === b || a.label !== b.label || a.label === ANONYMOUS_LABEL) continue;
      if (aabbGapM(a, b) > DUPLICATE_NEAR_M) continue;
      a.flags.possible_duplicate_of.push(b.id);
      if (a.raw_point_count <= FRAGMENT_MAX_SHARE * b.raw_point_count) a.flags.fragment = true;
    }
  }
}
