/**
 * Inclined Plane (the ESI-Bench paper, Q.4): whether an object put on a tilted board stays. The board's tilt is
 * geometry; the friction between board and object, and the object's mass, are in no view. The programs take
 * friction from a named prior: ESI's own draw, static friction U[0.3, 3.0] (core/task/rules.ts). A block on an
 * incline stays while tan(tilt) <= static friction, so under the prior the chance it stays is
 * P(mu > tan(tilt)); the programs answer with the likelier outcome and that chance as their confidence. The
 * prior's median friction, 1.65, puts the critical angle at atan(1.65) = 58.8 degrees, above every tilt ESI
 * draws (45 at most): with friction unseen, "it stays" is the likelier answer on every board. Mass does not
 * enter (it cancels from the sliding condition). What rolls (a ball) is a matter of shape the programs do not read.
 */
import { SLOPE_STATIC_FRICTION_RANGE, SLOPE_TILT_RANGE_DEG } from "../../core/task/rules.js";

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

/** The chance the object stays on a board of unseen tilt: stayChance averaged over the tilt ESI draws, U[10, 45] degrees. */
export function stayChanceUnseenTilt(): number {
  const [lo, hi] = SLOPE_TILT_RANGE_DEG;
  let sum = 0;
  for (let k = 0; k < TILT_PRIOR_SAMPLES; k++) sum += stayChance(lo + ((k + 0.5) * (hi - lo)) / TILT_PRIOR_SAMPLES);
  return sum / TILT_PRIOR_SAMPLES;
}

/** The answer to "will it stay stable?" from a chance it stays: yes when the likelier, with the likelier's chance as confidence. */
export function slopeAnswer(chance: number): { answer: "yes" | "no"; confidence: number } {
  const stays = chance >= 0.5;
  return { answer: stays ? "yes" : "no", confidence: Math.round((stays ? chance : 1 - chance) * 1000) / 1000 };
}
