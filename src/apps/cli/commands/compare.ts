import type { Command } from "commander";
import { compareCommand } from "../../../eval/compare.js";
import { choiceOption } from "../../../core/flags.js";

export function registerCompare(program: Command): void {
  program
    .command("compare")
    .description("per-subcategory accuracy differences between two runs, with 95% intervals")
    .argument("<runA>", "run directory A")
    .argument("<runB>", "run directory B")
    .option("--paradigm <p>", "single | multi | gt | active | all (pooled)", choiceOption("--paradigm", ["single", "multi", "gt", "active", "all"] as const), "all")
    .action((a: string, b: string, opts: { paradigm: string }) => {
      process.stdout.write(compareCommand(a, b, opts.paradigm));
    });
}
