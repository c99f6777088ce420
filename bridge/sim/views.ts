/**
 * View sets per paradigm (design.md "Paradigms"):
 * - single: the initial pose only;
 * - multi: 30 views along a seeded random trajectory from the initial pose (agent-like moves and turns,
 *   staying inside the room and clear of furniture);
 * - gt: the initial pose, then one view after each action of the task's ground-truth trajectory; a task
 *   with candidate views and no trajectory (imported ESI-Bench tasks) uses the candidate views whose flags
 *   show every relevant object instead (core/task/candidates.ts).
 */
import type { AgentPose } from "../../core/math/camera.js";
import { Rng } from "../../core/math/rng.js";
import type { Task } from "../../core/task/schema.js";
import { gtCandidateViews } from "../../core/task/candidates.js";
import { taskPhases } from "../../core/task/phases.js";
import type { Paradigm } from "../../core/bundle/schema.js";
import { applyAction, replay, worldOf, type World } from "./agent.js";
import { NAVIGATION_ACTIONS, type NavigationAction } from "../../core/task/actions.js";

/** Passive Multi-View: 30 views, equal to the step budget T_max (the ESI-Bench paper's four paradigms). */
const MULTI_VIEW_COUNT = 30;

/**
 * Action weights of the random walk: mostly forward moves and yaw turns, like an agent looking around;
 * The paper does not give it; our choice.
 */
const RANDOM_WALK_WEIGHTS: Record<NavigationAction, number> = {
  move_forward: 0.28,
  move_backward: 0.05,
  move_left: 0.1,
  move_right: 0.1,
  move_up: 0.03,
  move_down: 0.03,
  turn_left: 0.16,
  turn_right: 0.16,
  turn_up: 0.04,
  turn_down: 0.05,
};
/** Probability of repeating the previous action, so the walk travels instead of dithering. */
const RANDOM_WALK_MOMENTUM = 0.45;

export interface PlannedView {
  pose: AgentPose;
  action: string | null;
  /** the phase of a changing world the view is taken in (absent: the world does not change) */
  phase?: number;
}

function randomTrajectory(world: World, start: AgentPose, rng: Rng, nViews = MULTI_VIEW_COUNT): PlannedView[] {
  const views: PlannedView[] = [{ pose: start, action: null }];
  let pose = start;
  let prev: NavigationAction | null = null;
  const weights = NAVIGATION_ACTIONS.map((a) => RANDOM_WALK_WEIGHTS[a]);
  while (views.length < nViews) {
    let next: AgentPose | null = null;
    let action: NavigationAction = "turn_left";
    for (let attempt = 0; attempt < 20 && !next; attempt++) {
      action = prev && attempt === 0 && rng.bool(RANDOM_WALK_MOMENTUM) ? prev : rng.weighted(NAVIGATION_ACTIONS, weights);
      next = applyAction(world, pose, action);
    }
    if (!next) {
      action = "turn_left"; // always possible
      next = applyAction(world, pose, action)!;
    }
    pose = next;
    prev = action;
    views.push({ pose, action });
  }
  return views;
}

/**
 * The views of a paradigm. A task whose world changes (`phases`) is looked at in each phase in turn, from the
 * phase's own primary viewpoint: single takes one view a phase, multi shares its 30 views out among the phases
 * (a walk from each phase's viewpoint), gt replays the ground-truth trajectory in each phase's world. The first
 * view of a later phase follows no action: the world changed while no one looked.
 */
export function paradigmViews(task: Task, paradigm: Paradigm): PlannedView[] {
  if (!task.phases) {
    const start: AgentPose = { position: task.agent_initial.position, yaw: task.agent_initial.yaw, pitch: task.agent_initial.pitch };
    return viewsInWorld(task, paradigm, worldOf(task), start, `${task.seed}/${task.task_id}/multi`, MULTI_VIEW_COUNT);
  }
  const phases = taskPhases(task);
  const perPhase = Math.max(1, Math.floor(MULTI_VIEW_COUNT / phases.length));
  return phases.flatMap((ph) =>
    viewsInWorld(task, paradigm, worldOf({ ...task, objects: ph.objects }), ph.agent, `${task.seed}/${task.task_id}/multi/phase-${ph.index}`, perPhase).map(
      (v, i) => ({ ...v, action: i === 0 ? null : v.action, phase: ph.index }),
    ),
  );
}

function viewsInWorld(task: Task, paradigm: Paradigm, world: World, start: AgentPose, multiSeed: string, multiViews: number): PlannedView[] {
  switch (paradigm) {
    case "single":
      return [{ pose: start, action: null }];
    case "multi":
      return randomTrajectory(world, start, new Rng(multiSeed), multiViews);
    case "gt": {
      if (task.candidate_views?.length && task.action_trajectory.length === 0) {
        const views = gtCandidateViews(task);
        if (!views) throw new Error(`${task.task_id}: no gt view set: the candidate views' flags do not show every relevant object`);
        return views.map((v) => ({ pose: { position: v.position, yaw: v.yaw, pitch: v.pitch }, action: null }));
      }
      const poses = replay(world, start, task.action_trajectory);
      return poses.map((pose, i) => ({ pose, action: i === 0 ? null : task.action_trajectory[i - 1]! }));
    }
    case "active":
      throw new Error("the 'active' paradigm needs an agent choosing actions; the built-in simulator renders single, multi and gt");
  }
}
