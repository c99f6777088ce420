import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { acquireLockFile } from "../../src/core/lockFile.js";
import { CLI, REPO_ROOT } from "../apps/cli/helpers.js";

const refuse = (h: { pid: number }) => new Error(`held by ${h.pid}`);
const fresh = () => join(mkdtempSync(join(tmpdir(), "esi3d-lock-")), "x.lock");

/** The pid of a process that has exited (nobody holds it now, barring reuse within the test). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(r.stdout);
}

describe("acquireLockFile", () => {
  it("is exclusive while held, names its holder, and is free again once released", () => {
    const f = fresh();
    const a = acquireLockFile(f, refuse);
    expect(JSON.parse(readFileSync(f, "utf8"))).toMatchObject({ pid: process.pid, host: hostname() });
    expect(() => acquireLockFile(f, refuse)).toThrow(`held by ${process.pid}`);
    a.release();
    expect(existsSync(f)).toBe(false);
    acquireLockFile(f, refuse).release();
  });

  it("takes over a lock left by a process that is gone (kill -9), and a torn lock file", () => {
    const f = fresh();
    writeFileSync(f, JSON.stringify({ pid: deadPid(), host: hostname(), since: "then" }));
    const a = acquireLockFile(f, refuse);
    expect(JSON.parse(readFileSync(f, "utf8")).pid).toBe(process.pid);
    a.release();
    writeFileSync(f, '{"pid": 12');
    acquireLockFile(f, refuse).release();
  });

  it("refuses a lock held from another host (a shared disk): its liveness cannot be checked here", () => {
    const f = fresh();
    writeFileSync(f, JSON.stringify({ pid: deadPid(), host: `${hostname()}-elsewhere`, since: "then" }));
    expect(() => acquireLockFile(f, refuse)).toThrow(/held by/);
  });

  it("esi3d serve refuses a data directory a live server holds, with exit 2 and the holder's pid", () => {
    const data = mkdtempSync(join(tmpdir(), "esi3d-data-"));
    writeFileSync(join(data, "server.lock"), JSON.stringify({ pid: process.pid, host: hostname(), since: "now" }));
    const r = spawnSync(process.execPath, [CLI, "serve", "--data", data, "--port", "0"], { cwd: REPO_ROOT, encoding: "utf8", timeout: 30_000 });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`in use by another esi3d serve (pid ${process.pid}`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
