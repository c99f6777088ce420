#!/usr/bin/env node
/** The esi3d command line. Exit codes: 0 ok, 1 failure, 2 usage or input error. */
import { Command, CommanderError } from "commander";
import { PACKAGE_VERSION } from "../../core/version.js";
import { EXIT_USAGE, reportError } from "./errors.js";
import { registerGenerate } from "./commands/generate.js";
import { registerRender } from "./commands/render.js";
import { registerSchema } from "./commands/schema.js";
import { registerPoints } from "./commands/points.js";
import { registerGraph } from "./commands/graph.js";
import { registerInspect } from "./commands/inspect.js";
import { registerRun } from "./commands/run.js";
import { registerCompare } from "./commands/compare.js";
import { registerAblate } from "./commands/ablate.js";
import { registerServe } from "./commands/serve.js";
import { registerAsk } from "./commands/ask.js";

export function buildProgram(): Command {
  const program = new Command();
  program
    .name("esi3d")
    .description("3D-augmented spatial reasoning: when does explicit 3D help a language model reason about space, and when does it hurt?")
    .version(PACKAGE_VERSION)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  registerRun(program);
  registerAblate(program);
  registerAsk(program);
  registerCompare(program);
  registerGenerate(program);
  registerRender(program);
  registerPoints(program);
  registerGraph(program);
  registerInspect(program);
  registerSchema(program);
  registerServe(program);
  for (const c of program.commands) c.exitOverride().showHelpAfterError("(run with --help for usage)");
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      // help and version exit 0; every other commander error is a usage error
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version" || e.code === "commander.help") return 0;
      return EXIT_USAGE;
    }
    return reportError(e);
  }
}

process.exitCode = await main(process.argv);
