import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const CLI = join(REPO_ROOT, "dist", "src", "main.js");

/** Runs the built esi3d CLI (npm test builds it first). */
export function esi3d(args: string[], opts: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", cwd: opts.cwd ?? REPO_ROOT, env: { ...process.env, ...opts.env }, timeout: opts.timeoutMs ?? 300_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
