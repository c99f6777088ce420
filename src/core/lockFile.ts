/**
 * An exclusive lock file that names its holder: written whole under a temporary name, then linked into place
 * (link is exclusive: two processes cannot both win, unlike a check-then-write), holding pid, host and start time. A lock whose process is gone on this host (a kill -9)
 * is stale and is taken over; a live holder, or one on another host (a shared disk), is refused by the
 * caller's error. Used for a run directory (src/eval/runLock.ts) and the service's data directory.
 */
import { linkSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { tempNameFor } from "./fs.js";

export interface LockHolder {
  pid: number;
  host: string;
  since: string;
}

export interface HeldLock {
  release(): void;
}

/** true when `pid` is a live process (EPERM: alive, owned by another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readHolder(file: string): LockHolder | null {
  try {
    const v = JSON.parse(readFileSync(file, "utf8")) as Partial<LockHolder>;
    return typeof v.pid === "number" && typeof v.host === "string" ? { pid: v.pid, host: v.host, since: String(v.since ?? "") } : null;
  } catch {
    return null; // torn or foreign: treat as stale
  }
}

/**
 * Takes `file` exclusively, or throws `refuse(holder)` when a live process holds it. The directory must exist;
 * other errors (EACCES, EROFS, ...) are thrown as they are.
 */
export function acquireLockFile(file: string, refuse: (holder: LockHolder) => Error): HeldLock {
  const me: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    // the lock appears complete or not at all: written under a temporary name, then hard-linked to `file`
    // (link fails when it exists). Creating `file` with O_EXCL and writing after left a moment in which a
    // second process read an empty lock, took it for stale, removed it and won too (two resumes started
    // together both ran).
    const tmp = tempNameFor(file);
    try {
      writeFileSync(tmp, JSON.stringify(me) + "\n");
      linkSync(tmp, file);
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          const cur = readHolder(file);
          if (cur && cur.pid === me.pid && cur.host === me.host) rmSync(file, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const holder = readHolder(file);
      if (holder && (holder.host !== me.host || processAlive(holder.pid))) throw refuse(holder);
      rmSync(file, { force: true }); // stale: its process is gone
    } finally {
      rmSync(tmp, { force: true });
    }
  }
  throw new Error(`${file}: could not take the lock (it reappeared twice while being taken over)`);
}
