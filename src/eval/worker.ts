/** Piscina worker: generates tasks and evaluates units off the main thread. */
import { generateTask } from "../../bridge/sim/generate/suite.js";
import type { BuiltinSubcategory } from "../../bridge/task/taxonomy.js";
import { runUnit, type UnitJob, type UnitResult } from "./pipeline.js";
import type { Task } from "../../bridge/task/schema.js";

export type UnitJobFor = { kind: "unit" } & UnitJob;
export type WorkerJob = { kind: "generate"; subcategory: BuiltinSubcategory; seed: string; index: number } | UnitJobFor;

export default async function work(job: WorkerJob): Promise<Task | UnitResult> {
  if (job.kind === "generate") return generateTask(job.subcategory, job.seed, job.index);
  return runUnit(job);
}
