/**
 * The agent's discrete action vocabulary (ESI-Bench paper, Appendix E) and the size of one step.
 * Step sizes follow ESI-Bench's released active-exploration code (`pipeline.apply_camera_action`:
 * MOVE_STEP 0.25 m, TURN_STEP 15 deg, move_up/down ±0.25 m; ESI-Bench's released camera conventions). Task-level:
 * prompts name these actions, and every simulator (built-in or OmniGibson) moves the camera by these steps.
 *
 * Where the released code differs from the paper we follow the paper (docs/active.md):
 * - its `move_forward` translates the camera *against* the view direction (forward = cross(right, up)
 *   is the negative view direction; cos = -1.000 over 1800 record poses); ours moves along the view,
 *   flattened onto the floor plane, as the paper's "move forward" says;
 * - it has no collision and no room bound (a free viewer camera); ours blocks moves into walls and
 *   furniture, leaves the pose unchanged and says so (paper, Appendix N: physical failures stay in the trajectory).
 */
import type { AgentPose } from "../math/camera.js";
import { rad, wrapAngle } from "../math/vec.js";

/** ESI released `MOVE_STEP`: one planar move (m). */
export const MOVE_STEP_M = 0.25;
/** ESI released `TURN_STEP`: one yaw turn about world Z (rad). */
export const TURN_STEP_RAD = rad(15);
/** ESI released turn_up/down: the same 15 deg, about the camera's right axis (rad). */
export const PITCH_STEP_RAD = rad(15);
/** ESI released move_up/down: ±0.25 m in world Z. */
export const HEIGHT_STEP_M = 0.25;

const MOVE_ACTIONS = ["move_forward", "move_backward", "move_left", "move_right", "move_up", "move_down"] as const;
const TURN_ACTIONS = ["turn_left", "turn_right", "turn_up", "turn_down"] as const;
export const NAVIGATION_ACTIONS = [...MOVE_ACTIONS, ...TURN_ACTIONS] as const;
export type NavigationAction = (typeof NAVIGATION_ACTIONS)[number];

/** Ends the episode (ESI released runner: `stop` is in every module's action list). */
export const STOP_ACTION = "stop";
/** Everything an active agent may answer with as its `action` (the answer travels beside it). */
export const ACTIVE_ACTIONS = [...NAVIGATION_ACTIONS, STOP_ACTION] as const;
export type ActiveAction = (typeof ACTIVE_ACTIONS)[number];

export function isNavigationAction(a: string): a is NavigationAction {
  return (NAVIGATION_ACTIONS as readonly string[]).includes(a);
}

export function isActiveAction(a: string): a is ActiveAction {
  return (ACTIVE_ACTIONS as readonly string[]).includes(a);
}

/**
 * The pose an action aims at, before any simulator decides whether it is possible (collisions, height and
 * pitch limits are the simulator's: bridge/sim/agent.ts). Planar moves follow the yaw (the view flattened
 * onto the floor); turns change yaw or pitch only. Pure, so a planner can predict where a path leads.
 */
export function intendedPose(pose: AgentPose, action: NavigationAction): AgentPose {
  const [x, y, z] = pose.position;
  const fwd: [number, number] = [Math.cos(pose.yaw), Math.sin(pose.yaw)];
  const left: [number, number] = [-fwd[1], fwd[0]];
  const planar = (dx: number, dy: number): AgentPose => ({ ...pose, position: [x + MOVE_STEP_M * dx, y + MOVE_STEP_M * dy, z] });
  switch (action) {
    case "move_forward":
      return planar(fwd[0], fwd[1]);
    case "move_backward":
      return planar(-fwd[0], -fwd[1]);
    case "move_left":
      return planar(left[0], left[1]);
    case "move_right":
      return planar(-left[0], -left[1]);
    case "move_up":
      return { ...pose, position: [x, y, z + HEIGHT_STEP_M] };
    case "move_down":
      return { ...pose, position: [x, y, z - HEIGHT_STEP_M] };
    case "turn_left":
      return { ...pose, yaw: wrapAngle(pose.yaw + TURN_STEP_RAD) };
    case "turn_right":
      return { ...pose, yaw: wrapAngle(pose.yaw - TURN_STEP_RAD) };
    case "turn_up":
      return { ...pose, pitch: pose.pitch + PITCH_STEP_RAD };
    case "turn_down":
      return { ...pose, pitch: pose.pitch - PITCH_STEP_RAD };
  }
}
