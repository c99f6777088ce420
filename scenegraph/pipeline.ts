/**
 * The graph pipeline, in one place: frame bundle → point cloud → scene graph → diagnosis against the
 * truth. The CLI (`graph`, `ask`), the runner, the service and the viewer all build graphs through this,
 * so the structure exclusion and the fusion fallback are decided once.
 */
import type { FrameBundle } from "../core/bundle/io.js";
import { buildPointCloud, withoutIds, type CloudRuntime } from "../reconstruct/index.js";
import { regionsOfStructure, segmentRegions, StructurePoints } from "./regions.js";
import { segmentStructure } from "./primitives/structure.js";
import { filterCloud, type PointCloud } from "../reconstruct/pointcloud.js";
import { FAKE_LABEL_ID_BASE } from "../reconstruct/noisy/params.js";
import type { GraphPipelineOptions } from "./pipelineOptions.js";
import { buildSceneGraph, type GraphResult } from "./build.js";
import { diagnose, type ObjectMove } from "./diagnosis.js";
import type { Diagnosis } from "./diagnosisSchema.js";
import { effectiveInstances, type MaskMode } from "./options.js";
import { cachedTrueRelations } from "./truth.js";
import { IncrementalGraph } from "./incremental.js";
import type { Relation } from "./types.js";
import { structureIdsOf } from "./evidence.js";
import { InputError } from "../core/errors.js";
import { diffGraph, stampFused } from "./time.js";
import { isPhased } from "../core/bundle/viewPhases.js";
import type { ManipulationEvent } from "./manipulation.js";

export interface PipelineRuntime extends Omit<CloudRuntime, "excludeIds"> {
  /** Diagnose the graph against the bundle's task (default true; never for a bundle without a task). */
  diagnose?: boolean;
  /** The task's true relations, when the caller already has them (a runner builds several graphs per task). */
  trueRelations?: readonly Relation[];
  /** Objects the bundle's own trajectory moved (a gt trajectory that acts): the diagnosis judges them where they ended. */
  moved?: readonly ObjectMove[];
  /** Keeps the last cloud built for the next graph of the same bundle and cloud options (see SharedCloud). */
  shared?: SharedCloud;
}

/**
 * One bundle's last built cloud, handed to the next graph whose cloud is the same computation: arms that
 * differ only in labels (labels and labelSeed never reach the cloud). One slot, because a cloud built in a
 * CloudArena lives only until the arena's next build, and a miss here is that next build: so a caller that
 * passes the same arena and slot may reuse safely in any order, and gets reuse when equal clouds come one
 * after another. Nothing downstream of the cloud writes to it (buildSceneGraph, segmentRegions, diagnose and
 * labelledBundle only read it; test/scenegraph/sharedCloud.test.ts checks).
 */
export class SharedCloud {
  private slot: {
    bundle: FrameBundle;
    key: string;
    stride: number | undefined;
    trajectory: PipelineRuntime["trajectory"];
    full: PointCloud;
    cloud: PointCloud;
  } | null = null;

  /** The kept cloud (before and after leaving out structure) when it was built from the same inputs. */
  take(bundle: FrameBundle, key: string, runtime: PipelineRuntime): { full: PointCloud; cloud: PointCloud } | null {
    const s = this.slot;
    return s && s.bundle === bundle && s.key === key && s.stride === runtime.stride && s.trajectory === runtime.trajectory ? s : null;
  }

  /** Forgets the kept cloud: called before a build, which may overwrite the arena memory it lives in. */
  clear(): void {
    this.slot = null;
  }

  keep(bundle: FrameBundle, key: string, runtime: PipelineRuntime, full: PointCloud, cloud: PointCloud): void {
    this.slot = { bundle, key, stride: runtime.stride, trajectory: runtime.trajectory, full, cloud };
  }
}

/** A graph's cloud options: its options without the graph's own (masks, instances, labels). */
function cloudOptionsOf(options: GraphPipelineOptions) {
  const { masks: _masks, instances: _instances, labels: _labels, labelSeed: _labelSeed, time: _time, ...cloudOptions } = options;
  return cloudOptions;
}

/** What decides a graph's cloud: its cloud options, and whether structure is left out (any mask mode but none). */
export const cloudKey = (options: GraphPipelineOptions): string => JSON.stringify([cloudOptionsOf(options), options.masks === "none"]);

export interface PipelineResult extends GraphResult {
  cloud: PointCloud;
  /** null when `diagnose: false` or the bundle has no task (nothing to diagnose against) */
  diagnosis: Diagnosis | null;
  options: GraphPipelineOptions;
  /** Decisions the caller should show the user (e.g. the DBSCAN fallback for `masks: none`). */
  notes: string[];
  /** Wall time per stage (ms): cloud, graph, diagnose. */
  timings_ms: Record<string, number>;
}

/** The instance ids of room structure (floor, walls) in the bundle's instance table. */
export function structureIds(bundle: Pick<FrameBundle, "manifest">): Set<number> {
  return structureIdsOf(bundle.manifest);
}

/** Whether a bundle has 2D instance masks: a scene imported without them has an empty instance table. */
function bundleHasMasks(bundle: Pick<FrameBundle, "manifest">): boolean {
  return bundle.manifest.instances.length > 0;
}

/**
 * The evidence mode a bundle allows: one without masks takes `masks none` (geometry only) and says so in
 * `note`; a mask mode asked for explicitly (`given`) on such a bundle is an input error naming the flag.
 */
export function masksForBundle<O extends { masks?: MaskMode }>(
  bundle: Pick<FrameBundle, "manifest" | "dir">,
  options: O,
  given: boolean,
): { options: O; note: string | null } {
  if (bundleHasMasks(bundle) || options.masks === "none") return { options, note: null };
  const from = bundle.manifest.imported ? `an imported ${bundle.manifest.imported.layout} scene` : bundle.manifest.simulator;
  if (given)
    throw new InputError(
      `--masks ${options.masks}: ${bundle.dir || bundle.manifest.task_id} has no instance masks (${from}); use --masks none (geometry only)`,
      { field: "masks" },
    );
  return {
    options: { ...options, masks: "none" },
    note: `${bundle.dir || bundle.manifest.task_id} has no instance masks (${from}): using --masks none (geometry only, anonymous nodes)`,
  };
}

/**
 * The relabelled bundle last made for a cloud: the label arms that share one noisy cloud (SharedCloud) then
 * share one relabelled bundle too, so its evidence (scenegraph/evidence.ts, cached by the bundle's views) is
 * found once for all of them.
 */
const labelledOfCloud = new WeakMap<PointCloud, { bundle: object; firstFakeId: number; labelled: object }>();

/**
 * The bundle as the graph builder sees it under the cloud's label corruption (reconstruct/noisy/labels.ts).
 * Only a noisy cloud carries any, so the noise model's modules are loaded for noisy clouds alone (they cost
 * a gt graph's process over 100 ms of startup).
 */
export async function labelledFor<B extends Pick<FrameBundle, "manifest" | "views">>(
  bundle: B,
  cloud: PointCloud,
  firstFakeId = FAKE_LABEL_ID_BASE,
): Promise<B> {
  if (cloud.source !== "noisy") return bundle;
  const kept = labelledOfCloud.get(cloud);
  if (kept && kept.bundle === bundle && kept.firstFakeId === firstFakeId) return kept.labelled as B;
  const { labelledBundle } = await import("../reconstruct/noisy/labels.js");
  const labelled = labelledBundle(bundle, cloud, firstFakeId);
  labelledOfCloud.set(cloud, { bundle, firstFakeId, labelled });
  return labelled;
}

/**
 * The cloud a graph of these options is built from (`cloud`), and the whole cloud it came from (`full`: the
 * same, except that a multi-room task keeps its structure points there for the region layer).
 */
export async function graphCloud(
  bundle: FrameBundle,
  o: GraphPipelineOptions,
  runtime: PipelineRuntime = {},
): Promise<{ full: PointCloud; cloud: PointCloud }> {
  // with masks, structure points never reach an instance: leave them out of the cloud
  const exclude = o.masks === "none" ? undefined : structureIds(bundle);
  // a multi-room task keeps its structure points for the region layer (rooms from walls and floor), a diff of
  // phases for telling which places its views saw
  const keepStructure = bundle.manifest.task?.room.layout !== undefined || (o.time === "diff" && isPhased(bundle.manifest));
  const full = await buildPointCloud(bundle, cloudOptionsOf(o), { ...runtime, excludeIds: keepStructure ? undefined : exclude });
  return { full, cloud: keepStructure ? withoutIds(full, exclude) : full };
}

/** The graph of a bundle under options as GraphPipelineOptionsSchema parsed them at the front-end (no second check here). */
export async function graphOfBundle(bundle: FrameBundle, o: GraphPipelineOptions, runtime: PipelineRuntime = {}): Promise<PipelineResult> {
  const notes: string[] = [];
  const timings_ms: Record<string, number> = {};
  let t = performance.now();
  /** Records the time since the last lap as `stage`'s, or 0 for a stage this graph did not pay for. */
  const lap = (stage: string, paid = true) => {
    const now = performance.now();
    timings_ms[stage] = paid ? Math.round(now - t) : 0;
    t = now;
  };
  const task = bundle.manifest.task;
  // notes about this bundle name it: a run prints each distinct note once, so each bundle's is listed
  if (bundle.manifest.conventions.world === "unknown-up-metres")
    notes.push(
      `${bundle.dir || bundle.manifest.task_id}: the bundle's world has no known up axis (unknown-up-metres): vertical relations (on, above, below) and heights take +Z as up; import with --up to state it`,
    );
  const key = runtime.shared ? cloudKey(o) : "";
  const kept = runtime.shared?.take(bundle, key, runtime);
  let full: PointCloud, cloud: PointCloud;
  if (kept) ({ full, cloud } = kept);
  else {
    runtime.shared?.clear();
    ({ full, cloud } = await graphCloud(bundle, o, runtime));
    runtime.shared?.keep(bundle, key, runtime, full, cloud);
  }
  // a reused cloud cost this graph nothing: its time is in the timings of the graph that built it. Recorded as
  // 0, not as the lookup's time, which rounded to 0 only while nothing (a GC, a busy machine) interrupted it
  lap("cloud", !kept);
  const instances = effectiveInstances(o.masks, o.instances);
  if (instances !== o.instances) notes.push("masks none has no 2D masks to fuse; using instances dbscan");
  // a noisy cloud with label corruption brings its corrupted masks; the diagnosis keeps the true bundle
  const seen = await labelledFor(bundle, cloud);
  const graphOptions = { masks: o.masks, instances, labels: o.labels, labelSeed: o.labelSeed };
  const phased = isPhased(bundle.manifest);
  const result = phased && o.time === "diff" ? diffGraph(cloud, full, seen, graphOptions) : buildSceneGraph(cloud, seen, graphOptions);
  if (phased && o.time === "fuse") stampFused(result, cloud, bundle.manifest);
  if (task?.room.layout !== undefined) {
    // without masks the cloud's labels are not evidence: floor and walls come from the geometry alone
    const structure = o.masks === "none" ? segmentStructure(full.xyz).mask : undefined;
    const regions = segmentRegions(full, result.graph.nodes, task?.room.floor_z ?? 0, structure);
    if (regions) result.graph.regions = regions;
    if (!regions?.rooms.length)
      notes.push(
        `region layer of ${bundle.manifest.task_id} (${bundle.manifest.paradigm} views, ${o.source} cloud): the views show no room (too little floor or wall)`,
      );
  }
  lap("graph");
  let diagnosis: Diagnosis | null = null;
  // a bundle of one's own (no task) has no truth to diagnose against
  if (runtime.diagnose !== false && task) {
    diagnosis = diagnose({
      graph: result.graph,
      members: result.members,
      cloud,
      task,
      bundle,
      trueRelations: runtime.trueRelations ?? cachedTrueRelations(task),
      ...(runtime.moved?.length ? { moved: runtime.moved } : {}),
    });
    lap("diagnose");
  }
  return { ...result, cloud, diagnosis, options: { ...o, instances }, notes, timings_ms };
}

/**
 * The active paradigm's graph memory for one 3D arm: each step's new view is lifted by the arm's source and
 * fused into the graph so far (scenegraph/incremental.ts). Per source, the new view's points are:
 * - gt: that view back-projected (the batch gt cloud is the concatenation of these, so the last step's
 *   graph is the batch graph);
 * - noisy: that view through the error model alone. Every noise component is drawn per view from
 *   (seed, task, view index) streams, so the points match the batch cloud's, except `dropout`, whose
 *   quantile is taken over this view's points instead of over all views' (docs/active.md);
 * - vggt: VGGT is a multi-view model, so each step reconstructs every view so far and keeps the new
 *   view's points; earlier views keep the points they were fused with (a batch build would re-lift them).
 */
export class GraphMemory {
  private readonly graph: IncrementalGraph;
  private readonly o: GraphPipelineOptions;
  readonly notes: string[] = [];
  /** Some view's points took their metric scale from the bundle's depth (vggt's meta.scaleOracle). */
  scaleOracle = false;
  /** The noisy labels component's next fake instance id (each view's fakes are numbered after the last's). */
  private nextFakeId = FAKE_LABEL_ID_BASE;
  /** A multi-room task's floor and wall points so far, for the region layer (null for a single room). */
  private readonly structure: StructurePoints | null;
  private readonly floorZ: number;

  constructor(
    manifest: Pick<FrameBundle["manifest"], "image" | "instances" | "task" | "task_id" | "paradigm">,
    options: GraphPipelineOptions,
    private readonly runtime: Omit<PipelineRuntime, "arena"> = {},
  ) {
    this.o = options;
    const instances = effectiveInstances(this.o.masks, this.o.instances);
    if (instances !== this.o.instances) this.notes.push("masks none has no 2D masks to fuse; using instances dbscan");
    // the active memory grows its evidence a view at a time (EvidenceBuilder) and has no appearance labels yet
    if (this.o.labels === "appearance")
      this.notes.push("labels appearance is not modelled in the active paradigm's graph memory yet; its masks carry oracle labels");
    this.o = { ...this.o, instances };
    this.graph = new IncrementalGraph(manifest, { masks: this.o.masks, instances });
    this.structure = manifest.task?.room.layout !== undefined ? new StructurePoints() : null;
    this.floorZ = manifest.task?.room.floor_z ?? 0;
  }

  /**
   * The new view's points under this arm's source, structure left out; a multi-room task's view keeps its
   * floor and walls long enough to add them to the region layer's points, as the batch graph does.
   */
  private async viewCloud(bundle: FrameBundle): Promise<PointCloud> {
    if (!this.structure) return this.viewPoints(bundle, this.o.masks === "none" ? undefined : structureIds(bundle));
    const full = await this.viewPoints(bundle, undefined);
    // without masks the cloud's labels are not evidence: floor and walls come from the geometry alone
    this.structure.add(full, this.floorZ, this.o.masks === "none" ? segmentStructure(full.xyz).mask : undefined);
    return this.o.masks === "none" ? full : withoutIds(full, structureIds(bundle));
  }

  private async viewPoints(bundle: FrameBundle, excludeIds: ReadonlySet<number> | undefined): Promise<PointCloud> {
    const view = bundle.views.at(-1)!;
    const cloudOptions = cloudOptionsOf(this.o);
    const runtime = { ...this.runtime, excludeIds };
    if (this.o.source === "vggt") {
      const all = await buildPointCloud(bundle, cloudOptions, runtime);
      const keep = new Uint8Array(all.count);
      for (let i = 0; i < all.count; i++) keep[i] = all.view[i] === view.index ? 1 : 0;
      return filterCloud(all, keep);
    }
    const one: FrameBundle = { ...bundle, manifest: { ...bundle.manifest, views: [bundle.manifest.views.at(-1)!] }, views: [view] };
    return buildPointCloud(one, cloudOptions, { ...runtime, trajectory: bundle.views });
  }

  /**
   * The agent moved an object; called after a successful manipulation, before the view that shows it is
   * added. The moved node's earlier points are dropped (the object is no longer there) and the next views'
   * detection of it is the same node (scenegraph/manipulation.ts says which, and by what rule). Returns what
   * it did in words; why it could not goes to the notes too (the run shows them).
   */
  noteManipulation(event: ManipulationEvent): { done: boolean; text: string } {
    const out = this.graph.noteManipulation(event);
    if (!out.done) this.notes.push(`${this.graph.taskId} view ${event.view}: ${out.text}`);
    return out;
  }

  /**
   * Adds the bundle's last view and returns the graph (and, unless runtime.diagnose is false, its diagnosis,
   * against the objects where they are now: `moved`, the objects moved so far, from the environment).
   */
  async addView(bundle: FrameBundle, moved?: readonly ObjectMove[]): Promise<PipelineResult> {
    const timings_ms: Record<string, number> = {};
    let t = performance.now();
    const lap = (stage: string) => {
      const now = performance.now();
      timings_ms[stage] = Math.round((now - t) * 10) / 10;
      t = now;
    };
    const vc = await this.viewCloud(bundle);
    if (vc.meta.scaleOracle === true) this.scaleOracle = true;
    lap("cloud");
    // the noisy source's label corruption reaches the graph through relabelled instance images, as in graphOfBundle
    const one: FrameBundle = { ...bundle, manifest: { ...bundle.manifest, views: [bundle.manifest.views.at(-1)!] }, views: [bundle.views.at(-1)!] };
    const labelled = await labelledFor(one, vc, this.nextFakeId);
    if (labelled !== one) this.nextFakeId += labelled.manifest.instances.length - one.manifest.instances.length;
    const seen: FrameBundle =
      labelled === one
        ? bundle
        : { ...bundle, manifest: { ...bundle.manifest, instances: labelled.manifest.instances }, views: [...bundle.views.slice(0, -1), labelled.views[0]!] };
    const result = this.graph.addView(labelled.views[0]!, vc, seen);
    // a changing world's views: the memory fuses them as they come (a diff needs each phase whole), each node saying which phases saw it
    if (isPhased(bundle.manifest)) stampFused(result, this.graph.cloud.cloud(), bundle.manifest);
    if (this.structure) {
      const regions = regionsOfStructure(this.structure, result.graph.nodes);
      if (regions) result.graph.regions = regions;
    }
    lap("graph");
    const cloud = this.graph.cloud.cloud();
    let diagnosis: Diagnosis | null = null;
    const task = bundle.manifest.task;
    if (this.runtime.diagnose !== false && task) {
      diagnosis = diagnose({
        graph: result.graph,
        members: result.members,
        cloud,
        task,
        bundle,
        trueRelations: this.runtime.trueRelations ?? cachedTrueRelations(task),
        ...(moved?.length ? { moved } : {}),
      });
      lap("diagnose");
    }
    return { ...result, cloud, diagnosis, options: this.o, notes: this.notes, timings_ms };
  }
}
