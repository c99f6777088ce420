#!/usr/bin/env node
/**
 * Stacking & Stability's offline arms on generated tasks: the symbolic 3D program on the ground-truth graph and on
 * the graph built from the single initial view's depth (scenegraph/pipeline.ts, default options), the symbolic 2D
 * program on that view's masks, and the shortcut; each scored as the run scores it (src/eval/score.ts). Prints the
 * accepted-order counts of the tasks beside ESI's released ones, and each arm's accuracy.
 * Usage: node scripts/stacking-arms.mjs [tasks=30] [seed=stack-measure]   (after `npm run build`)
 */
import { loadPhysics } from "../dist/bridge/sim/physics/world.js";
import { generateTask } from "../dist/bridge/sim/generate/suite.js";
import { renderBundle } from "../dist/bridge/sim/capture.js";
import { truthGraph } from "../dist/scenegraph/truth.js";
import { graphOfBundle } from "../dist/scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../dist/scenegraph/pipelineOptions.js";
import { createSymbolicReasoner } from "../dist/src/reason/symbolic.js";
import { createSymbolic2dReasoner } from "../dist/src/reason/symbolic2d.js";
import { createShortcutReasoner } from "../dist/src/reason/shortcut.js";
import { scoreAnswer } from "../dist/src/eval/score.js";

const n = Number(process.argv[2] ?? 30);
const seed = process.argv[3] ?? "stack-measure";
if (!(Number.isInteger(n) && n > 0)) {
  console.error("usage: node scripts/stacking-arms.mjs [tasks>0] [seed]");
  process.exit(2);
}
await loadPhysics();
const symbolic = createSymbolicReasoner();
const symbolic2d = createSymbolic2dReasoner();
const shortcut = createShortcutReasoner();
const arms = ["3d-truth", "3d-single", "2d-single", "shortcut"];
const right = Object.fromEntries(arms.map((a) => [a, 0]));
const declined = Object.fromEntries(arms.map((a) => [a, 0]));
const accepted = {};
let chance = 0;
for (let i = 0; i < n; i++) {
  const task = generateTask("stacking_stability", seed, i);
  const k = task.answer_spec.items.length;
  const key = `${k} objects, ${task.answer_spec.accepted.length} stable`;
  accepted[key] = (accepted[key] ?? 0) + 1;
  chance += task.answer_spec.accepted.length / (k === 3 ? 6 : 2);
  const bundle = renderBundle(task, "single");
  const graph = (await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse({}))).graph;
  const answers = {
    "3d-truth": await symbolic.answer({ task, graph: truthGraph(task) }),
    "3d-single": await symbolic.answer({ task, graph, bundle }),
    "2d-single": await symbolic2d.answer({ task, bundle }),
    shortcut: await shortcut.answer({ task, bundle }),
  };
  const line = [];
  for (const a of arms) {
    const s = scoreAnswer(answers[a], task);
    if (!s.scored) declined[a]++;
    else if (s.correct) right[a]++;
    line.push(`${a} ${s.scored ? (s.correct ? "right" : "wrong") : "declined"}`);
  }
  console.log(`${task.task_id} ${task.answer} (${task.answer_spec.accepted.length} stable): ${line.join(", ")}`);
}
console.log(`accepted-order counts: ${JSON.stringify(accepted)} (ESI's 89 released records, all 3 objects: 1/2/3 stable in 34/36/19)`);
console.log(`chance (a random order): ${((100 * chance) / n).toFixed(1)} %`);
for (const a of arms) console.log(`${a}: ${right[a]}/${n} right (${((100 * right[a]) / n).toFixed(1)} %), ${declined[a]} declined`);
