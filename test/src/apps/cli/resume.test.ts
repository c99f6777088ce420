/**
 * `esi3d run --resume` reads the run's config.json: no option needs retyping, and an option given beside it
 * that disagrees with the stored configuration is refused naming the option, the stored and the given value.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { esi3dAsync } from "./helpers.js";
import { readRecords } from "../../../../src/eval/records.js";

const root = mkdtempSync(join(tmpdir(), "esi3d-resume-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// options far from the defaults, so a resume that fell back to the defaults would show: 2 tasks x 1 paradigm x
// (gt, noisy at 0.5) 3D arms, 2d and shortcut = 8 items
const OPTIONS = [
  "--per-subcategory",
  "1",
  "--subcategories",
  "linear_alignment,spatial_distance",
  "--paradigm",
  "multi",
  "--source",
  "gt,noisy",
  "--noise-level",
  "0.5",
  "--labels",
  "oracle",
  "--seed",
  "7",
  "--concurrency",
  "1",
];
const ITEMS = 8;
const out = join(root, "run");
const itemsFile = join(out, "items.jsonl");
const keysOf = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((l) => (JSON.parse(l) as { key: string }).key)
    .sort();

describe("esi3d run --resume", () => {
  let full = "";
  beforeAll(async () => {
    const r = await esi3dAsync(["run", ...OPTIONS, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    full = readFileSync(itemsFile, "utf8");
    expect(full.trim().split("\n").length).toBe(ITEMS);
  }, 180_000);

  it("completes an interrupted run from its config.json alone: the same items as the uninterrupted run", async () => {
    // the run as an interruption leaves it: the first three items written, the rest not yet
    writeFileSync(itemsFile, full.split("\n").slice(0, 3).join("\n") + "\n");
    const r = await esi3dAsync(["run", "--resume", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/8 items \(3 already done\)/);
    const after = readRecords(itemsFile).records;
    expect(after.map((x) => x.key).sort()).toEqual(keysOf(full));
    const before = new Map(
      full
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { key: string; answer: string | null; status: string })
        .map((x) => [x.key, `${x.status} ${x.answer}`]),
    );
    for (const x of after) expect(`${x.status} ${x.answer}`, x.key).toBe(before.get(x.key));
    expect(after.filter((x) => x.source === "noisy").every((x) => x.noise_level === 0.5 && x.paradigm === "multi")).toBe(true);
  }, 180_000);

  it("accepts options that agree with the stored ones, and worker counts that differ", async () => {
    const r = await esi3dAsync([
      "run",
      "--resume",
      "--out",
      out,
      "--source",
      "gt,noisy",
      "--noise-level",
      "0.5",
      "--concurrency",
      "2",
      "--max-connections",
      "3",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/8 items \(8 already done\), 2 worker\(s\)/);
  }, 120_000);

  it("refuses an option that disagrees, naming it with the stored and the given value (exit 2), and leaves the run as it was", async () => {
    const before = readFileSync(join(out, "config.json"), "utf8");
    const cases: Array<[string[], RegExp]> = [
      [["--noise-level", "1"], /^esi3d: --noise-level: the run in \S+ was made with 0\.5, given 1; --resume completes a run as it was started/m],
      [["--source", "gt"], /--source: the run in \S+ was made with gt,noisy, given gt/],
      [["--paradigm", "single,multi"], /--paradigm: the run in \S+ was made with multi, given single,multi/],
      [["--uncertainty", "on"], /--uncertainty: the run in \S+ was made with off, given on/],
      [["--timeout", "30"], /--timeout: the run in \S+ was made with 300, given 30/],
      [["--reasoner", "symbolic,openai:gpt-4o"], /--reasoner: the run in \S+ was made with symbolic, given symbolic,openai:gpt-4o/],
    ];
    for (const [flags, message] of cases) {
      const r = await esi3dAsync(["run", "--resume", "--out", out, ...flags]);
      expect(r.code, `${flags.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    const config = join(root, "layer.json");
    writeFileSync(config, JSON.stringify({ seed: "8" }));
    const c = await esi3dAsync(["run", "--resume", "--out", out, "--config", config]);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain(`--config ${config}: seed: the run in ${out} was made with "7", given "8"`);
    expect(readFileSync(join(out, "config.json"), "utf8")).toBe(before);
    expect(keysOf(readFileSync(itemsFile, "utf8"))).toEqual(keysOf(full));
  }, 180_000);

  it("needs the run: --resume without --out, or where no run is, is an input error (exit 2)", async () => {
    const a = await esi3dAsync(["run", "--resume"]);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/--resume: name the run to complete with --out <dir>/);
    const empty = join(root, "empty");
    const b = await esi3dAsync(["run", "--resume", "--out", empty]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/--resume: there is no run here to complete \(no config\.json\)/);
  });
});
