/** Piscina worker: generates tasks and evaluates units off the main thread. */
import { stageTimer } from "../../core/stageTimer.js";
import { generateTask, prepareGenerators } from "../../bridge/sim/generate/suite.js";
import { generatorContext, type GeneratorOptions } from "../../bridge/sim/generate/options.js";
import type { BuiltinSubcategory } from "../../core/task/taxonomy.js";
import { runUnit } from "./unit.js";
import type { UnitJob, UnitResult } from "./pipeline.js";
import type { Task } from "../../core/task/schema.js";

export type UnitJobFor = { kind: "unit" } & UnitJob;
export type GenerateJob = { kind: "generate"; subcategory: BuiltinSubcategory; seed: string; index: number; options: GeneratorOptions };
export type WorkerJob = GenerateJob | UnitJobFor;

/** A generated task and the time its generation took (ms): the records of its units carry it as timings_ms.generate. */
export interface GeneratedTask {
  task: Task;
  ms: number;
}

/** One task of the built-in suite, as the run's generator options draw it. */
export async function generateJob(job: GenerateJob): Promise<GeneratedTask> {
  // the physics engine loads once per thread, outside the task's own generation time
  await prepareGenerators([job.subcategory]);
  const { timings, lap } = stageTimer(1);
  const task = generateTask(job.subcategory, job.seed, job.index, generatorContext(job.options));
  lap("generate");
  return { task, ms: timings.generate! };
}

export default async function work(job: WorkerJob): Promise<GeneratedTask | UnitResult> {
  if (job.kind === "generate") return generateJob(job);
  return runUnit(job);
}
