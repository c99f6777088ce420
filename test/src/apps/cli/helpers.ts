import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
/** The CLI as installed: the bundle that package.json's bin names (scripts/bundle-cli.mjs). */
export const CLI = join(REPO_ROOT, "dist", "cli", "main.js");

/** Runs the built esi3d CLI (npm test builds it first). */
export function esi3d(args: string[], opts: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: "utf8",
    cwd: opts.cwd ?? REPO_ROOT,
    env: { ...process.env, ...opts.env },
    timeout: opts.timeoutMs ?? 300_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs the built CLI without blocking this process's event loop (a loopback server in the test, or runs in parallel). */
export function esi3dAsync(
  args: string[],
  opts: { env?: Record<string, string | undefined>; cwd?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: opts.cwd ?? REPO_ROOT,
      env: { ...process.env, ...opts.env } as NodeJS.ProcessEnv,
      timeout: opts.timeoutMs ?? 300_000,
    });
    let stdout = "",
      stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    // "close", not "exit": the output pipes may still hold data when the process exits
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
