/**
 * Drafts of a world that changes while no one acts (a task's `phases`): the suite's checks of each later phase and
 * the ground-truth views of a phased task. Its ground-truth trajectory takes no action: paradigmViews looks at each
 * phase once from the phase's own pose, so the ground-truth views are one per phase, each in its phase's world.
 */
import { poseQuaternion } from "../../../core/math/camera.js";
import type { CameraSpec, Task } from "../../../core/task/schema.js";
import { placementProblems } from "../../../core/objects/placement.js";
import { buildScene } from "../scene.js";
import { isFree, worldOf } from "../agent.js";
import { Resample } from "./common.js";
import type { Draft, DraftPhase } from "./draft.js";
import type { GtTrajectory } from "./gtTrajectory.js";
import { viewVisibility } from "./visibility.js";

/**
 * Checks each phase as the suite checks the draft's own world (objects placed without intersecting, the pose a free
 * agent position) and returns the ground-truth trajectory: no action, one view per phase from its pose.
 */
export function phasedGroundTruth(d: Draft & { phases: DraftPhase[] }, camera: CameraSpec): GtTrajectory {
  if (d.gtGoals.length || d.gtActs?.length) throw new Error("a phased draft's ground truth is its phases' own views: it takes no goals or acts");
  const views = d.phases.map((ph, k) => {
    const problem = placementProblems(d.room, ph.objects, { allowedOverlaps: d.allowedOverlaps })[0];
    if (problem) throw new Resample(`phase ${k}: ${problem.message}`);
    const world = worldOf({ room: d.room, objects: ph.objects, ...(d.agentLimits ? { agent_limits: d.agentLimits } : {}) });
    if (!isFree(world, ph.agent.position)) throw new Resample(`phase ${k}: its pose is not a free agent position`);
    return viewVisibility(buildScene({ room: d.room, objects: ph.objects, lighting: d.lighting }), camera, ph.agent);
  });
  return { actions: [], views };
}

/** The task record's phases of a draft. */
export function phaseRecords(phases: readonly DraftPhase[]): NonNullable<Task["phases"]> {
  return phases.map((ph) => ({
    label: ph.label,
    objects: ph.objects,
    agent: { position: ph.agent.position, orientation: poseQuaternion(ph.agent), yaw: ph.agent.yaw, pitch: ph.agent.pitch },
  }));
}
