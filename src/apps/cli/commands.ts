/** The command-line front-end's commands: the pipeline, from task generation to evaluation reports. */
import type { Command } from "commander";

type Register = (program: Command) => void;
/** The command names one module registers, and how to load that module. */
export interface CommandModule {
  names: readonly string[];
  load: () => Promise<Register>;
}

/**
 * In the order `esi3d --help` lists them. Each module is loaded only when needed: a command line that
 * names one command loads that command alone (startup with every module, the service's, the queue's
 * and the LLM clients' packages included, is over a second; `esi3d graph` needs none of them).
 */
const CLI_MODULES: readonly CommandModule[] = [
  { names: ["run"], load: async () => (await import("./commands/run.js")).registerRun },
  { names: ["worker"], load: async () => (await import("./commands/worker.js")).registerWorker },
  { names: ["ablate"], load: async () => (await import("./commands/ablate.js")).registerAblate },
  { names: ["ask"], load: async () => (await import("./commands/ask.js")).registerAsk },
  { names: ["compare"], load: async () => (await import("./commands/compare.js")).registerCompare },
  { names: ["list"], load: async () => (await import("./commands/list.js")).registerList },
  { names: ["generate"], load: async () => (await import("./commands/generate.js")).registerGenerate },
  { names: ["import"], load: async () => (await import("./commands/import.js")).registerImport },
  { names: ["render", "contact-sheet"], load: async () => (await import("./commands/render.js")).registerRender },
  { names: ["points"], load: async () => (await import("./commands/points.js")).registerPoints },
  { names: ["graph"], load: async () => (await import("./commands/graph.js")).registerGraph },
];
const SCHEMA_MODULE: CommandModule = { names: ["schema"], load: async () => (await import("./commands/schema.js")).registerSchema };

/**
 * Registers them in the order `esi3d --help` lists them; `others` (other front-ends' commands) go between.
 * With `only` (the command a command line names), just the module that registers it, when one does.
 */
export async function registerCliCommands(program: Command, others: { afterGraph?: CommandModule; last?: CommandModule } = {}, only?: string): Promise<void> {
  const all = [...CLI_MODULES, ...(others.afterGraph ? [others.afterGraph] : []), SCHEMA_MODULE, ...(others.last ? [others.last] : [])];
  const named = all.find((m) => only !== undefined && m.names.includes(only));
  const chosen = named ? [named] : all;
  const registers = await Promise.all(chosen.map((m) => m.load()));
  for (const register of registers) register(program);
}
