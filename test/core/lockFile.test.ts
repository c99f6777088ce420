import { describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { acquireLockFile } from "../../core/lockFile.js";
import { CLI, REPO_ROOT } from "../src/apps/cli/helpers.js";

const refuse = (h: { pid: number }) => new Error(`held by ${h.pid}`);
const fresh = () => join(mkdtempSync(join(tmpdir(), "esi3d-lock-")), "x.lock");

/** The pid of a process that has exited (nobody holds it now, barring reuse within the test). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(r.stdout);
}

/**
 * A contender in another process (the build's lockFile.js): spins until `start` so that all contenders try at
 * once, prints "won" or "refused", and a winner holds the lock until its stdin closes (after every contender
 * has answered, so a late one cannot win a lock released early).
 */
const CONTENDER = `
const { acquireLockFile } = await import(${JSON.stringify(pathToFileURL(join(REPO_ROOT, "dist", "core", "lockFile.js")).href)});
const [file, start] = [process.argv[1], Number(process.argv[2])];
while (Date.now() < start) {}
let lock;
try { lock = acquireLockFile(file, () => new Error("refused")); } catch (e) { process.stdout.write(e.message === "refused" ? "refused" : "error: " + e.message); process.exit(0); }
process.stdout.write("won");
process.stdin.resume();
process.stdin.on("end", () => lock.release());
`;

/** Starts `n` contenders for `file` at one moment; resolves to what each printed. */
async function contend(file: string, n: number): Promise<string[]> {
  const start = Date.now() + 600; // time for every process to start and spin
  const children = Array.from({ length: n }, () =>
    spawn(process.execPath, ["--input-type=module", "-e", CONTENDER, file, String(start)], { stdio: ["pipe", "pipe", "inherit"] }),
  );
  const exits = children.map((c) => new Promise((resolve) => c.on("exit", resolve)));
  const answers = await Promise.all(children.map((c) => new Promise<string>((resolve) => c.stdout.once("data", (d) => resolve(String(d))))));
  for (const c of children) c.stdin.end();
  await Promise.all(exits);
  return answers;
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

  it("many processes taking over one stale lock at the same moment: exactly one wins (two resumes after a kill -9, M1)", async () => {
    // before the takeover guard, 7 of 20 such rounds of 6 processes had two or three winners
    const dead = deadPid();
    for (let round = 0; round < 8; round++) {
      const f = fresh();
      writeFileSync(f, JSON.stringify({ pid: dead, host: hostname(), since: "then" }));
      const answers = await contend(f, 6);
      expect(answers.sort(), `round ${round}`).toEqual(["refused", "refused", "refused", "refused", "refused", "won"]);
      expect(existsSync(f), "the winner's release removes the lock").toBe(false);
      expect(existsSync(`${f}.takeover`), "no takeover guard is left behind").toBe(false);
    }
  }, 60_000);

  it("a takeover guard left by a process that is gone does not block the next takeover", () => {
    const f = fresh();
    writeFileSync(f, JSON.stringify({ pid: deadPid(), host: hostname(), since: "then" }));
    writeFileSync(`${f}.takeover`, JSON.stringify({ pid: deadPid(), host: hostname(), since: "then" }));
    const a = acquireLockFile(f, refuse);
    expect(JSON.parse(readFileSync(f, "utf8")).pid).toBe(process.pid);
    expect(existsSync(`${f}.takeover`)).toBe(false);
    a.release();
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
