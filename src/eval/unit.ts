/**
 * Runs one unit of evaluation work (a task in one paradigm): an active one through its episode (active.ts),
 * a passive one through the shared pipeline (pipeline.ts). The dispatch lives here, above both, because the
 * active unit builds on the passive one's record and graph helpers: pipeline.ts must not import active.ts back.
 */
import { runActiveUnit } from "./active.js";
import { runPassiveUnit, type UnitJob, type UnitResult } from "./pipeline.js";

export function runUnit(job: UnitJob): Promise<UnitResult> {
  return job.paradigm === "active" ? runActiveUnit(job) : runPassiveUnit(job);
}
