/**
 * Inclined Plane (the ESI-Bench paper, Q.4): whether an object put on a tilted board stays. The board's tilt is
 * geometry; the friction between board and object, and the object's mass, are in no view. The programs take
 * friction from a named prior: ESI's own draw, static friction U[0.3, 3.0] (core/task/rules.ts). A block on an
 * incline stays while tan(tilt) <= static friction, so under the prior the chance it stays is
 * P(mu > tan(tilt)); the programs answer with the likelier outcome and that chance as their confidence. The
 * prior's median friction, 1.65, puts the critical angle at atan(1.65) = 58.8 degrees, above every tilt ESI
 * draws (45 at most): with friction unseen, "it stays" is the likelier answer on every board. Mass does not
 * enter (it cancels from the sliding condition).
 *
 * Shape decides before friction does (objectVerdict): an object with no flat bottom (a ball, a fruit, an egg: its
 * label's library model's bottom face fills under ROLL_MAX_BOTTOM_SHARE of its footprint) rolls off any board, and
 * one whose centre of mass passes over its lower edge tips: a box of base width w and height h (centre of mass at
 * h/2) tips once tan(tilt) > w / h. Both are geometry: the 3D arm reads w and h from the object's node, the 2D arm
 * the width and height of its mask (a side view's aspect), and both read the label as the question names it.
 */
import { SLOPE_STATIC_FRICTION_RANGE, SLOPE_TILT_RANGE_DEG } from "../../core/task/rules.js";
import { flatFaceShares } from "./stackingPrograms.js";

/** The board's category: what ESI's question calls it ("... when placed on the slope?") and the graph labels it. */
export const BOARD_CATEGORY = "slope";

const [MU_LO, MU_HI] = SLOPE_STATIC_FRICTION_RANGE;
/** The prior's median static friction, and the tilt (degrees) at which a block on it starts to slide. */
export const MEDIAN_STATIC_FRICTION = (MU_LO + MU_HI) / 2;
export const CRITICAL_TILT_DEG = (Math.atan(MEDIAN_STATIC_FRICTION) * 180) / Math.PI;

/** P(static friction > tan(tilt)) for friction ~ U[MU_LO, MU_HI]: the chance the object stays on a board this steep. */
export function stayChance(tiltDeg: number): number {
  const t = Math.tan((Math.max(0, Math.min(89.9, tiltDeg)) * Math.PI) / 180);
  return Math.min(1, Math.max(0, (MU_HI - t) / (MU_HI - MU_LO)));
}

/** Sample points of the tilt prior's mean: the 2D program sees no tilt, and averages the chance over ESI's draw. */
const TILT_PRIOR_SAMPLES = 1000;

/**
 * A bottom face filling less than this share of the footprint is no base to stand on: the object rolls. Ours: a
 * sphere's or an egg's mesh has a single vertex at the bottom (share 0); the library's flat-bottomed objects fill
 * 0.28 (a bowl's foot) or more.
 */
const ROLL_MAX_BOTTOM_SHARE = 0.05;

/** What shape says before friction: the object rolls, tips, or stands on its base (null: the label is unknown). */
export function rollsByShape(label: string): boolean | null {
  const shares = flatFaceShares(label);
  return shares === null ? null : shares.bottom < ROLL_MAX_BOTTOM_SHARE;
}

/** The tilt (degrees) past which an object of base width w and height h tips over its lower edge. */
export const tippingTiltDeg = (width: number, height: number): number => (Math.atan(width / height) * 180) / Math.PI;

/** P(tilt <= limit) for the tilt ESI draws, U[10, 45] degrees: the 2D arm's chance a board of unseen tilt is below it. */
function tiltBelowChance(limitDeg: number): number {
  const [lo, hi] = SLOPE_TILT_RANGE_DEG;
  return Math.min(1, Math.max(0, (limitDeg - lo) / (hi - lo)));
}

/** The chance an object that neither rolls nor tips on a board of unseen tilt stays (friction and tilt unseen), below a tipping tilt. */
export function stayChanceUnseenTiltBelow(limitDeg: number): number {
  const [lo, hi] = SLOPE_TILT_RANGE_DEG;
  const top = Math.min(hi, limitDeg);
  if (top <= lo) return 0;
  let sum = 0;
  for (let k = 0; k < TILT_PRIOR_SAMPLES; k++) sum += stayChance(lo + ((k + 0.5) * (top - lo)) / TILT_PRIOR_SAMPLES);
  // tilts past the tipping one tip: they count as falls
  return (sum / TILT_PRIOR_SAMPLES) * tiltBelowChance(limitDeg);
}

/** The answer to "will it stay stable?" from a chance it stays: yes when the likelier, with the likelier's chance as confidence. */
export function slopeAnswer(chance: number): { answer: "yes" | "no"; confidence: number } {
  const stays = chance >= 0.5;
  return { answer: stays ? "yes" : "no", confidence: Math.round((stays ? chance : 1 - chance) * 1000) / 1000 };
}
