/** Real `esi3d worker` child processes for the queue tests, a poll-until helper, and run comparison. */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { CLI, REPO_ROOT } from "../src/apps/cli/helpers.js";

/** short locks so a killed worker's job is taken over within seconds */
export const WORKER_ARGS = ["--concurrency", "1", "--lock-duration", "2"];

export function startWorker(url: string, extra: string[] = [], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [CLI, "worker", "--queue", url, ...WORKER_ARGS, ...extra], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ...env },
  });
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

const strip = (r: Record<string, unknown>) => {
  const { timings_ms: _t, ...rest } = r;
  return JSON.stringify(rest);
};
/** item key -> the record without its timings (the only field that differs between two runs) */
export function items(dir: string): Map<string, string> {
  const text = readFileSync(join(dir, "items.jsonl"), "utf8").trim();
  const lines = text ? text.split("\n").map((l) => JSON.parse(l) as Record<string, unknown>) : [];
  const m = new Map<string, string>();
  for (const r of lines) {
    expect(m.has(r.key as string), `item ${String(r.key)} recorded twice`).toBe(false);
    m.set(r.key as string, strip(r));
  }
  return m;
}
function summaryOf(dir: string): string {
  const s = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as Record<string, unknown>;
  delete s.timings_ms;
  delete s.wall_seconds;
  return JSON.stringify(s);
}
export function expectSameRun(a: string, b: string): void {
  const x = items(a),
    y = items(b);
  expect(x.size).toBe(y.size);
  for (const [k, v] of y) expect(x.get(k), k).toBe(v);
  expect(summaryOf(a)).toBe(summaryOf(b));
}
