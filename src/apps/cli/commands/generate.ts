import type { Command } from "commander";
import { GENERATOR_FLAGS, GeneratorOptionsSchema, generatorContext } from "../../../../bridge/sim/generate/options.js";
import { BUILTIN_SUBCATEGORIES, type BuiltinSubcategory } from "../../../../core/task/taxonomy.js";
import { generateTask, prepareGenerators } from "../../../../bridge/sim/generate/suite.js";
import { writeTasks } from "../../../../core/task/io.js";
import { InputError } from "../../../../core/errors.js";
import { addSchemaFlags, choiceOption, intOption, listOption, parseSchemaFlags } from "../../../../core/flags.js";
import { checkWritable } from "../../../../core/fs.js";
import { checkOutputs } from "../../../../core/outputPaths.js";

export function registerGenerate(program: Command): void {
  const cmd = program
    .command("generate")
    .description("generate ESI-Bench-style tasks with the built-in simulator (one JSON per task)")
    .option("--suite <name>", "task suite (only 'default': the built-in scene-graph subcategories)", choiceOption("--suite", ["default"] as const), "default")
    .option("--per-subcategory <n>", "tasks per subcategory", intOption("--per-subcategory", 1, 10000), 10)
    .option("--subcategories <list>", "comma-separated subset of subcategories", listOption("--subcategories", BUILTIN_SUBCATEGORIES))
    .option("--seed <seed>", "seed: the same seed gives byte-identical tasks", "0")
    .requiredOption("--out <dir>", "output directory");
  addSchemaFlags(cmd, GeneratorOptionsSchema, GENERATOR_FLAGS).action(
    async (opts: { perSubcategory: number; subcategories?: BuiltinSubcategory[]; seed: string; out: string }) => {
      checkOutputs([], [{ what: "--out", path: opts.out }]);
      checkWritable(opts.out, "dir");
      if (!/^[A-Za-z0-9_.-]+$/.test(opts.seed)) throw new InputError(`--seed: use letters, digits, '_', '.', '-' only, got "${opts.seed}"`);
      const ctx = generatorContext(parseSchemaFlags(cmd, GeneratorOptionsSchema, GENERATOR_FLAGS));
      const subs = opts.subcategories ?? BUILTIN_SUBCATEGORIES;
      await prepareGenerators(subs);
      const total = subs.length * opts.perSubcategory;
      let done = 0;
      const t0 = Date.now();
      for (const sub of subs) {
        const tasks = [];
        for (let i = 0; i < opts.perSubcategory; i++) {
          tasks.push(generateTask(sub, opts.seed, i, ctx));
          done++;
        }
        writeTasks(opts.out, tasks);
        process.stderr.write(`generate: ${sub}: ${tasks.length} tasks (${done}/${total}, ${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
      }
      process.stdout.write(`wrote ${total} tasks to ${opts.out}\n`);
    },
  );
}
