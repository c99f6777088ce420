/**
 * Code says its reasons in place: no source, test, bench, script or model file points a reader at a note outside
 * the repository (the project's reference folder beside the checkout, which users do not have) or at a review
 * finding by its internal id. A comment names the fact it relies on and its public source (a paper, a dataset,
 * a repository's file) instead.
 */
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO_ROOT } from "../src/apps/cli/helpers.js";

/** The folders whose files are code (docs/ and the READMEs are prose, and are checked by their own tests). */
const CODE_DIRS = ["src", "bridge", "reconstruct", "scenegraph", "bench", "scripts", "test", "models"];
const CODE_FILE = /\.(?:ts|mts|cts|js|mjs|cjs|py|cpp|h|sh)$/;

/** The reference notes by file name, which exist only outside the repository. */
const NOTES = [
  "esi-spec",
  "esi-released",
  "ecosystem",
  "vsi-spatialworld",
  "scenegraph-anchors",
  "active-scale-data",
  "vggt-check",
  "vggt-onnx",
  "omnigibson-upstream",
  "anchors-2026-12",
  "code-review",
  "user-review",
  "reliability-audit",
];
const OUTSIDE_POINTERS: Array<{ what: string; pattern: RegExp }> = [
  { what: "a path into the folder beside the checkout", pattern: /\.\.\/shared\/|\bshared\/(?:reference|esi-bench-sample)\b/ },
  { what: "a reference note by file name", pattern: new RegExp(`\\b(?:${NOTES.join("|")})(?:-\\d+)?\\.md\\b`) },
  { what: "a review finding by id", pattern: /\baudit [A-Z]{1,2}\d+\b/ },
];

function codeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" || e.name.startsWith(".") ? [] : codeFiles(path);
    return CODE_FILE.test(e.name) ? [path] : [];
  });
}

/** "file:line: what" for every line of `text` that matches a pointer. */
function outsidePointers(file: string, text: string): string[] {
  return text.split("\n").flatMap((line, i) => OUTSIDE_POINTERS.filter((p) => p.pattern.test(line)).map((p) => `${file}:${i + 1}: ${p.what}: ${line.trim()}`));
}

describe("code comments", () => {
  it("point at nothing outside the repository", () => {
    // this file is left out: its second test spells out the pointers it must find
    const files = CODE_DIRS.flatMap((d) => codeFiles(join(REPO_ROOT, d))).filter((f) => f !== fileURLToPath(import.meta.url));
    expect(files.length).toBeGreaterThan(300);
    const found = files.flatMap((f) => outsidePointers(relative(REPO_ROOT, f), readFileSync(f, "utf8")));
    expect(found).toEqual([]);
  });

  it("the check finds each kind of pointer, and passes a public source", () => {
    const bad = ["// see ../shared/notes.txt", " * (reference/esi-released.md §3.3)", "# audit H1: a 4 MiB body", "/** anchors-2026-12.md */"];
    expect(bad.map((l) => outsidePointers("x.ts", l).length)).toEqual([1, 1, 1, 1]);
    const fine = [
      "// ESI-Bench's paper, Table 4, reports 9.9 %",
      "// akretz/vggt-onnx's test_onnx.py tolerances",
      "import { writeTinyVggt } from './tiny-vggt-onnx.js';",
      " * The audit of an import",
    ];
    expect(fine.flatMap((l) => outsidePointers("x.ts", l))).toEqual([]);
  });
});
