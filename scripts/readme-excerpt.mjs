// Writes the README's output excerpts from real runs of the built CLI, so they cannot go stale:
//   npm run build && node scripts/readme-excerpt.mjs
// Each excerpt sits between `<!-- excerpt: ARGS -->` and `<!-- /excerpt -->`, ARGS being the esi3d command it
// shows (without --out: each run goes to a temporary directory). test/docs/readme.test.ts runs the same
// commands and checks that the README shows what they print.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const README = fileURLToPath(new URL("../README.md", import.meta.url));
const CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

const EXCERPT = /(<!-- excerpt: (.*?) -->\n```\n)([\s\S]*?)(```\n<!-- \/excerpt -->)/g;

/** The README's excerpts: the command each shows (its arguments) and the text it holds. */
export function excerpts(readme) {
  return [...readme.matchAll(EXCERPT)].map((m) => ({ args: m[2].trim().split(/\s+/), text: m[3] }));
}

/**
 * What an excerpt keeps of a run's output: the leaderboard, from its header line through its note (the lines
 * before it are the per-subcategory table, after it the headlines and the run's own paths and time).
 */
export function leaderboardOf(stdout) {
  const lines = stdout.split("\n");
  const start = lines.findIndex((l) => l.startsWith("Reasoner "));
  if (start < 0) throw new Error("no leaderboard (a line starting 'Reasoner ') in the run's output");
  const end = lines.findIndex((l, i) => i > start && l === "");
  return lines.slice(start, end < 0 ? undefined : end).join("\n") + "\n";
}

/** Runs `esi3d ARGS --out <temporary directory>` and returns its stdout. */
export function runExcerpt(args) {
  const dir = mkdtempSync(join(tmpdir(), "esi3d-readme-"));
  try {
    return execFileSync(process.execPath, [CLI, ...args, "--out", join(dir, "run")], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const readme = readFileSync(README, "utf8");
  const updated = readme.replace(EXCERPT, (_all, open, args, _text, close) => open + leaderboardOf(runExcerpt(args.trim().split(/\s+/))) + close);
  writeFileSync(README, updated);
  console.log(`wrote ${excerpts(updated).length} excerpt(s) into ${README}`);
}
