/**
 * The agent's discrete action vocabulary (ESI-Bench paper §2.4) and the size of one step. Step sizes follow
 * ESI-Bench's released active-exploration code (MOVE_STEP 0.25 m, TURN_STEP 15 deg); pitch and height steps
 * are not given there, so we use the same 15 deg and 0.25 m. Task-level: prompts name these actions, and
 * every simulator (built-in or OmniGibson) moves the camera by these steps.
 */
import { rad } from "../../src/core/math/vec.js";

export const MOVE_STEP_M = 0.25;
export const TURN_STEP_RAD = rad(15);
export const PITCH_STEP_RAD = rad(15);
export const HEIGHT_STEP_M = 0.25;

export const MOVE_ACTIONS = ["move_forward", "move_backward", "move_left", "move_right", "move_up", "move_down"] as const;
export const TURN_ACTIONS = ["turn_left", "turn_right", "turn_up", "turn_down"] as const;
export const NAVIGATION_ACTIONS = [...MOVE_ACTIONS, ...TURN_ACTIONS] as const;
export type NavigationAction = (typeof NAVIGATION_ACTIONS)[number];

export function isNavigationAction(a: string): a is NavigationAction {
  return (NAVIGATION_ACTIONS as readonly string[]).includes(a);
}
