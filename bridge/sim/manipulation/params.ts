/**
 * The hands' rules (issue 46): reach, grasp and placement, each a named parameter with its reason. ESI-Bench's
 * released runner grasps through OmniGibson's robot primitives and states no numbers; these are ours, chosen for
 * a person-sized agent whose eye is the camera.
 */
import { rad } from "../../../core/math/vec.js";

/**
 * An object can be handled only when the current view shows at least this many of its pixels: the agent acts on
 * what it sees (the graph's MIN_MASK_AREA_PX, 25 px, doubled so a sliver at the image edge does not count).
 */
export const MANIPULATION_MIN_VISIBLE_PX = 50;
/** The longest box side one arm carries (m): a 50 cm cloth or a toy box can be picked up, a table cannot. */
export const GRASP_MAX_EXTENT_M = 0.6;
/** Roles of objects that are part of the room's furniture: never picked up (they carry the scene). */
export const FIXED_ROLES: ReadonlySet<string> = new Set(["furniture", "support", "divider"]);
/**
 * Where a held object is carried, in the camera's body frame (m): ahead along the heading, to the right, and
 * below the eye: low and right in the view, as a hand holds it, so it does not hide the scene.
 */
export const HOLD_AHEAD_M = 0.4;
export const HOLD_RIGHT_M = 0.18;
export const HOLD_BELOW_M = 0.3;
/** An opened lid swings up about the rim edge farthest from the agent by this angle, so it stands behind the box. */
export const LID_OPEN_RAD = rad(100);
/**
 * Physics steps a placement is watched for before the next view (1/240 s each: one second), in a task whose
 * experiment records no watch of its own: long enough for a dropped object to land and an unstable one to tip.
 */
export const PLACE_SETTLE_STEPS = 240;
/** An object rests on another when its bottom is within this of the other's top over its centre (m). */
export const SUPPORT_TOLERANCE_M = 0.01;
/** Two bodies that interpenetrate more than this after a placement mean there was no room (m; the settle check's own tolerance). */
export const PLACE_OVERLAP_TOLERANCE_M = 0.004;
