/**
 * One writer per run directory. Two processes appending to one items.jsonl duplicate items and corrupt
 * every later summary (audit M1), so a run takes `run.lock` (created exclusively, holding its pid and
 * host) before it writes anything, and removes it when it ends. A lock whose process is gone (a kill -9)
 * is stale and is taken over; a live one is refused with a message naming it.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { InputError } from "../core/errors.js";

export const RUN_LOCK_FILE = "run.lock";

interface LockInfo {
  pid: number;
  host: string;
  since: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readLock(file: string): LockInfo | null {
  try {
    const v = JSON.parse(readFileSync(file, "utf8")) as Partial<LockInfo>;
    return typeof v.pid === "number" && typeof v.host === "string" ? { pid: v.pid, host: v.host, since: String(v.since ?? "") } : null;
  } catch {
    return null; // torn or foreign: treat as stale
  }
}

export interface RunLock {
  release(): void;
}

/** Takes the run directory's lock (the directory must exist), or throws an input error naming its holder. */
export function lockRunDir(dir: string): RunLock {
  const file = join(dir, RUN_LOCK_FILE);
  const me: LockInfo = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, JSON.stringify(me) + "\n");
      closeSync(fd);
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          const cur = readLock(file);
          if (cur && cur.pid === me.pid && cur.host === me.host) rmSync(file, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const holder = readLock(file);
      const sameHost = holder?.host === me.host;
      if (holder && (!sameHost || alive(holder.pid)))
        throw new InputError(`${dir}: another esi3d (pid ${holder.pid} on ${holder.host}, since ${holder.since}) is writing this run; wait for it, or stop it first (a lock left by a killed process on this host is taken over automatically)`, { file });
      rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  throw new InputError(`${dir}: could not take ${RUN_LOCK_FILE}`, { file });
}
