/**
 * A graph's grip on time. A bundle whose views come from several phases of a changing world (core/task/phases.ts)
 * can be remembered two ways:
 * - fuse: every view's points in one graph, as for an unchanging world (the ablation): an object that moved
 *   leaves its old copy behind, a removed one stays;
 * - diff: one graph per phase, walked in time order, each earlier node followed into the next phase by label
 *   and place. What the next phase's views show of a node's place decides its fate: seen again there (kept),
 *   seen elsewhere with its old place seen empty (moved), its place seen empty (removed), seen where a node of
 *   another label was (replaced), seen where earlier views saw nothing (added), or its place not seen at all
 *   (unconfirmed: the memory keeps it as last seen). The final graph is built from the points the walk keeps
 *   (a moved or removed node's old points are dropped), and each node says when it was last seen.
 */
import { dist, type Vec3 } from "../core/math/vec.js";
import { boundsOf } from "../core/geometry.js";
import { projectPoint } from "../core/math/camera.js";
import type { FrameBundle } from "../core/bundle/io.js";
import { viewPhases } from "../core/bundle/viewPhases.js";
import { filterCloud, type PointCloud } from "../reconstruct/pointcloud.js";
import { buildSceneGraph, graphFromClusters, type GraphOptions, type GraphResult } from "./build.js";
import { gather, type Cluster } from "./instances/cluster.js";
import { DEFAULT_INSTANCE_PARAMS, type InstanceParams } from "./instances/params.js";
import { voxelDownsample } from "./primitives/voxelDownsample.js";
import type { GraphNode, NodeChange, SceneGraph, TimeChange } from "./types.js";

/**
 * A node of the next phase is the same object as an earlier node of its label when its centroid lies within this
 * distance (m) of the earlier one: the diagnosis' geometric gate (NEAR_OBJECT_M, 0.3 m) less a margin, so that a
 * move the diagnosis would call stale is a move here too. Our choice.
 */
const SAME_PLACE_M = 0.2;
/**
 * A view sees a place when the surface it shows there lies no nearer than this (m) in front of the place: a
 * place behind a nearer surface (a box's wall, another object) is hidden. About the noisy source's typical depth
 * error at 2-3 m (reconstruct/noisy/params.ts), so noise alone does not hide a place. Our choice.
 */
const PLACE_SEEN_TOL_M = 0.1;
/** Half size (px) of the window around a place's projection whose points decide whether the view sees it. */
const PLACE_WINDOW_PX = 2;

/** The phases a node's points come from, ascending. */
function phasesOfMembers(cloud: Pick<PointCloud, "view">, members: Uint32Array, phaseOfView: readonly number[]): number[] {
  const seen = new Set<number>();
  for (let m = 0; m < members.length; m++) seen.add(phaseOfView[cloud.view[members[m]!]!] ?? 0);
  return [...seen].sort((a, b) => a - b);
}

/** A fused graph of a phased bundle: each node says which phases saw it (no change is claimed). */
export function stampFused(result: GraphResult, cloud: Pick<PointCloud, "view">, manifest: FrameBundle["manifest"]): void {
  const phaseOfView = viewPhases(manifest);
  result.graph.nodes.forEach((n, k) => {
    const seen = phasesOfMembers(cloud, result.members[k]!, phaseOfView);
    n.time = { seen_in: seen, last_seen: seen.at(-1)! };
  });
  result.graph.time = { mode: "fuse", phases: phaseLabels(manifest), changes: [] };
}

function phaseLabels(manifest: FrameBundle["manifest"]): string[] {
  const count = Math.max(...viewPhases(manifest)) + 1;
  const task = manifest.task?.phases;
  return Array.from({ length: count }, (_, k) => task?.[k]?.label ?? `phase ${k + 1}`);
}

/** One phase's views as a bundle of their own (views renumbered from 0), and its points with their full-cloud indices. */
function phaseSlice(bundle: Pick<FrameBundle, "manifest" | "views">, cloud: PointCloud, phase: number) {
  const phaseOfView = viewPhases(bundle.manifest);
  const positions = phaseOfView.flatMap((p, k) => (p === phase ? [k] : []));
  const renumber = new Int32Array(bundle.views.length).fill(-1);
  positions.forEach((k, j) => (renumber[k] = j));
  const keep = new Uint8Array(cloud.count);
  const toFull: number[] = [];
  for (let i = 0; i < cloud.count; i++) if (renumber[cloud.view[i]!]! >= 0) (keep[i] = 1), toFull.push(i);
  const sub = filterCloud(cloud, keep);
  for (let k = 0; k < sub.count; k++) sub.view[k] = renumber[sub.view[k]!]!;
  const manifest = { ...bundle.manifest, views: positions.map((k, j) => ({ ...bundle.manifest.views[k]!, index: j })) };
  const views = positions.map((k, j) => ({ ...bundle.views[k]!, index: j }));
  return { bundle: { manifest, views }, cloud: sub, toFull: Uint32Array.from(toFull) };
}

/**
 * Whether some view of a phase sees a place: its projection falls in the image, and most of the points the arm's
 * own cloud has around that pixel lie no nearer than PLACE_SEEN_TOL_M in front of it.
 */
class PlaceViews {
  /** per view: the cloud point at each pixel (-1: none) */
  private readonly pointAt = new Map<number, Int32Array>();

  constructor(
    private readonly bundle: Pick<FrameBundle, "views">,
    private readonly full: PointCloud,
    private readonly phaseOfView: readonly number[],
  ) {}

  private pixels(view: number): Int32Array {
    let map = this.pointAt.get(view);
    if (map) return map;
    map = new Int32Array(this.full.imageWidth * this.full.imageHeight).fill(-1);
    for (let i = 0; i < this.full.count; i++) if (this.full.view[i] === view) map[this.full.pixel[i]!] = i;
    this.pointAt.set(view, map);
    return map;
  }

  seenIn(place: Vec3, phase: number): boolean {
    return this.phaseOfView.some((p, view) => p === phase && this.seenBy(place, view));
  }

  private seenBy(place: Vec3, view: number): boolean {
    const { K, E } = this.bundle.views[view]!;
    const { u, v, z } = projectPoint(E, K, place);
    const W = this.full.imageWidth,
      H = this.full.imageHeight;
    const cu = Math.round(u),
      cv = Math.round(v);
    if (!(z > 0) || cu < 0 || cv < 0 || cu >= W || cv >= H) return false;
    const map = this.pixels(view);
    let points = 0,
      reaching = 0;
    for (let dv = -PLACE_WINDOW_PX; dv <= PLACE_WINDOW_PX; dv++)
      for (let du = -PLACE_WINDOW_PX; du <= PLACE_WINDOW_PX; du++) {
        const x = cu + du,
          y = cv + dv;
        if (x < 0 || y < 0 || x >= W || y >= H) continue;
        const i = map[y * W + x]!;
        if (i < 0) continue;
        points++;
        const p: Vec3 = [this.full.xyz[3 * i]!, this.full.xyz[3 * i + 1]!, this.full.xyz[3 * i + 2]!];
        if (projectPoint(E, K, p).z >= z - PLACE_SEEN_TOL_M) reaching++;
      }
    return points > 0 && 2 * reaching > points;
  }
}

/** An object the walk follows through the phases. */
interface Track {
  label: string;
  /** the label votes of its last look (shares) */
  votes: Record<string, number>;
  /** 2D detections fused into it, over its looks */
  detections: number;
  centroid: Vec3;
  /** full-cloud indices of the points it keeps */
  members: Uint32Array[];
  seenIn: number[];
  change: NodeChange;
}

const r3 = (v: Vec3): Vec3 => v.map((x) => Math.round(x * 1000) / 1000) as Vec3;

/** Pairs (a, b) of finite cost up to `limit`, cheapest first, each a and b used once. */
function greedyPairs(n: number, m: number, cost: (a: number, b: number) => number, limit: number): Array<[number, number]> {
  const all: Array<[number, number, number]> = [];
  for (let a = 0; a < n; a++)
    for (let b = 0; b < m; b++) {
      const c = cost(a, b);
      if (Number.isFinite(c) && c <= limit) all.push([c, a, b]);
    }
  all.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
  const usedA = new Set<number>(),
    usedB = new Set<number>();
  const out: Array<[number, number]> = [];
  for (const [, a, b] of all) {
    if (usedA.has(a) || usedB.has(b)) continue;
    usedA.add(a);
    usedB.add(b);
    out.push([a, b]);
  }
  return out;
}

/**
 * The diff graph of a phased bundle: see the module comment. `full` is the arm's whole cloud, room structure
 * included (what shows whether a place is seen); `cloud` the points the graph is built from.
 */
export function diffGraph(cloud: PointCloud, full: PointCloud, bundle: Pick<FrameBundle, "manifest" | "views">, opts: GraphOptions): GraphResult {
  const phaseOfView = viewPhases(bundle.manifest);
  const phases = [...new Set(phaseOfView)].sort((a, b) => a - b);
  const places = new PlaceViews(bundle, full, phaseOfView);
  const tracks: Track[] = [];
  const changes: TimeChange[] = [];
  const structure = { floor: 0, wall: 0 };
  const seenBefore = (place: Vec3, phase: number) => phases.some((q) => q < phase && places.seenIn(place, q));
  for (const phase of phases) {
    const slice = phaseSlice(bundle, cloud, phase);
    const built = buildSceneGraph(slice.cloud, slice.bundle, opts);
    // room structure as the phases saw it, summed (the graph records it for reference)
    structure.floor += built.graph.structure.floor_points;
    structure.wall += built.graph.structure.wall_points;
    const nodes = built.graph.nodes;
    const members = built.members.map((m) => m.map((i) => slice.toFull[i]!));
    const live = tracks.filter((t) => t.change !== "removed");
    // the same object seen again where it was
    const again = greedyPairs(
      live.length,
      nodes.length,
      (a, b) => (live[a]!.label === nodes[b]!.label ? dist(live[a]!.centroid, nodes[b]!.centroid) : Infinity),
      SAME_PLACE_M,
    );
    const takenT = new Set(again.map(([a]) => a)),
      takenN = new Set(again.map(([, b]) => b));
    for (const [a, b] of again) {
      const t = live[a]!;
      t.members.push(members[b]!);
      t.seenIn.push(phase);
      Object.assign(t, { centroid: nodes[b]!.centroid, votes: nodes[b]!.label_distribution, detections: t.detections + nodes[b]!.detections, change: "kept" });
    }
    // earlier nodes not seen again: is their place seen empty now?
    const emptied = live.map((t, a) => !takenT.has(a) && places.seenIn(t.centroid, phase));
    const fresh = nodes.map((_, b) => b).filter((b) => !takenN.has(b));
    // a fresh node of an emptied track's label: the object moved (nearest first)
    const moves = greedyPairs(
      live.length,
      fresh.length,
      (a, j) => (emptied[a] && live[a]!.label === nodes[fresh[j]!]!.label ? dist(live[a]!.centroid, nodes[fresh[j]!]!.centroid) : Infinity),
      Infinity,
    );
    const movedT = new Set(moves.map(([a]) => a)),
      movedN = new Set(moves.map(([, j]) => fresh[j]!));
    for (const [a, j] of moves) {
      const t = live[a]!,
        b = fresh[j]!;
      changes.push({ change: "moved", label: t.label, phase, at: r3(nodes[b]!.centroid), from: r3(t.centroid) });
      const n = nodes[b]!;
      Object.assign(t, { members: [members[b]!], centroid: n.centroid, votes: n.label_distribution, detections: n.detections, change: "moved" as const });
      t.seenIn.push(phase);
    }
    // emptied tracks left: removed, unless a fresh node of another label stands in their place (replaced)
    const gone = live.flatMap((t, a) => (emptied[a] && !movedT.has(a) ? [t] : []));
    const replacedBy = new Map<number, Track>();
    const swaps = greedyPairs(
      gone.length,
      fresh.length,
      (a, j) => (movedN.has(fresh[j]!) || gone[a]!.label === nodes[fresh[j]!]!.label ? Infinity : dist(gone[a]!.centroid, nodes[fresh[j]!]!.centroid)),
      SAME_PLACE_M,
    );
    for (const [a, j] of swaps) replacedBy.set(fresh[j]!, gone[a]!);
    for (const t of gone) {
      t.change = "removed";
      if (![...replacedBy.values()].includes(t)) changes.push({ change: "removed", label: t.label, phase, at: r3(t.centroid) });
    }
    for (const [a, t] of live.entries()) if (!takenT.has(a) && !emptied[a] && t.seenIn.at(-1)! < phase) t.change = "unconfirmed";
    // fresh nodes that are no move: replaced, added where earlier views saw the place, or first seen now
    for (const b of fresh) {
      if (movedN.has(b)) continue;
      const n = nodes[b]!;
      const was = replacedBy.get(b);
      const change: NodeChange = phase === phases[0] ? "kept" : was ? "replaced" : seenBefore(n.centroid, phase) ? "added" : "new";
      if (was) changes.push({ change: "replaced", label: n.label, phase, at: r3(n.centroid), was: was.label });
      else if (change === "added") changes.push({ change: "added", label: n.label, phase, at: r3(n.centroid) });
      tracks.push({
        label: n.label,
        votes: n.label_distribution,
        detections: n.detections,
        centroid: n.centroid,
        members: [members[b]!],
        seenIn: [phase],
        change,
      });
    }
  }
  // the memory's graph: one node per object the walk still holds, from the points it keeps of it
  const p: InstanceParams = { ...DEFAULT_INSTANCE_PARAMS, ...opts.params };
  const live = tracks.filter((t) => t.change !== "removed");
  const clusters = live.map((t) => trackCluster(t, cloud, p.voxelM));
  const trackOfMembers = new Map(clusters.map((c, k) => [c.members, live[k]!]));
  const result = graphFromClusters(clusters, cloud, bundle.manifest, { masks: opts.masks, instances: opts.instances, params: p, ...structure });
  result.graph.nodes.forEach((n, k) => {
    const t = trackOfMembers.get(result.members[k]!)!;
    n.time = { seen_in: t.seenIn, last_seen: t.seenIn.at(-1)!, change: t.change };
  });
  attachNodes(result.graph, changes);
  result.graph.time = { mode: "diff", phases: phaseLabels(bundle.manifest as FrameBundle["manifest"]), changes };
  return result;
}

/** A track as the graph builder's proto-node: the points it keeps, downsampled, and its last look's label votes. */
function trackCluster(t: Track, cloud: PointCloud, voxelM: number): Cluster {
  const members = Uint32Array.from(new Set(t.members.flatMap((m) => [...m]))).sort();
  const xyz = voxelDownsample(gather(cloud.xyz, members), voxelM).xyz;
  const { min, max } = boundsOf(xyz);
  const votes = new Map(Object.entries(t.votes).map(([label, share]) => [label, Math.round(share * members.length)]));
  return { xyz, members, votes, detections: t.detections, segments: [], min, max, grid: null };
}

/** Each change that left a node names it (the node of its label nearest where the change put it). */
function attachNodes(graph: SceneGraph, changes: TimeChange[]): void {
  for (const c of changes) {
    if (c.change === "removed") continue;
    let best: GraphNode | null = null;
    for (const n of graph.nodes)
      if (n.label === c.label && dist(n.centroid, c.at) <= SAME_PLACE_M && (!best || dist(n.centroid, c.at) < dist(best.centroid, c.at))) best = n;
    if (best) c.node = best.id;
  }
}
