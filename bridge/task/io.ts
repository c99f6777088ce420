/** Reading and writing task records, with errors that name the file and field. */
import { existsSync, readdirSync, readFileSync, statSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { TaskSchema, type Task } from "./schema.js";
import { InputError, formatZodIssues } from "../../src/core/errors.js";
import { writeJsonAtomic } from "../../src/core/fs.js";

export function parseTask(raw: unknown, file: string): Task {
  const r = TaskSchema.safeParse(raw);
  if (!r.success) throw new InputError(`${file}: invalid task record: ${formatZodIssues(r.error.issues)}`);
  return r.data;
}

export function readTaskFile(file: string): Task {
  if (!existsSync(file)) throw new InputError(`${file}: no such task file`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new InputError(`${file}: not valid JSON (${(e as Error).message})`);
  }
  return parseTask(raw, file);
}

/** All task records in a directory (every *.json file, sorted by name), or a single task file. */
export function readTasks(path: string): Task[] {
  if (!existsSync(path)) throw new InputError(`${path}: no such file or directory (expected a task JSON file or a directory of them)`);
  if (statSync(path).isFile()) return [readTaskFile(path)];
  const files = readdirSync(path).filter((f) => f.endsWith(".json")).sort();
  if (files.length === 0) throw new InputError(`${path}: no task files (*.json) in this directory`);
  return files.map((f) => readTaskFile(join(path, f)));
}


export function writeTasks(dir: string, tasks: readonly Task[]): string[] {
  mkdirSync(dir, { recursive: true });
  return tasks.map((t) => {
    const f = join(dir, `${t.task_id}.json`);
    writeJsonAtomic(f, t);
    return f;
  });
}
