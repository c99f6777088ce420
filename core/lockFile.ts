/**
 * An exclusive lock file that names its holder: written whole under a temporary name, then linked into place
 * (link is exclusive: two processes cannot both win, unlike a check-then-write), holding pid, host and start
 * time. A lock whose process is gone on this host (a kill -9) is stale and is taken over; a live holder, or one
 * on another host (a shared disk), is refused by the caller's error. Used for a run directory
 * (src/eval/runLock.ts) and the service's data directory.
 *
 * Taking over a stale lock means removing it, and a removal is not exclusive: two processes that both read the
 * dead holder could each remove the file, the second removing the lock the first had just linked (both then
 * ran: two `--resume` started together after a kill -9). So a stale lock is removed only under a takeover guard
 * (`<lock>.takeover`, itself a linked lock file), after reading it again: under the guard nobody else removes
 * it, and a lock just taken by a live process is left alone.
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

/** How long a process waits between tries for a takeover guard another one holds (it is held for a read and an unlink). */
const TAKEOVER_POLL_MS = 2;
/**
 * A takeover guard older than this is taken for abandoned even when its holder's liveness cannot be checked (another
 * host): a live holder keeps it for well under a millisecond, so 10 s is only reached by a stopped process.
 */
const TAKEOVER_GUARD_STALE_MS = 10_000;
/** How long to wait for the takeover guard before giving up with an error (it is never held for long). */
const TAKEOVER_WAIT_LIMIT_MS = 30_000;

/** true when `pid` is a live process (EPERM: alive, owned by another user). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** What a lock file holds: nothing (absent), a holder, or something no lock writes (torn or foreign: stale). */
type LockState = { kind: "absent" } | { kind: "holder"; holder: LockHolder } | { kind: "unreadable" };

function readLock(file: string): LockState {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { kind: "absent" };
    throw e;
  }
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    if (typeof v.pid === "number" && typeof v.host === "string") return { kind: "holder", holder: { pid: v.pid, host: v.host, since: String(v.since ?? "") } };
  } catch {
    // not JSON: falls through
  }
  return { kind: "unreadable" };
}

/** A holder that still counts: alive on this host, or on another host, whose processes cannot be checked from here. */
const holds = (h: LockHolder, me: LockHolder) => h.host !== me.host || processAlive(h.pid);

/** Links a complete lock file naming `me` at `file`; false when `file` exists. Other errors are thrown. */
function tryLink(file: string, me: LockHolder): boolean {
  const tmp = tempNameFor(file);
  try {
    writeFileSync(tmp, JSON.stringify(me) + "\n");
    linkSync(tmp, file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Removes `file` if it still names `me` (a holder never removes a lock that has been taken over from it). */
function removeIfMine(file: string, me: LockHolder): void {
  const cur = readLock(file);
  if (cur.kind === "holder" && cur.holder.pid === me.pid && cur.holder.host === me.host && cur.holder.since === me.since) rmSync(file, { force: true });
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleepMs = (ms: number) => Atomics.wait(sleeper, 0, 0, ms);

/** Runs `fn` holding `<file>.takeover`, waiting for a live holder and clearing an abandoned one. */
function underTakeoverGuard(file: string, me: LockHolder, fn: () => void): void {
  const guard = `${file}.takeover`;
  const deadline = Date.now() + TAKEOVER_WAIT_LIMIT_MS;
  while (!tryLink(guard, me)) {
    const g = readLock(guard);
    const abandoned =
      g.kind === "unreadable" ||
      (g.kind === "holder" && (g.holder.host === me.host ? !processAlive(g.holder.pid) : Date.now() - Date.parse(g.holder.since) > TAKEOVER_GUARD_STALE_MS));
    // a guard is abandoned only by a process that died inside its sub-millisecond hold: rare enough that its
    // own removal is not guarded again
    if (abandoned) rmSync(guard, { force: true });
    else if (g.kind === "holder") {
      if (Date.now() > deadline)
        throw new Error(
          `${guard}: another process (pid ${g.holder.pid} on ${g.holder.host}) has held the lock's takeover guard for over ${TAKEOVER_WAIT_LIMIT_MS / 1000} s; remove the file if that process is stuck`,
        );
      sleepMs(TAKEOVER_POLL_MS);
    }
  }
  try {
    fn();
  } finally {
    removeIfMine(guard, me);
  }
}

/**
 * Takes `file` exclusively, or throws `refuse(holder)` when a live process holds it. The directory must exist;
 * other errors (EACCES, EROFS, ...) are thrown as they are.
 */
export function acquireLockFile(file: string, refuse: (holder: LockHolder) => Error): HeldLock {
  const me: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  // link, or find the holder; a stale lock is removed under the guard and the link tried again. Three tries:
  // the second link fails only when another process took the lock meanwhile, and the third try refuses it.
  for (let attempt = 0; attempt < 3; attempt++) {
    if (tryLink(file, me)) {
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          removeIfMine(file, me);
        },
      };
    }
    const seen = readLock(file);
    if (seen.kind === "holder" && holds(seen.holder, me)) throw refuse(seen.holder);
    underTakeoverGuard(file, me, () => {
      // read again under the guard: another process may have removed the stale lock and linked its own since
      const now = readLock(file);
      if (now.kind === "unreadable" || (now.kind === "holder" && !holds(now.holder, me))) rmSync(file, { force: true });
    });
  }
  throw new Error(`${file}: could not take the lock (it was taken over by other processes while being taken)`);
}
