/**
 * The active paradigm's 3D memory: a scene graph updated one view at a time. Each new view's mask
 * fragments are lifted and fused into the existing instances (instances/fusion.ts FusionState); nothing
 * already fused is rebuilt. What is recomputed per step is what depends on every node at once: the final
 * per-node denoising (cached for nodes the view did not touch), the post-merge, node order, flags and
 * relations. After the last view the graph equals the batch build over the same views node for node
 * (test/scenegraph/incremental.test.ts); the exceptions are the `dbscan` builder, which clusters the whole
 * cloud and so is recomputed each step, and the per-view differences of the noisy and vggt clouds
 * (scenegraph/pipeline.ts GraphMemory). When the agent moves an object, its node follows it (fusion: the
 * node's claim, instances/fusion.ts; dbscan: dbscanMoves.ts) and keeps its id (nodeIds.ts).
 */
import type { FrameBundle, ViewData } from "../core/bundle/io.js";
import { GrowingCloud } from "./growingCloud.js";
import type { PointCloud } from "../reconstruct/pointcloud.js";
import { dbscanClusters, graphFromClusters, structurePixels, type ClusterGraphOptions, type GraphResult, type NodeCache } from "./build.js";
import { stageTimer } from "../core/stageTimer.js";
import { EvidenceBuilder } from "./evidence.js";
import type { MaskMode } from "./options.js";
import { FusionState, pointsBySegmentIn } from "./instances/fusion.js";
import { DEFAULT_INSTANCE_PARAMS, type InstanceParams } from "./instances/params.js";
import type { InstanceMode } from "./options.js";
import { voxelDownsample } from "./primitives/voxelDownsample.js";
import { cameraCentre } from "../core/math/camera.js";
import type { Vec3 } from "../core/math/vec.js";
import type { GraphNode } from "./types.js";
import { planManipulation, type ManipulationEvent } from "./manipulation.js";
import type { Cluster } from "./instances/cluster.js";
import type { NodeClaim } from "./instances/fusion.js";
import { DbscanMoves } from "./dbscanMoves.js";
import { NodeIds } from "./nodeIds.js";

export interface IncrementalGraphOptions {
  masks: MaskMode;
  instances: InstanceMode;
  params?: Partial<InstanceParams>;
}

export class IncrementalGraph {
  readonly cloud = new GrowingCloud();
  private readonly evidence: EvidenceBuilder;
  private readonly fusion: FusionState;
  private readonly p: InstanceParams;
  private readonly downsample: (xyz: Float32Array) => Float32Array;
  private floor = 0;
  private wall = 0;
  private views = 0;
  private readonly nodes: NodeCache = new WeakMap();
  /** The last graph's nodes, each node's evidence segments and points: what a manipulation's node id refers to. */
  private last: { nodes: GraphNode[]; segments: Map<string, readonly number[]>; members: Map<string, Uint32Array> } = {
    nodes: [],
    segments: new Map(),
    members: new Map(),
  };
  /** Where the held object was picked up (put_back's placement); null while nothing is held. */
  private pickedAt: Vec3 | null = null;
  /** The ids moved objects keep. */
  private readonly ids = new NodeIds();
  /** What the dbscan builder leaves out and looks for after a move. */
  private readonly moves = new DbscanMoves();

  constructor(
    private readonly manifest: Pick<FrameBundle["manifest"], "image" | "instances" | "task" | "task_id" | "paradigm">,
    private readonly o: IncrementalGraphOptions,
  ) {
    this.p = { ...DEFAULT_INSTANCE_PARAMS, ...o.params };
    this.downsample = (xyz) => voxelDownsample(xyz, this.p.voxelM).xyz;
    this.evidence = new EvidenceBuilder(manifest, o.masks);
    this.fusion = new FusionState(o.masks, this.p, this.downsample);
  }

  get taskId(): string {
    return this.manifest.task_id;
  }

  /**
   * Adds one view and its points (`viewCloud`: this view's points only, in pixel order), and returns the
   * graph of every view so far. `bundle` is the episode's bundle up to this view (the dbscan builder and
   * structure counts read it).
   */
  addView(view: ViewData, viewCloud: PointCloud, bundle: Pick<FrameBundle, "manifest" | "views">): GraphResult {
    if (view.index !== this.views) throw new Error(`incremental graph: expected view ${this.views}, got ${view.index}`);
    this.views++;
    const { from, to } = this.cloud.append(viewCloud);
    const cloud = this.cloud.cloud();
    this.evidence.addInstances(bundle.manifest.instances);
    const keys = this.evidence.addView(view);
    const ev = this.evidence.evidence;
    const camera = cameraCentre(view.E);
    if (this.o.instances === "dbscan") return this.dbscanView(cloud, bundle, camera);
    const s = structurePixels(view, ev, cloud.categories);
    this.floor += s.floor;
    this.wall += s.wall;
    const bySeg = pointsBySegmentIn(cloud, ev, from, to);
    const empty = new Uint32Array(0);
    this.fusion.addView(cloud, ev, view.index, keys, (k) => bySeg.get(k) ?? empty, camera);
    const clusters = this.fusion.snapshot(cloud);
    const result = graphFromClusters(
      clusters,
      cloud,
      { ...this.manifest, views: bundle.manifest.views },
      {
        masks: this.o.masks,
        instances: this.o.instances,
        params: this.p,
        floor: this.floor,
        wall: this.wall,
        inMirror: (k) => ev.segments[k]?.inMirror === true,
        ...this.keptIds(taggedNodes(clusters, this.fusion.taggedSegments())),
      },
      stageTimer(1),
      this.nodes,
    );
    const byMembers = new Map(clusters.map((c) => [c.members, c.segments]));
    // the node the agent holds says so (it travels with the camera, not where the scene is)
    const held = this.fusion.heldSegments();
    if (held.size > 0)
      result.graph.nodes.forEach((n, k) => {
        if ((byMembers.get(result.members[k]!) ?? []).some((seg) => held.has(seg))) n.flags.held = true;
      });
    this.remember(result, (k) => byMembers.get(result.members[k]!) ?? []);
    return result;
  }

  /** dbscan clusters every point so far each step, less the points of objects from before they moved. */
  private dbscanView(cloud: PointCloud, bundle: Pick<FrameBundle, "manifest" | "views">, camera: Vec3): GraphResult {
    const timer = stageTimer(1);
    // the batch build's stages: dbscan reads no 2D evidence
    timer.lap("evidence");
    this.moves.beforeView();
    const { clusters, floor, wall } = dbscanClusters(cloud, bundle.manifest, this.o.masks, this.p, this.moves.ignored(cloud.count));
    timer.lap("instances");
    const pinned = this.moves.find(clusters, cloud, camera);
    const result = graphFromClusters(
      clusters,
      cloud,
      bundle.manifest,
      { masks: this.o.masks, instances: "dbscan", params: this.p, floor, wall, ...this.keptIds(pinned) },
      timer,
    );
    const held = this.moves.heldId;
    if (held !== null && [...pinned.values()].includes(held)) result.graph.nodes.find((n) => n.id === held)!.flags.held = true;
    this.remember(result, () => []);
    return result;
  }

  /** The node ids option once an object has moved: the moved objects' nodes (`pinned`) keep theirs (nodeIds.ts). */
  private keptIds(pinned: ReadonlyMap<Cluster, string>): Pick<ClusterGraphOptions, "ids"> {
    if (this.ids.pinned.length === 0) return {};
    return { ids: (ordered) => this.ids.ids(ordered.map((c) => pinned.get(c))) };
  }

  private remember(result: GraphResult, segmentsOf: (k: number) => readonly number[]): void {
    const nodes = result.graph.nodes;
    this.last = {
      nodes,
      segments: new Map(nodes.map((n, k) => [n.id, segmentsOf(k)])),
      members: new Map(nodes.map((n, k) => [n.id, result.members[k]!])),
    };
  }

  /**
   * The agent moved an object (scenegraph/manipulation.ts plans what that means for the nodes): the moved
   * node's earlier evidence is dropped and its next detections are claimed. Returns what was done, or why
   * nothing was, in words for the memory's notes.
   */
  noteManipulation(e: ManipulationEvent): { done: boolean; text: string } {
    if (e.view !== this.views) throw new Error(`incremental graph: a manipulation shown by view ${e.view}, but the next view is ${this.views}`);
    const plan = planManipulation(this.last.nodes, e, this.pickedAt);
    if (plan.kind === "none") return { done: false, text: plan.why };
    if (plan.kind === "claim") {
      const ok = this.claim(plan.node, plan.claim, e.view);
      if (ok && plan.claim.held) this.pickedAt = plan.node.box.centre;
      return { done: ok, text: `${e.action}: ${plan.node.id} (${plan.node.label}) ${plan.claim.held ? "held" : "moved"}` };
    }
    const placed = this.o.instances === "dbscan" ? this.moves.placeHeld(plan.claim, e.view) : this.fusion.placeHeld({ ...plan.claim, label: "" });
    this.pickedAt = null;
    const near = `[${plan.claim.near.min.map((v) => v.toFixed(2)).join(", ")}]-[${plan.claim.near.max.map((v) => v.toFixed(2)).join(", ")}]`;
    if (placed) return { done: true, text: `${e.action}: the held node placed near ${near}` };
    // nothing held (its pick_up named no node): the named node is the one that moves
    const node = plan.fallback;
    if (!node) return { done: false, text: `${e.action}: nothing is held and "${e.refs[0]}" names no node of the graph` };
    const ok = this.claim(node, { ...plan.claim, label: node.label }, e.view);
    return { done: ok, text: `${e.action}: ${node.id} (${node.label}) moved` };
  }

  /** The object of `node` moved: its earlier points are dropped, its next ones claimed, and it keeps its id. */
  private claim(node: GraphNode, claim: NodeClaim, view: number): boolean {
    let ok = true;
    if (this.o.instances === "dbscan") this.moves.claimNode(node.id, this.last.members.get(node.id) ?? new Uint32Array(0), claim, view);
    else ok = this.fusion.claimNode(this.last.segments.get(node.id) ?? [], claim, this.evidence.evidence, node.id);
    if (ok) this.ids.pin(node.id);
    return ok;
  }
}

/** The snapshot's node of each object the agent moved: the cluster that holds its tagged node's segments. */
function taggedNodes(clusters: readonly Cluster[], tagged: ReadonlyMap<string, ReadonlySet<number>>): Map<Cluster, string> {
  const out = new Map<Cluster, string>();
  for (const [tag, segments] of tagged) {
    const c = clusters.find((x) => !out.has(x) && x.segments.some((k) => segments.has(k)));
    if (c) out.set(c, tag);
  }
  return out;
}
