#!/usr/bin/env node
/**
 * Which built-in subcategories may keep their analytic placement (issue 45): draws tasks of each, drops every
 * object that is not furniture as the physics layer drops objects (bridge/sim/physics/settle.ts: just above its
 * placed pose, then settled), and reports how far the settled objects moved and what the validation found.
 * A subcategory whose objects end where they were placed, with no problem, loses nothing by placing analytically.
 * Usage: node scripts/settle-audit.mjs [tasksPerSubcategory=3] [steps=240] [seed=settle-audit]   (after `npm run build`)
 */
import { BUILTIN_SUBCATEGORIES } from "../dist/core/task/taxonomy.js";
import { generateTask } from "../dist/bridge/sim/generate/suite.js";
import { loadPhysics } from "../dist/bridge/sim/physics/world.js";
import { settle } from "../dist/bridge/sim/physics/settle.js";

const [perSub = "3", stepsArg = "240", seed = "settle-audit"] = process.argv.slice(2);
const tasks = Number(perSub);
const steps = Number(stepsArg);
if (!(Number.isInteger(tasks) && tasks > 0 && Number.isInteger(steps) && steps > 0)) {
  console.error("usage: node scripts/settle-audit.mjs [tasksPerSubcategory] [steps] [seed]: two positive integers and a seed");
  process.exit(2);
}
await loadPhysics();

/** The angle (degrees) between two unit quaternions. */
function turnDeg(a, b) {
  const d = Math.abs(a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w);
  return (2 * Math.acos(Math.min(1, d)) * 180) / Math.PI;
}

console.log(`${tasks} tasks per subcategory, seed "${seed}", ${steps} steps of 1/240 s; non-furniture objects dropped and settled`);
console.log("| subcategory | objects dropped | largest shift (mm) | median shift (mm) | largest turn (deg) | it moved | tasks with problems | a problem |");
console.log("|---|---|---|---|---|---|---|---|");
for (const sub of BUILTIN_SUBCATEGORIES) {
  const shifts = [];
  let turn = 0;
  let withProblems = 0;
  let example = "";
  let mover = "";
  let moverShift = -1;
  for (let i = 0; i < tasks; i++) {
    const t = generateTask(sub, seed, i);
    const dropped = new Set(t.objects.filter((o) => o.role !== "furniture").map((o) => o.id));
    const r = settle({ roomSize: t.room.size, objects: t.objects, dropped, steps });
    t.objects.forEach((o, k) => {
      if (!dropped.has(o.id)) return;
      const s = r.objects[k];
      const shift = Math.hypot(s.position[0] - o.position[0], s.position[1] - o.position[1], s.position[2] - o.position[2]) * 1000;
      shifts.push(shift);
      if (shift > moverShift) [moverShift, mover] = [shift, o.category];
      turn = Math.max(turn, turnDeg(s.orientation, o.orientation));
    });
    if (r.problems.length > 0) {
      withProblems++;
      example ||= `${t.task_id}: ${r.problems[0]}`;
    }
  }
  shifts.sort((a, b) => a - b);
  const median = shifts.length ? shifts[Math.floor(shifts.length / 2)] : 0;
  const largest = shifts.length ? shifts[shifts.length - 1] : 0;
  console.log(
    `| ${sub} | ${shifts.length} | ${largest.toFixed(1)} | ${median.toFixed(1)} | ${turn.toFixed(1)} | ${mover} | ${withProblems}/${tasks} | ${example} |`,
  );
}
