/**
 * `--instances fusion` (default): ConceptGraphs-style incremental fusion of 2D mask fragments.
 *   1. every mask segment of every view is lifted to 3D (its pixels' points), voxel-downsampled and
 *      denoised (largest DBSCAN cluster): one detection;
 *   2. views are processed in order; each detection joins the existing node with the largest point
 *      overlap when the overlap and the labels agree (detections of the same view do not match each other),
 *      otherwise it starts a node;
 *   3. every node is denoised once more from its detections' voxels, downsampled together (cluster.ts
 *      denoiseFused; ConceptGraphs' objects keep downsampled points only, never their raw ones);
 *   4. post-merge: same-label nodes that overlap one way > 0.7 (ConceptGraphs) or both ways > 0.3 (BBQ)
 *      are merged, until nothing changes.
 * With `--masks oracle`, identity across views is given, so step 2 groups by the simulator id instead.
 */
import type { PointCloud } from "../../reconstruct/pointcloud.js";
import type { Evidence } from "../evidence.js";
import { DENOISE_MIN_KEEP, type InstanceParams } from "./params.js";
import { footprintIntersectionArea, yawBox, zOverlap } from "../primitives/boxes.js";
import { pointOverlapRatio } from "../primitives/overlap.js";
import { sameValues } from "../primitives/sameValues.js";
import { boundsOf, boxVolume, type YawBox } from "../../core/geometry.js";
import { forEachRun } from "../../core/runs.js";
import { concatFloat32, concatUint32 } from "../../core/concat.js";
import { aabbGap, clusterGrid, denoiseFused, majorityLabel, makeCluster, type Cluster, type FusedPart } from "./cluster.js";
import { mergedStats, voxelStatsOf, type MemberStats } from "./memberStats.js";

/**
 * Points of the cloud grouped by their evidence segment (-1 = none), each group in point order. Both passes go
 * by runs: a cloud holds its views in turn (a view's segment map is looked up once per run of its points) and
 * neighbouring pixels' points mostly share a segment (a run is counted, and placed, in one step).
 */
export function pointsBySegment(cloud: PointCloud, ev: Evidence): Uint32Array[] {
  const segOf = new Int32Array(cloud.count);
  const counts = new Int32Array(ev.segments.length);
  segmentOfPoints(cloud.view, cloud.pixel, cloud.count, ev.segmentOfPixel, segOf);
  forEachRun(segOf, (s, from, to) => {
    if (s >= 0) counts[s]! += to - from;
  });
  const out = Array.from(ev.segments, (_, s) => new Uint32Array(counts[s]!));
  const fill = new Int32Array(ev.segments.length);
  forEachRun(segOf, (s, from, to) => {
    if (s < 0) return;
    const list = out[s]!;
    let f = fill[s]!;
    for (let i = from; i < to; i++) list[f++] = i;
    fill[s] = f;
  });
  return out;
}

/** Each point's segment (-1: none, or a view without a map), a view's map taken once per run of its points. */
function segmentOfPoints(view: Uint16Array, pixel: Uint32Array, count: number, maps: readonly Int32Array[], segOf: Int32Array): void {
  for (let i = 0; i < count; ) {
    const v = view[i]!,
      map = maps[v];
    let e = i + 1;
    while (e < count && view[e] === v) e++;
    if (!map) segOf.fill(-1, i, e);
    else for (let k = i; k < e; k++) segOf[k] = map[pixel[k]!]!;
    i = e;
  }
}

function newCluster(
  xyz: Float32Array,
  members: Uint32Array,
  label: string | null,
  segments: number[],
  detections: number,
  scores?: Record<string, number>,
): Cluster {
  const { min, max } = boundsOf(xyz);
  const votes = new Map<string, number>();
  // appearance labels vote softly: each point by the detector's scores (appearance.ts)
  if (label && scores) for (const [l, s] of Object.entries(scores)) votes.set(l, s * members.length);
  else if (label) votes.set(label, members.length);
  return { xyz, members, votes, detections, segments, min, max, grid: null };
}

function meanOf(xyz: Float32Array): [number, number, number] {
  const n = Math.max(1, xyz.length / 3);
  let x = 0,
    y = 0,
    z = 0;
  for (let i = 0; i < xyz.length; i += 3) (x += xyz[i]!), (y += xyz[i + 1]!), (z += xyz[i + 2]!);
  return [x / n, y / n, z / n];
}

/** Distance (m) from a point to an axis-aligned box (0 inside). */
export function distanceToBox(p: readonly number[], b: NodeClaim["near"]): number {
  let s = 0;
  for (let k = 0; k < 3; k++) {
    const d = Math.max(b.min[k]! - p[k]!, 0, p[k]! - b.max[k]!);
    s += d * d;
  }
  return Math.sqrt(s);
}

function addCounts<K>(into: Map<K, number>, from: Map<K, number>): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
}

/**
 * A node while views are being fused: merged detections are queued and only concatenated (members) or
 * re-downsampled (points) when needed, so a large node merged in many views is not copied every time.
 */
interface Growing {
  c: Cluster;
  /** The denoised detections merged into this node, kept for the final denoising. */
  parts: FusedPart[];
  pendingXyz: Float32Array[];
  /** The agent moved this object: the next views' detections it takes (NodeClaim); absent for an untouched node. */
  claim?: NodeClaim;
  /** The agent moved this object: the node id the memory keeps for it from then on (scenegraph/nodeIds.ts). */
  tag?: string;
}

/**
 * What the memory expects of an object the agent moved (scenegraph/manipulation.ts decides it): its earlier
 * detections are dropped, and a new view's detection of `label` whose centre is nearest `near` (the view's
 * camera for a held object, the placement for a placed one), within `reachM`, is the object. A held object's claim stays
 * (each view replaces its points: it travels with the camera); a placed object's ends once a view shows it,
 * and it fuses as any node from then on.
 */
export interface NodeClaim {
  label: string;
  held: boolean;
  /** the placement, a box (a point: min = max); ignored while held */
  near: { min: [number, number, number]; max: [number, number, number] };
  reachM: number;
}

function settle(g: Growing, downsample: (xyz: Float32Array) => Float32Array, cache?: DetectionCache): Cluster {
  if (g.pendingXyz.length) {
    const merge = () => downsample(concatFloat32([g.c.xyz, ...g.pendingXyz]));
    g.c.xyz = cache ? cache.settled(g.c.xyz, g.pendingXyz, merge) : merge();
    g.c.grid = null;
    g.pendingXyz = [];
  }
  return g.c;
}

function absorb(g: Growing, b: Cluster, part: FusedPart): void {
  g.pendingXyz.push(b.xyz);
  g.parts.push(part);
  addCounts(g.c.votes, b.votes);
  g.c.detections += b.detections;
  g.c.segments.push(...b.segments);
  for (let k = 0; k < 3; k++) {
    g.c.min[k] = Math.min(g.c.min[k]!, b.min[k]!);
    g.c.max[k] = Math.max(g.c.max[k]!, b.max[k]!);
  }
}

/** A claimed node takes a detection as all its points; a placed object's claim ends with it (a held one's stays). */
function becomes(g: Growing, d: Cluster, part: FusedPart): void {
  g.c = d;
  g.parts = [part];
  g.pendingXyz = [];
  if (!g.claim?.held) delete g.claim;
}

/** Merges b into a (points re-downsampled, raw members and votes summed). */
function mergeInto(a: Cluster, b: Cluster, downsample: (xyz: Float32Array) => Float32Array): void {
  a.xyz = downsample(concatFloat32([a.xyz, b.xyz]));
  a.members = concatUint32([a.members, b.members]);
  a.stats = a.stats && b.stats ? mergedStats(a.stats, b.stats) : undefined;
  addCounts(a.votes, b.votes);
  a.detections += b.detections;
  a.segments.push(...b.segments);
  for (let k = 0; k < 3; k++) {
    a.min[k] = Math.min(a.min[k]!, b.min[k]!);
    a.max[k] = Math.max(a.max[k]!, b.max[k]!);
  }
  a.grid = null;
}

/**
 * Two clusters may be one object when their majority labels agree or, with soft (appearance) votes, when
 * each has votes for the other's label: a mug read as a cup in one view and as a mug in another. With hard
 * votes (one label per detection) this is label equality.
 */
function sameLabel(a: Cluster, b: Cluster): boolean {
  const la = majorityLabel(a.votes),
    lb = majorityLabel(b.votes);
  return la === lb || (la !== null && lb !== null && a.votes.has(lb) && b.votes.has(la));
}

/**
 * Points of `cloud` in [from, to) grouped by their evidence segment: only the segments that occur. Counted
 * in a typed array over the range of segment keys met (one view's keys are consecutive), not a Map per point.
 */
export function pointsBySegmentIn(cloud: PointCloud, ev: Evidence, from: number, to: number): Map<number, Uint32Array> {
  const segOf = new Int32Array(to - from);
  let lo = Infinity,
    hi = -1;
  let view = -1,
    map: Int32Array | undefined;
  for (let i = from; i < to; i++) {
    // points come view by view: look the view's map up when the view changes, not per point
    if (cloud.view[i] !== view) (view = cloud.view[i]!), (map = ev.segmentOfPixel[view]);
    const s = map ? map[cloud.pixel[i]!]! : -1;
    segOf[i - from] = s;
    if (s >= 0) s < lo && (lo = s), s > hi && (hi = s);
  }
  const out = new Map<number, Uint32Array>();
  if (hi < 0) return out;
  const counts = new Uint32Array(hi - lo + 1);
  for (const s of segOf) if (s >= 0) counts[s - lo]!++;
  const lists: Uint32Array[] = [];
  for (let s = lo; s <= hi; s++) if (counts[s - lo]! > 0) out.set(s, (lists[s - lo] = new Uint32Array(counts[s - lo]!)));
  const fill = new Uint32Array(hi - lo + 1);
  for (let i = from; i < to; i++) {
    const s = segOf[i - from]!;
    if (s >= 0) lists[s - lo]![fill[s - lo]!++] = i;
  }
  return out;
}

/** A finished node's copy that post-merging may change without touching the fusion state. */
function detached(c: Cluster): Cluster {
  return { ...c, votes: new Map(c.votes), segments: [...c.segments], min: [...c.min] as Cluster["min"], max: [...c.max] as Cluster["max"], grid: null };
}

/**
 * The fusion of steps 1-2 as state that grows one view at a time (the active paradigm's 3D memory), and
 * steps 3-4 as a snapshot of it. A snapshot never changes the state, so the nodes after the last view
 * are the batch build's over the same views (test/scenegraph/incremental.test.ts). Views must arrive in
 * increasing order; their points must already be in the cloud passed with them.
 */
export class FusionState {
  private readonly growing: Growing[] = [];
  private readonly byId = new Map<number, { members: Uint32Array[]; label: string | null; segments: number[]; claim?: NodeClaim; tag?: string }>();
  /** Denoised nodes of the last snapshot, reused while a node's detections are unchanged. */
  private readonly denoised = new Map<
    Growing,
    { parts: number; first: FusedPart; xyz: Float32Array; members: Uint32Array; stats: MemberStats; min: Cluster["min"]; max: Cluster["max"] }
  >();
  private readonly oracleClusters = new Map<number, { n: number; first: Uint32Array | undefined; c: Cluster }>();
  private readonly denoise;

  /**
   * `detections`: step 1's results shared with other fusions over the same cloud and params (a batch build's
   * arms differ only in labels); absent, each detection is computed here.
   */
  constructor(
    private readonly mode: Evidence["mode"],
    private readonly p: InstanceParams,
    private readonly downsample: (xyz: Float32Array) => Float32Array,
    private readonly detections?: DetectionCache,
  ) {
    this.denoise = { epsM: p.denoiseEpsM, minPoints: p.denoiseMinPoints, minKeep: DENOISE_MIN_KEEP };
  }

  /** Step 1 for one segment's points: its denoised detection with its per-voxel sums, or null when nothing is left. */
  private detection(cloud: PointCloud, m: Uint32Array, view: number): FusedPart | null {
    const c = makeCluster(cloud.xyz, m, this.p.voxelM, this.denoise);
    if (c.xyz.length === 0) return null;
    return { ...c, stats: voxelStatsOf(cloud, c.members, c.memberVoxel, c.xyz.length / 3, view) };
  }

  /** Fuses one view's segments (`segKeys`, in evidence order) given their points (`bySeg`, indices into `cloud`). */
  addView(
    cloud: PointCloud,
    ev: Evidence,
    view: number,
    segKeys: readonly number[],
    bySeg: (k: number) => Uint32Array,
    camera: [number, number, number] | null = null,
  ): void {
    const p = this.p;
    if (this.mode === "oracle") {
      const fresh = new Set<number>();
      for (const k of segKeys) {
        const s = ev.segments[k]!;
        const m = bySeg(k);
        if (m.length === 0) continue;
        let g = this.byId.get(s.globalId!);
        if (!g) this.byId.set(s.globalId!, (g = { members: [], label: s.label, segments: [] }));
        // the masks give identity: a moved object's first view after the move replaces what it was (held: every view)
        if (g.claim && !fresh.has(s.globalId!)) {
          g.members = [];
          g.segments = [];
          if (!g.claim.held) delete g.claim;
        }
        fresh.add(s.globalId!);
        g.members.push(m);
        g.segments.push(k);
      }
      return;
    }
    const growing = this.growing;
    let dets: Array<[Cluster, FusedPart]> = [];
    for (const k of segKeys) {
      const m = bySeg(k);
      if (m.length < p.minDetectionPoints) continue;
      const part = this.detections ? this.detections.get(view, m, () => this.detection(cloud, m, view)) : this.detection(cloud, m, view);
      if (!part) continue;
      dets.push([newCluster(part.xyz, part.members, ev.segments[k]!.label, [k], 1, ev.segments[k]!.scores), part]);
    }
    dets = this.takeClaimed(dets, camera);
    // match against the nodes that existed before this view (ConceptGraphs: per frame)
    const existing = growing.length;
    const assignments: Array<[Cluster, FusedPart, number]> = [];
    for (const [d, part] of dets) {
      let best = -1,
        bestOverlap = p.associationMinOverlap;
      for (let n = 0; n < existing; n++) {
        const g = growing[n]!;
        // a moved object takes its detections by its claim alone, never by overlap with where it was
        if (g.claim || g.parts.length === 0) continue;
        if (!sameLabel(g.c, d) || aabbGap(g.c, d) > p.associationRadiusM) continue;
        const node = settle(g, this.downsample, this.detections);
        const overlap = () => pointOverlapRatio(d.xyz, clusterGrid(node, p.associationRadiusM), p.associationRadiusM);
        const o = this.detections ? this.detections.overlap(d.xyz, node.xyz, overlap) : overlap();
        if (o >= bestOverlap) [best, bestOverlap] = [n, o];
      }
      assignments.push([d, part, best]);
    }
    this.placeUnexplained(assignments);
    for (const [d, part, n] of assignments) {
      if (n >= 0) absorb(growing[n]!, d, part);
      else growing.push({ c: d, parts: [part], pendingXyz: [] });
    }
  }

  /**
   * The agent moved the object whose node holds these segments (evidence keys): every fusion node holding any
   * of them is that object, and their earlier detections are stale (the object is no longer where they put
   * it). They become one empty node that takes its next detections by `claim`, and carries `tag` (the node
   * id the memory keeps for it: taggedSegments) from then on. Returns false when no node holds the segments.
   */
  claimNode(segments: readonly number[], claim: NodeClaim, ev: Evidence, tag: string): boolean {
    const segs = new Set(segments);
    if (this.mode === "oracle") {
      const ids = new Set(segments.map((k) => ev.segments[k]?.globalId).filter((id): id is number => id !== undefined && id !== null));
      for (const id of ids) {
        const g = this.byId.get(id);
        if (!g) continue;
        g.members = [];
        g.segments = [];
        g.claim = claim;
        g.tag = tag;
      }
      return ids.size > 0;
    }
    const owners = this.growing.filter((g) => g.c.segments.some((k) => segs.has(k)));
    if (owners.length === 0) return false;
    const [node, ...rest] = owners;
    for (const g of rest) this.growing.splice(this.growing.indexOf(g), 1);
    node!.parts = [];
    node!.pendingXyz = [];
    node!.c = newCluster(new Float32Array(0), new Uint32Array(0), claim.label, [], 0);
    node!.claim = claim;
    node!.tag = tag;
    this.denoised.delete(node!);
    return true;
  }

  /** The evidence segments of each node the agent moved, by its tag (claimNode): how its node is found in a snapshot. */
  taggedSegments(): Map<string, Set<number>> {
    const out = new Map<string, Set<number>>();
    for (const g of this.growing) if (g.tag !== undefined) out.set(g.tag, new Set(g.c.segments));
    for (const g of this.byId.values()) if (g.tag !== undefined) out.set(g.tag, new Set(g.segments));
    return out;
  }

  /** The evidence segments of the held node (the agent holds one object at a time): empty when nothing is held. */
  heldSegments(): Set<number> {
    const out = new Set<number>();
    for (const g of this.growing) if (g.claim?.held) for (const k of g.c.segments) out.add(k);
    for (const g of this.byId.values()) if (g.claim?.held) for (const k of g.segments) out.add(k);
    return out;
  }

  /**
   * A placement of what the agent holds (it holds one object at a time): the held node's next detection is
   * taken near `claim.anchor` instead of near the camera. Returns false when nothing is held.
   */
  placeHeld(claim: NodeClaim): boolean {
    let placed = false;
    for (const g of [...this.growing, ...this.byId.values()])
      if (g.claim?.held) {
        g.claim = { ...claim, label: g.claim.label };
        placed = true;
      }
    return placed;
  }

  /**
   * Gives each claimed node this view's detection of its label nearest its anchor (a held one: nearest the
   * camera), within its reach; returns the detections left for ordinary association.
   */
  private takeClaimed(dets: Array<[Cluster, FusedPart]>, camera: [number, number, number] | null): Array<[Cluster, FusedPart]> {
    const left = [...dets];
    for (const g of this.growing) {
      const claim = g.claim;
      if (!claim) continue;
      const near = claim.held ? (camera ? { min: camera, max: camera } : null) : claim.near;
      if (!near) continue;
      let best = -1,
        bestD = claim.reachM;
      left.forEach(([d], j) => {
        if (majorityLabel(d.votes) !== claim.label) return;
        const dist = distanceToBox(meanOf(d.xyz), near);
        if (dist <= bestD) [best, bestD] = [j, dist];
      });
      if (best < 0) continue;
      const [d, part] = left.splice(best, 1)[0]!;
      // a held object's earlier points were where the camera was: each view replaces them
      becomes(g, d, part);
    }
    return left;
  }

  /**
   * A placed object not seen within reach of its placement (a target node that shows only part of the table
   * it is) is still the detection of its label that no node explains (one that would start a new node)
   * nearest its placement: the object is somewhere, and a new node of its label beside its empty one would
   * be a duplicate. Changes those assignments to the claimed node.
   */
  private placeUnexplained(assignments: Array<[Cluster, FusedPart, number]>): void {
    for (const g of this.growing) {
      const claim = g.claim;
      if (!claim || claim.held) continue;
      let best = -1,
        bestD = Infinity;
      assignments.forEach(([d, , to], j) => {
        if (to >= 0 || majorityLabel(d.votes) !== claim.label) return;
        const dist = distanceToBox(meanOf(d.xyz), claim.near);
        if (dist < bestD) [best, bestD] = [j, dist];
      });
      if (best < 0) continue;
      const [d, part] = assignments.splice(best, 1)[0]!;
      becomes(g, d, part);
    }
  }

  /** Steps 3-4 over the state so far: the nodes (detached copies; the state is unchanged). */
  snapshot(cloud: PointCloud): Cluster[] {
    const p = this.p;
    let nodes: Cluster[] = [];
    if (this.mode === "oracle") {
      for (const [id, g] of [...this.byId.entries()].sort((a, b) => a[0] - b[0])) {
        const n = g.members.reduce((s, m) => s + m.length, 0);
        if (n < p.minDetectionPoints) continue;
        let hit = this.oracleClusters.get(id);
        // keyed by the first members array too: a moved object's members are replaced, not only appended to
        if (!hit || hit.n !== n || hit.first !== g.members[0]) {
          const all = concatUint32(g.members);
          const c = makeCluster(cloud.xyz, all, p.voxelM, this.denoise);
          hit = { n, first: g.members[0], c: newCluster(c.xyz, c.members, g.label, [...g.segments], g.segments.length) };
          this.oracleClusters.set(id, hit);
        }
        nodes.push(detached(hit.c));
      }
      return nodes.filter((c) => c.members.length >= p.minDetectionPoints);
    }
    // denoise every node once more as a whole (its largest DBSCAN cluster), from its detections' voxels
    nodes = this.growing
      .filter((g) => g.parts.length > 0)
      .map((g) => {
        const n = g.c;
        const before = g.parts.reduce((s, d) => s + d.members.length, 0);
        let hit = this.denoised.get(g);
        // by the first part too: a moved object's parts are replaced, not only appended to
        if (!hit || hit.parts !== g.parts.length || hit.first !== g.parts[0]) {
          const fuse = () => denoiseFused(g.parts, p.voxelM, this.denoise);
          const c = this.detections ? this.detections.fused(g.parts, fuse) : fuse();
          this.denoised.set(g, (hit = { parts: g.parts.length, first: g.parts[0]!, ...c, ...boundsOf(c.xyz) }));
        }
        const c = hit;
        const min = [...hit.min] as Cluster["min"],
          max = [...hit.max] as Cluster["max"];
        const votes = new Map<string, number>();
        // votes stay per raw point of the surviving members
        const share = c.members.length / Math.max(1, before);
        for (const [l, v] of n.votes) votes.set(l, Math.round(v * share));
        return { ...n, xyz: c.xyz, members: c.members, stats: c.stats, min, max, votes, segments: [...n.segments], grid: null };
      });
    nodes = postMerge(nodes, p, this.downsample);
    return nodes.filter((n) => n.members.length >= p.minDetectionPoints);
  }
}

type FusedNode = ReturnType<typeof denoiseFused>;

/**
 * Step 1's detections by their raw points (and step 3's nodes of them), for one cloud and one set of params. A detection is a function of
 * the cloud's points and params alone, not of the labels: the graphs a unit builds from one cloud under
 * oracle and appearance labels (and a noisy cloud's relabelled masks, which keep most segments' pixels)
 * lift the same segments, so each is downsampled and denoised once. Looked up by content: the members
 * arrays of two builds are equal, not the same objects.
 */
export class DetectionCache {
  private readonly byKey = new Map<string, Array<{ members: Uint32Array; part: FusedPart | null }>>();
  private readonly byFirstPart = new Map<FusedPart, Array<{ parts: FusedPart[]; node: FusedNode }>>();
  private readonly settledFrom = new Map<Float32Array, Array<{ pending: Float32Array[]; xyz: Float32Array }>>();
  private readonly overlaps = new Map<Float32Array, Map<Float32Array, number>>();

  get(view: number, members: Uint32Array, make: () => FusedPart | null): FusedPart | null {
    const key = `${view}/${members.length}/${members[0]}/${members[members.length - 1]}`;
    let list = this.byKey.get(key);
    if (!list) this.byKey.set(key, (list = []));
    for (const e of list) if (sameValues(e.members, members)) return e.part;
    const part = make();
    list.push({ members, part });
    return part;
  }

  /**
   * Step 3's denoised node of these detections (from this cache, in this order): under both label modes
   * most nodes gather the same detections, and denoiseFused reads nothing else. Never changed by a reader,
   * so two graphs may share the result.
   */
  fused(parts: readonly FusedPart[], make: () => FusedNode): FusedNode {
    let list = this.byFirstPart.get(parts[0]!);
    if (!list) this.byFirstPart.set(parts[0]!, (list = []));
    for (const e of list) if (e.parts.length === parts.length && e.parts.every((d, k) => d === parts[k])) return e.node;
    const node = make();
    list.push({ parts: [...parts], node });
    return node;
  }

  /**
   * Step 2's node points once its queued detections are merged in (settle): a function of the node's points and
   * the queued detections' alone. Arrays are never written once made, and the arms share this cache's
   * detections, so a node that gathered the same detections between the same comparisons in an earlier arm
   * has the very same arrays here: looked up by identity.
   */
  settled(xyz: Float32Array, pending: readonly Float32Array[], make: () => Float32Array): Float32Array {
    let list = this.settledFrom.get(xyz);
    if (!list) this.settledFrom.set(xyz, (list = []));
    for (const e of list) if (e.pending.length === pending.length && e.pending.every((a, k) => a === pending[k])) return e.xyz;
    const out = make();
    list.push({ pending: [...pending], xyz: out });
    return out;
  }

  /** A detection's point overlap with a node's points (at this cache's association radius), by the arrays' identity as settled's. */
  overlap(detection: Float32Array, node: Float32Array, make: () => number): number {
    let byNode = this.overlaps.get(detection);
    if (!byNode) this.overlaps.set(detection, (byNode = new Map()));
    let o = byNode.get(node);
    if (o === undefined) byNode.set(node, (o = make()));
    return o;
  }
}

/**
 * Detection caches per cloud (by its xyz array, which a cloud built in an arena gets anew each build) and
 * params; points never change once in a batch cloud, so an entry stays valid while the cloud lives.
 */
const detectionCaches = new WeakMap<Float32Array, Map<string, DetectionCache>>();

function detectionCacheOf(cloud: PointCloud, p: InstanceParams): DetectionCache {
  let byParams = detectionCaches.get(cloud.xyz);
  if (!byParams) detectionCaches.set(cloud.xyz, (byParams = new Map()));
  const key = JSON.stringify([cloud.count, p.voxelM, p.denoiseEpsM, p.denoiseMinPoints, DENOISE_MIN_KEEP, p.associationRadiusM]);
  let cache = byParams.get(key);
  if (!cache) byParams.set(key, (cache = new DetectionCache()));
  return cache;
}

/** pointsBySegment per cloud (by its xyz array) and segmentation: a unit's label arms share both. */
const segmentPoints = new WeakMap<Float32Array, WeakMap<Int32Array[], Uint32Array[]>>();

function segmentPointsOf(cloud: PointCloud, ev: Evidence): Uint32Array[] {
  let bySegmentation = segmentPoints.get(cloud.xyz);
  if (!bySegmentation) segmentPoints.set(cloud.xyz, (bySegmentation = new WeakMap()));
  let out = bySegmentation.get(ev.segmentOfPixel);
  if (!out) bySegmentation.set(ev.segmentOfPixel, (out = pointsBySegment(cloud, ev)));
  return out;
}

/** The batch build: every view of the evidence fused in order, then one snapshot. */
export function fuseDetections(cloud: PointCloud, ev: Evidence, p: InstanceParams, downsample: (xyz: Float32Array) => Float32Array): Cluster[] {
  const bySeg = segmentPointsOf(cloud, ev);
  const state = new FusionState(ev.mode, p, downsample, detectionCacheOf(cloud, p));
  const byView = new Map<number, number[]>();
  ev.segments.forEach((s, k) => byView.set(s.view, [...(byView.get(s.view) ?? []), k]));
  for (const view of [...byView.keys()].sort((a, b) => a - b)) state.addView(cloud, ev, view, byView.get(view)!, (k) => bySeg[k]!);
  return state.snapshot(cloud);
}

/**
 * 3D intersection of two yaw boxes over the smaller box's volume (1 when one lies inside the other).
 * Every side is first grown to at least `minSide` (one voxel), so a planar surface (a face seen
 * head-on, whose box is flat) still has a volume.
 */
function padBox(b: YawBox, minSide: number): YawBox {
  const extent = b.extent.map((e) => Math.max(e, minSide)) as YawBox["extent"];
  return { ...b, extent };
}

function boxIoM(a0: YawBox, b0: YawBox, minSide: number): number {
  const a = padBox(a0, minSide),
    b = padBox(b0, minSide);
  return (footprintIntersectionArea(a, b) * zOverlap(a, b)) / Math.min(boxVolume(a), boxVolume(b));
}

/**
 * Merges same-label nodes that overlap one way > mergeOneWay or both ways > mergeMutual (points within
 * the association radius), or whose boxes overlap by mergeBoxIoM of the smaller one, until stable.
 */
function postMerge(nodes: Cluster[], p: InstanceParams, downsample: (xyz: Float32Array) => Float32Array): Cluster[] {
  const r = p.associationRadiusM;
  const boxes = new Map<Cluster, { n: number; box: YawBox }>();
  const boxOf = (c: Cluster) => {
    const cached = boxes.get(c);
    if (cached && cached.n === c.xyz.length) return cached.box;
    const box = yawBox(c.xyz);
    boxes.set(c, { n: c.xyz.length, box });
    return box;
  };
  for (let changed = true; changed; ) {
    changed = false;
    const pairs: Array<[number, number, number]> = [];
    for (let i = 0; i < nodes.length; i++)
      for (let j = i + 1; j < nodes.length; j++) {
        const a = nodes[i]!,
          b = nodes[j]!;
        if (!sameLabel(a, b) || aabbGap(a, b) > r) continue;
        const ab = pointOverlapRatio(a.xyz, clusterGrid(b, r), r),
          ba = pointOverlapRatio(b.xyz, clusterGrid(a, r), r);
        const iom = boxIoM(boxOf(a), boxOf(b), p.voxelM);
        let score = Math.max(ab, ba, Math.min(1, iom));
        let merge = Math.max(ab, ba) > p.mergeOneWay || Math.min(ab, ba) > p.mergeMutual || iom >= p.mergeBoxIoM;
        if (!merge && p.mergeUnionGrowth > 0) {
          const grown =
            boxVolume(padBox(yawBox(concatFloat32([a.xyz, b.xyz])), p.voxelM)) /
            Math.max(boxVolume(padBox(boxOf(a), p.voxelM)), boxVolume(padBox(boxOf(b), p.voxelM)));
          if (grown <= p.mergeUnionGrowth) [merge, score] = [true, 1 / grown];
        }
        if (merge) pairs.push([score, i, j]);
      }
    if (pairs.length === 0) break;
    pairs.sort((x, y) => y[0] - x[0] || x[1] - y[1] || x[2] - y[2]);
    const dead = new Set<number>();
    for (const [, i, j] of pairs) {
      if (dead.has(i) || dead.has(j)) continue;
      mergeInto(nodes[i]!, nodes[j]!, downsample);
      dead.add(j);
      changed = true;
    }
    nodes = nodes.filter((_, k) => !dead.has(k));
  }
  return nodes;
}
