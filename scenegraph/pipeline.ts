/**
 * The graph pipeline, in one place: frame bundle → point cloud → scene graph → diagnosis against the
 * truth. The CLI (`graph`, `ask`), the runner, the service and the viewer all build graphs through this,
 * so the structure exclusion and the fusion fallback are decided once.
 */
import { z } from "zod";
import type { FrameBundle } from "../bridge/bundle/io.js";
import { buildPointCloud, type CloudRuntime } from "../reconstruct/index.js";
import { CloudOptionsSchema, CLOUD_FLAGS } from "../reconstruct/options.js";
import type { PointCloud } from "../reconstruct/pointcloud.js";
import { labelledBundle } from "../reconstruct/noisy/labels.js";
import type { FlagSpec } from "../src/core/flags.js";
import { buildSceneGraph, type GraphResult } from "./build.js";
import { diagnose } from "./diagnosis.js";
import type { Diagnosis } from "./diagnosisSchema.js";
import { effectiveInstances, GRAPH_FLAGS, GraphOptionsSchema } from "./options.js";
import { trueRelations } from "./truth.js";
import type { Relation } from "./types.js";

/** Everything that decides a graph: the cloud's source and options, the evidence mode and the instance builder. */
export const GraphPipelineOptionsSchema = CloudOptionsSchema.extend(GraphOptionsSchema.shape).strict();
export type GraphPipelineOptions = z.infer<typeof GraphPipelineOptionsSchema>;
export const GRAPH_PIPELINE_FLAGS: readonly FlagSpec[] = [...CLOUD_FLAGS, ...GRAPH_FLAGS];

export interface PipelineRuntime extends Omit<CloudRuntime, "excludeIds"> {
  /** Diagnose the graph against the bundle's task (default true). */
  diagnose?: boolean;
  /** The task's true relations, when the caller already has them (a runner builds several graphs per task). */
  trueRelations?: Relation[];
}

export interface PipelineResult extends GraphResult {
  cloud: PointCloud;
  /** null when `diagnose: false` */
  diagnosis: Diagnosis | null;
  options: GraphPipelineOptions;
  /** Decisions the caller should show the user (e.g. the DBSCAN fallback for `masks: none`). */
  notes: string[];
  /** Wall time per stage (ms): cloud, graph, diagnose. */
  timings_ms: Record<string, number>;
}

/** The instance ids of room structure (floor, walls) in the bundle's instance table. */
export function structureIds(bundle: Pick<FrameBundle, "manifest">): Set<number> {
  return new Set(bundle.manifest.instances.filter((e) => e.structure).map((e) => e.id));
}

export async function graphOfBundle(bundle: FrameBundle, options: z.input<typeof GraphPipelineOptionsSchema>, runtime: PipelineRuntime = {}): Promise<PipelineResult> {
  const o = GraphPipelineOptionsSchema.parse(options);
  const notes: string[] = [];
  const timings_ms: Record<string, number> = {};
  let t = performance.now();
  const lap = (stage: string) => {
    const now = performance.now();
    timings_ms[stage] = Math.round(now - t);
    t = now;
  };
  // with masks, structure points never reach an instance: leave them out of the cloud
  const { masks: _masks, instances: _instances, ...cloudOptions } = o;
  const cloud = await buildPointCloud(bundle, cloudOptions, { ...runtime, excludeIds: o.masks === "none" ? undefined : structureIds(bundle) });
  lap("cloud");
  const instances = effectiveInstances(o.masks, o.instances);
  if (instances !== o.instances) notes.push("masks none has no 2D masks to fuse; using instances dbscan");
  // a noisy cloud with label corruption brings its corrupted masks; the diagnosis keeps the true bundle
  const result = buildSceneGraph(cloud, labelledBundle(bundle, cloud), { masks: o.masks, instances });
  lap("graph");
  let diagnosis: Diagnosis | null = null;
  if (runtime.diagnose !== false) {
    const task = bundle.manifest.task;
    diagnosis = diagnose({ graph: result.graph, members: result.members, cloud, task, bundle, trueRelations: runtime.trueRelations ?? trueRelations(task) });
    lap("diagnose");
  }
  return { ...result, cloud, diagnosis, options: { ...o, instances }, notes, timings_ms };
}
