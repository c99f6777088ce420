#!/usr/bin/env node
/**
 * The `esi3d` binary: the composition root that joins the three front-ends (src/apps/cli, the HTTP service's
 * `serve`, the viewer's `inspect`) into one command line. Apps never import each other; only this file sees
 * them all. Exit codes: 0 ok, 1 failure, 2 usage or input error, 130 interrupted (core/errors.ts).
 */
import { Command, CommanderError } from "commander";
import { PACKAGE_VERSION } from "../core/version.js";
import { EXIT_OK, EXIT_USAGE, exitCodeOf, userMessage } from "../core/errors.js";
import { registerCliCommands } from "./apps/cli/commands.js";
import { printable } from "../core/terminal.js";

/** The flags that print the version: they need no command's module. */
const VERSION_FLAGS: readonly string[] = ["-V", "--version"];

/**
 * The program; with `commandName` (the command a command line names), only that command's module is loaded,
 * and none for a version flag.
 */
export async function buildProgram(commandName?: string): Promise<Command> {
  const program = new Command();
  program
    .name("esi3d")
    .description("3D-augmented spatial reasoning: when does explicit 3D help a language model reason about space, and when does it hurt?")
    .version(PACKAGE_VERSION)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  if (commandName !== undefined && VERSION_FLAGS.includes(commandName)) return program;
  await registerCliCommands(
    program,
    {
      afterGraph: { names: ["inspect"], load: async () => (await import("./apps/viewer/command.js")).registerInspect },
      last: { names: ["serve"], load: async () => (await import("./apps/service/command.js")).registerServe },
    },
    commandName,
  );
  for (const c of program.commands) c.exitOverride().showHelpAfterError("(run with --help for usage)");
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await (await buildProgram(argv[2])).parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : EXIT_OK;
  } catch (e) {
    if (e instanceof CommanderError) {
      // help and version exit 0; every other commander error is a usage error (commander printed it)
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version" || e.code === "commander.help") return EXIT_OK;
      return EXIT_USAGE;
    }
    process.stderr.write(`esi3d: ${printable(userMessage(e))}\n`);
    const stack = (e as Error)?.stack;
    if (process.env.ESI3D_DEBUG && stack) process.stderr.write(stack + "\n");
    return exitCodeOf(e);
  }
}

// A reader that closes the pipe early (`esi3d list tasks | head`) is not an error: stop quietly, as Unix tools do,
// instead of Node's unhandled EPIPE with a stack trace.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(EXIT_OK);
  throw e;
});

process.exitCode = await main(process.argv);
