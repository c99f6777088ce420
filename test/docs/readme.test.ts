/**
 * The README is a newcomer's first screen: at most README_MAX_LINES lines, the two set-up commands first,
 * and its output excerpt the real output of the command it names (scripts/readme-excerpt.mjs writes it; this
 * test runs the command again). docs/README.md maps every page of docs/, and no link in the README or docs/
 * points at a file that is not there.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { REPO_ROOT } from "../src/apps/cli/helpers.js";
import { excerpts, leaderboardOf, runExcerpt } from "../../scripts/readme-excerpt.mjs";

/** Issue 44: a README that fits on a screen or two, everything else in docs/. */
const README_MAX_LINES = 200;
/** The set-up commands, exactly as a newcomer copies them: the main job, then the tests. */
const SETUP_COMMANDS = ["ONNXRUNTIME_NODE_INSTALL=skip npm ci && npm run -s esi3d -- run", "ONNXRUNTIME_NODE_INSTALL=skip npm ci && npm test"];

const README = join(REPO_ROOT, "README.md");
const DOCS = join(REPO_ROOT, "docs");
const read = (f: string) => readFileSync(f, "utf8");
const codeBlocks = (md: string) => [...md.matchAll(/```\w*\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());

/** Relative link targets of a markdown file (no URLs, no in-page anchors), resolved against its folder. */
function localLinks(file: string): string[] {
  const targets = [...read(file).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
  return targets.filter((t) => !/^[a-z]+:/.test(t) && !t.startsWith("#")).map((t) => resolve(dirname(file), t.split("#")[0]!));
}

describe("README.md", () => {
  it(`fits in ${README_MAX_LINES} lines and opens with the two set-up commands, unchanged`, () => {
    const text = read(README);
    expect(text.split("\n").length).toBeLessThanOrEqual(README_MAX_LINES);
    expect(codeBlocks(text).slice(0, 2)).toEqual(SETUP_COMMANDS);
  });

  it("says where a run's results are and how to look inside them", () => {
    const text = read(README);
    expect(text).toContain("report.html");
    expect(text).toContain("npx esi3d inspect runs/<id> --serve");
  });

  it("shows the output of the command each excerpt names (rerun here)", () => {
    const found = excerpts(read(README));
    expect(found.length, "the README's result table is an excerpt of a real run").toBeGreaterThan(0);
    for (const { args, text } of found) expect(text, `esi3d ${args.join(" ")}: rerun node scripts/readme-excerpt.mjs`).toBe(leaderboardOf(runExcerpt(args)));
  }, 300_000);
});

describe("docs/", () => {
  it("docs/README.md maps every page and published format of docs/", () => {
    const index = join(DOCS, "README.md");
    const linked = new Set(localLinks(index));
    const pages = readdirSync(DOCS).filter((f) => (f.endsWith(".md") && f !== "README.md") || f.endsWith(".schema.json"));
    expect(
      pages.filter((f) => !linked.has(join(DOCS, f))),
      "pages docs/README.md does not list",
    ).toEqual([]);
  });

  it("no link in the README or docs/ points at a missing file", () => {
    const files = [
      README,
      ...readdirSync(DOCS)
        .filter((f) => f.endsWith(".md"))
        .map((f) => join(DOCS, f)),
    ];
    const missing = files.flatMap((f) =>
      localLinks(f)
        .filter((t) => !existsSync(t))
        .map((t) => `${f.slice(REPO_ROOT.length + 1)} -> ${t.slice(REPO_ROOT.length + 1)}`),
    );
    expect(missing).toEqual([]);
  });
});
