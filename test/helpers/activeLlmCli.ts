/**
 * `esi3d run --paradigm active` with an LLM agent (`openai:test-model`) at a loopback server (test/src/llm/server.ts),
 * run from the built CLI: to completion, or killed with SIGKILL in the middle of an episode and resumed; and the
 * comparison of the records of two such runs.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect } from "vitest";
import { readRecords, type ItemRecord } from "../../src/eval/records.js";
import type { Handler, TestServer } from "../src/llm/server.js";
import { CLI, REPO_ROOT } from "../src/apps/cli/helpers.js";

/** What a test's runs draw and the key its server is called with; the rest of the run is the same for every test. */
export interface ActiveLlmRunSpec {
  subcategories: string;
  perSubcategory: number;
  maxSteps: number;
  apiKey: string;
}

/** A new run directory (not yet created) in a fresh temporary folder named by `prefix`. */
export const newRunDir = (prefix: string): string => join(mkdtempSync(join(tmpdir(), prefix)), "run");

/**
 * The run into `out`, its exit code; with `killAfterRequests` it is killed with SIGKILL once the server has seen
 * that many requests (then a non-zero exit is expected, not an error).
 */
function runActiveLlm(
  spec: ActiveLlmRunSpec,
  server: TestServer,
  out: string,
  opts: { killAfterRequests?: number; resume?: boolean } = {},
): Promise<number | null> {
  const flags: Record<string, string> = {
    paradigm: "active",
    reasoner: "openai:test-model",
    "base-url": `${server.url}/v1`,
    source: "gt",
    baseline: "none",
    subcategories: spec.subcategories,
    "per-subcategory": String(spec.perSubcategory),
    "max-steps": String(spec.maxSteps),
    concurrency: "1",
    "max-connections": "1",
    out,
    // each run its own response cache (beside its directory), not the shared per-user one: the killed run must
    // ask the server itself, and its resume must find the answers it got before the kill
    cache: join(dirname(out), "llm-cache.sqlite"),
  };
  const args = [CLI, "run", ...Object.entries(flags).flatMap(([flag, value]) => [`--${flag}`, value]), ...(opts.resume ? ["--resume"] : [])];
  const kill = opts.killAfterRequests;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: { ...process.env, OPENAI_API_KEY: spec.apiKey }, stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const timer = kill === undefined ? null : setInterval(() => server.requests.length >= kill && child.kill("SIGKILL"), 5);
    // "close", not "exit": stderr may still hold data when the process exits
    child.on("close", (code) => {
      if (timer) clearInterval(timer);
      if (code !== 0 && kill === undefined) reject(new Error(err));
      resolve(code);
    });
  });
}

/** The records of a run into `out` that must complete (exit 0) and hold `count` records. */
export async function completedRun(spec: ActiveLlmRunSpec, server: TestServer, out: string, count: number): Promise<ItemRecord[]> {
  expect(await runActiveLlm(spec, server, out)).toBe(0);
  const records = readRecords(join(out, "items.jsonl")).records;
  expect(records.length).toBe(count);
  return records;
}

/**
 * A run into `out` with the server answering with `handler` afresh (its request log cleared), killed with SIGKILL at
 * the server's `killAfterRequests`-th request (in the middle of the first episode: nothing may be written yet), then
 * resumed to completion: the resumed run's records and how many requests the resume sent.
 */
export async function killedAndResumed(
  spec: ActiveLlmRunSpec,
  server: TestServer,
  handler: Handler,
  out: string,
  killAfterRequests: number,
): Promise<{ records: ItemRecord[]; resumeRequests: number }> {
  server.script(handler);
  server.requests.length = 0;
  await runActiveLlm(spec, server, out, { killAfterRequests });
  expect(existsSync(join(out, "items.jsonl")) ? readFileSync(join(out, "items.jsonl"), "utf8").trim() : "").toBe("");
  const before = server.requests.length;
  expect(await runActiveLlm(spec, server, out, { resume: true })).toBe(0);
  return { records: readRecords(join(out, "items.jsonl")).records, resumeRequests: server.requests.length - before };
}

// what differs between two runs is how, not what: times, and which calls the response cache answered
const comparable = (r: ItemRecord) =>
  JSON.stringify({
    ...r,
    timings_ms: null,
    calls: r.calls?.map((c) => ({ ...c, attempts: null, cached: null })),
    active: r.active && { ...r.active, steps: r.active.steps.map((s) => ({ ...s, time_ms: 0 })) },
  });

/** Two runs' records are the same, in any order, but for their times and which calls the response cache answered. */
export function expectSameRecords(a: readonly ItemRecord[], b: readonly ItemRecord[]): void {
  expect(a.map(comparable).sort()).toEqual(b.map(comparable).sort());
}
