/**
 * One unit of evaluation work: a task in one paradigm. Renders the views once, then for each point-cloud
 * source builds the cloud, the scene graph and its diagnosis; answers with the offline reasoners on the
 * spot. LLM answers need the network and run in the main thread, so for them the unit returns the graphs.
 */
import type { Task } from "../../bridge/task/schema.js";
import { stageTimer } from "../core/stageTimer.js";
import type { FrameBundle } from "../../bridge/bundle/io.js";
import type { Paradigm } from "../../bridge/bundle/schema.js";
import { renderBundle } from "../../bridge/sim/capture.js";
import { buildPointCloud } from "../../reconstruct/index.js";
import { CloudArena, type PointCloud } from "../../reconstruct/pointcloud.js";
import { buildSceneGraph, type GraphResult } from "../../scenegraph/build.js";
import { diagnose, type Diagnosis, type GraphMetrics } from "../../scenegraph/diagnosis.js";
import { trueRelations } from "../../scenegraph/truth.js";
import type { SceneGraph } from "../../scenegraph/types.js";
import { createSymbolicReasoner } from "../reason/symbolic.js";
import { createSymbolic2dReasoner } from "../reason/symbolic2d.js";
import type { ReasonerAnswer } from "../reason/types.js";
import { scoreAnswer } from "./score.js";
import { threeDArms, type RunConfig, type ThreeDArm } from "./config.js";
import { itemKey, type Arm, type ItemRecord } from "./records.js";

export interface UnitJob {
  task: Task;
  paradigm: Paradigm;
  config: RunConfig;
  /** Item keys already finished (resume): their arms are skipped. */
  done: string[];
}

export interface UnitGraph {
  source: string;
  graph: SceneGraph;
  diagnosis: Diagnosis;
}

export interface UnitResult {
  records: ItemRecord[];
  graphs: UnitGraph[];
  /** Arms left for the main thread (LLM reasoners). */
  pending: Array<{ key: string; arm: Arm; source: string | null }>;
  timings: Record<string, number>;
  views: number;
}

/** The graph-quality figures a record carries. */
export function qualityFigures(m: GraphMetrics): Record<string, number | null> {
  return {
    nodes: m.nodes,
    objects: m.objects,
    observed_objects: m.observed_objects,
    matched: m.matched,
    duplicates: m.duplicates,
    hallucinated: m.hallucinated,
    merged: m.merged,
    missed_unseen: m.missed_unseen,
    missed_lost: m.missed_lost,
    precision: m.precision,
    recall_observed: m.recall_observed,
    f1_observed: m.f1_observed,
    duplicate_rate: m.duplicate_rate,
    hallucination_rate: m.hallucination_rate,
    miss_rate: m.miss_rate,
    relation_precision: m.relation_precision,
    relation_recall: m.relation_recall,
    centroid_error_m: m.centroid_error_m,
  };
}

export function makeRecord(task: Task, paradigm: string, arm: Arm, source: string | null, config: RunConfig, reasoner: string, a: ReasonerAnswer, views: number, quality: Record<string, number | null> | null, timings: Record<string, number>, level: number | null = null, key?: string): ItemRecord {
  const score = a.status === "parsed" && a.answer !== null ? scoreAnswer(a, task) : null;
  const correct = score && score.scored ? score.correct : null;
  const mra = task.answer_format === "integer" ? (score && score.scored ? (score.mra ?? null) : 0) : null;
  return {
    key: key ?? itemKey(task.task_id, paradigm, arm, source),
    task_id: task.task_id,
    subcategory: task.subcategory,
    category: task.category,
    paradigm,
    arm,
    source,
    noise_level: source === "noisy" ? (level ?? config.noiseLevel) : null,
    reasoner,
    masks: arm === "3d" ? config.masks : null,
    instances: arm === "3d" ? config.instances : null,
    format: arm === "3d" && reasoner !== "symbolic" ? config.format : null,
    uncertainty: arm === "3d" && reasoner !== "symbolic" ? config.uncertainty : null,
    question: task.question,
    answer_format: task.answer_format,
    options: task.options,
    truth: task.answer,
    status: a.status,
    answer: a.answer,
    confidence: a.confidence,
    correct,
    mra,
    prompt_hash: a.promptHash ?? null,
    raw: a.raw,
    method: a.method,
    reprompted: a.reprompted ?? false,
    views,
    graph_quality: quality,
    timings_ms: { ...timings, reason: a.latencyMs },
  };
}

const isOffline = (reasoner: string) => reasoner === "symbolic";

/**
 * The point cloud of one 3D arm of a run, from the run's configuration. The inspection viewer calls this
 * too, to rebuild exactly the cloud behind a stored graph.
 */
export function armCloud(bundle: FrameBundle, config: RunConfig, arm: ThreeDArm, cloudArena?: CloudArena): Promise<PointCloud> {
  const structure = new Set(bundle.manifest.instances.filter((e) => e.structure).map((e) => e.id));
  return buildPointCloud(bundle, {
    source: arm.source,
    noiseLevel: arm.level ?? config.noiseLevel,
    noiseSeed: config.noiseSeed,
    noiseComponents: config.noiseComponents,
    // with masks, structure points never reach an instance: leave them out
    excludeIds: config.masks === "none" ? undefined : structure,
    arena: cloudArena,
    vggt: { modelPath: config.vggt.modelPath ?? undefined, device: config.vggt.device, points: config.vggt.points, confPercentile: config.vggt.confPercentile, align: config.vggt.align },
  });
}

/** The scene graph of one 3D arm from its cloud, with the run's evidence mode and instance builder. */
export function armGraph(cloud: PointCloud, bundle: FrameBundle, config: RunConfig): GraphResult {
  return buildSceneGraph(cloud, bundle, { masks: config.masks, instances: config.masks === "none" ? "dbscan" : config.instances });
}

/** One arena per thread: a unit's clouds are built and used one after another. */
const arena = new CloudArena();

export async function runUnit(job: UnitJob): Promise<UnitResult> {
  const { task, paradigm, config } = job;
  const done = new Set(job.done);
  const { timings, lap } = stageTimer(1);
  const bundle = renderBundle(task, paradigm);
  lap("render");
  const records: ItemRecord[] = [];
  const graphs: UnitGraph[] = [];
  const pending: UnitResult["pending"] = [];
  const truthRelations = trueRelations(task);
  for (const { source, level, label } of threeDArms(config)) {
    const key = itemKey(task.task_id, paradigm, "3d", label);
    if (done.has(key)) continue;
    const st: Record<string, number> = {};
    let t0 = performance.now();
    const cloud = await armCloud(bundle, config, { source, level, label }, arena);
    st.cloud = Math.round(performance.now() - t0);
    t0 = performance.now();
    const g = armGraph(cloud, bundle, config);
    st.graph = Math.round(performance.now() - t0);
    t0 = performance.now();
    const diagnosis = diagnose({ graph: g.graph, members: g.members, cloud, task, bundle, trueRelations: truthRelations });
    st.diagnose = Math.round(performance.now() - t0);
    graphs.push({ source: label, graph: g.graph, diagnosis });
    if (isOffline(config.reasoner)) {
      const a = await createSymbolicReasoner().answer({ task, graph: g.graph });
      records.push(makeRecord(task, paradigm, "3d", source, config, "symbolic", a, bundle.views.length, qualityFigures(diagnosis.metrics), { render: timings.render!, ...st }, level, key));
    } else pending.push({ key, arm: "3d", source: label });
  }
  lap("sources");
  if (config.baseline === "2d") {
    const key = itemKey(task.task_id, paradigm, "2d", null);
    if (!done.has(key)) {
      if (isOffline(config.reasoner)) {
        const a = await createSymbolic2dReasoner().answer({ task, bundle });
        records.push(makeRecord(task, paradigm, "2d", null, config, "symbolic-2d", a, bundle.views.length, null, { render: timings.render! }));
      } else pending.push({ key, arm: "2d", source: null });
    }
  }
  return { records, graphs, pending, timings, views: bundle.views.length };
}
