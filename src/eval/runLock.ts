/**
 * One writer per run directory. Two processes appending to one items.jsonl duplicate items and corrupt
 * every later summary, so a run takes `run.lock` (core/lockFile.ts: exclusive, naming its
 * holder) before it writes anything, and removes it when it ends. A lock whose process is gone (a kill -9)
 * is stale and is taken over; a live one is refused with a message naming it.
 */
import { join } from "node:path";
import { InputError } from "../../core/errors.js";
import { acquireLockFile, type HeldLock } from "../../core/lockFile.js";

const RUN_LOCK_FILE = "run.lock";

export type RunLock = HeldLock;

/** Takes the run directory's lock (the directory must exist), or throws an input error naming its holder. */
export function lockRunDir(dir: string): RunLock {
  const file = join(dir, RUN_LOCK_FILE);
  return acquireLockFile(
    file,
    (h) =>
      new InputError(
        `${dir}: another esi3d (pid ${h.pid} on ${h.host}, since ${h.since}) is writing this run; wait for it, or stop it first (a lock left by a killed process on this host is taken over automatically)`,
        { file },
      ),
  );
}
