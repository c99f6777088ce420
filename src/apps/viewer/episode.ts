/**
 * An active episode replayed for inspection (paradigm active, docs/viewer.md "Active episodes"). A run
 * stores each episode's record (every step's action, pose, blocked flag, graph size) and the final graph,
 * not its views: the viewer replays the recorded actions in the built-in simulator (deterministic: the same
 * actions render the same views) and, for a 3D arm, feeds every view to the same memory the run used
 * (scenegraph/pipeline.ts GraphMemory with the arm's options), keeping the graph the agent saw at each step.
 *
 * The replay is checked against the record as it goes: every step's pose and blocked flag, and every step's
 * node count against `graph_nodes`; the last graph must equal the stored one (graphDifference). Anything
 * else is refused with a ReproductionError naming the file and the step, as for the passive graphs.
 */
import type { FrameBundle } from "../../../core/bundle/io.js";
import { EpisodeBundle } from "../../../bridge/env/bundle.js";
import { BuiltinEnvironment } from "../../../bridge/sim/env.js";
import { parseAgentAction } from "../../../core/task/actions.js";
import type { EnvAction } from "../../../bridge/env/types.js";
import type { Task } from "../../../core/task/schema.js";
import type { PointCloud } from "../../../reconstruct/pointcloud.js";
import { GraphMemory, type PipelineResult } from "../../../scenegraph/pipeline.js";
import type { ObjectMove } from "../../../scenegraph/diagnosis.js";
import type { SceneGraph } from "../../../scenegraph/types.js";
import { InputError } from "../../../core/errors.js";
import type { ThreeDArm, RunConfig } from "../../eval/config.js";
import { armOptions } from "../../eval/pipeline.js";
import { manipulationEvent } from "../../eval/activeActions.js";
import { worldChangedAfter, worldChangeText, type ActiveStep, type ItemRecord } from "../../eval/records.js";
import type { EpisodeStepPayload, StepNodePayload } from "./types.js";
import { graphDifference, ReproductionError } from "./variant.js";

/** Poses are recomputed with the same arithmetic, so they agree to rounding; 1 µm / 1 µrad is far below any step (0.25 m, 15°). */
const POSE_TOLERANCE = 1e-6;

export interface ReplayedEpisode {
  bundle: FrameBundle;
  /** 3D arms: the last graph (equal to the stored one), its cloud and memberships; null for the 2D arm. */
  final: { graph: SceneGraph; cloud: PointCloud; members: Uint32Array[] } | null;
  steps: EpisodeStepPayload[];
  /** The objects the episode moved, from where each began to where it ended (the simulator's truth). */
  moved: ObjectMove[];
  timings_ms: { render: number; graph: number; replay: number };
}

function stepNodes(graph: SceneGraph): StepNodePayload[] {
  return graph.nodes.map((n) => ({
    id: n.id,
    label: n.label,
    box: { centre: [...n.box.centre] as [number, number, number], extent: [...n.box.extent] as [number, number, number], yaw: n.box.yaw },
    flagged_duplicate: n.flags.possible_duplicate_of.length > 0,
  }));
}

function samePose(s: ActiveStep["pose"], p: { position: readonly number[]; yaw: number; pitch: number }): boolean {
  return (
    s.position.every((x, i) => Math.abs(x - p.position[i]!) <= POSE_TOLERANCE) &&
    Math.abs(s.yaw - p.yaw) <= POSE_TOLERANCE &&
    Math.abs(s.pitch - p.pitch) <= POSE_TOLERANCE
  );
}

/**
 * Replays one episode of a run. `file` names what the error messages point at (items.jsonl or the graph
 * file); `stored` is the arm's stored final graph (null for the 2D arm).
 */
export async function replayEpisode(
  task: Task,
  config: RunConfig,
  arm: ThreeDArm | null,
  record: ItemRecord,
  stored: SceneGraph | null,
  file: string,
): Promise<ReplayedEpisode> {
  const episode = record.active;
  if (!episode) throw new InputError(`${file}: the record ${record.key} has no active episode (not a paradigm active record)`);
  if (config.simulator !== "builtin")
    throw new InputError(`${file}: the episode was rendered by the ${config.simulator} simulator; inspect replays episodes of the built-in one only`);
  const t0 = performance.now();
  const timings = { render: 0, graph: 0, replay: 0 };
  const env = new BuiltinEnvironment(task);
  const views = new EpisodeBundle(env.manifest);
  const memory = arm ? new GraphMemory(env.manifest, armOptions(config, arm), { diagnose: false }) : null;
  let last: PipelineResult | null = null;
  const add = async (v: Awaited<ReturnType<BuiltinEnvironment["reset"]>>) => {
    // a changing world's views carry their phase, as the run's did: the memory stamps its nodes with it
    const bundle = views.add(v.view, v.phase);
    if (memory) {
      const t = performance.now();
      last = await memory.addView(bundle, env.truth().moved);
      timings.graph += performance.now() - t;
    }
    return bundle;
  };
  const mismatch = (step: number, what: string) =>
    new ReproductionError(
      `${file}: replaying ${record.key} in the built-in simulator differs from the record at step ${step} (${what}); the simulator or the memory has changed since the run (a newer checkout, or local edits), or the record was edited. Inspect it with the esi3d that made it, or run it again.`,
    );
  let t = performance.now();
  let view = await env.reset();
  timings.render += performance.now() - t;
  let bundle = await add(view);
  const steps: EpisodeStepPayload[] = [];
  let moved: ObjectMove[] = [];
  try {
    for (const s of episode.steps) {
      if (!samePose(s.pose, view.pose))
        throw mismatch(
          s.step,
          `recorded pose ${JSON.stringify(s.pose.position)} yaw ${s.pose.yaw}, replayed ${JSON.stringify(view.pose.position)} yaw ${view.pose.yaw}`,
        );
      const graph = (last as PipelineResult | null)?.graph ?? null;
      if (arm && (graph?.nodes.length ?? 0) !== s.graph_nodes)
        throw mismatch(s.step, `recorded ${s.graph_nodes} graph nodes, the memory holds ${graph?.nodes.length ?? 0}`);
      steps.push({ views: views.length, nodes: graph ? stepNodes(graph) : null, world_change: worldChangedAfter(s) ? worldChangeText(s) : null });
      const replayed = s.action ? replayAction(s) : null;
      if (worldChangedAfter(s)) {
        // the run moved a changing world on to its next phase here (no action of the agent's)
        if (!env.phases || (view.phase ?? 0) + 1 >= env.phases) throw mismatch(s.step, "the record changes the world to a next phase, the task has none");
        t = performance.now();
        view = await env.nextPhase();
        timings.render += performance.now() - t;
        if (s.action_result !== undefined && s.action_result !== view.actionResult)
          throw mismatch(s.step, `recorded ${JSON.stringify(s.action_result)}, replayed ${JSON.stringify(view.actionResult)}`);
        bundle = await add(view);
      } else if (replayed) {
        t = performance.now();
        const before = view.pose;
        view = await env.step(replayed);
        timings.render += performance.now() - t;
        if (s.blocked !== view.blocked) throw mismatch(s.step, `recorded blocked ${s.blocked}, replayed ${view.blocked}`);
        // the memory hears of a manipulation as the run's did: in the agent's words, with the graph it had then
        const said = parseAgentAction(s.action!, "all");
        if (memory && !view.blocked && "action" in said && said.action.kind === "hands")
          memory.noteManipulation(manipulationEvent(said.action, graph, before, view.view.index));
        bundle = await add(view);
      }
    }
    moved = env.truth().moved;
  } finally {
    await env.close();
  }
  if (bundle.views.length !== record.views) throw mismatch(episode.steps.length, `the record has ${record.views} views, the replay ${bundle.views.length}`);
  let final: ReplayedEpisode["final"] = null;
  const result = last as PipelineResult | null;
  if (arm && result) {
    const diff = stored ? graphDifference(stored, result.graph) : "no stored graph";
    if (diff !== null) throw mismatch(episode.steps.length, `the last graph differs from the stored one: ${diff}`);
    final = { graph: result.graph, cloud: result.cloud, members: result.members };
  }
  timings.replay = performance.now() - t0;
  for (const k of Object.keys(timings) as Array<keyof typeof timings>) timings[k] = Math.round(timings[k]);
  return { bundle, final, steps, moved, timings_ms: timings };
}

/**
 * The executed action of a recorded step, for the built-in simulator: a camera move as recorded; a manipulation
 * that happened names the objects it acted on by instance id (the record's acted_on), so a node reference replays
 * exactly; one that did not happen is replayed by its text and must fail again.
 */
function replayAction(s: ActiveStep): EnvAction | null {
  const p = parseAgentAction(s.action!, "all");
  if ("error" in p || p.action.kind === "stop") return null;
  const a = p.action;
  if (a.kind === "camera") return a;
  const ids = s.acted_on;
  return { kind: "hands", name: a.name, objects: a.objects.map((text, k) => (ids?.[k] !== undefined ? { text: `#${ids[k]}` } : { text })) };
}
