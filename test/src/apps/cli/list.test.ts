/** `esi3d list`: every kind read from its declaration, tasks as a run draws them, bad kinds and flags refused. */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILTIN_SUBCATEGORIES, SUBCATEGORIES } from "../../../../core/task/taxonomy.js";
import { GRAPH_FORMATS } from "../../../../src/prompt/formats.js";
import { LLM_PROVIDERS, OFFLINE_REASONERS } from "../../../../src/reason/spec.js";
import { spawnSync } from "node:child_process";
import { CLI, esi3d } from "./helpers.js";

const rowOf = (out: string, first: string) => out.split("\n").find((l) => l.split(/\s{2,}/)[0] === first);

describe("esi3d list", () => {
  it("subcategories: every one of the taxonomy, the built-in ones marked", () => {
    const r = esi3d(["list", "subcategories"]);
    expect(r.code, r.stderr).toBe(0);
    for (const s of SUBCATEGORIES) expect(rowOf(r.stdout, s), s).toMatch((BUILTIN_SUBCATEGORIES as readonly string[]).includes(s) ? /\s{2}yes\s/ : /\s{2}no\s/);
    expect(rowOf(r.stdout, "view_hallucination")).toMatch(/View Hallucination\s+Perceptual Grounding\s+yes\s+yes$/);
    expect(r.stdout).toContain(`(${SUBCATEGORIES.length} subcategories, ${BUILTIN_SUBCATEGORIES.length} in the built-in suite`);
  });

  it("reasoners and formats: the declared ones, with what each command accepts and the default", () => {
    const r = esi3d(["list", "reasoners"]);
    expect(r.code, r.stderr).toBe(0);
    for (const o of OFFLINE_REASONERS) expect(rowOf(r.stdout, o)).toMatch(o === "symbolic" ? /offline\s+yes\s+yes/ : /offline\s+no\s+yes/);
    for (const p of LLM_PROVIDERS) expect(rowOf(r.stdout, `${p}:<model>`)).toMatch(/yes\s+yes$/);
    const f = esi3d(["list", "formats"]);
    expect(f.code, f.stderr).toBe(0);
    for (const g of GRAPH_FORMATS) expect(rowOf(f.stdout, g), g).toBeDefined();
    expect(rowOf(f.stdout, "relations")).toMatch(/yes$/);
    expect(rowOf(f.stdout, "json")).not.toMatch(/yes/);
  });

  it("tasks: the built-in suite's round-robin under --limit, and the questions a generated task has", () => {
    const r = esi3d(["list", "tasks", "--per-subcategory", "2", "--subcategories", "linear_alignment,spatial_distance", "--limit", "3"]);
    expect(r.code, r.stderr).toBe(0);
    expect(
      r.stdout
        .split("\n")
        .slice(2, 5)
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(["linear_alignment-000", "spatial_distance-000", "linear_alignment-001"]);
    expect(r.stdout).toContain("(3 tasks of the built-in suite, seed 0;");
    // --questions shows what `esi3d generate` writes for the same seed
    const dir = mkdtempSync(join(tmpdir(), "esi3d-list-"));
    expect(esi3d(["generate", "--per-subcategory", "1", "--subcategories", "spatial_distance", "--seed", "s1", "--out", dir]).code).toBe(0);
    const task = JSON.parse(readFileSync(join(dir, "spatial_distance-000.json"), "utf8")) as { question: string; answer_format: string };
    const q = esi3d(["list", "tasks", "--per-subcategory", "1", "--subcategories", "spatial_distance", "--seed", "s1", "--questions"]);
    expect(q.code, q.stderr).toBe(0);
    expect(rowOf(q.stdout, "spatial_distance-000")).toContain(`${task.answer_format}`);
    expect(rowOf(q.stdout, "spatial_distance-000")!.endsWith(task.question)).toBe(true);
    // a task directory: its tasks, and what it skips with the reason
    const d = esi3d(["list", "tasks", "--suite", dir, "--subcategories", "linear_alignment"]);
    expect(d.code, d.stderr).toBe(0);
    expect(d.stdout).toMatch(/spatial_distance-000\s+spatial_distance\s+all\s+subcategory not selected \(--subcategories\)/);
    const all = esi3d(["list", "tasks", "--suite", dir]);
    expect(rowOf(all.stdout, "spatial_distance-000")!.endsWith(task.question)).toBe(true);
  }, 120_000);

  it("refuses an unknown kind (naming the allowed ones) and task flags on other kinds, with exit 2", () => {
    const r = esi3d(["list", "models"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/<kind>: expected one of tasks, subcategories, reasoners, formats, got "models"/);
    const f = esi3d(["list", "formats", "--seed", "3"]);
    expect(f.code).toBe(2);
    expect(f.stderr).toMatch(/list formats: --seed only apply to list tasks/);
    const s = esi3d(["list", "tasks", "--suite", join(tmpdir(), "no-such-suite-dir")]);
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/no-such-suite-dir: no such file or directory/);
  });

  it("a reader that closes the pipe early (| head -1) ends it quietly: exit 0, no stack trace", () => {
    // the shell's own pipe: 144 kB of rows, more than a pipe buffers, so head exits first and a write gets EPIPE
    const r = spawnSync("bash", ["-c", `set -o pipefail; "${process.execPath}" "${CLI}" list tasks --per-subcategory 100 | head -1 >/dev/null`], {
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
  });
});
