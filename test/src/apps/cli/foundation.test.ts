import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodePng } from "../../../../core/bundle/png.js";
import { esi3d } from "./helpers.js";

describe("esi3d CLI: foundation commands", () => {
  it("lists every command with a description, and each command documents its defaults", () => {
    const r = esi3d(["--help"]);
    expect(r.code).toBe(0);
    for (const c of ["generate", "render", "contact-sheet", "schema"]) expect(r.stdout).toMatch(new RegExp(`\\n  ${c}\\b.*\\S`));
    const g = esi3d(["generate", "--help"]);
    expect(g.code).toBe(0);
    expect(g.stdout).toMatch(/--per-subcategory <n>.*\(default: 10\)/s);
  });

  it("exits 2 with a clear message on usage and input errors", () => {
    const bad = esi3d(["generate", "--per-subcategory", "zero", "--out", "x"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--per-subcategory: expected an integer/);
    expect(bad.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
    expect(esi3d(["no-such-command"]).code).toBe(2);
    const missing = esi3d(["contact-sheet", "/nonexistent/bundle", "-o", "x.png"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/\/nonexistent\/bundle: bundle: directory does not exist/);
  });

  it("generates, renders and tiles a contact sheet", () => {
    const dir = mkdtempSync(join(tmpdir(), "esi3d-cli-"));
    const g = esi3d([
      "generate",
      "--per-subcategory",
      "1",
      "--subcategories",
      "linear_alignment,counting_with_occlusion",
      "--seed",
      "cli",
      "--out",
      join(dir, "tasks"),
    ]);
    expect(g.code, g.stderr).toBe(0);
    expect(readdirSync(join(dir, "tasks")).sort()).toEqual(["counting_with_occlusion-000.json", "linear_alignment-000.json"]);
    const r = esi3d(["render", "--tasks", join(dir, "tasks"), "--paradigm", "single,gt", "--out", join(dir, "bundles")]);
    expect(r.code, r.stderr).toBe(0);
    for (const t of ["counting_with_occlusion-000", "linear_alignment-000"])
      for (const p of ["single", "gt"]) expect(existsSync(join(dir, "bundles", t, p, "bundle.json"))).toBe(true);
    const c = esi3d(["contact-sheet", join(dir, "bundles", "linear_alignment-000", "gt"), "-o", join(dir, "sheet.png")]);
    expect(c.code, c.stderr).toBe(0);
    const png = decodePng(readFileSync(join(dir, "sheet.png")));
    expect(png.width).toBeGreaterThan(200);
    const schema = esi3d(["schema", "task"]);
    expect(JSON.parse(schema.stdout).properties.subcategory).toBeDefined();
  });
});
