/**
 * Ground-truth trajectories that act (issue 46): a task whose answer hides behind a lid or under a cloth has a
 * trajectory that walks to each hidden place, opens or lifts it with the hands (`open(#57)`, `pick_up(#61)`),
 * and then shows what the question needs, as ESI's human experts did in GT-Passive. Each act is planned like any
 * other goal: walk to a key pose from which the object is in view and within reach, act (the built-in hands
 * must succeed: a failure re-draws the task), and go on in the changed world.
 */
import type { AgentPose } from "../../../core/math/camera.js";
import { intrinsicsFromHfov, poseToExtrinsic } from "../../../core/math/camera.js";
import type { CameraSpec, Task, TaskObject } from "../../../core/task/schema.js";
import { Hands } from "../manipulation/hands.js";
import { boxDistance } from "../manipulation/references.js";
import { taskPhysics } from "../physics/taskWorld.js";
import { buildScene } from "../scene.js";
import { render } from "../raster.js";
import { idCounts } from "../../../core/idTally.js";
import { replay, worldOf } from "../agent.js";
import { isNavigationAction, parseAgentAction, REACH_M } from "../../../core/task/actions.js";
import { buildGtTrajectory, GT_ACTION_BUDGET, type GtTrajectory, type ViewGoal } from "./gtTrajectory.js";
import { viewVisibility, VISIBLE_MIN_PX } from "./visibility.js";
import { Resample } from "./common.js";

/** One act of the trajectory: what to do to which object, and poses to do it from. */
export interface GtAct {
  action: "open" | "pick_up";
  id: number;
  keyPoses: AgentPose[];
  /**
   * Done after the view goals, while the budget lasts (the first act that cannot be walked to in the actions left
   * ends the trajectory), instead of before them, each without fail.
   */
  ifBudgetAllows?: boolean;
  /** View goals right after the act (looking into the box it opened), met from its key poses. */
  after?: ViewGoal[];
}

type World = Pick<Task, "room" | "objects" | "lighting" | "label_metadata">;

/** Pixels per instance id of a full-resolution view (the hands' visibility rule counts those). */
function fullCounts(scene: ReturnType<typeof buildScene>, spec: CameraSpec, pose: AgentPose): Map<number, number> {
  const K = intrinsicsFromHfov(spec.width, spec.height, spec.hfov_deg);
  return idCounts(render(scene, { width: spec.width, height: spec.height, K, E: poseToExtrinsic(pose) }).ids);
}

/**
 * The trajectory: each required act in turn (walk to where it can be done, do it), then the view goals in the world
 * the acts left, then the acts done if the budget allows, nearest first as listed. Returns the actions, every view's
 * visibility, and the objects as the trajectory leaves them.
 */
export function buildActingGtTrajectory(
  world0: World,
  spec: CameraSpec,
  start: AgentPose,
  acts: readonly GtAct[],
  goals: ViewGoal[],
  keyPoses: AgentPose[],
): GtTrajectory & { objects: TaskObject[] } {
  const hands = new Hands(world0.objects, world0.room.size, taskPhysics(world0));
  let objects = world0.objects;
  const actions: string[] = [];
  const views: GtTrajectory["views"] = [];
  let pose = start;
  // whether the last action is an act whose view (its pose, the world it changed) is not in `views` yet: the next
  // leg's first view is that view; with no leg after it, it is rendered at the end
  let actViewDue = false;
  const leg = (legGoals: ViewGoal[], legKeyPoses: AgentPose[], budget: number) => {
    const held = hands.holding();
    // a held object is planned at the hand where the act left it; the capture carries it with the camera, so the
    // visibility flags of the held object itself are approximate after its act (those of everything else are exact)
    const scene = buildScene({ ...world0, objects });
    const walk = buildGtTrajectory(scene, spec, worldOf({ ...world0, objects: objects.filter((o) => o.id !== held) }), pose, legGoals, legKeyPoses, budget);
    // a leg starts with the view the trajectory is at: after an act, the act's own view; else the last view, again
    if (!actViewDue) views.pop();
    actViewDue = false;
    views.push(...walk.views);
    actions.push(...walk.actions);
    pose = walk.views.at(-1)!.pose;
    return scene;
  };
  const act = (a: GtAct, budget: number) => {
    const target = () => objects.find((o) => o.id === a.id)!;
    const canAct: ViewGoal = (v) =>
      (v.counts.get(a.id) ?? 0) >= VISIBLE_MIN_PX && boxDistance(target(), [v.pose.position[0], v.pose.position[1], target().position[2]]) <= REACH_M;
    const scene = leg([canAct], a.keyPoses, budget);
    const text = `${a.action}(#${a.id})`;
    const r = hands.apply(a.action, [{ text: `#${a.id}` }], pose, fullCounts(scene, spec, pose));
    if (!r.ok) throw new Resample(`ground-truth trajectory: ${text} fails: ${r.result}`);
    objects = hands.current();
    actions.push(text);
    actViewDue = true;
    if (a.after?.length) leg(a.after, a.keyPoses, GT_ACTION_BUDGET - actions.length);
  };
  for (const a of acts.filter((x) => !x.ifBudgetAllows)) act(a, GT_ACTION_BUDGET - actions.length - 1);
  leg(goals, keyPoses, GT_ACTION_BUDGET - actions.length);
  for (const a of acts.filter((x) => x.ifBudgetAllows)) {
    const left = GT_ACTION_BUDGET - actions.length - 1;
    if (left < 0) break;
    const before = { actions: actions.length, views: views.length, pose, actViewDue, objects };
    try {
      act(a, left);
    } catch (e) {
      if (!(e instanceof Resample)) throw e;
      // not within the budget (its walk, or the look after it): the trajectory ends where the last act left it, and
      // so does the world it reports (the hands are not used again)
      actions.length = before.actions;
      views.length = before.views;
      pose = before.pose;
      actViewDue = before.actViewDue;
      objects = before.objects;
      break;
    }
  }
  // the act's own view: the same pose in the changed world
  if (actViewDue) views.push(viewVisibility(buildScene({ ...world0, objects }), spec, pose));
  return { actions, views, objects };
}

/**
 * A ground-truth trajectory replayed in another world from `start`, as a bundle's capture replays it (capture.ts):
 * the poses from the navigation actions in the starting world, each act done by the hands on what the view before it
 * showed. Returns every view's visibility; an act that fails there throws Resample (the trajectory does not hold in
 * that world).
 */
export function replayActingGt(world0: World, spec: CameraSpec, start: AgentPose, actions: readonly string[]): GtTrajectory["views"] {
  const hands = new Hands(world0.objects, world0.room.size, taskPhysics(world0));
  const poses = replay(worldOf(world0), start, actions);
  let scene = buildScene(world0);
  const views: GtTrajectory["views"] = [viewVisibility(scene, spec, start)];
  let seen = fullCounts(scene, spec, start);
  actions.forEach((a, i) => {
    const pose = poses[i + 1]!;
    if (isNavigationAction(a)) hands.carry(pose);
    else {
      const p = parseAgentAction(a, "all");
      if ("error" in p || p.action.kind !== "hands") throw new Error(`replayActingGt: "${a}" is no action`);
      const r = hands.apply(
        p.action.name,
        p.action.objects.map((text) => ({ text })),
        pose,
        seen,
      );
      if (!r.ok) throw new Resample(`ground-truth trajectory replayed: ${a} fails: ${r.result}`);
    }
    scene = buildScene({ ...world0, objects: hands.current() });
    views.push(viewVisibility(scene, spec, pose));
    seen = fullCounts(scene, spec, pose);
  });
  return views;
}
