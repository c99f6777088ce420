import type { Command } from "commander";
import { existsSync } from "node:fs";
import { readBundle, type FrameBundle } from "../../../../core/bundle/io.js";
import type { AnswerFormat, Task } from "../../../../core/task/schema.js";
import { graphOfBundle, masksForBundle } from "../../../../scenegraph/pipeline.js";
import { GRAPH_PIPELINE_FLAGS, GraphPipelineOptionsSchema } from "../../../../scenegraph/pipelineOptions.js";
import { freeQuestionTask } from "../../../../core/bundle/freeTask.js";
import type { SceneGraph } from "../../../../scenegraph/types.js";
import { InputError } from "../../../../core/errors.js";
import { checkOutputs, givenPath } from "../../../../core/outputPaths.js";
import { recordCacheFlags, refuseCacheContradiction } from "../cacheFlags.js";
import { printable } from "../../../../core/terminal.js";
import { addSchemaFlags, parseFlagValue, parseSchemaFlags } from "../../../../core/flags.js";
import { LLM_FLAGS, LlmOptionsSchema } from "../../../llm/options.js";
import { defaultCachePath } from "../../../llm/cache.js";
import {
  IMAGE_FLAGS,
  ImageOptionsSchema,
  OPTION_PRESENTATION_FLAGS,
  OptionPresentationSchema,
  PROMPT_FORMAT_FLAGS,
  PromptFormatSchema,
} from "../../../prompt/formats.js";
import { createReasoner } from "../../../reason/index.js";
import { ReasonerSpecSchema } from "../../../reason/spec.js";
import { scoreAnswer, scoreCircular } from "../../../eval/score.js";
import { rotateOptions, withCircular } from "../../../reason/circular.js";
import { ACTIVE_FLAGS, ActiveOptionsSchema } from "../../../reason/active/options.js";
import { choiceOption } from "../../../../core/flags.js";
import { askEpisode, ASK_PARADIGMS, episodeTask } from "./askActive.js";
import { askInputKind, graphInput, renderedTask, RENDERED_PARADIGMS } from "./askInputs.js";
import { askRunItem } from "./askItem.js";

/** Answer format of a free-form question, from its options or its first words. */
function inferFormat(question: string, options: string[] | undefined): AnswerFormat {
  if (options?.length) return options.every((o) => /^-?\d+$/.test(o)) ? "integer" : "choice";
  if (/^\s*how many\b/i.test(question)) return "integer";
  if (/^\s*(is|are|do|does|did|can|could|was|were|has|have|will|would|should)\b/i.test(question)) return "yes_no";
  throw new InputError(`--question: cannot tell the answer format of "${question}"; give --options a,b,c (or ask a yes/no or "how many" question)`);
}

/** The commander attribute of a flag: "--max-steps <n>" -> "maxSteps". */
const camel = (flag: string) =>
  flag
    .split(" ")[0]!
    .replace(/^--/, "")
    .replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

interface AskOpts {
  question?: string;
  options?: string;
  task?: string;
  reasoner: string;
  showPrompt?: boolean;
  cache: string | false;
  paradigm?: (typeof ASK_PARADIGMS)[number] | (typeof RENDERED_PARADIGMS)[number];
  saveEpisode?: string;
  item?: string;
}

/** A question of one's own: its text, options and format (the answer is not scored). */
function withQuestion(question: string, optionList: string | undefined): Pick<Task, "question" | "answer_format" | "options" | "answer"> {
  const options = optionList
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const fmt = inferFormat(question, options);
  const opt = options ?? (fmt === "yes_no" ? ["yes", "no"] : []);
  return { question, answer_format: fmt, options: opt, answer: opt[0] ?? "0" };
}

export function registerAsk(program: Command): void {
  const cmd = program
    .command("ask")
    .description(
      "answer a question over a scene graph or a frame bundle and show the prompt, the reply and the parsed answer; ask one item of a run again (RUN --item KEY) beside its stored record; with --paradigm active, run one active episode from a task's initial pose and show it step by step",
    )
    .argument(
      "<input>",
      "a scene-graph file (esi3d graph -o, a run's graphs/<task>/<paradigm>__<source>.json, inspect --graph-json), a frame bundle directory, a task JSON with --paradigm (rendered by the built-in simulator), or a run directory with --item",
    );
  addSchemaFlags(cmd, GraphPipelineOptionsSchema, GRAPH_PIPELINE_FLAGS);
  addSchemaFlags(cmd, PromptFormatSchema, PROMPT_FORMAT_FLAGS);
  addSchemaFlags(cmd, OptionPresentationSchema, OPTION_PRESENTATION_FLAGS);
  // --images switches to the VLM 2D baseline, so it has no default here
  addSchemaFlags(cmd, ImageOptionsSchema, IMAGE_FLAGS, { maxImages: ImageOptionsSchema.shape.maxImages.parse(undefined) });
  addSchemaFlags(cmd, LlmOptionsSchema, LLM_FLAGS)
    .option(
      "--question <text>",
      "a question of your own (default: the bundle's task question, which is then scored; a bundle without a task, e.g. an imported scene, needs one)",
    )
    .option("--options <list>", "answer options for --question, comma-separated")
    .option("--task <file>", "the task record, when the input is a graph file (a run's own graph files find theirs)")
    .option(
      "--item <key>",
      'with a run directory: the item to ask again (its key in items.jsonl, e.g. "linear_alignment-000|multi|3d:noisy"), with the run\'s configuration; flags such as --reasoner, --format, --uncertainty, --images, --masks change how it is asked',
    )
    .option("--reasoner <name>", ReasonerSpecSchema.description ?? "", "symbolic")
    .option("--show-prompt", "print the exact prompt sent to the model")
    .option("--cache <file>", "response cache (SQLite), shared with esi3d run", defaultCachePath())
    .option("--no-cache", "do not use the response cache")
    .option(
      "--paradigm <p>",
      "a task JSON: the views to ask over (single, multi, gt: rendered by the built-in simulator); active: an agent explores the task's scene and answers (docs/active.md); without it a bundle's own views are asked",
      choiceOption("--paradigm", [...RENDERED_PARADIGMS, ...ASK_PARADIGMS]),
    )
    .option("--save-episode <dir>", "--paradigm active: write the views the agent gathered as a frame bundle (paradigm active)");
  addSchemaFlags(cmd, ActiveOptionsSchema, ACTIVE_FLAGS);
  recordCacheFlags(cmd);
  cmd.action(async (input: string, opts: AskOpts) => {
    refuseCacheContradiction(cmd);
    const cacheGiven = cmd.getOptionValueSource("cache") === "cli" && typeof opts.cache === "string" ? opts.cache : undefined;
    checkOutputs(
      [{ what: "<input>", path: input }, ...givenPath("--task", opts.task)],
      [...givenPath("--save-episode", opts.saveEpisode), ...givenPath("--cache", cacheGiven)],
    );
    if (!existsSync(input))
      throw new InputError(`${input}: no such file or directory (expected a scene-graph file, a frame bundle, a task JSON or a run directory)`);
    const kind = askInputKind(input);
    if (kind === "run") return askRunItem(cmd, input, opts);
    if (opts.item)
      throw new InputError(
        `--item: only with a run directory (esi3d run --out DIR); ${input} is a ${kind === "graph" ? "graph file" : kind === "task" ? "task JSON" : "frame bundle"}`,
        { field: "item" },
      );
    const reasonerName = parseFlagValue(ReasonerSpecSchema, opts.reasoner, "--reasoner");
    const format = parseSchemaFlags(cmd, PromptFormatSchema, PROMPT_FORMAT_FLAGS);
    const { optionLabels, circular } = parseSchemaFlags(cmd, OptionPresentationSchema, OPTION_PRESENTATION_FLAGS);
    const images = cmd.opts().images as "single" | "multi" | undefined;
    const maxImages = cmd.opts().maxImages as number;
    const llm = parseSchemaFlags(cmd, LlmOptionsSchema, LLM_FLAGS);
    const custom = opts.question;
    if (reasonerName === "shortcut" && opts.paradigm === "active")
      throw new InputError("--reasoner shortcut answers from the question and options alone: it takes no views, so no --paradigm active episode");
    if (custom && (reasonerName === "symbolic" || reasonerName === "symbolic-2d" || reasonerName === "shortcut"))
      throw new InputError(
        `--question: the ${reasonerName} reasoner runs one program per built-in subcategory and answers only the task's own question; use an LLM reasoner (openai:<model>, gemini:<model>) for questions of your own`,
      );
    if (optionLabels === "letters" && (reasonerName === "symbolic" || reasonerName === "symbolic-2d" || reasonerName === "shortcut"))
      throw new InputError(
        `--option-labels: the ${reasonerName} reasoner reads no prompt (it answers with an option's text); use an LLM reasoner (openai:<model>, gemini:<model>)`,
      );
    if (circular && opts.paradigm === "active")
      throw new InputError(
        "--circular: an active episode is asked once, in the options' own order (each rotation would be an exploration of its own); drop --circular or --paradigm active",
      );
    if (opts.paradigm !== "active") {
      // the active options only mean something in an episode: refuse them rather than ignore them
      const given = [...ACTIVE_FLAGS.map((f) => f.flag), "--save-episode <dir>"].find((f) => cmd.getOptionValueSource(camel(f)) === "cli");
      if (given) throw new InputError(`${given.split(" ")[0]}: only with --paradigm active (an episode); without it ask answers over the input's own views`);
    } else {
      const wants2d = reasonerName === "symbolic-2d" || !!images;
      let task = episodeTask(input);
      if (custom) task = { ...task, ...withQuestion(custom, opts.options) };
      const r = await askEpisode({
        task,
        reasoner: reasonerName,
        cloud: wants2d ? null : parseSchemaFlags(cmd, GraphPipelineOptionsSchema, GRAPH_PIPELINE_FLAGS),
        active: parseSchemaFlags(cmd, ActiveOptionsSchema, ACTIVE_FLAGS),
        format,
        optionLabels,
        llm,
        cache: opts.cache === false ? null : opts.cache,
        showTrace: !!opts.showPrompt,
        saveEpisode: opts.saveEpisode,
        scored: !custom,
      });
      process.stdout.write(printable(r.text));
      if (r.outcome.answer.status === "error") process.exitCode = 1;
      return;
    }
    // a reasoner that cannot be made (no key, bad URL) fails here, before any graph is built
    const reasoner = withCircular(
      createReasoner(reasonerName, { llm, prompt: { ...format, optionLabels }, cache: opts.cache === false ? null : opts.cache }),
      circular,
    );
    let task: Task;
    let graph: SceneGraph | undefined;
    let bundle: FrameBundle | undefined;
    const wantsBundle = reasonerName === "symbolic-2d" || !!images;
    if (kind === "bundle" || kind === "task") {
      bundle = kind === "task" ? renderedTask(input, opts.paradigm) : readBundle(input);
      if (kind === "bundle" && opts.paradigm && opts.paradigm !== bundle.manifest.paradigm)
        throw new InputError(
          `--paradigm ${opts.paradigm}: the bundle ${input} holds ${bundle.manifest.paradigm} views (a bundle is asked over its own views; give a task JSON to render other ones)`,
          { field: "paradigm" },
        );
      if (bundle.manifest.task) task = bundle.manifest.task;
      else if (custom) task = freeQuestionTask(bundle.manifest, withQuestion(custom, opts.options));
      else
        throw new InputError(
          `--question: ${input} has no task record (${bundle.manifest.simulator}: a scene of one's own), so it has no question of its own; ask one with --question "..." and an LLM reasoner`,
        );
      if (!wantsBundle && reasonerName !== "shortcut") {
        const m0 = masksForBundle(bundle, parseSchemaFlags(cmd, GraphPipelineOptionsSchema, GRAPH_PIPELINE_FLAGS), cmd.getOptionValueSource("masks") === "cli");
        if (m0.note) process.stderr.write(`ask: ${m0.note}\n`);
        const r = await graphOfBundle(bundle, m0.options, { diagnose: false, log: (m) => process.stderr.write(`vggt: ${m}\n`) });
        for (const note of r.notes) process.stderr.write(`ask: ${note}\n`);
        graph = r.graph;
      }
    } else {
      if (wantsBundle)
        throw new InputError(`${reasonerName === "symbolic-2d" ? "symbolic-2d" : "--images"} needs the frame bundle (its masks or images), not a graph`);
      if (opts.paradigm)
        throw new InputError(`--paradigm ${opts.paradigm}: ${input} is a scene graph, already built from its views; --paradigm renders a task JSON's views`, {
          field: "paradigm",
        });
      const g = graphInput(input, opts.task, custom ? withQuestion(custom, opts.options) : null);
      if (g.note) process.stderr.write(`ask: ${g.note}\n`);
      graph = g.graph;
      task = g.task;
    }
    if (custom) task = { ...task, ...withQuestion(custom, opts.options) };
    const a = await reasoner.answer({ task, graph, bundle, uncertainty: format.uncertainty, images, maxImages });
    const out: string[] = [];
    out.push(`question: ${task.question}`);
    if (task.options.length) out.push(`options: ${task.options.join(" | ")}`);
    if (opts.showPrompt)
      out.push("", a.prompt ? `--- prompt ---\n${a.prompt}\n--- end of prompt ---` : `(${reasoner.id} builds no prompt: it is an offline program)`);
    out.push("", `${a.prompt ? "reply" : "program trace"}:`, ...a.raw.map((r) => `  ${r}`), "");
    out.push(
      `answer: ${a.answer ?? "(none)"}${a.confidence !== null ? ` (confidence ${a.confidence})` : ""} [${a.status}, ${a.method}${a.match ? `, matched by ${a.match}` : ""}${a.reprompted ? ", re-prompted" : ""}]`,
    );
    if (a.status !== "parsed" && a.reason) out.push(`why: ${a.reason}`);
    const rotations = a.rotations ? scoreCircular(a.rotations, task) : null;
    if (rotations) {
      a.rotations!.forEach((r, i) => {
        const verdict = custom || rotations.correct[i] === null ? "" : rotations.correct[i] ? ", right" : ", wrong";
        out.push(`  rotation ${i} (${rotateOptions(task.options, i).join(" | ")}): ${r.answer ?? `(none: ${r.reason ?? r.status})`}${verdict}`);
      });
    }
    if (!custom) {
      const s = a.status === "parsed" && a.answer !== null ? scoreAnswer(a, task) : null;
      const right = rotations ? rotations.all : s && s.scored ? s.correct : null;
      out.push(
        right !== null
          ? `correct: ${right ? "yes" : "no"}${rotations ? ` (every rotation must be right)` : ""} (truth: ${task.answer})`
          : `not scored (${a.status}); truth: ${task.answer}`,
      );
    }
    // a reply's (or a question's) control characters are shown as escapes, never sent to the terminal
    process.stdout.write(printable(out.join("\n")) + "\n");
    if (a.status === "error") process.exitCode = 1;
  });
}
