import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, esi3d, REPO_ROOT } from "../apps/cli/helpers.js";
import { readRecords } from "../../../src/eval/records.js";

const SMALL = [
  "--per-subcategory",
  "1",
  "--subcategories",
  "linear_alignment,physical_contact,counting_with_occlusion",
  "--paradigm",
  "single,gt",
  "--concurrency",
  "2",
  "--labels",
  "oracle",
];
const EXPECTED = 3 * 2 * 4; // tasks x paradigms x (gt, noisy, 2d, shortcut)

function keysOf(dir: string): string[] {
  return readRecords(join(dir, "items.jsonl")).records.map((r) => r.key);
}

/** Starts a run and kills it once items.jsonl holds at least `atLeast` lines; `output` gets what it printed. */
function runAndKill(
  out: string,
  signal: NodeJS.Signals,
  atLeast: number,
  output: { stdout: string; stderr: string } = { stdout: "", stderr: "" },
): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, "run", ...SMALL, "--out", out], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (d: Buffer) => (output.stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output.stderr += d.toString()));
    let sent = false;
    const timer = setInterval(() => {
      const f = join(out, "items.jsonl");
      const lines = existsSync(f) ? readFileSync(f, "utf8").split("\n").filter(Boolean).length : 0;
      if (!sent && lines >= atLeast) {
        sent = true;
        child.kill(signal);
      }
    }, 20);
    // on 'close', not 'exit': the pipes may still hold output when the child exits
    child.on("close", (code) => {
      clearInterval(timer);
      resolve(code);
    });
    child.on("error", reject);
  });
}

describe("esi3d run", () => {
  it("survives SIGKILL at any moment: resume loses nothing and duplicates nothing, even after a torn last line", async () => {
    const out = mkdtempSync(join(tmpdir(), "esi3d-kill-"));
    await runAndKill(out, "SIGKILL", 4);
    const before = keysOf(out);
    expect(before.length).toBeGreaterThanOrEqual(4);
    expect(before.length).toBeLessThan(EXPECTED);
    // what a kill in the middle of a write leaves behind
    appendFileSync(join(out, "items.jsonl"), '{"key": "torn-line-from-a-kill", "task');
    const r = esi3d(["run", ...SMALL, "--out", out, "--resume"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/dropping a torn last line/);
    const after = keysOf(out);
    expect(after.length).toBe(EXPECTED);
    expect(new Set(after).size).toBe(EXPECTED);
    for (const k of before) expect(after).toContain(k);
    expect(readFileSync(join(out, "items.jsonl"), "utf8").endsWith("\n")).toBe(true);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.items).toBe(EXPECTED);
    expect(summary.complete).toBe(true);
  }, 300_000);

  it("Ctrl-C finishes the items in flight, exits 130 saying it was interrupted and how to resume, and --resume completes the run", async () => {
    const out = mkdtempSync(join(tmpdir(), "esi3d-int-"));
    const printed = { stdout: "", stderr: "" };
    const code = await runAndKill(out, "SIGINT", 2, printed);
    expect(code).toBe(130);
    const partial = keysOf(out);
    expect(partial.length).toBeLessThan(EXPECTED);
    expect(JSON.parse(readFileSync(join(out, "summary.json"), "utf8")).complete).toBe(false);
    // the count names its factors; the last progress line says interrupted, never "took"; the command to finish it
    expect(printed.stderr).toMatch(/run: 3 tasks × 2 paradigms \(single, gt\) × 4 arms \(3d:gt, 3d:noisy, 2d, shortcut\) = 24 items, /);
    expect(printed.stderr).toMatch(new RegExp(`run: interrupted with ${partial.length} of ${EXPECTED} items done, ${EXPECTED - partial.length} not done`));
    expect(printed.stderr).not.toMatch(/took/);
    expect(printed.stdout).toMatch(/^INTERRUPTED: the tables below cover only the \d+ items done so far$/m);
    expect(printed.stdout).toContain(`To finish it: esi3d run --resume --out ${out}`);
    const r = esi3d(["run", ...SMALL, "--out", out, "--resume"]);
    expect(r.code, r.stderr).toBe(0);
    expect(new Set(keysOf(out)).size).toBe(EXPECTED);
    // the resumed run's rate counts only the items this process did
    expect(r.stderr).toMatch(new RegExp(`run: ${EXPECTED}/${EXPECTED} items \\(${partial.length} done before this process\\), [0-9.]+/s, took`));
  }, 300_000);

  it("writes the configuration, records, summary and readable reports", () => {
    const out = mkdtempSync(join(tmpdir(), "esi3d-rep-"));
    const r = esi3d(["run", ...SMALL, "--out", out, "--noise-level", "0.8"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Subcategory\s+2D Single\s+2D GT\s+Shortcut Single\s+Shortcut GT\s+GT-3D Single/);
    expect(r.stdout).toMatch(/GT-3D beats 2D on \d+ of 3 subcategories/);
    const cfg = JSON.parse(readFileSync(join(out, "config.json"), "utf8"));
    expect(cfg.config.noise.noiseLevel).toBe(0.8);
    expect(cfg.package_version).toMatch(/^\d+\.\d+\.\d+/);
    const recs = readRecords(join(out, "items.jsonl")).records;
    const rec = recs.find((x) => x.arm === "3d" && x.source === "noisy")!;
    for (const field of [
      "task_id",
      "subcategory",
      "paradigm",
      "source",
      "reasoner",
      "masks",
      "raw",
      "answer",
      "confidence",
      "correct",
      "graph_quality",
      "timings_ms",
    ])
      expect(rec).toHaveProperty(field);
    expect(rec.graph_quality!.f1_observed).toBeGreaterThanOrEqual(0);
    expect(rec.timings_ms.cloud).toBeGreaterThan(0);
    // every record times the stages it ran: the task's generation on all of them, the true relations on 3D arms
    for (const x of recs) expect(x.timings_ms.generate, x.key).toBeGreaterThan(0);
    for (const x of recs.filter((y) => y.arm === "3d"))
      for (const stage of ["render", "truth_relations", "cloud", "graph", "diagnose", "reason"]) expect(x.timings_ms, x.key).toHaveProperty(stage);
    const md = readFileSync(join(out, "report.md"), "utf8");
    expect(md).toMatch(/## Findings/);
    expect(md).toMatch(/\| Subcategory .*GT-3D Single/);
    expect(md).toMatch(/Counting w Occlusion/);
    expect(md).toMatch(/## Graph quality per source/);
    const html = readFileSync(join(out, "report.html"), "utf8");
    expect(html).toMatch(/<svg[^>]*aria-label="accuracy by subcategory/);
    // self-contained: no external scripts, styles, images or fonts (the SVG namespace URI is not a fetch)
    expect(html).not.toMatch(/<script[^>]+src=|<link[\s>]|<img[^>]+src="?https?:|@import|url\(\s*["']?https?:/);
    expect(readdirSync(join(out, "graphs")).length).toBe(3);
  }, 300_000);

  it("with --source vggt and no model, stops at once with the reconstruction stage's message", () => {
    const out = mkdtempSync(join(tmpdir(), "esi3d-vggt-"));
    const r = esi3d(["run", ...SMALL, "--source", "vggt", "--out", join(out, "r")], { env: { ESI3D_VGGT_MODEL: "" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ESI3D_VGGT_MODEL/);
    expect(r.stderr).toMatch(/models\/README\.md/);
    expect(existsSync(join(out, "r", "items.jsonl"))).toBe(false);
  });

  it("refuses to overwrite a finished run without --resume, and a resume with other options", () => {
    const out = mkdtempSync(join(tmpdir(), "esi3d-dup-"));
    expect(esi3d(["run", "--per-subcategory", "1", "--subcategories", "linear_alignment", "--paradigm", "single", "--out", out]).code).toBe(0);
    const again = esi3d(["run", "--per-subcategory", "1", "--subcategories", "linear_alignment", "--paradigm", "single", "--out", out]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/a run already exists here; pass --resume/);
    const other = esi3d(["run", "--per-subcategory", "1", "--subcategories", "linear_alignment", "--paradigm", "gt", "--out", out, "--resume"]);
    expect(other.code).toBe(2);
    // the run's config.json is the configuration: a disagreeing option is named, with both values
    expect(other.stderr).toMatch(/--paradigm: the run in \S+ was made with single, given gt/);
  }, 120_000);
});

describe("esi3d run configuration", () => {
  it("layers defaults, a --config file and command-line flags (flags win), and reads a suite directory", () => {
    const dir = mkdtempSync(join(tmpdir(), "esi3d-cfg-"));
    const cfg = join(dir, "cfg.json");
    writeFileSync(cfg, JSON.stringify({ noise: { noiseLevel: 0.9 }, paradigms: ["gt"], sources: ["gt"] }));
    const r = esi3d([
      "run",
      "--suite",
      join(REPO_ROOT, "fixtures", "tasks"),
      "--subcategories",
      "linear_alignment,spatial_distance",
      "--config",
      cfg,
      "--paradigm",
      "single",
      "--labels",
      "oracle",
      "--out",
      join(dir, "r"),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const c = JSON.parse(readFileSync(join(dir, "r", "config.json"), "utf8")).config;
    expect(c.noise.noiseLevel).toBe(0.9);
    expect(c.paradigms).toEqual(["single"]);
    expect(c.sources).toEqual(["gt"]);
    expect(keysOf(join(dir, "r")).sort()).toEqual([
      "linear_alignment-000|single|2d",
      "linear_alignment-000|single|3d:gt",
      "linear_alignment-000|single|shortcut",
      "spatial_distance-000|single|2d",
      "spatial_distance-000|single|3d:gt",
      "spatial_distance-000|single|shortcut",
    ]);
    writeFileSync(cfg, JSON.stringify({ noise: { noiseLevel: 3.5 } }));
    const bad = esi3d(["run", "--config", cfg, "--out", join(dir, "bad")]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/noise\.noiseLevel/);
  }, 120_000);
});
