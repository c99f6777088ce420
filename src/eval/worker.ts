/** Piscina worker: generates tasks and evaluates units off the main thread. */
import { generateTask } from "../../bridge/sim/generate/suite.js";
import { generatorContext, type GeneratorOptions } from "../../bridge/sim/generate/options.js";
import type { BuiltinSubcategory } from "../../bridge/task/taxonomy.js";
import { runUnit, type UnitJob, type UnitResult } from "./pipeline.js";
import type { Task } from "../../bridge/task/schema.js";

export type UnitJobFor = { kind: "unit" } & UnitJob;
export type GenerateJob = { kind: "generate"; subcategory: BuiltinSubcategory; seed: string; index: number; options: GeneratorOptions };
export type WorkerJob = GenerateJob | UnitJobFor;

/** One task of the built-in suite, as the run's generator options draw it. */
export const generateJob = (job: GenerateJob): Task => generateTask(job.subcategory, job.seed, job.index, generatorContext(job.options));

export default async function work(job: WorkerJob): Promise<Task | UnitResult> {
  if (job.kind === "generate") return generateJob(job);
  return runUnit(job);
}
