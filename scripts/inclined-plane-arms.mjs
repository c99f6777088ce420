#!/usr/bin/env node
/**
 * Inclined Plane's arms measured (issue 45): N tasks generated as the suite would (bridge/sim/generate/dynamics.ts),
 * each run through the runner's own unit (src/eval/unit.ts runUnit, the default run configuration: every passive
 * paradigm, every 3D arm, the 2D and shortcut baselines), then per arm and paradigm the accuracy (declines credited
 * at chance, as every table does) and coverage, and how far the 3D graphs' board tilt lies from the recorded tilt.
 * More tasks than the default run's 10, and the hidden friction's own rule beside the arms.
 * Usage: node scripts/inclined-plane-arms.mjs [tasks=40] [seed=inclined-plane-arms]   (after `npm run build`)
 */
import { generateTask } from "../dist/bridge/sim/generate/suite.js";
import { loadPhysics } from "../dist/bridge/sim/physics/world.js";
import { DEFAULT_RUN_CONFIG } from "../dist/src/eval/config.js";
import { runUnit } from "../dist/src/eval/unit.js";

const [nArg = "40", seed = "inclined-plane-arms"] = process.argv.slice(2);
const n = Number(nArg);
if (!(Number.isInteger(n) && n > 0)) {
  console.error("usage: node scripts/inclined-plane-arms.mjs [tasks] [seed]: tasks is a positive integer");
  process.exit(2);
}
await loadPhysics();
const tasks = Array.from({ length: n }, (_, i) => generateTask("inclined_plane", seed, i));
const items = [];
const tiltErrors = new Map();
for (const task of tasks)
  for (const paradigm of ["single", "multi", "gt"]) {
    const unit = await runUnit({ task, paradigm, config: DEFAULT_RUN_CONFIG, done: [] });
    items.push(...unit.records);
    // the board's tilt in each 3D graph against the recorded one
    for (const { source, graph } of unit.graphs) {
      const key = `${paradigm} | ${source}`;
      const e = tiltErrors.get(key) ?? { graphs: 0, boards: 0, errors: [] };
      const board = graph.nodes.filter((x) => x.label === "slope").sort((a, b) => b.raw_point_count - a.raw_point_count)[0];
      e.graphs++;
      if (board) e.boards++;
      if (board?.physics?.top_tilt_deg != null) e.errors.push(Math.abs(board.physics.top_tilt_deg - task.label_metadata.slope_tilt_deg));
      tiltErrors.set(key, e);
    }
  }

const yes = tasks.filter((t) => t.answer === "yes").length;
console.log(`${n} tasks (seed ${seed}): ${yes} stable (yes), ${n - yes} slid or fell (no)`);
// a reference no arm can reach: the sliding rule with the hidden friction (shape, rolling, is still left out)
const frictionKnown = tasks.filter((t) => {
  const m = t.label_metadata;
  return (Math.tan((m.slope_tilt_deg * Math.PI) / 180) <= m.static_friction ? "yes" : "no") === t.answer;
}).length;
console.log(`friction known (hidden from every arm), stays iff tan(tilt) <= static friction: ${((100 * frictionKnown) / n).toFixed(1)} %`);
const rows = new Map();
for (const it of items) {
  const key = `${it.arm === "3d" ? `3d:${it.source}${it.labels === "appearance" ? "-appearance" : ""}` : it.arm} | ${it.paradigm}`;
  const row = rows.get(key) ?? { n: 0, credit: 0, answered: 0, yes: 0 };
  row.n++;
  if (it.status === "parsed") {
    row.answered++;
    row.credit += it.correct ? 1 : 0;
    row.yes += it.answer === "yes" ? 1 : 0;
  } else row.credit += 1 / it.options.length;
  rows.set(key, row);
}
console.log("\narm | paradigm | accuracy % (declines at chance) | coverage % | answered yes");
for (const [key, row] of [...rows].sort())
  console.log(`${key} | ${((100 * row.credit) / row.n).toFixed(1)} | ${((100 * row.answered) / row.n).toFixed(0)} | ${row.yes}/${row.answered}`);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2 : Number.NaN;
};
console.log("\nparadigm | graph source | board found | tilt fitted | |tilt error| deg: median, max");
for (const [key, e] of [...tiltErrors].sort())
  console.log(`${key} | ${e.boards}/${e.graphs} | ${e.errors.length} | ${median(e.errors).toFixed(1)}, ${Math.max(...e.errors).toFixed(1)}`);
