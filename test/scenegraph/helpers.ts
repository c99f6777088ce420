/** Builds small bundles in memory for scene-graph tests. */
import { generateTask } from "../../bridge/sim/generate/suite.js";
import { captureBundle } from "../../bridge/sim/capture.js";
import type { FrameBundle } from "../../bridge/bundle/io.js";
import type { Paradigm } from "../../bridge/bundle/schema.js";
import type { Task } from "../../bridge/task/schema.js";
import type { BuiltinSubcategory } from "../../bridge/task/taxonomy.js";

export function bundleOf(task: Task, paradigm: Paradigm): FrameBundle {
  const { manifest, payloads } = captureBundle(task, paradigm);
  const { width, height } = manifest.image;
  return {
    dir: "",
    manifest,
    views: manifest.views.map((v, k) => ({ index: k, width, height, rgb: payloads[k]!.rgb, depth: payloads[k]!.depth, ids: payloads[k]!.ids, K: v.intrinsics, E: v.extrinsic, action: v.action })),
  };
}

export function generatedBundle(sub: BuiltinSubcategory, seed: string, index: number, paradigm: Paradigm): FrameBundle {
  return bundleOf(generateTask(sub, seed, index), paradigm);
}
