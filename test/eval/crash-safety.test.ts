/**
 * The audit's crash and concurrency cases (reliability-audit.md §2, M1, M3, L11) on real runs of the built CLI:
 * a kill -9 loop (several SIGKILLs at different moments, each followed by --resume) whose records must equal an
 * uninterrupted run's; two resumes started together (one refused, no duplicates); summary.json byte-identical
 * after a resume; and a run whose every model call fails (exit 1, each item's cause recorded, no NaN).
 */
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, esi3dAsync, REPO_ROOT } from "../apps/cli/helpers.js";
import { readRecords, type ItemRecord } from "../../src/eval/records.js";
import { json, startServer } from "../llm/server.js";

// 3 tasks x 1 paradigm x the default arms (gt, gt with appearance labels, 2d, shortcut) = 12 items:
// small enough for several runs in seconds each
const SMALL = ["--per-subcategory", "1", "--subcategories", "linear_alignment,spatial_distance,physical_contact", "--paradigm", "single", "--source", "gt", "--concurrency", "2"];
const ITEMS = 12;

const records = (dir: string) => readRecords(join(dir, "items.jsonl")).records;
/** A record without what legitimately differs between runs (time). */
const comparable = (r: ItemRecord) => ({ ...r, timings_ms: Object.keys(r.timings_ms).sort() });
const byKey = (rs: ItemRecord[]) => Object.fromEntries(rs.map((r) => [r.key, comparable(r)]));
/** summary.json as bytes, less the one line that is a measurement of this process (wall_seconds). */
const summaryBytes = (dir: string) => readFileSync(join(dir, "summary.json"), "utf8").replace(/^ "wall_seconds": .*\n/m, "");
/** summary.json of another run of the same items: everything but the measured times, in file order. */
const summaryResults = (dir: string) => {
  const s = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as Record<string, unknown>;
  delete s.wall_seconds;
  delete s.timings_ms;
  s.headlines = (s.headlines as string[]).filter((h) => !/ms\b/.test(h));
  return JSON.stringify(s);
};

/** Starts a run (or resume) and SIGKILLs it once items.jsonl has `atLeast` lines, or after `afterMs` when given. */
function runAndKill(out: string, extra: string[], when: { atLeast?: number; afterMs?: number }): Promise<{ code: number | null; signal: NodeJS.Signals | null; linesAtKill: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, "run", ...SMALL, "--out", out, ...extra], { cwd: REPO_ROOT, stdio: ["ignore", "ignore", "ignore"] });
    const t0 = Date.now();
    let linesAtKill = -1;
    const lines = () => (existsSync(join(out, "items.jsonl")) ? readFileSync(join(out, "items.jsonl"), "utf8").split("\n").filter(Boolean).length : 0);
    const timer = setInterval(() => {
      if (linesAtKill >= 0) return;
      const due = when.afterMs !== undefined ? Date.now() - t0 >= when.afterMs : lines() >= (when.atLeast ?? 0);
      if (due) {
        linesAtKill = lines();
        child.kill("SIGKILL");
      }
    }, 10);
    child.on("exit", (code, signal) => {
      clearInterval(timer);
      resolve({ code, signal, linesAtKill });
    });
    child.on("error", reject);
  });
}

describe("crash safety of esi3d run", () => {
  const root = mkdtempSync(join(tmpdir(), "esi3d-crash-"));
  const ref = join(root, "ref");

  it("an uninterrupted reference run; --resume on it changes no byte of summary.json (L11)", async () => {
    const r = await esi3dAsync(["run", ...SMALL, "--out", ref]);
    expect(r.code, r.stderr).toBe(0);
    expect(records(ref).length).toBe(ITEMS);
    const before = summaryBytes(ref);
    const again = await esi3dAsync(["run", ...SMALL, "--out", ref, "--resume"]);
    expect(again.code, again.stderr).toBe(0);
    expect(summaryBytes(ref)).toBe(before);
  }, 180_000);

  it("kill -9 at several moments, each followed by --resume: nothing lost, nothing duplicated, records equal the reference", async () => {
    const out = join(root, "killed");
    // the first kill lands during start-up (before any item), the next ones once the resume has added 1, then 2 items
    const trials: Array<{ more?: number; afterMs?: number }> = [{ afterMs: 700 }, { more: 1 }, { more: 2 }];
    const log: Array<{ linesAtKill: number; signal: string | null; code: number | null }> = [];
    for (const [i, when] of trials.entries()) {
      const have = existsSync(join(out, "items.jsonl")) ? records(out).length : 0;
      const k = await runAndKill(out, existsSync(join(out, "config.json")) ? ["--resume"] : [], when.afterMs !== undefined ? when : { atLeast: have + when.more! });
      log.push({ linesAtKill: k.linesAtKill, signal: k.signal, code: k.code });
      const now = records(out).map((r) => r.key);
      expect(new Set(now).size, `trial ${i}: no duplicated key`).toBe(now.length);
      // a kill before config.json exists leaves nothing to resume: start afresh then
      if (i === 0 && !existsSync(join(out, "config.json"))) rmSync(out, { recursive: true, force: true });
    }
    const fin = await esi3dAsync(["run", ...SMALL, "--out", out, ...(existsSync(join(out, "config.json")) ? ["--resume"] : [])]);
    expect(fin.code, fin.stderr).toBe(0);
    const got = records(out);
    expect(got.length).toBe(ITEMS);
    expect(new Set(got.map((r) => r.key)).size).toBe(ITEMS);
    expect(byKey(got)).toEqual(byKey(records(ref)));
    expect(summaryResults(out)).toBe(summaryResults(ref));
    // every trial was a real SIGKILL (not a run that had already finished)
    for (const l of log) expect(l.signal, JSON.stringify(log)).toBe("SIGKILL");
    console.log(`kill -9 trials (items on disk at each kill): ${log.map((l) => l.linesAtKill).join(", ")}`);
  }, 300_000);

  it("two --resume at once: one is refused (the run lock), the other completes, no item twice (M1)", async () => {
    const two = join(root, "two");
    const first = await runAndKill(two, [], { atLeast: 2 });
    expect(first.signal).toBe("SIGKILL");
    const [a, b] = await Promise.all([esi3dAsync(["run", ...SMALL, "--out", two, "--resume"]), esi3dAsync(["run", ...SMALL, "--out", two, "--resume"])]);
    const codes = [a.code, b.code].sort();
    expect(codes, a.stderr + b.stderr).toEqual([0, 2]);
    expect((a.code === 2 ? a : b).stderr).toMatch(/another esi3d \(pid \d+ .*\) is writing this run/);
    const keys = records(two).map((r) => r.key);
    expect(keys.length).toBe(ITEMS);
    expect(new Set(keys).size).toBe(ITEMS);
    expect(readFileSync(join(two, "items.jsonl"), "utf8").trim().split("\n").length).toBe(ITEMS);
  }, 180_000);
});

describe("a run whose model calls all fail (M3)", () => {
  it("records each item's cause, counts failures in the summary instead of NaN%, and exits 1", async () => {
    const server = await startServer(json(401, { error: { message: "invalid api key" } }));
    try {
      const out = join(mkdtempSync(join(tmpdir(), "esi3d-fail-")), "r");
      const r = await esi3dAsync(["run", "--per-subcategory", "1", "--subcategories", "linear_alignment", "--paradigm", "single", "--source", "gt", "--labels", "oracle", "--baseline", "2d", "--reasoner", "openai:test-model", "--base-url", `${server.url}/v1`, "--max-retries", "0", "--no-cache", "--out", out], { env: { OPENAI_API_KEY: "sk-fail-SECRET" } });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/no item got an answer \(LlmError:http:401 2\)/);
      expect(r.stdout + r.stderr).not.toMatch(/NaN/);
      const rs = records(out);
      expect(rs.length).toBe(2);
      for (const x of rs) {
        expect(x.status).toBe("error");
        expect(x.error?.class).toBe("LlmError:http:401");
        expect(x.error?.message).toMatch(/HTTP 401: invalid api key/);
      }
      const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
      expect(summary.failures).toEqual({ total: 2, byStatus: { error: 2 }, byClass: { "LlmError:http:401": 2 } });
      expect(summary.headlines.join(" ")).toMatch(/no scored answer \(1 item\(s\): 1 failed/);
      expect(readFileSync(join(out, "report.md"), "utf8")).toMatch(/## Items without an answer, by cause[\s\S]*LlmError:http:401/);
      expect(readFileSync(join(out, "items.jsonl"), "utf8")).not.toContain("sk-fail-SECRET");
    } finally {
      await server.close();
    }
  }, 120_000);

  it("a missing API key fails before any work: exit 2, no run directory", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "esi3d-nokey-")), "r");
    const r = await esi3dAsync(["run", ...SMALL, "--reasoner", "openai:gpt-4o", "--out", out], { env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/OPENAI_API_KEY is not set/);
    expect(existsSync(out)).toBe(false);
  });
});
