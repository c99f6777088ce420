/**
 * Point cloud + frame bundle -> scene graph (`esi3d graph`). Honours the evidence modes (--masks) and the
 * instance builders (--instances fusion|dbscan).
 */
import type { FrameBundle } from "../core/bundle/io.js";
import { bundleViewpoint } from "../core/bundle/viewpoint.js";
import { stageTimer } from "../core/stageTimer.js";
import type { PointCloud } from "../reconstruct/pointcloud.js";
import { InputError } from "../core/errors.js";
import { structureIdsOf, type Evidence } from "./evidence.js";
import { labelledEvidence } from "./appearance.js";
import type { LabelMode, MaskMode } from "./options.js";
import { DEFAULT_INSTANCE_PARAMS, type InstanceParams } from "./instances/params.js";
import { fuseDetections } from "./instances/fusion.js";
import { dbscanInstances } from "./instances/dbscanInstances.js";
import type { Cluster } from "./instances/cluster.js";
import { voxelDownsample } from "./primitives/voxelDownsample.js";
import { segmentStructure, STRUCTURE_FLOOR, STRUCTURE_WALL } from "./primitives/structure.js";
import { clusterToNode, computeFlags, meanPoint } from "./nodes.js";
import { markMayContain } from "./mayContain.js";
import { markMirrors } from "./mirrors.js";
import { computeRelations } from "./relations.js";
import { GRAPH_FORMAT, GRAPH_FRAME, type GraphNode, type SceneGraph } from "./types.js";
import type { InstanceMode } from "./options.js";

export interface GraphOptions {
  masks: MaskMode;
  instances: InstanceMode;
  params?: Partial<InstanceParams>;
  /** label evidence of the masks (appearance.ts); default oracle */
  labels?: LabelMode;
  labelSeed?: string;
}

export interface GraphResult {
  graph: SceneGraph;
  /** Raw cloud point indices of each node, in graph.nodes order. */
  members: Uint32Array[];
}

/** Which points are room structure: from the masks (`structureIds`), or found geometrically with `--masks none`. */
function structureMask(cloud: PointCloud, mode: MaskMode, structureIds: ReadonlySet<number>): { isStructure: Uint8Array; floor: number; wall: number } {
  const isStructure = new Uint8Array(cloud.count);
  let floor = 0,
    wall = 0;
  if (mode === "none") {
    const labels = segmentStructure(cloud.xyz).mask;
    for (let i = 0; i < cloud.count; i++) {
      if (labels[i] === STRUCTURE_FLOOR) floor++;
      else if (labels[i] === STRUCTURE_WALL) wall++;
      isStructure[i] = labels[i]! > 0 ? 1 : 0;
    }
  } else {
    // id -> 1 floor, 2 wall, as a table (a Set lookup per point is the slow part)
    const kind = new Uint8Array(65536);
    for (const id of structureIds) kind[id] = cloud.categories.get(id) === "floor" ? 1 : 2;
    const instance = cloud.instance;
    for (let i = 0; i < cloud.count; i++) {
      const k = kind[instance[i]!]!;
      if (k === 0) continue;
      isStructure[i] = 1;
      if (k === 1) floor++;
      else wall++;
    }
  }
  return { isStructure, floor, wall };
}

/** At most this many raw points per node are kept for refined closest distances (evenly strided). */
const MAX_FINE_POINTS = 20_000;

function finePoints(cloud: PointCloud, members: Uint32Array): Float32Array {
  const stride = Math.max(1, Math.ceil(members.length / MAX_FINE_POINTS));
  const n = Math.ceil(members.length / stride);
  const out = new Float32Array(n * 3);
  for (let k = 0, m = 0; m < members.length; k++, m += stride) {
    const i = members[m]!;
    out[3 * k] = cloud.xyz[3 * i]!;
    out[3 * k + 1] = cloud.xyz[3 * i + 1]!;
    out[3 * k + 2] = cloud.xyz[3 * i + 2]!;
  }
  return out;
}

export function buildSceneGraph(cloud: PointCloud, bundle: Pick<FrameBundle, "manifest" | "views">, opts: GraphOptions): GraphResult {
  const p: InstanceParams = { ...DEFAULT_INSTANCE_PARAMS, ...opts.params };
  const { timings, lap } = stageTimer(1);
  if (opts.instances === "fusion" && opts.masks === "none")
    throw new InputError("instances: fusion needs masks (it fuses 2D mask fragments); with masks none use dbscan", { field: "instances" });
  // the 2D segments are fusion's input; dbscan clusters the points and needs only which ids are structure
  const ev = opts.instances === "fusion" ? labelledEvidence(bundle, opts.masks, opts.labels ?? "oracle", opts.labelSeed ?? "0") : null;
  lap("evidence");
  const downsample = (xyz: Float32Array) => voxelDownsample(xyz, p.voxelM).xyz;
  let clusters: Cluster[];
  let floor = 0,
    wall = 0;
  if (ev) {
    clusters = fuseDetections(cloud, ev, p, downsample);
    // structure pixels with depth, counted on the images (the cloud may have left them out)
    for (const v of bundle.views) {
      const c = structurePixels(v, ev, cloud.categories);
      floor += c.floor;
      wall += c.wall;
    }
  } else ({ clusters, floor, wall } = dbscanClusters(cloud, bundle.manifest, opts.masks, p));
  lap("instances");
  const inMirror = ev ? { inMirror: (k: number) => ev.segments[k]?.inMirror === true } : {};
  return graphFromClusters(
    clusters,
    cloud,
    bundle.manifest,
    { masks: opts.masks, instances: opts.instances, params: p, floor, wall, ...inMirror },
    { timings, lap },
  );
}

/**
 * `--instances dbscan`'s clusters of the cloud's points that are not room structure, and the structure's
 * floor and wall point counts. `ignore[i]` set: point i is left out of the clustering (the active memory's
 * points of an object the agent moved away from them); absent, every point is clustered.
 */
export function dbscanClusters(
  cloud: PointCloud,
  manifest: Pick<FrameBundle["manifest"], "instances">,
  masks: MaskMode,
  p: InstanceParams,
  ignore?: Uint8Array,
): { clusters: Cluster[]; floor: number; wall: number } {
  const structureIds = structureIdsOf(manifest);
  const s = structureMask(cloud, masks, structureIds);
  if (ignore) for (let i = 0; i < cloud.count; i++) if (ignore[i]) s.isStructure[i] = 1;
  const cat = masks === "none" ? null : (id: number) => (id && !structureIds.has(id) ? (cloud.categories.get(id) ?? null) : null);
  return { clusters: dbscanInstances(cloud, s.isStructure, p, cat), floor: s.floor, wall: s.wall };
}

/**
 * Per view (by its ids array): the counts of its depth array under one floor/wall id assignment (`kinds`).
 * A runner builds several fusion graphs of one bundle (one per source and arm); the images are the same.
 */
const structurePixelCache = new WeakMap<Uint16Array, { depth: Float32Array; kinds: string; counts: { floor: number; wall: number } }>();

/** The structure counts fusion mode takes from the images: depth pixels of floor and walls in one view. */
export function structurePixels(
  view: Pick<FrameBundle["views"][number], "ids" | "depth">,
  ev: Evidence,
  categories: Map<number, string>,
): { floor: number; wall: number } {
  const kind = new Uint8Array(65536); // 1 floor, 2 wall
  let kinds = "";
  for (const id of ev.structureIds) {
    kind[id] = categories.get(id) === "floor" ? 1 : 2;
    kinds += `${id}:${kind[id]},`;
  }
  const hit = structurePixelCache.get(view.ids);
  if (hit && hit.depth === view.depth && hit.kinds === kinds) return { ...hit.counts };
  const counts = countStructurePixels(view.ids, view.depth, kind);
  structurePixelCache.set(view.ids, { depth: view.depth, kinds, counts: { ...counts } });
  return counts;
}

function countStructurePixels(ids: Uint16Array, depth: Float32Array, kind: Uint8Array): { floor: number; wall: number } {
  const c = STRUCTURE_COUNTS;
  countStructureInto(ids, depth, kind, c);
  return { floor: c[0]!, wall: c[1]! };
}

/** countStructurePixels' counts (floor, wall), on their way out of its loop function. */
const STRUCTURE_COUNTS = new Float64Array(2);

/**
 * The floor and wall pixels with depth into c[0], c[1]. The loop's own function, ending in typed-array
 * stores: ending in an object literal, V8 compiled the loop on the stack before the literal had ever been
 * made and discarded that code at it on every later call (29 times in a 4-unit run; docs/design.md: hot
 * loops and the JIT).
 */
function countStructureInto(ids: Uint16Array, depth: Float32Array, kind: Uint8Array, c: Float64Array): void {
  let floor = 0,
    wall = 0;
  for (let q = 0; q < ids.length; q++) {
    const k = kind[ids[q]!]!;
    if (k === 0 || !(depth[q]! > 0)) continue;
    if (k === 1) floor++;
    else wall++;
  }
  c[0] = floor;
  c[1] = wall;
}

export interface ClusterGraphOptions {
  masks: MaskMode;
  instances: InstanceMode;
  params: InstanceParams;
  floor: number;
  wall: number;
  /**
   * The node ids of the clusters in node order (by centroid); absent: n0, n1, ... in that order. The active
   * memory keeps a moved object's id (scenegraph/nodeIds.ts).
   */
  ids?: (ordered: readonly Cluster[]) => readonly string[];
  /** Whether a segment (evidence key) lay mostly inside a mirror's glass (fusion's clusters; absent: none did). */
  inMirror?: (segment: number) => boolean;
}

/** Nodes (ordered), flags and relations of the instances found: the part of a build shared with the incremental memory. */
/**
 * Nodes already computed, by the raw members array they were computed from: a node whose members, points
 * and votes are the same objects as before is the same node (the incremental memory reuses unchanged nodes).
 */
export type NodeCache = WeakMap<Uint32Array, { xyz: Float32Array; votes: string; node: GraphNode; fine?: Float32Array }>;

export function graphFromClusters(
  clusters: Cluster[],
  cloud: PointCloud,
  manifest: Pick<FrameBundle["manifest"], "task_id" | "paradigm" | "task" | "views">,
  o: ClusterGraphOptions,
  timer = stageTimer(1),
  cache?: NodeCache,
): GraphResult {
  const { timings, lap } = timer;
  const p = o.params,
    floor = o.floor,
    wall = o.wall;
  // deterministic node order: by centroid x, then y, then z
  const withCentroid = clusters.map((c) => ({ c, key: meanPoint(c.xyz) }));
  withCentroid.sort((a, b) => a.key[0]! - b.key[0]! || a.key[1]! - b.key[1]! || a.key[2]! - b.key[2]!);
  const nodeOf = (c: Cluster, id: string, centroid: readonly number[]): GraphNode => {
    if (!cache) return clusterToNode(c, id, cloud, centroid);
    const votes = JSON.stringify([...c.votes.entries(), c.detections]);
    const hit = cache.get(c.members);
    if (hit && hit.xyz === c.xyz && hit.votes === votes) return { ...structuredClone(hit.node), id };
    const node = clusterToNode(c, id, cloud, centroid);
    cache.set(c.members, { xyz: c.xyz, votes, node: structuredClone(node) });
    return node;
  };
  // fine points depend on the members alone (points never move once in the cloud)
  const fineOf = (members: Uint32Array): Float32Array => {
    const hit = cache?.get(members);
    if (hit?.fine) return hit.fine;
    const fine = finePoints(cloud, members);
    if (hit) hit.fine = fine;
    return fine;
  };
  const ids = o.ids?.(withCentroid.map(({ c }) => c));
  const nodes = withCentroid.map(({ c, key }, k) => nodeOf(c, ids?.[k] ?? `n${k}`, key));
  computeFlags(nodes);
  markMayContain(
    nodes,
    withCentroid.map(({ c }) => c.xyz),
  );
  const inMirror = o.inMirror;
  const mirrors = markMirrors(nodes, manifest.views, inMirror ? withCentroid.map(({ c }) => 2 * c.segments.filter(inMirror).length > c.segments.length) : []);
  lap("nodes");
  const viewpoint = bundleViewpoint(manifest);
  const relations = computeRelations(
    nodes.map((n, k) => ({ id: n.id, box: n.box, xyz: withCentroid[k]!.c.xyz, fine: fineOf(withCentroid[k]!.c.members) })),
    { position: viewpoint.position, yaw: viewpoint.yaw },
  );
  lap("relations");
  const graph: SceneGraph = {
    format: GRAPH_FORMAT,
    task_id: manifest.task_id,
    paradigm: manifest.paradigm,
    source: cloud.source,
    masks: o.masks,
    instances: o.instances,
    frame: GRAPH_FRAME,
    viewpoint,
    params: { ...p },
    nodes,
    relations,
    structure: { floor_points: floor, wall_points: wall },
    // scenes whose graph shows a mirror only: every other graph stays as it was
    ...(mirrors.length ? { mirrors } : {}),
    timings_ms: timings,
  };
  return { graph, members: withCentroid.map(({ c }) => c.members) };
}
