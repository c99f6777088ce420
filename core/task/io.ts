/** Reading and writing task records, with errors that name the file and field. */
import { existsSync, readdirSync, readFileSync, statSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { TaskRecordSchema, TaskSchema, type Task, type TaskRecord } from "./schema.js";
import { InputError, MAX_REPORTED_ISSUES, formatZodIssues, zodIssues } from "../errors.js";
import { FILE_PENETRATION_TOLERANCE_M, placementProblems } from "../objects/placement.js";
import { pathError, writeJsonAtomic } from "../fs.js";
import { pathBelow } from "../paths.js";

/**
 * Subcategories whose asked objects may overlap: a contact question's pair, and Merged Observation's copies,
 * which overlap as ESI's do (centres 0.92 × their size apart, ESI-Bench's released generator scripts), often by over 1 cm.
 */
const CONTACT_SUBCATEGORIES: ReadonlySet<string> = new Set(["physical_contact", "merged_observation"]);

/**
 * A task from a file: its schema, then the generator's placement checks (core/objects/placement.ts), which a
 * file cannot skip. A file does not declare which objects may touch or nest, so boxes may
 * interpenetrate by FILE_PENETRATION_TOLERANCE_M, a box wholly inside another counts as nested, and the
 * objects a contact question asks about may touch (their boxes overlap where the meshes only touch), as may
 * the copies a Merged Observation question counts.
 */
export function parseTask(raw: unknown, file: string): Task {
  const r = TaskSchema.safeParse(raw);
  if (!r.success)
    throw new InputError(`${file}: invalid task record: ${formatZodIssues(r.error.issues)}`, { file, field: zodIssues(r.error.issues)[0]?.field });
  const t = r.data;
  const asked = CONTACT_SUBCATEGORIES.has(t.subcategory) ? t.relevant_object_ids : [];
  const allowedOverlaps = asked.flatMap((a, i) => asked.slice(i + 1).map((b) => [a, b] as const));
  const problems = placementProblems(t.room, t.objects, { tolerance: FILE_PENETRATION_TOLERANCE_M, allowNested: true, allowedOverlaps });
  if (problems.length) {
    const shown = problems
      .slice(0, MAX_REPORTED_ISSUES)
      .map((p) => `${p.field}: ${p.message}`)
      .join("; ");
    const more = problems.length > MAX_REPORTED_ISSUES ? `; and more` : "";
    throw new InputError(`${file}: invalid task geometry: ${shown}${more}`, { file, field: problems[0]!.field });
  }
  return r.data;
}

/** A task record in the general record format (imported tasks may leave room, extents or models unknown). */
function parseTaskRecord(raw: unknown, file: string): TaskRecord {
  const r = TaskRecordSchema.safeParse(raw);
  if (!r.success)
    throw new InputError(`${file}: invalid task record: ${formatZodIssues(r.error.issues)}`, { file, field: zodIssues(r.error.issues)[0]?.field });
  return r.data;
}

function readJsonFile(file: string): unknown {
  if (!existsSync(file)) throw new InputError(`${file}: no such task file`, { file });
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code) throw pathError(e, file, "read");
    throw new InputError(`${file}: not valid JSON (${(e as Error).message})`, { file });
  }
}

export function readTaskFile(file: string): Task {
  return parseTask(readJsonFile(file), file);
}

function readTaskRecordFile(file: string): TaskRecord {
  return parseTaskRecord(readJsonFile(file), file);
}

/** The task files of a directory (every *.json file, sorted by name), or a single task file. */
function taskFiles(path: string): string[] {
  if (!existsSync(path)) throw new InputError(`${path}: no such file or directory (expected a task JSON file or a directory of them)`);
  if (statSync(path).isFile()) return [path];
  const files = readdirSync(path)
    .filter((f) => f.endsWith(".json"))
    .sort();
  if (files.length === 0) throw new InputError(`${path}: no task files (*.json) in this directory`);
  return files.map((f) => join(path, f));
}

/** All task records in a directory (every *.json file, sorted by name), or a single task file. */
export function readTasks(path: string): Task[] {
  return taskFiles(path).map(readTaskFile);
}

/** Like readTasks, in the general record format (imported suites). */
export function readTaskRecords(path: string): Array<{ file: string; record: TaskRecord }> {
  return taskFiles(path).map((file) => ({ file, record: readTaskRecordFile(file) }));
}

export function writeTasks(dir: string, tasks: readonly Task[]): string[] {
  mkdirSync(dir, { recursive: true });
  return tasks.map((t) => {
    const f = pathBelow(dir, `${t.task_id}.json`);
    writeJsonAtomic(f, t);
    return f;
  });
}
