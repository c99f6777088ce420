/**
 * The content of an item's task, as a hash each record carries (`task_hash`): two runs may use one task id for
 * different tasks (another --seed, suite or generator), and `compare` pairs items by id. Pairing a seed-0 run
 * with a seed-7 one gave McNemar tests of unrelated questions, exit 0; with the hash, compare
 * refuses such runs naming the task.
 */
import type { Task } from "../../core/task/schema.js";
import { canonicalJson, sha256Hex } from "../../core/hash.js";
import { InputError } from "../../core/errors.js";

/** Hex digits kept of the sha256: 64 bits, no accidental collision among a suite's tasks. */
const TASK_HASH_HEX_DIGITS = 16;
export const TASK_HASH_PATTERN = new RegExp(`^[0-9a-f]{${TASK_HASH_HEX_DIGITS}}$`);

/** A task's hash, kept per task object: every record of a unit hashes the same task. */
const hashes = new WeakMap<Task, string>();

/** sha256 of the task's canonical JSON (keys sorted, as written to tasks/<id>.json and read back), cut to TASK_HASH_HEX_DIGITS. */
export function taskHash(task: Task): string {
  let h = hashes.get(task);
  if (h === undefined) {
    h = sha256Hex(canonicalJson(task)).slice(0, TASK_HASH_HEX_DIGITS);
    hashes.set(task, h);
  }
  return h;
}

interface HashedRecord {
  key: string;
  task_id: string;
  task_hash?: string | undefined;
}

/**
 * Refuses two runs whose shared items come from tasks of different content (an input error naming the first task
 * and both runs). Returns how many shared items could not be checked: a hash in one run's record only (the
 * other's written before task_hash). Two runs both from before it are compared as they were, unchecked.
 */
export function checkSameTasks(
  a: { dir: string; records: readonly HashedRecord[] },
  b: { dir: string; records: readonly HashedRecord[] },
): { unchecked: number } {
  const inB = new Map(b.records.map((r) => [r.key, r]));
  let unchecked = 0;
  for (const ra of a.records) {
    const rb = inB.get(ra.key);
    if (!rb) continue;
    if (ra.task_hash === undefined && rb.task_hash === undefined) continue;
    if (ra.task_hash === undefined || rb.task_hash === undefined) {
      unchecked++;
      continue;
    }
    if (ra.task_hash !== rb.task_hash)
      throw new InputError(
        `${a.dir} and ${b.dir}: task ${ra.task_id} is not the same task in both runs (task_hash ${ra.task_hash} and ${rb.task_hash}): the runs asked different questions under the same task ids (another --seed, suite or generator?); compare pairs items of the same tasks only`,
        { field: "task_hash" },
      );
  }
  return { unchecked };
}
