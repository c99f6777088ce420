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
const ACTIVE_ACTIONS = [...NAVIGATION_ACTIONS, STOP_ACTION] as const;

export function isNavigationAction(a: string): a is NavigationAction {
  return (NAVIGATION_ACTIONS as readonly string[]).includes(a);
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

/**
 * The hands (ESI-Bench paper §2.4 "Manipulation": pick_up, put_on, put_inside; its released runner's later form:
 * "pick up X", "place X on top of Y", "put back X", and open/close for its boxes). Each names its objects:
 * put_on(X, Y) puts X on Y; put_inside(X, Y) puts X into container Y.
 */
export const MANIPULATION_ACTIONS = ["pick_up", "put_on", "put_inside", "put_back", "open", "close"] as const;
export type ManipulationAction = (typeof MANIPULATION_ACTIONS)[number];
const MANIPULATION_ARITY: Readonly<Record<ManipulationAction, 1 | 2>> = {
  pick_up: 1,
  put_on: 2,
  put_inside: 2,
  put_back: 1,
  open: 1,
  close: 1,
};

/**
 * An object is within reach when its footprint is at most this far from where the agent stands (the camera's
 * position on the floor plan, m); every simulator's hands follow it, and an agent may plan with it: an adult's arm (about 0.7 m) plus a lean of the body. Height does not limit a
 * reach downwards (the agent bends), upwards REACH_ABOVE_EYE_M does.
 */
export const REACH_M = 1.0;
/** How far above the eye a hand reaches (m): a raised arm. */
export const REACH_ABOVE_EYE_M = 0.5;

/** `--actions`: camera (the camera moves and stop: the vocabulary before hands, for ablation) or all. */
export const ACTION_VOCABULARIES = ["camera", "all"] as const;
export type ActionVocabulary = (typeof ACTION_VOCABULARIES)[number];

/** One parsed action: a camera move, stop, or a manipulation with the objects it names (as the agent wrote them). */
export type AgentAction = { kind: "camera"; name: NavigationAction } | { kind: "stop" } | { kind: "hands"; name: ManipulationAction; objects: string[] };

function isManipulationAction(a: string): a is ManipulationAction {
  return (MANIPULATION_ACTIONS as readonly string[]).includes(a);
}

/** The action names a vocabulary offers, in the order prompts list them. */
export function vocabularyActions(v: ActionVocabulary): readonly string[] {
  return v === "all" ? [...NAVIGATION_ACTIONS, ...MANIPULATION_ACTIONS, STOP_ACTION] : ACTIVE_ACTIONS;
}

/** How each manipulation is written, for prompts and error messages. */
export const MANIPULATION_USAGE: Readonly<Record<ManipulationAction, string>> = {
  pick_up: "pick_up(X)",
  put_on: "put_on(X, Y)",
  put_inside: "put_inside(X, Y)",
  put_back: "put_back(X)",
  open: "open(X)",
  close: "close(X)",
};

/** The canonical text of an action: `move_forward`, `stop`, `put_on(red mug, table)`. */
export function actionText(a: AgentAction): string {
  if (a.kind === "stop") return STOP_ACTION;
  if (a.kind === "camera") return a.name;
  return `${a.name}(${a.objects.join(", ")})`;
}

const verbOf = (s: string) =>
  s
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_")
    .replace(/[^a-z_]/g, "");

/** An object reference as written, without quotes, surrounding spaces or a leading article. */
const refOf = (s: string) =>
  s
    .trim()
    .replace(/^["'`]+|["'`]+$/g, "")
    .replace(/^(the|a|an)\s+/i, "")
    .trim();

/** ESI's released phrasings ("pick up X", "place X on top of Y", "put back X") and their kin, as [pattern, action]. */
const PHRASES: ReadonlyArray<[RegExp, ManipulationAction]> = [
  [/^(?:pick[\s_]*up|grab)\s+(.+)$/i, "pick_up"],
  [/^put[\s_]*back\s+(.+)$/i, "put_back"],
  [/^put\s+(.+?)\s+back$/i, "put_back"],
  [/^(?:place|put|set)\s+(.+?)\s+on\s+top\s+of\s+(.+)$/i, "put_on"],
  [/^(?:put|place)\s+(.+?)\s+(?:inside|into|in)\s+(.+)$/i, "put_inside"],
  [/^(?:place|put|set)\s+(.+?)\s+(?:on|onto)\s+(.+)$/i, "put_on"],
  [/^put[\s_]*on\s+(.+?)\s+(?:on|onto)\s+(.+)$/i, "put_on"],
  [/^put[\s_]*inside\s+(.+?)\s+(?:inside|into|in)\s+(.+)$/i, "put_inside"],
  [/^open\s+(.+)$/i, "open"],
  [/^close\s+(.+)$/i, "close"],
];

/** Splits `a, b` at top-level commas (a name never holds one). */
const argsOf = (s: string) => (s.trim() === "" ? [] : s.split(",").map(refOf));

/**
 * Reads an action as an agent writes it, under a vocabulary: `move_forward`, `stop`, `pick_up(red mug)`,
 * `put_on(n3, n7)`, or ESI's phrasings. Returns the action, or what is wrong with it in words an agent can act on.
 */
export function parseAgentAction(text: string, vocabulary: ActionVocabulary): { action: AgentAction } | { error: string } {
  const raw = text.trim();
  if (raw === "") return { error: "no action was given" };
  const call = /^([A-Za-z_\s-]+?)\s*\((.*)\)\s*$/s.exec(raw);
  let name: string;
  let objects: string[];
  if (call) [name, objects] = [verbOf(call[1]!), argsOf(call[2]!)];
  else {
    const verb = verbOf(raw);
    if (verb === STOP_ACTION) return { action: { kind: "stop" } };
    if (isNavigationAction(verb)) return { action: { kind: "camera", name: verb } };
    const phrase = PHRASES.map(([re, a]) => [re.exec(raw), a] as const).find(([m]) => m !== null);
    if (!phrase) {
      const first = verbOf(raw.split(/\s+/)[0] ?? "");
      if (isManipulationAction(first)) return { error: `${first} needs its objects: ${MANIPULATION_USAGE[first]}` };
      return { error: `"${raw}" is not one of the actions (${vocabularyActions(vocabulary).join(", ")})` };
    }
    [name, objects] = [phrase[1], phrase[0]!.slice(1).map(refOf)];
  }
  if (name === STOP_ACTION || isNavigationAction(name)) {
    if (objects.length) return { error: `${name} takes no objects` };
    return { action: name === STOP_ACTION ? { kind: "stop" } : { kind: "camera", name: name as NavigationAction } };
  }
  if (!isManipulationAction(name)) return { error: `"${raw}" is not one of the actions (${vocabularyActions(vocabulary).join(", ")})` };
  if (vocabulary === "camera") return { error: `${name} is not available: this run's actions are the camera's only (--actions camera)` };
  const arity = MANIPULATION_ARITY[name];
  if (objects.length !== arity || objects.some((o) => o === ""))
    return { error: `${name} names ${arity === 1 ? "one object" : "two objects"}: ${MANIPULATION_USAGE[name]}, got ${objects.filter((o) => o).length}` };
  return { action: { kind: "hands", name, objects } };
}
