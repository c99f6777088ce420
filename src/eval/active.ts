/**
 * The active paradigm (docs/active.md): an agent explores with ESI-Bench's actions while, for the 3D arms,
 * a scene graph of every view so far grows one view per step (scenegraph/pipeline.ts GraphMemory). One
 * episode per arm: each arm's agent chooses its own views. The loop:
 *   1. the agent sees view step-1 (and the graph, the history) and returns {action, answer, reasoning, confidence};
 *   2. an invalid action is left in place (`--invalid-action reprompt`, after the LLM agent's one re-prompt)
 *      or turned into move_forward (`forward`);
 *   3. stop on `stop`, on a confident conclusive answer from --min-steps on, or at --max-steps
 *      (src/reason/active/stopping.ts); a final answer that is not conclusive gets one forced choice;
 *   4. otherwise the environment applies the action and renders the next view.
 */
import { stageTimer } from "../../core/stageTimer.js";
import type { Environment, EnvView } from "../../bridge/env/types.js";
import type { FrameBundle } from "../../core/bundle/io.js";
import { EpisodeBundle } from "../../bridge/env/bundle.js";
import { BuiltinEnvironment } from "../../bridge/sim/env.js";
import { actionText, STOP_ACTION } from "../../core/task/actions.js";
import { checkAction, envActionOf, manipulationEvent } from "./activeActions.js";
import type { Task } from "../../core/task/schema.js";
import { taskPhases } from "../../core/task/phases.js";
import { MIN_MASK_AREA_PX } from "../../scenegraph/evidence.js";
import { GraphMemory, type PipelineResult } from "../../scenegraph/pipeline.js";
import type { Relation } from "../../scenegraph/types.js";
import { diagnose } from "../../scenegraph/diagnosis.js";
import { cachedTrueRelations } from "../../scenegraph/truth.js";
import { isConclusive, stopReason, type StopReason } from "../reason/active/stopping.js";
import type { ActiveAgent, AgentContext, AgentDecision, StepView } from "../reason/active/types.js";
import type { LlmAgentOptions } from "../reason/active/llmAgent.js";
import { createExplorerAgent } from "../reason/active/explorers.js";
import type { ModelCall, ReasonerAnswer } from "../reason/types.js";
import type { PromptLog } from "../reason/promptFile.js";
import { promptFilePath } from "./promptFiles.js";
import { armOptions, generateTiming, makeRecord, qualityFigures, type UnitGraph, type UnitJob, type UnitResult } from "./pipeline.js";
import { hasBaseline, reasonerKeyPart, threeDArms, type RunConfig, type ThreeDArm } from "./config.js";
import { itemKey, type ActiveEpisode, type ActiveStep, type ItemRecord } from "./records.js";
import { scoreAnswer } from "./score.js";

export interface EpisodeInput {
  task: Task;
  config: RunConfig;
  /** The 3D arm (null: the 2D arm, which sees views only). */
  arm: ThreeDArm | null;
  agent: ActiveAgent;
  /** Default: the built-in simulator. */
  env?: Environment;
  signal?: AbortSignal;
  trueRelations?: readonly Relation[];
  /** Lines the reconstruction wants the user to see (vggt: the provider it fell back to). */
  log?: (line: string) => void;
  /**
   * Diagnose the graph against the truth after every step (true duplicates so far); default false: a
   * diagnosis costs seconds per step at the suite's resolution (measured: 4 s per step for a 30-step
   * counting episode), so by default only the last step's graph is diagnosed and earlier steps carry the
   * graph's own duplicate flags.
   */
  diagnoseEachStep?: boolean;
}

export interface EpisodeOutcome {
  episode: ActiveEpisode;
  /** The final answer, in the shape item records take. */
  answer: ReasonerAnswer;
  /** 3D arms: the last graph and its diagnosis. */
  graph: UnitGraph | null;
  views: number;
  /** Every view the episode gathered, as a frame bundle of paradigm active (`esi3d ask --save-episode` writes it; the service stores it for a remote episode). */
  bundle: FrameBundle;
  timings: Record<string, number>;
  /** What the graph memory decided for the user to see (e.g. the DBSCAN fallback of masks none). */
  notes: string[];
  /** LLM agents: every step's request (and the forced choice's), for the run's prompt files */
  prompts: PromptLog[];
}

/** The LLM agent's options as a run's configuration sets them: one mapping for the runner, the service and the tests. */
export function llmAgentOptions(config: RunConfig): LlmAgentOptions {
  return {
    invalidAction: config.active.invalidAction,
    threshold: config.active.threshold,
    temperature: config.llm.temperature,
    format: config.prompt.format,
    uncertainty: config.prompt.uncertainty,
    optionLabels: config.prompt.optionLabels,
  };
}

/** Instance ids of the objects the question needs, and a tally of which have been seen. */
class RelevantSeen {
  private readonly left: Set<number>;
  constructor(task: Task) {
    this.left = new Set(task.relevant_object_ids);
  }
  add(v: EnvView): boolean {
    if (this.left.size === 0) return true;
    const counts = new Map<number, number>();
    for (const id of v.view.ids) if (this.left.has(id)) counts.set(id, (counts.get(id) ?? 0) + 1);
    for (const [id, n] of counts) if (n >= MIN_MASK_AREA_PX) this.left.delete(id);
    return this.left.size === 0;
  }
}

const poseOf = (v: EnvView) => ({ position: [...v.pose.position] as [number, number, number], yaw: v.pose.yaw, pitch: v.pose.pitch });

function correctness(task: Task, d: Pick<AgentDecision, "status" | "answer" | "confidence">): boolean | null {
  if (d.status !== "parsed" || d.answer === null) return null;
  const s = scoreAnswer({ status: d.status, answer: d.answer }, task);
  return s.scored ? s.correct : null;
}

export async function runActiveEpisode(input: EpisodeInput): Promise<EpisodeOutcome> {
  const { task, config, arm, agent } = input;
  const t0 = performance.now();
  const timings: Record<string, number> = { render: 0, graph: 0, agent: 0 };
  const clock = async <T>(stage: string, f: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    try {
      return await f();
    } finally {
      timings[stage] = (timings[stage] ?? 0) + (performance.now() - t);
    }
  };
  const env = input.env ?? new BuiltinEnvironment(task);
  const episode = new EpisodeBundle(env.manifest);
  const memory = arm
    ? new GraphMemory(env.manifest, armOptions(config, arm), {
        diagnose: input.diagnoseEachStep === true,
        trueRelations: input.trueRelations,
        ...(input.log ? { log: input.log } : {}),
      })
    : null;
  const relevant = new RelevantSeen(task);
  const steps: ActiveStep[] = [];
  const history: StepView[] = [];
  let view = await clock("render", () => env.reset());
  let bundle = episode.add(view.view, view.phase);
  // a world that changes (docs/active.md): the budget is shared out among the phases; the episode explores each in
  // turn, and a stop before the last phase (the agent's, or its share of steps spent) moves it on to the next
  const phaseCount = env.phases ?? 1;
  const phaseLabels = taskPhases(task).map((p) => p.label);
  const phaseSteps = Math.max(1, Math.floor(config.active.maxSteps / phaseCount));
  let graph: PipelineResult | null = memory ? await clock("graph", () => memory.addView(bundle)) : null;
  let allSeen = relevant.add(view);
  let reason: StopReason = "budget";
  let last: AgentDecision | null = null;
  let ctx: AgentContext | null = null;
  // an LLM agent's model calls over the whole episode, for the record's usage (offline agents make none)
  const calls: ModelCall[] = [];
  const prompts: PromptLog[] = [];
  try {
    for (let step = 1; ; step++) {
      const ts = performance.now();
      ctx = {
        task,
        step,
        maxSteps: config.active.maxSteps,
        pose: view.pose,
        lastBlocked: view.blocked,
        history: history.slice(),
        bundle,
        graph: graph?.graph ?? null,
        format: config.prompt.format,
        uncertainty: config.prompt.uncertainty,
        actions: config.active.actions,
        ...(env.phases ? { phase: { index: view.phase ?? 0, count: phaseCount, label: phaseLabels[view.phase ?? 0] ?? "" } } : {}),
        checkAction: (text) => {
          const c = checkAction(text, config.active.actions, graph?.graph ?? null, env);
          return "error" in c ? c.error : null;
        },
      };
      const d = await clock("agent", () => agent.step(ctx!, input.signal));
      last = d;
      if (d.calls) calls.push(...d.calls);
      if (d.promptLog) prompts.push(d.promptLog);
      // an action the agent cannot give (unknown, wrong arity, outside --actions, an object it cannot name) gets the
      // invalid-action policy: stay (reprompt, after the LLM agent's one re-prompt) or move_forward (forward)
      const checked = checkAction(d.action ?? d.requestedAction, config.active.actions, graph?.graph ?? null, env);
      const parsed = d.action !== null && "action" in checked ? checked.action : null;
      const valid = parsed !== null;
      const chosen = parsed ?? (config.active.invalidAction === "forward" ? ({ kind: "camera", name: "move_forward" } as const) : null);
      const action = chosen ? actionText(chosen) : null;
      const stopNow = stopReason({ ...d, action }, step, config.active);
      const phaseNow = view.phase ?? 0;
      // the world changes instead of the episode ending, or once this phase's share of the budget is spent
      const changes = phaseNow + 1 < phaseCount && stopNow !== "error" && (stopNow !== null || step >= (phaseNow + 1) * phaseSteps);
      const stop = changes ? null : stopNow;
      const rec: ActiveStep = {
        step,
        requested_action: d.requestedAction,
        valid,
        action: stop ? (stop === "stop_action" ? STOP_ACTION : null) : action,
        blocked: null,
        action_result: "error" in checked ? `invalid: ${checked.error}` : null,
        pose: poseOf(view),
        status: d.status,
        answer: d.answer,
        confidence: d.confidence,
        correct: correctness(task, d),
        reasoning: d.reasoning,
        trace: d.trace,
        reprompted: d.reprompted,
        prompt_file: d.promptLog ? promptFilePath(d.promptLog.file.prompt_hash) : null,
        graph_nodes: graph ? graph.graph.nodes.length : null,
        flagged_duplicates: graph ? graph.graph.nodes.filter((n) => n.flags.possible_duplicate_of.length > 0).length : null,
        duplicates: graph?.diagnosis ? graph.diagnosis.metrics.duplicates : null,
        relevant_seen: allSeen,
        time_ms: 0,
      };
      if (changes) {
        view = await clock("render", () => env.nextPhase!());
        rec.action = null;
        rec.blocked = false;
        rec.action_result = view.actionResult;
        bundle = episode.add(view.view, view.phase);
        graph = memory ? await clock("graph", () => memory.addView(bundle, env.truth?.().moved)) : null;
        allSeen = relevant.add(view);
      } else if (!stop && chosen && chosen.kind !== "stop") {
        const before = view.pose;
        const nodes = graph?.graph ?? null;
        view = await clock("render", () => env.step(envActionOf(chosen, nodes)));
        rec.blocked = view.blocked;
        rec.action_result = view.actionResult;
        if (view.actedOn) rec.acted_on = view.actedOn;
        // the memory hears of a manipulation that happened in the agent's own terms (its references, its pose), never
        // the simulator's ids: the moved object's node follows it instead of staying behind as a stale one
        if (memory && chosen.kind === "hands" && !view.blocked) memory.noteManipulation(manipulationEvent(chosen, nodes, before, view.view.index));
        bundle = episode.add(view.view, view.phase);
        graph = memory ? await clock("graph", () => memory.addView(bundle, env.truth?.().moved)) : null;
        allSeen = relevant.add(view);
      }
      rec.time_ms = Math.round((performance.now() - ts) * 10) / 10;
      steps.push(rec);
      history.push({
        step,
        requested_action: rec.requested_action,
        action: rec.action,
        blocked: rec.blocked,
        action_result: rec.action_result ?? null,
        pose: rec.pose,
        status: rec.status,
        answer: rec.answer,
        confidence: rec.confidence,
        reasoning: rec.reasoning,
      });
      if (stop) {
        reason = stop;
        break;
      }
    }
  } finally {
    await env.close();
  }
  let final = last!;
  let forced = false;
  if (!isConclusive(final) && reason !== "error") {
    final = await clock("agent", () => agent.forceChoice({ ...ctx!, history: history.slice() }, input.signal));
    forced = true;
    if (final.calls) calls.push(...final.calls);
    if (final.promptLog) prompts.push(final.promptLog);
  }
  const answerStep = isConclusive(final) ? steps.length : null;
  const episodeRecord: ActiveEpisode = {
    agent: agent.id,
    max_steps: config.active.maxSteps,
    threshold: config.active.threshold,
    min_steps: config.active.minSteps,
    invalid_action: config.active.invalidAction,
    actions: config.active.actions,
    stop_reason: reason,
    steps_used: steps.length,
    answer_step: answerStep,
    forced_choice: forced,
    steps,
  };
  const answer: ReasonerAnswer = {
    status: final.status,
    answer: final.answer,
    ...(final.match ? { match: final.match } : {}),
    confidence: final.confidence,
    raw: final.trace,
    method: `active:${agent.id}`,
    promptHash: final.promptHash ?? undefined,
    reprompted: steps.some((s) => s.reprompted) || final.reprompted,
    latencyMs: Math.round(timings.agent!),
    ...(last?.calls ? { calls } : {}),
    ...(final.promptLog ? { promptLog: final.promptLog } : {}),
  };
  let unitGraph: UnitGraph | null = null;
  if (graph && arm) {
    const moved = env.truth?.().moved;
    const diagnosis =
      graph.diagnosis ??
      diagnose({
        graph: graph.graph,
        members: graph.members,
        cloud: graph.cloud,
        task,
        bundle,
        trueRelations: input.trueRelations ?? cachedTrueRelations(task),
        ...(moved?.length ? { moved } : {}),
      });
    unitGraph = { source: arm.label, graph: graph.graph, diagnosis, scaleOracle: memory!.scaleOracle };
    // the last graph is the one after the last executed action: its duplicates belong to the last step
    const lastStep = steps.at(-1);
    if (lastStep && lastStep.duplicates === null && lastStep.graph_nodes === graph.graph.nodes.length) lastStep.duplicates = diagnosis.metrics.duplicates;
  }
  for (const k of Object.keys(timings)) timings[k] = Math.round(timings[k]!);
  timings.episode = Math.round(performance.now() - t0);
  return { episode: episodeRecord, answer, graph: unitGraph, views: bundle.views.length, bundle, timings, notes: memory ? [...memory.notes] : [], prompts };
}

/** The records of one finished episode (the same for offline and LLM agents). */
export function activeRecord(task: Task, config: RunConfig, arm: ThreeDArm | null, reasoner: string, out: EpisodeOutcome, key: string): ItemRecord {
  return makeRecord({
    task,
    paradigm: "active",
    arm: arm ? "3d" : "2d",
    source: arm?.source ?? null,
    noise: arm?.noise,
    config,
    reasoner,
    answer: out.answer,
    views: out.views,
    quality: out.graph ? qualityFigures(out.graph.diagnosis.metrics) : null,
    timings: out.timings,
    key,
    scaleOracle: out.graph?.scaleOracle ?? false,
    active: out.episode,
  });
}

/**
 * The active unit of a task for the offline reasoners (run on a worker like the passive units): one
 * episode per 3D arm and one for the 2D baseline. LLM reasoners' episodes are left pending for the main
 * thread (src/eval/runner.ts), which holds the model client.
 */
export async function runActiveUnit(job: UnitJob): Promise<UnitResult> {
  const { task, config } = job;
  const done = new Set(job.done);
  const records: ItemRecord[] = [];
  const graphs: UnitGraph[] = [];
  const pending: UnitResult["pending"] = [];
  const timings: Record<string, number> = {};
  const relationsTimer = stageTimer(1);
  const rel = cachedTrueRelations(task);
  relationsTimer.lap("truth_relations");
  // stages of the unit, not of one episode: every record of the unit carries them
  const unitTimings: Record<string, number> = { ...generateTiming(job), ...relationsTimer.timings };
  let views = 0;
  const notes = new Set<string>();
  const log = (line: string) => notes.add(line);
  for (const arm of threeDArms(config, "active")) {
    for (const reasoner of config.reasoner) {
      const key = itemKey(task.task_id, "active", "3d", arm.label, reasonerKeyPart(config, reasoner));
      if (done.has(key)) continue;
      if (reasoner !== "symbolic") {
        pending.push({ key, arm: "3d", source: arm.label, reasoner });
        continue;
      }
      const out = await runActiveEpisode({ task, config, arm, agent: createExplorerAgent(config.active.explorer, task, "3d"), trueRelations: rel, log });
      for (const n of out.notes) notes.add(n);
      graphs.push(out.graph!);
      records.push(activeRecord(task, config, arm, "symbolic", { ...out, timings: { ...unitTimings, ...out.timings } }, key));
      views = Math.max(views, out.views);
    }
  }
  if (hasBaseline(config, "2d")) {
    for (const reasoner of config.reasoner) {
      const key = itemKey(task.task_id, "active", "2d", null, reasonerKeyPart(config, reasoner));
      if (done.has(key)) continue;
      if (reasoner !== "symbolic") pending.push({ key, arm: "2d", source: null, reasoner });
      else {
        const out = await runActiveEpisode({ task, config, arm: null, agent: createExplorerAgent(config.active.explorer, task, "2d") });
        records.push(activeRecord(task, config, null, "symbolic-2d", { ...out, timings: { ...generateTiming(job), ...out.timings } }, key));
        views = Math.max(views, out.views);
      }
    }
  }
  return { records, graphs, pending, timings, views, notes: [...notes] };
}
