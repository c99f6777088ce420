/**
 * The task list of a directory suite: built-in-style task records run as they are; imported ESI-Bench
 * tasks run as proxy scenes of the built-in simulator (bridge/esibench/proxy.ts); everything that cannot
 * run is reported as skipped with the reason, per task or per paradigm, instead of failing the run.
 */
import type { Task, TaskRecord } from "../../core/task/schema.js";
import { TaskSchema, unresolvedFields } from "../../core/task/schema.js";
import { readTaskRecords } from "../../core/task/io.js";
import { gtCandidateViews } from "../../core/task/candidates.js";
import { proxyTask } from "../../bridge/esibench/proxy.js";
import type { RunConfig } from "./config.js";

export interface SkippedItem {
  task_id: string;
  subcategory: string;
  /** null: every paradigm of the task. */
  paradigm: string | null;
  reason: string;
}

export interface PlannedSuite {
  tasks: Task[];
  skipped: SkippedItem[];
  /** How many of the tasks are proxy renders of another simulator's task. */
  proxies: number;
}

function runnable(r: TaskRecord): { task: Task } | { skip: string } {
  if (r.provenance?.dataset === "esi-bench") return proxyTask(r);
  const p = TaskSchema.safeParse(r);
  if (p.success) return { task: p.data };
  const open = unresolvedFields(r);
  return {
    skip: open.length ? `needs a simulator that resolves ${open.join(", ")} (e.g. bridge/omnigibson/capture.py)` : (p.error.issues[0]?.message ?? "invalid"),
  };
}

export function planSuiteDirectory(dir: string, config: Pick<RunConfig, "subcategories" | "paradigms">): PlannedSuite {
  const tasks: Task[] = [];
  const skipped: SkippedItem[] = [];
  const selected = new Set<string>(config.subcategories);
  for (const { record } of readTaskRecords(dir)) {
    const r = runnable(record);
    if ("skip" in r) {
      skipped.push({ task_id: record.task_id, subcategory: record.subcategory, paradigm: null, reason: r.skip });
      continue;
    }
    if (!selected.has(r.task.subcategory)) {
      skipped.push({ task_id: record.task_id, subcategory: record.subcategory, paradigm: null, reason: "subcategory not selected (--subcategories)" });
      continue;
    }
    tasks.push(r.task);
    // gt of a task without a trajectory comes from its candidate views' flags, which may not cover the objects
    if (config.paradigms.includes("gt") && r.task.candidate_views?.length && r.task.action_trajectory.length === 0 && !gtCandidateViews(r.task))
      skipped.push({
        task_id: r.task.task_id,
        subcategory: r.task.subcategory,
        paradigm: "gt",
        reason: "no gt view set: the candidate views' visibility flags do not show every relevant object",
      });
  }
  return { tasks, skipped, proxies: tasks.filter((t) => t.proxy).length };
}

export const isSkippedUnit = (skipped: readonly SkippedItem[], taskId: string, paradigm: string): boolean =>
  skipped.some((s) => s.task_id === taskId && (s.paradigm === null || s.paradigm === paradigm));
