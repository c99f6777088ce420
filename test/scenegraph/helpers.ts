/** Builds small bundles in memory for scene-graph tests. */
import { generateTask } from "../../bridge/sim/generate/suite.js";
import type { FrameBundle } from "../../core/bundle/io.js";
import type { Paradigm } from "../../core/bundle/schema.js";
import type { Task } from "../../core/task/schema.js";
import type { BuiltinSubcategory } from "../../core/task/taxonomy.js";
import { renderBundle } from "../../bridge/sim/capture.js";

export function bundleOf(task: Task, paradigm: Paradigm): FrameBundle {
  return renderBundle(task, paradigm);
}

export function generatedBundle(sub: BuiltinSubcategory, seed: string, index: number, paradigm: Paradigm): FrameBundle {
  return bundleOf(generateTask(sub, seed, index), paradigm);
}
