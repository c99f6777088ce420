/**
 * One unit of evaluation work: a task in one paradigm. Renders the views once, then for each point-cloud
 * source builds the graph through the shared pipeline (scenegraph/pipeline.ts) and answers with the
 * offline reasoners on the spot. LLM answers need the network and run in the main thread, so for them the
 * unit returns the graphs.
 */
import type { Task } from "../../core/task/schema.js";
import { stageTimer } from "../../core/stageTimer.js";
import type { FrameBundle } from "../../core/bundle/io.js";
import type { Paradigm } from "../../core/bundle/schema.js";
import { renderBundle } from "../../bridge/sim/capture.js";
import { CloudArena } from "../../reconstruct/pointcloud.js";
import type { Diagnosis, GraphMetrics } from "../../scenegraph/diagnosisSchema.js";
import { cloudKey, graphOfBundle, SharedCloud, type PipelineResult, type PipelineRuntime } from "../../scenegraph/pipeline.js";
import { type GraphPipelineOptions } from "../../scenegraph/pipelineOptions.js";
import { cachedTrueRelations, trueRelations } from "../../scenegraph/truth.js";
import { gtTrajectoryEnd } from "../../bridge/sim/capture.js";
import type { SceneGraph } from "../../scenegraph/types.js";
import { createSymbolicReasoner } from "../reason/symbolic.js";
import { createSymbolic2dReasoner } from "../reason/symbolic2d.js";
import { createShortcutReasoner } from "../reason/shortcut.js";
import type { ReasonerAnswer } from "../reason/types.js";
import { withCircular } from "../reason/circular.js";
import { scoreAnswer, scoreCircular } from "./score.js";
import { callTimings, itemLogFields } from "./itemLog.js";
import { taskHash } from "./taskHash.js";
import { baselineLabels, hasBaseline, reasonerKeyPart, threeDArms, type RunConfig, type ThreeDArm } from "./config.js";
import type { LabelMode } from "../../scenegraph/options.js";
import { itemKey, type ActiveEpisode, type Arm, type ItemRecord } from "./records.js";

export interface UnitJob {
  task: Task;
  paradigm: Paradigm;
  config: RunConfig;
  /** Item keys already finished (resume): their arms are skipped. */
  done: string[];
  /** The task's generation time (ms) when this run generated it (not for tasks read back or from a suite directory). */
  generateMs?: number;
}

/** The `generate` timing a unit's records carry: its task's generation, repeated in each record of the task. */
export const generateTiming = (job: Pick<UnitJob, "generateMs">): Record<string, number> => (job.generateMs !== undefined ? { generate: job.generateMs } : {});

export interface UnitGraph {
  source: string;
  graph: SceneGraph;
  diagnosis: Diagnosis;
  /** The cloud's metric scale came from the bundle's depth (a scale oracle; the vggt source's meta.scaleOracle). */
  scaleOracle: boolean;
}

export interface UnitResult {
  records: ItemRecord[];
  graphs: UnitGraph[];
  /** Arms left for the main thread (LLM reasoners), each with the reasoner that answers it. */
  pending: Array<{ key: string; arm: Exclude<Arm, "shortcut">; source: string | null; reasoner: string }>;
  timings: Record<string, number>;
  views: number;
  /** Distinct lines the unit's reconstructions and graphs want the user to see (vggt's CPU fallback, a masks-none fallback); the run prints each once. */
  notes: string[];
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
    stale: m.stale ?? 0,
    // scenes with mirrors only: a record of a mirror-free scene stays as it was
    ...(m.mirror_ghosts !== undefined ? { mirror_ghosts: m.mirror_ghosts } : {}),
    // a changing world's views only: duplicates whose copies came from different phases
    ...(m.duplicates_by_change !== undefined ? { duplicates_by_change: m.duplicates_by_change } : {}),
    merged: m.merged,
    missed_unseen: m.missed_unseen,
    missed_lost: m.missed_lost,
    precision: m.precision,
    recall_observed: m.recall_observed,
    f1_observed: m.f1_observed,
    duplicate_rate: m.duplicate_rate,
    hallucination_rate: m.hallucination_rate,
    stale_rate: m.stale_rate ?? 0,
    miss_rate: m.miss_rate,
    relation_precision: m.relation_precision,
    relation_recall: m.relation_recall,
    centroid_error_m: m.centroid_error_m,
  };
}

/** Everything one item record is made of. */
export interface RecordParts {
  task: Task;
  paradigm: RunConfig["paradigms"][number];
  arm: Arm;
  /** the 3D arm's source (null for 2D) and, for the noisy source, its noise options (the run's when not given) */
  source: ThreeDArm["source"] | null;
  noise?: ThreeDArm["noise"];
  /** the mask labels the arm read (oracle when not given) */
  labels?: LabelMode;
  config: RunConfig;
  reasoner: string;
  answer: ReasonerAnswer;
  views: number;
  quality: Record<string, number | null> | null;
  timings: Record<string, number>;
  /** the item key, when it is not the default one of (task, paradigm, arm, source) */
  key?: string;
  /** the 3D arm's scale came from ground-truth depth (UnitGraph.scaleOracle) */
  scaleOracle?: boolean;
  /** paradigm active: the episode */
  active?: ActiveEpisode;
}

export function makeRecord(p: RecordParts): ItemRecord {
  const { task, paradigm, arm, source, config, reasoner, answer: a } = p;
  const answered = a.status === "parsed" && a.answer !== null;
  const score = answered ? scoreAnswer(a, task) : null;
  // a circular item is right only when every rotation is, and keeps the MRA that holds in every rotation
  const circular = a.rotations ? scoreCircular(a.rotations, task) : null;
  const correct = circular ? (answered ? circular.all : null) : score && score.scored ? score.correct : null;
  const mra = task.answer_format === "integer" ? (circular ? (answered ? circular.mra : 0) : score && score.scored ? (score.mra ?? null) : 0) : null;
  return {
    key: p.key ?? itemKey(task.task_id, paradigm, arm, source),
    task_id: task.task_id,
    task_hash: taskHash(task),
    subcategory: task.subcategory,
    category: task.category,
    paradigm,
    arm,
    source,
    noise_level: source === "noisy" ? (p.noise ?? config.noise).noiseLevel : null,
    reasoner,
    masks: arm === "3d" ? config.graph.masks : null,
    instances: arm === "3d" ? config.graph.instances : null,
    labels: p.labels ?? "oracle",
    format: arm === "3d" && reasoner !== "symbolic" ? config.prompt.format : null,
    // the symbolic reasoner reads it too: with it on, counts resolve duplicates (src/reason/countEvidence.ts)
    uncertainty: arm === "3d" ? config.prompt.uncertainty : null,
    question: task.question,
    answer_format: task.answer_format,
    options: task.options,
    truth: task.answer,
    status: a.status,
    answer: a.answer,
    match: answered ? (a.match ?? null) : null,
    confidence: a.confidence,
    ...(a.confidenceProblem ? { confidence_problem: a.confidenceProblem } : {}),
    correct,
    mra,
    ...(score && score.scored && score.structured
      ? { structured: { answer: score.structured.value, parts_correct: score.structured.parts_correct, parts_total: score.structured.parts_total } }
      : {}),
    prompt_hash: a.promptHash ?? null,
    ...itemLogFields(a),
    raw: a.raw,
    method: a.method,
    reprompted: a.reprompted ?? false,
    views: p.views,
    graph_quality: p.quality,
    // an active episode's calls are timed per step (active.steps[].time_ms)
    timings_ms: { ...p.timings, reason: a.latencyMs, ...(p.active ? {} : callTimings(a)) },
    ...(a.failure ? { error: { class: a.failure.class, message: a.failure.message } } : {}),
    ...(p.task.proxy ? { proxy: true as const, simulator: p.task.simulator } : {}),
    ...(p.scaleOracle ? { scale_oracle: true as const } : {}),
    ...(p.active ? { active: p.active } : {}),
    ...(a.sampling ? { sampling: a.sampling } : {}),
    ...(circular ? { circular: { rotations: circular.rotations, answers: circular.answers, correct: circular.correct } } : {}),
  };
}

const isOffline = (reasoner: string) => reasoner === "symbolic";

/**
 * The shortcut baseline's record of a unit (null when the run has no shortcut arm or it is done): the
 * question-only answer, the same in every passive paradigm, recorded per paradigm so each column of the table
 * has it (it takes no views, so it has no active episode). It runs offline whatever the run's reasoner.
 */
async function shortcutRecord(
  task: Task,
  paradigm: RunConfig["paradigms"][number],
  config: RunConfig,
  done: ReadonlySet<string>,
  views: number,
  timings: Record<string, number> = {},
): Promise<ItemRecord | null> {
  const key = itemKey(task.task_id, paradigm, "shortcut", null);
  if (!hasBaseline(config, "shortcut") || done.has(key)) return null;
  const answer = await withCircular(createShortcutReasoner(), config.prompt.circular).answer({ task });
  return makeRecord({ task, paradigm, arm: "shortcut", source: null, config, reasoner: "shortcut", answer, views, quality: null, timings });
}

/**
 * The graph options of one 3D arm of a run (the inspection viewer uses them to rebuild a stored graph): the run's
 * stage objects as they are, with the arm's source, noise options and label mode.
 */
export function armOptions(config: RunConfig, arm: ThreeDArm): GraphPipelineOptions {
  return { source: arm.source, ...arm.noise, vggt: config.vggt, ...config.graph, labels: arm.labels };
}

/** The cloud, graph and (unless runtime says otherwise) diagnosis of one 3D arm of a run. */
export function armPipeline(bundle: FrameBundle, config: RunConfig, arm: ThreeDArm, runtime: PipelineRuntime = {}): Promise<PipelineResult> {
  return graphOfBundle(bundle, armOptions(config, arm), runtime);
}

/**
 * The order a unit builds its arms in: arms with the same cloud one after another (stable, by each cloud's
 * first arm), so a SharedCloud hands each cloud to every arm that reads it.
 */
export function cloudOrder(config: RunConfig, arms: readonly ThreeDArm[]): number[] {
  const first = new Map<string, number>();
  const group = arms.map((arm, i) => {
    const key = cloudKey(armOptions(config, arm));
    if (!first.has(key)) first.set(key, i);
    return first.get(key)!;
  });
  return arms.map((_, i) => i).sort((a, b) => group[a]! - group[b]! || a - b);
}

/** One arena per thread: a unit's clouds are built and used one after another. */
const arena = new CloudArena();

/** A unit of a passive paradigm (single, multi, gt); unit.ts `runUnit` sends active units to active.ts. */
export async function runPassiveUnit(job: UnitJob): Promise<UnitResult> {
  const { task, paradigm, config } = job;
  const done = new Set(job.done);
  const { timings, lap } = stageTimer(1);
  const bundle = renderBundle(task, paradigm);
  lap("render");
  const records: ItemRecord[] = [];
  const graphs: UnitGraph[] = [];
  const pending: UnitResult["pending"] = [];
  // a gt trajectory that acts leaves the world changed (a lifted cloth): its graphs are judged against that world
  const end = paradigm === "gt" ? gtTrajectoryEnd(task) : null;
  const truthRelations = end ? trueRelations({ ...task, objects: end.objects }) : cachedTrueRelations(task);
  lap("truth_relations");
  const base = { ...generateTiming(job), render: timings.render! };
  const notes = new Set<string>();
  const arms = threeDArms(config);
  // arms that differ only in labels share one cloud: built once and kept (one slot, safe with the arena)
  const shared = new SharedCloud();
  // what each arm's answers need (not its cloud: an arena's cloud lives only until the next build)
  const built: Array<{
    arm: ThreeDArm;
    open: Array<{ reasoner: string; key: string }>;
    r: Pick<PipelineResult, "graph" | "diagnosis" | "notes" | "timings_ms">;
    scaleOracle: boolean;
    logs: string[];
  }> = [];
  for (const i of cloudOrder(config, arms)) {
    const arm = arms[i]!;
    // each reasoner answers from the one graph of this arm
    const open = config.reasoner
      .map((reasoner) => ({ reasoner, key: itemKey(task.task_id, paradigm, "3d", arm.label, reasonerKeyPart(config, reasoner)) }))
      .filter((x) => !done.has(x.key));
    if (!open.length) continue;
    const logs: string[] = [];
    const {
      graph,
      diagnosis,
      notes: armNotes,
      timings_ms,
      cloud,
    } = await armPipeline(bundle, config, arm, {
      arena,
      shared,
      trueRelations: truthRelations,
      ...(end ? { moved: end.moved } : {}),
      log: (line) => logs.push(line),
    });
    built[i] = { arm, open, r: { graph, diagnosis, notes: armNotes, timings_ms }, scaleOracle: cloud.meta.scaleOracle === true, logs };
  }
  // graphs, records and notes in the arms' own order, whatever order their clouds were built in
  for (const { arm, open, r, scaleOracle, logs } of built.filter((b) => b !== undefined)) {
    for (const n of [...logs, ...r.notes]) notes.add(n);
    const diagnosis = r.diagnosis!;
    graphs.push({ source: arm.label, graph: r.graph, diagnosis, scaleOracle });
    for (const { reasoner, key } of open) {
      if (!isOffline(reasoner)) {
        pending.push({ key, arm: "3d", source: arm.label, reasoner });
        continue;
      }
      const answer = await withCircular(createSymbolicReasoner(), config.prompt.circular).answer({
        task,
        graph: r.graph,
        uncertainty: config.prompt.uncertainty,
      });
      const st = { ...base, truth_relations: timings.truth_relations!, ...r.timings_ms };
      records.push(
        makeRecord({
          task,
          paradigm,
          arm: "3d",
          source: arm.source,
          noise: arm.noise,
          labels: arm.labels,
          config,
          reasoner: "symbolic",
          answer,
          views: bundle.views.length,
          quality: qualityFigures(diagnosis.metrics),
          timings: st,
          key,
          scaleOracle,
        }),
      );
    }
  }
  lap("sources");
  const shortcut = await shortcutRecord(task, paradigm, config, done, bundle.views.length, generateTiming(job));
  if (shortcut) records.push(shortcut);
  if (hasBaseline(config, "2d")) {
    for (const reasoner of config.reasoner) {
      const key = itemKey(task.task_id, paradigm, "2d", null, reasonerKeyPart(config, reasoner));
      if (done.has(key)) continue;
      if (!isOffline(reasoner)) {
        pending.push({ key, arm: "2d", source: null, reasoner });
        continue;
      }
      const answer = await withCircular(
        createSymbolic2dReasoner({ labels: baselineLabels(config), labelSeed: config.graph.labelSeed }),
        config.prompt.circular,
      ).answer({ task, bundle });
      records.push(
        makeRecord({
          task,
          paradigm,
          arm: "2d",
          source: null,
          labels: baselineLabels(config),
          config,
          reasoner: "symbolic-2d",
          answer,
          views: bundle.views.length,
          quality: null,
          timings: base,
          key,
        }),
      );
    }
  }
  return { records, graphs, pending, timings, views: bundle.views.length, notes: [...notes] };
}
