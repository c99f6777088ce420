/** The generators' initial view: one rule for placing the camera and the limit a low camera needs. */
import type { Vec3 } from "../../../core/math/vec.js";
import { MIN_CAMERA_HEIGHT_M } from "../agent.js";
import { cameraLookingAt, require, type SceneBuilder } from "./common.js";
import type { Draft } from "./draft.js";

/**
 * A task's initial view: a camera at `from` looking at `target`, on a free agent spot (else the draw is redone). A
 * camera below the built-in agent's MIN_CAMERA_HEIGHT_M (an ESI view level with an object on the floor) lowers the
 * task's own limit to its height, floored to the millimetre so that the limit never stands above the camera.
 */
export function initialView(builder: SceneBuilder, from: Vec3, target: Vec3): Pick<Draft, "agent" | "agentLimits"> {
  const agentLimits = from[2] < MIN_CAMERA_HEIGHT_M ? { min_camera_height_m: Math.floor(from[2] * 1000) / 1000 } : undefined;
  const agent = cameraLookingAt(builder, from, target, agentLimits);
  require(agent, "initial camera blocked");
  return agentLimits ? { agent, agentLimits } : { agent };
}
