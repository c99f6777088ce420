/** The command-line front-end's commands: the pipeline, from task generation to evaluation reports. */
import type { Command } from "commander";
import { registerGenerate } from "./commands/generate.js";
import { registerRender } from "./commands/render.js";
import { registerSchema } from "./commands/schema.js";
import { registerPoints } from "./commands/points.js";
import { registerGraph } from "./commands/graph.js";
import { registerRun } from "./commands/run.js";
import { registerCompare } from "./commands/compare.js";
import { registerAblate } from "./commands/ablate.js";
import { registerAsk } from "./commands/ask.js";
import { registerImport } from "./commands/import.js";
import { registerWorker } from "./commands/worker.js";
import { registerList } from "./commands/list.js";

/** Registers them in the order `esi3d --help` lists them; `last` (other front-ends' commands) go between. */
export function registerCliCommands(program: Command, others: { afterGraph?: (p: Command) => void; last?: (p: Command) => void } = {}): void {
  registerRun(program);
  registerWorker(program);
  registerAblate(program);
  registerAsk(program);
  registerCompare(program);
  registerList(program);
  registerGenerate(program);
  registerImport(program);
  registerRender(program);
  registerPoints(program);
  registerGraph(program);
  others.afterGraph?.(program);
  registerSchema(program);
  others.last?.(program);
}
