/** Real `esi3d worker` child processes for the queue tests, and a poll-until helper. */
import { spawn, type ChildProcess } from "node:child_process";
import { CLI, REPO_ROOT } from "../apps/cli/helpers.js";

/** short locks so a killed worker's job is taken over within seconds */
export const WORKER_ARGS = ["--concurrency", "1", "--lock-duration", "2"];

export function startWorker(url: string, extra: string[] = [], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [CLI, "worker", "--queue", url, ...WORKER_ARGS, ...extra], { cwd: REPO_ROOT, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...env } });
}

/** SIGTERM every worker still running and wait for all to exit. */
export async function stopAll(ws: ChildProcess[]): Promise<void> {
  for (const w of ws) if (w.exitCode === null && w.signalCode === null) w.kill("SIGTERM");
  await Promise.all(ws.map((w) => (w.exitCode !== null || w.signalCode !== null ? null : new Promise((r) => w.once("exit", r)))));
}

export async function until(cond: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > timeoutMs) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}
