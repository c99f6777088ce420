/**
 * Reading a run directory for inspection: its configuration, tasks, stored graphs (with their diagnoses)
 * and item records. Nothing here recomputes anything; variant.ts does that.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Task } from "../../../core/task/schema.js";
import { readTaskFile } from "../../../core/task/io.js";
import { InputError } from "../../../core/errors.js";
import { entryExists } from "../../../core/fs.js";
import { reasonerKeyPart, threeDArms, type RunConfig } from "../../eval/config.js";
import { readRunFile, readStoredGraph, runConfigFile, type StoredGraph } from "../../eval/files.js";
import { itemKey, readRecords, type ItemRecord } from "../../eval/records.js";
import type { VariantRef } from "./types.js";

export interface RunDir {
  dir: string;
  config: RunConfig;
  /** esi3d version that made the run (config.json `package_version`). */
  version: string;
  taskIds: string[];
  records: ItemRecord[];
}

/** A run directory has config.json and graphs/; a bundle has bundle.json. */
export function isRunDir(dir: string): boolean {
  return existsSync(join(dir, "config.json")) && existsSync(join(dir, "graphs")) && statSync(join(dir, "graphs")).isDirectory();
}

export function openRun(dir: string): RunDir {
  if (!existsSync(runConfigFile(dir))) throw new InputError(`${dir}: not a run directory (no config.json; make one with esi3d run --out DIR)`);
  const run = readRunFile(dir);
  const tasksDir = join(dir, "tasks");
  if (!existsSync(tasksDir)) throw new InputError(`${tasksDir}: missing (a run directory keeps one task JSON per task here)`);
  const taskIds = readdirSync(tasksDir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.slice(0, -5))
    .sort();
  if (taskIds.length === 0) throw new InputError(`${tasksDir}: no task files (*.json)`);
  const { records } = readRecords(join(dir, "items.jsonl"));
  return { dir: resolve(dir), config: run.config, version: run.package_version, taskIds, records };
}

export function readRunTask(run: RunDir, taskId: string): Task {
  if (!run.taskIds.includes(taskId)) {
    const list = run.taskIds.length > 8 ? `${run.taskIds.slice(0, 8).join(", ")}, ... (${run.taskIds.length} in all)` : run.taskIds.join(", ");
    throw new InputError(`--task ${taskId}: no such task in ${run.dir}/tasks (tasks: ${list})`);
  }
  return readTaskFile(join(run.dir, "tasks", `${taskId}.json`));
}

export function graphFile(run: RunDir, taskId: string, paradigm: string, source: string): string {
  return join(run.dir, "graphs", taskId, `${paradigm}__${source}.json`);
}

/** The (paradigm, source label) pairs with a stored graph for a task, in the run's configured order. */
export function variantsOf(run: RunDir, taskId: string): Array<{ paradigm: string; source: string }> {
  const out: Array<{ paradigm: string; source: string }> = [];
  // any entry counts: a link loop or a dangling link is refused by name when read, never skipped
  for (const paradigm of run.config.paradigms)
    for (const arm of threeDArms(run.config)) if (entryExists(graphFile(run, taskId, paradigm, arm.label))) out.push({ paradigm, source: arm.label });
  return out;
}

export function recordsFor(run: RunDir, taskId: string, paradigm: string, source: string): { record3d: ItemRecord | null; record2d: ItemRecord | null } {
  // a run of several reasoners is shown with its first reasoner's records
  const tag = reasonerKeyPart(run.config, run.config.reasoner[0]!);
  const key3 = itemKey(taskId, paradigm, "3d", source, tag),
    key2 = itemKey(taskId, paradigm, "2d", null, tag);
  // a resumed run may hold a key twice in principle; the last line is the newest
  let record3d: ItemRecord | null = null,
    record2d: ItemRecord | null = null;
  for (const r of run.records) {
    if (r.key === key3) record3d = r;
    else if (r.key === key2) record2d = r;
  }
  return { record3d, record2d };
}

export function variantKey(paradigm: string, source: string): string {
  return `${paradigm}__${source}`;
}

export function variantRef(run: RunDir, taskId: string, paradigm: string, source: string, stored: StoredGraph): VariantRef {
  const m = stored.diagnosis.metrics;
  const { record3d } = recordsFor(run, taskId, paradigm, source);
  return {
    key: variantKey(paradigm, source),
    paradigm,
    source,
    f1_observed: m.f1_observed,
    duplicates: m.duplicates,
    hallucinated: m.hallucinated,
    merged: m.merged,
    stale: m.stale ?? 0,
    missed: m.missed_lost + m.missed_unseen,
    correct: record3d ? record3d.correct : null,
    arm: "3d",
    steps: record3d?.active ? record3d.active.steps.length : null,
  };
}

/** The source label the page and --source give an active run's 2D arm (no 3D source is called this). */
export const ACTIVE_2D_SOURCE = "2d";

/** The 2D arm of an active run, when the run has its episode for the task: no graph, so no graph numbers. */
export function active2dRef(run: RunDir, taskId: string): VariantRef | null {
  if (!run.config.paradigms.includes("active")) return null;
  const { record2d } = recordsFor(run, taskId, "active", ACTIVE_2D_SOURCE);
  if (!record2d?.active) return null;
  return {
    key: variantKey("active", ACTIVE_2D_SOURCE),
    paradigm: "active",
    source: ACTIVE_2D_SOURCE,
    f1_observed: 0,
    duplicates: 0,
    hallucinated: 0,
    merged: 0,
    stale: 0,
    missed: 0,
    correct: record2d.correct,
    arm: "2d",
    steps: record2d.active.steps.length,
  };
}

/** How wrong a task's graphs are, for the index: errors summed over its variants, then the worst F1. */
export interface TaskWrongness {
  task_id: string;
  subcategory: string;
  question: string;
  variants: VariantRef[];
  /** duplicates + merged + hallucinated + stale + missed-lost (seen but not recovered), over every variant. */
  errors: number;
  worst_f1: number;
  wrong_answers: number;
}

export function rankTasks(run: RunDir): TaskWrongness[] {
  const rows = run.taskIds.map((id): TaskWrongness => {
    const task = readRunTask(run, id);
    const variants: VariantRef[] = [];
    let errors = 0,
      worst = 1,
      wrong = 0;
    for (const v of variantsOf(run, id)) {
      const stored = readStoredGraph(graphFile(run, id, v.paradigm, v.source));
      const ref = variantRef(run, id, v.paradigm, v.source, stored);
      const m = stored.diagnosis.metrics;
      errors += m.duplicates + m.merged + m.hallucinated + (m.stale ?? 0) + m.missed_lost;
      worst = Math.min(worst, m.f1_observed);
      if (ref.correct === false) wrong++;
      variants.push(ref);
    }
    return {
      task_id: id,
      subcategory: task.subcategory,
      question: task.question,
      variants,
      errors,
      worst_f1: variants.length ? worst : 1,
      wrong_answers: wrong,
    };
  });
  return rows.sort((a, b) => b.errors - a.errors || a.worst_f1 - b.worst_f1 || b.wrong_answers - a.wrong_answers || a.task_id.localeCompare(b.task_id));
}
