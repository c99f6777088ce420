/**
 * `esi3d list tasks|subcategories|reasoners|formats`: what a run can draw and use, read from the declarations
 * themselves (the taxonomy, the reasoner spec schemas, the prompt formats, the run's own task plan), so the list
 * cannot drift from what the other commands accept.
 */
import type { Command } from "commander";
import {
  BUILTIN_SUBCATEGORIES,
  CATEGORY_TITLES,
  LABEL_ANSWER_SUBCATEGORIES,
  SUBCATEGORIES,
  SUBCATEGORY_CATEGORY,
  SUBCATEGORY_TITLES,
} from "../../../../core/task/taxonomy.js";
import { GeneratorOptionsSchema, generatorContext } from "../../../../bridge/sim/generate/options.js";
import type { Task } from "../../../../core/task/schema.js";
import { InputError } from "../../../../core/errors.js";
import { addSchemaFlags, choiceOption, flagAttribute, type FlagSpec } from "../../../../core/flags.js";
import { formatTable } from "../../../../core/table.js";
import { DEFAULT_RUN_CONFIG, RunConfigSchema, type RunConfig } from "../../../eval/config.js";
import type { SkippedItem } from "../../../eval/suite.js";
import { GRAPH_FORMATS, PromptFormatSchema } from "../../../prompt/formats.js";
import { LLM_PROVIDERS, OFFLINE_REASONERS, ReasonerSpecSchema, RunReasonerSchema } from "../../../reason/spec.js";
import { configFromCommand, RUN_FLAGS } from "./run.js";

export const LIST_KINDS = ["tasks", "subcategories", "reasoners", "formats"] as const;
type ListKind = (typeof LIST_KINDS)[number];

/** The run options that decide which tasks a run draws (the rest, sources to reasoners, do not). */
const TASK_FIELDS = new Set(["suite", "perSubcategory", "subcategories", "limit", "seed", "paradigms"]);
const GENERATOR_FIELDS = new Set(Object.keys(GeneratorOptionsSchema.shape).map((k) => `generator.${k}`));
const TASK_FLAGS: readonly FlagSpec[] = RUN_FLAGS.filter((s) => TASK_FIELDS.has(s.path) || GENERATOR_FIELDS.has(s.path));

const table = (head: string[], rows: string[][]) => formatTable(head, rows) + "\n";
const yesNo = (b: boolean) => (b ? "yes" : "no");

function listSubcategories(): string {
  const rows = SUBCATEGORIES.map((s) => [
    s,
    SUBCATEGORY_TITLES[s],
    CATEGORY_TITLES[SUBCATEGORY_CATEGORY[s]],
    yesNo((BUILTIN_SUBCATEGORIES as readonly string[]).includes(s)),
    yesNo(LABEL_ANSWER_SUBCATEGORIES.has(s)),
  ]);
  return (
    table(["subcategory", "title", "category", "built-in suite", "answer is a label"], rows) +
    `(${SUBCATEGORIES.length} subcategories, ${BUILTIN_SUBCATEGORIES.length} in the built-in suite; --subcategories takes the first column)\n`
  );
}

function listReasoners(): string {
  const forms = [...OFFLINE_REASONERS.map((r) => [r, "offline"] as const), ...LLM_PROVIDERS.map((p) => [`${p}:<model>`, `language model (${p})`] as const)];
  const rows = forms.map(([name, kind]) => [name, kind, yesNo(RunReasonerSchema.safeParse(name).success), yesNo(ReasonerSpecSchema.safeParse(name).success)]);
  const runRule = RunReasonerSchema.safeParse("").error?.issues.at(-1)?.message;
  return table(["reasoner", "kind", "run --reasoner", "ask --reasoner"], rows) + (runRule ? `(run --reasoner: ${runRule})\n` : "");
}

function listFormats(): string {
  const fallback = PromptFormatSchema.parse({}).format;
  return (
    table(
      ["format", "default"],
      GRAPH_FORMATS.map((f) => [f, f === fallback ? "yes" : ""]),
    ) + "(graph serializations for language models, --format; docs/prompts.md shows each)\n"
  );
}

/** The tasks a run with these options draws: the built-in suite's plan (generated with --questions) or a directory's runnable tasks. */
async function listTasks(config: RunConfig, questions: boolean): Promise<string> {
  const head = ["task", "subcategory", "category"];
  // the planner and the generator load here, on use: the other lists and `list --help` do not pay for them
  const [{ builtinPlan, planTasks }, { generateTask, prepareGenerators }] = await Promise.all([
    import("../../../eval/runner.js"),
    import("../../../../bridge/sim/generate/suite.js"),
  ]);
  const taskRow = (t: Task) => [t.task_id, t.subcategory, t.category, t.answer_format, String(t.options.length), t.question];
  if (config.suite === "default" && !questions) {
    const plan = builtinPlan(config);
    return (
      table(
        head,
        plan.map((p) => [p.taskId, p.subcategory, SUBCATEGORY_CATEGORY[p.subcategory]]),
      ) + `(${plan.length} tasks of the built-in suite, seed ${config.seed}; --questions generates each, as a run does, to show its question)\n`
    );
  }
  const skipped: SkippedItem[] = [];
  const ctx = generatorContext(config.generator);
  if (config.suite === "default") await prepareGenerators(config.subcategories);
  const tasks = await planTasks(
    config,
    (s, i) => Promise.resolve(generateTask(s, config.seed, i, ctx)),
    () => null,
    skipped,
  );
  let out = table([...head, "answer format", "options", "question"], tasks.map(taskRow));
  out += `(${tasks.length} tasks${config.suite === "default" ? ` of the built-in suite, seed ${config.seed}` : ` in ${config.suite}`})\n`;
  if (skipped.length)
    out +=
      "\n" +
      table(
        ["skipped task", "subcategory", "paradigm", "reason"],
        skipped.map((k) => [k.task_id, k.subcategory, k.paradigm ?? "all", k.reason]),
      );
  return out;
}

export function registerList(program: Command): void {
  const cmd = program
    .command("list")
    .description("list what a run can use: tasks (of the built-in suite for these options, or of --suite DIR), subcategories, reasoners, graph formats")
    .argument("<kind>", LIST_KINDS.join(" | "), choiceOption("<kind>", LIST_KINDS))
    .option("--questions", "tasks of the built-in suite: generate each (as a run does; slower) to show its question")
    .option("--config <file>", "a run's JSON options file (as for run): list the tasks it draws");
  addSchemaFlags(cmd, RunConfigSchema, TASK_FLAGS, DEFAULT_RUN_CONFIG as unknown as Record<string, unknown>);
  cmd.action(async (kind: ListKind, opts: { questions?: boolean }) => {
    if (kind !== "tasks") {
      const given = [...TASK_FLAGS.map((s) => s.flag), "--questions", "--config <file>"]
        .filter((f) => cmd.getOptionValueSource(flagAttribute(f)) === "cli")
        .map((f) => f.split(" ")[0]);
      if (given.length) throw new InputError(`list ${kind}: ${given.join(", ")} only apply to list tasks`);
    }
    const text =
      kind === "tasks"
        ? await listTasks(configFromCommand(cmd, {}, TASK_FLAGS).config, !!opts.questions)
        : kind === "subcategories"
          ? listSubcategories()
          : kind === "reasoners"
            ? listReasoners()
            : listFormats();
    process.stdout.write(text);
  });
}
