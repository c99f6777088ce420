/** In-memory tasks for prompt tests: generated, then rendered at a small size (bundleOf) so tests stay quick. */
export { bundleOf } from "../../scenegraph/helpers.js";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import type { Task } from "../../../core/task/schema.js";
import type { BuiltinSubcategory } from "../../../core/task/taxonomy.js";

/** Rendering size for tests (the scene is generated at the default camera, then rendered smaller). */
export const SMALL_CAMERA = { width: 96, height: 72, hfov_deg: 70 } as const;

export function smallTask(sub: BuiltinSubcategory = "spatial_distance", seed = "0", index = 0): Task {
  const t = generateTask(sub, seed, index);
  return { ...t, camera: { ...SMALL_CAMERA } };
}
