/** In-memory tasks and bundles for prompt tests: generated, then rendered at a small size so tests stay quick. */
import type { FrameBundle } from "../../bridge/bundle/io.js";
import type { Paradigm } from "../../bridge/bundle/schema.js";
import { captureBundle } from "../../bridge/sim/capture.js";
import { generateTask } from "../../bridge/sim/generate/suite.js";
import type { Task } from "../../bridge/task/schema.js";
import type { BuiltinSubcategory } from "../../bridge/task/taxonomy.js";

/** Rendering size for tests (the scene is generated at the default camera, then rendered smaller). */
export const SMALL_CAMERA = { width: 96, height: 72, hfov_deg: 70 } as const;

export function smallTask(sub: BuiltinSubcategory = "spatial_distance", seed = "0", index = 0): Task {
  const t = generateTask(sub, seed, index);
  return { ...t, camera: { ...SMALL_CAMERA } };
}

export function bundleOf(task: Task, paradigm: Paradigm): FrameBundle {
  const { manifest, payloads } = captureBundle(task, paradigm);
  const { width, height } = manifest.image;
  return {
    dir: "",
    manifest,
    views: manifest.views.map((v, k) => ({
      index: k,
      width,
      height,
      rgb: payloads[k]!.rgb,
      depth: payloads[k]!.depth,
      ids: payloads[k]!.ids,
      K: v.intrinsics,
      E: v.extrinsic,
      action: v.action,
    })),
  };
}
