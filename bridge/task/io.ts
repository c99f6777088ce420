/** Reading and writing task records, with errors that name the file and field. */
import { existsSync, readdirSync, readFileSync, statSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { TaskRecordSchema, TaskSchema, type Task, type TaskRecord } from "./schema.js";
import { InputError, formatZodIssues } from "../../src/core/errors.js";
import { writeJsonAtomic } from "../../src/core/fs.js";

export function parseTask(raw: unknown, file: string): Task {
  const r = TaskSchema.safeParse(raw);
  if (!r.success) throw new InputError(`${file}: invalid task record: ${formatZodIssues(r.error.issues)}`);
  return r.data;
}

/** A task record in the general record format (imported tasks may leave room, extents or models unknown). */
export function parseTaskRecord(raw: unknown, file: string): TaskRecord {
  const r = TaskRecordSchema.safeParse(raw);
  if (!r.success) throw new InputError(`${file}: invalid task record: ${formatZodIssues(r.error.issues)}`);
  return r.data;
}

function readJsonFile(file: string): unknown {
  if (!existsSync(file)) throw new InputError(`${file}: no such task file`);
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new InputError(`${file}: not valid JSON (${(e as Error).message})`);
  }
}

export function readTaskFile(file: string): Task {
  return parseTask(readJsonFile(file), file);
}

export function readTaskRecordFile(file: string): TaskRecord {
  return parseTaskRecord(readJsonFile(file), file);
}

/** The task files of a directory (every *.json file, sorted by name), or a single task file. */
function taskFiles(path: string): string[] {
  if (!existsSync(path)) throw new InputError(`${path}: no such file or directory (expected a task JSON file or a directory of them)`);
  if (statSync(path).isFile()) return [path];
  const files = readdirSync(path).filter((f) => f.endsWith(".json")).sort();
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
    const f = join(dir, `${t.task_id}.json`);
    writeJsonAtomic(f, t);
    return f;
  });
}
