// Regenerates fixtures/tasks: one task per built-in subcategory (seed "fixtures"), the example task
// records for other simulators and the inputs of the fixture test. Run after changing the generator:
//   npm run build && node scripts/fixtures.mjs
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { generateTask, prepareGenerators } from "../dist/bridge/sim/generate/suite.js";
import { BUILTIN_SUBCATEGORIES } from "../dist/core/task/taxonomy.js";
import { writeTasks } from "../dist/core/task/io.js";

const dir = new URL("../fixtures/tasks/", import.meta.url).pathname;
mkdirSync(dir, { recursive: true });
await prepareGenerators(BUILTIN_SUBCATEGORIES);
for (const f of readdirSync(dir)) if (f.endsWith(".json")) rmSync(dir + f);
writeTasks(
  dir,
  BUILTIN_SUBCATEGORIES.map((s) => generateTask(s, "fixtures", 0)),
);
console.log(`wrote ${BUILTIN_SUBCATEGORIES.length} tasks to ${dir}`);
