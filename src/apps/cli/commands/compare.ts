import type { Command } from "commander";
import { compareCommand } from "../../../eval/compare.js";
import { choiceOption } from "../../../../core/flags.js";

export function registerCompare(program: Command): void {
  program
    .command("compare")
    .description("per-subcategory accuracy differences of each run against the first, paired by task, with 95% intervals and p-values")
    .argument("<runs...>", "run directories: the first is the reference, each other run is compared with it")
    .option(
      "--paradigm <p>",
      "single | multi | gt | active | all (pooled)",
      choiceOption("--paradigm", ["single", "multi", "gt", "active", "all"] as const),
      "all",
    )
    .action((runs: string[], opts: { paradigm: string }) => {
      process.stdout.write(compareCommand(runs, opts.paradigm));
    });
}
