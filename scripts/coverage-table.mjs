#!/usr/bin/env node
/**
 * Coverage and all-items accuracy per subcategory, paradigm and arm, read from a run's items.jsonl:
 * coverage = items answered (status parsed) / items; all-items accuracy = (right answers + each declined or
 * invalid item credited at chance, 1/k of its k options) / items. With two runs (before, after) the cells show
 * both. Checks the Cognitive Mapping goal of issue 41 on the last run given: each 3D arm's coverage at least
 * 2D's on the same paradigm, and GT-3D's all-items accuracy at least 2D's; the cells that miss it are listed,
 * and checked again against the 2D answers from evidence: the 2D program answers a room it never saw at its
 * UNSEEN_CONFIDENCE (an object's room from a sighting far along the walk; before 2D declined them, also
 * Connectivity's "No" over rooms it never saw), a weaker inference.
 * Usage: node scripts/coverage-table.mjs <runDir> [<runDirAfter>] [--subcategories a,b,...]   (after `npm run build`)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { UNSEEN_CONFIDENCE } from "../dist/src/reason/regionPrograms2d.js";
import { creditOf, isAnswered } from "../dist/src/eval/summary.js";

const args = process.argv.slice(2);
const subIdx = args.indexOf("--subcategories");
const onlySubs = subIdx >= 0 ? new Set(args.splice(subIdx, 2)[1].split(",")) : null;
if (args.length < 1 || args.length > 2) {
  console.error("usage: node scripts/coverage-table.mjs <runDir> [<runDirAfter>] [--subcategories a,b,...]");
  process.exit(2);
}

/** Per cell (subcategory|paradigm|arm): items, answered, and the all-items score's sum. */
function tally(dir) {
  const cells = new Map();
  for (const line of readFileSync(join(dir, "items.jsonl"), "utf8").split("\n")) {
    if (!line) continue;
    const r = JSON.parse(line);
    if (onlySubs && !onlySubs.has(r.subcategory)) continue;
    const arm = r.key.split("|")[2];
    const key = `${r.subcategory}|${r.paradigm}|${arm}`;
    const c = cells.get(key) ?? { n: 0, answered: 0, evidence: 0, score: 0, mapping: r.category === "cognitive_mapping" };
    c.n++;
    // the summary's own rules: answered = scored right or wrong, credit 1/0 or chance (circular items included)
    if (isAnswered(r)) {
      c.answered++;
      if ((r.confidence ?? 0) > UNSEEN_CONFIDENCE) c.evidence++;
    }
    c.score += creditOf(r);
    cells.set(key, c);
  }
  return cells;
}

const runs = args.map(tally);
const keys = [...new Set(runs.flatMap((c) => [...c.keys()]))];
const subs = [...new Set(keys.map((k) => k.split("|")[0]))];
const paradigms = [...new Set(keys.map((k) => k.split("|")[1]))];
const ARM_ORDER = ["2d", "shortcut", "3d:gt", "3d:gt-appearance", "3d:noisy", "3d:noisy-appearance"];
const arms = [...new Set(keys.map((k) => k.split("|")[2]))].sort(
  (a, b) => (ARM_ORDER.indexOf(a) + 1 || 99) - (ARM_ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b),
);
const pct = (x) => (100 * x).toFixed(0).padStart(3);
const cellText = (c) => (c ? `${pct(c.answered / c.n)} ${pct(c.score / c.n)}` : "   -   -");

console.log(`cells: coverage % / all-items accuracy % (declined at 1/k)${runs.length === 2 ? "; before -> after" : ""}`);
const header = ["subcategory", "paradigm", ...arms];
const rows = [];
for (const s of subs)
  for (const p of paradigms) {
    const row = [s, p];
    for (const a of arms) row.push(runs.map((c) => cellText(c.get(`${s}|${p}|${a}`))).join(" -> "));
    rows.push(row);
  }
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const fmt = (r) => r.map((x, i) => x.padEnd(widths[i])).join("  ");
console.log(fmt(header));
console.log(widths.map((w) => "-".repeat(w)).join("  "));
for (const r of rows) console.log(fmt(r));

// the goal, on the last run given: Cognitive Mapping cells, against all 2D answers and against its answers from evidence
const last = runs.at(-1);
const goal = (twoAnswered) => {
  const misses = [];
  for (const s of subs)
    for (const p of paradigms) {
      const two = last.get(`${s}|${p}|2d`);
      if (!two || !two.mapping) continue;
      for (const a of arms.filter((x) => x.startsWith("3d:"))) {
        const c = last.get(`${s}|${p}|${a}`);
        if (!c) continue;
        if (c.answered / c.n < twoAnswered(two) / two.n) misses.push(`${s} ${p} ${a}: coverage ${pct(c.answered / c.n)} < 2D ${pct(twoAnswered(two) / two.n)}`);
        if (a === "3d:gt" && c.score / c.n < two.score / two.n)
          misses.push(`${s} ${p} ${a}: all-items accuracy ${pct(c.score / c.n)} < 2D ${pct(two.score / two.n)}`);
      }
    }
  return misses;
};
const all = goal((two) => two.answered),
  fromEvidence = goal((two) => two.evidence);
console.log(
  all.length
    ? `\ngoal missed in ${all.length} cell(s):\n${all.join("\n")}`
    : "\ngoal met in every cell: each 3D arm's coverage >= 2D's, GT-3D's all-items accuracy >= 2D's",
);
console.log(
  `\nagainst 2D's answers from evidence (confidence above its UNSEEN_CONFIDENCE ${UNSEEN_CONFIDENCE}): ${fromEvidence.length ? `missed in ${fromEvidence.length} cell(s):\n${fromEvidence.join("\n")}` : "met in every cell"}`,
);
