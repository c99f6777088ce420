#!/usr/bin/env node
// A/B of the main job (`esi3d run`, README) between two builds: this checkout's dist/ (B) and a base commit
// (A, default dad60a5: issue 19's reference), built from `git archive` into a temporary directory with this
// checkout's node_modules linked in (no worktree, no change to the repository). Both run the same flags on
// one worker thread, interleaved A B A B ..., each as a whole process; the CPU time of the process (user +
// system, worker thread and main thread together) over its units (tasks x paradigms) is the worker time per
// unit. Wall time per unit is printed beside it: on a shared machine CPU time is the steadier figure.
//
//   node scripts/ab-main-job.mjs [--base dad60a5] [--limit 4] [--pairs 3] [--b-flags "..."] [-- extra run flags]
//
// The flags after -- go to both builds. --b-flags adds flags only B knows, for a like-for-like comparison:
// dad60a5's default run has 3 arms per unit (gt, noisy, 2d), today's 6 (appearance-label 3D arms and the
// shortcut baseline), so --b-flags "--labels oracle --baseline 2d" gives B the same items as A.
//
// Prints one line per run and, at the end, the best and median per build and the ratio A / B.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBase } from "./base-build.mjs";

const repo = resolve(fileURLToPath(new URL("..", import.meta.url)));
const argv = process.argv.slice(2);
const dash = argv.indexOf("--");
const own = dash >= 0 ? argv.slice(0, dash) : argv;
const extra = dash >= 0 ? argv.slice(dash + 1) : [];

/** A flag's value; `flagList` takes one that starts with "--" itself (a list of run flags). */
function flag(name, fallback, flagList = false) {
  const i = own.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = own[i + 1];
  if (v === undefined || (!flagList && v.startsWith("--"))) usage(`--${name} needs a value`);
  return v;
}
function usage(message) {
  console.error(
    `ab-main-job: ${message}\nusage: node scripts/ab-main-job.mjs [--base COMMIT] [--limit N] [--pairs K] [--b-flags "FLAGS"] [-- extra esi3d run flags]`,
  );
  process.exit(2);
}
function positiveInt(name, fallback) {
  const v = Number(flag(name, fallback));
  if (!Number.isInteger(v) || v < 1) usage(`--${name} must be a positive integer, got ${flag(name, fallback)}`);
  return v;
}
const base = flag("base", "dad60a5");
const limit = positiveInt("limit", "4");
const pairs = positiveInt("pairs", "3");
const bFlags = flag("b-flags", "", true).split(/\s+/).filter(Boolean);
const TIME = "/usr/bin/time";
if (!existsSync(TIME)) usage(`${TIME} (GNU time) is needed to read each run's CPU time`);
if (!existsSync(join(repo, "dist"))) usage("this checkout has no dist/: run npm run build first");

/** A build's CLI entry, as its package.json names it (it moved from dist/src/cli/main.js to dist/src/main.js). */
const binOf = (root) => join(root, JSON.parse(readFileSync(join(root, "package.json"), "utf8")).bin.esi3d);

/** One whole `esi3d run` under GNU time: CPU seconds, wall seconds and the number of units it ran. */
function runOnce(root, out, flags) {
  const args = [
    "-f",
    "%U %S %e",
    "-o",
    join(out, "time.txt"),
    process.execPath,
    binOf(root),
    "run",
    "--limit",
    String(limit),
    "--concurrency",
    "1",
    "--out",
    join(out, "run"),
    ...extra,
    ...flags,
  ];
  const r = spawnSync(TIME, args, { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  if (r.status !== 0) throw new Error(`esi3d run in ${root} exited ${r.status}:\n${r.stderr.slice(-2000)}`);
  const [user, sys, wall] = readFileSync(join(out, "time.txt"), "utf8").trim().split(/\s+/).map(Number);
  const cfg = JSON.parse(readFileSync(join(out, "run/config.json"), "utf8")).config;
  const tasks = readFileSync(join(out, "run/items.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l).task_id);
  const units = new Set(tasks).size * cfg.paradigms.length;
  // the builds' default runs may differ in arms (items per unit): say so beside the per-unit figures
  return { cpu: user + sys, wall, units, items: tasks.length };
}

const a = buildBase(repo, base, usage);
const head = execFileSync("git", ["-C", repo, "rev-parse", "--short=12", "HEAD"], { encoding: "utf8" }).trim();
const dirty = execFileSync("git", ["-C", repo, "status", "--porcelain", "--untracked-files=no"], { encoding: "utf8" }).trim() !== "";
const builds = [
  { name: `A ${a.sha.slice(0, 12)}`, root: a.dir, flags: [], runs: [] },
  { name: `B ${head}${dirty ? "+changes" : ""} (this dist/)`, root: repo, flags: bFlags, runs: [] },
];
const work = mkdtempSync(join(tmpdir(), "esi3d-ab-runs-"));
console.log(
  `main job A/B: esi3d run --limit ${limit} --concurrency 1 ${extra.join(" ")}${bFlags.length ? ` (B also ${bFlags.join(" ")})` : ""}, ${pairs} interleaved pairs; per unit = per (task, paradigm)`,
);
for (let p = 0; p < pairs; p++) {
  for (const b of builds) {
    const out = join(work, `${b.name[0]}${p}`);
    mkdirSync(out);
    const r = runOnce(b.root, out, b.flags);
    b.runs.push(r);
    console.log(
      `  ${b.name.padEnd(34)} pair ${p + 1}: ${r.units} units (${r.items} items), CPU ${r.cpu.toFixed(1)} s (${(r.cpu / r.units).toFixed(3)} s/unit), wall ${(r.wall / r.units).toFixed(2)} s/unit`,
    );
  }
}
const best = (xs) => Math.min(...xs);
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)];
const perUnit = (b, k) => b.runs.map((r) => r[k] / r.units);
for (const b of builds)
  console.log(
    `${b.name.padEnd(36)} CPU s/unit best ${best(perUnit(b, "cpu")).toFixed(3)} median ${median(perUnit(b, "cpu")).toFixed(3)}; wall s/unit best ${best(perUnit(b, "wall")).toFixed(2)}`,
  );
const [A, B] = builds;
console.log(
  `ratio A/B (worker CPU time per unit): best ${(best(perUnit(A, "cpu")) / best(perUnit(B, "cpu"))).toFixed(2)}x, median ${(median(perUnit(A, "cpu")) / median(perUnit(B, "cpu"))).toFixed(2)}x (goal: >= 3x)`,
);
rmSync(work, { recursive: true, force: true });
