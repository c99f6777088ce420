/**
 * An exclusive lock file that names its holder: created with O_EXCL (two processes cannot both win, unlike a
 * check-then-write), holding pid, host and start time. A lock whose process is gone on this host (a kill -9)
 * is stale and is taken over; a live holder, or one on another host (a shared disk), is refused by the
 * caller's error. Used for a run directory (src/eval/runLock.ts) and the service's data directory.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { hostname } from "node:os";

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
    try {
      const fd = openSync(file, "wx");
      try {
        writeSync(fd, JSON.stringify(me) + "\n");
      } finally {
        closeSync(fd);
      }
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
    }
  }
  throw new Error(`${file}: could not take the lock (it reappeared twice while being taken over)`);
}
