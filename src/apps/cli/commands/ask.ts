import type { Command } from "commander";
import { existsSync, readFileSync, statSync } from "node:fs";
import { readBundle, type FrameBundle } from "../../../../bridge/bundle/io.js";
import { readTaskFile } from "../../../../bridge/task/io.js";
import { InputError } from "../../../core/errors.js";
import type { AnswerFormat, Task } from "../../../../bridge/task/schema.js";
import type { SceneGraph } from "../../../../scenegraph/types.js";
import { createReasoner } from "../../../reason/index.js";
import { GRAPH_FORMATS, type GraphFormat } from "../../../prompt/formats.js";
import { scoreAnswer } from "../../../eval/score.js";
import { addGraphOptions, graphFromBundle } from "./graph.js";
import { choiceOption, intOption, numberOption } from "../options.js";

/** Answer format of a free-form question, from its options or its first words. */
function inferFormat(question: string, options: string[] | undefined): AnswerFormat {
  if (options?.length) return options.every((o) => /^-?\d+$/.test(o)) ? "integer" : "choice";
  if (/^\s*how many\b/i.test(question)) return "integer";
  if (/^\s*(is|are|do|does|did|can|could|was|were|has|have|will|would|should)\b/i.test(question)) return "yes_no";
  throw new InputError(`--question: cannot tell the answer format of "${question}"; give --options a,b,c (or ask a yes/no or "how many" question)`);
}

export function registerAsk(program: Command): void {
  addGraphOptions(
    program
      .command("ask")
      .description("answer a question over a scene graph or a frame bundle and show the prompt, the reply and the parsed answer")
      .argument("<graph-or-bundle>", "a scene-graph JSON (esi3d graph -o) or a frame bundle directory"),
  )
    .option("--question <text>", "a question of your own (default: the bundle's task question, which is then scored)")
    .option("--options <list>", "answer options for --question, comma-separated")
    .option("--task <file>", "the task record, when the input is a graph JSON")
    .option("--reasoner <name>", "symbolic | symbolic-2d | openai:<model> | gemini:<model>", "symbolic")
    .option("--show-prompt", "print the exact prompt sent to the model")
    .option("--format <f>", "graph serialization for LLMs: json | text | relations | cogmap", choiceOption("--format", GRAPH_FORMATS), "relations")
    .option("--uncertainty <on|off>", "uncertainty-aware serialization", choiceOption("--uncertainty", ["on", "off"] as const), "off")
    .option("--images <mode>", "VLM 2D baseline: send images instead of the graph (single | multi)", choiceOption("--images", ["single", "multi"] as const))
    .option("--max-images <n>", "images for --images multi", intOption("--max-images", 1, 30), 8)
    .option("--base-url <url>", "OpenAI-compatible server or Gemini endpoint")
    .option("--cache <file>", "response cache (SQLite)", ".esi3d-cache.sqlite")
    .option("--no-cache", "do not use the response cache")
    .option("--timeout <s>", "per-request timeout (s)", numberOption("--timeout", 1, 3600), 300)
    .option("--max-retries <n>", "retries of a failed model call", intOption("--max-retries", 0, 20), 4)
    .action(async (input: string, opts: Record<string, unknown>) => {
      if (!existsSync(input)) throw new InputError(`${input}: no such file or directory (expected a scene-graph JSON or a frame bundle directory)`);
      const reasonerName = opts.reasoner as string;
      const custom = opts.question as string | undefined;
      if (custom && (reasonerName === "symbolic" || reasonerName === "symbolic-2d")) throw new InputError(`--question: the ${reasonerName} reasoner runs one program per built-in subcategory and answers only the task's own question; use an LLM reasoner (openai:<model>, gemini:<model>) for questions of your own`);
      let task: Task;
      let graph: SceneGraph | undefined;
      let bundle: FrameBundle | undefined;
      const wantsBundle = reasonerName === "symbolic-2d" || !!opts.images;
      if (statSync(input).isDirectory()) {
        bundle = readBundle(input);
        task = bundle.manifest.task;
        if (!wantsBundle) graph = (await graphFromBundle(input, opts)).graph;
      } else {
        let raw: unknown;
        try {
          raw = JSON.parse(readFileSync(input, "utf8"));
        } catch (e) {
          throw new InputError(`${input}: not valid JSON (${(e as Error).message})`);
        }
        const g = raw as SceneGraph;
        if (g.format !== "esi3d-graph/1") throw new InputError(`${input}: format: expected "esi3d-graph/1" (a file written by esi3d graph -o), found ${JSON.stringify(g.format)}`);
        if (wantsBundle) throw new InputError(`${reasonerName === "symbolic-2d" ? "symbolic-2d" : "--images"} needs the frame bundle (its masks or images), not a graph`);
        graph = g;
        if (!opts.task) throw new InputError(`--task: give the task record of ${input} (its question, options and viewpoint)`);
        task = readTaskFile(opts.task as string);
      }
      if (custom) {
        const options = (opts.options as string | undefined)?.split(",").map((s) => s.trim()).filter(Boolean);
        const format = inferFormat(custom, options);
        const opt = options ?? (format === "yes_no" ? ["yes", "no"] : []);
        task = { ...task, question: custom, answer_format: format, options: opt, answer: opt[0] ?? "0" };
      }
      const reasoner = createReasoner(reasonerName, {
        baseUrl: opts.baseUrl as string | undefined,
        cache: opts.cache === false ? null : (opts.cache as string),
        timeoutMs: Math.round((opts.timeout as number) * 1000),
        maxRetries: opts.maxRetries as number,
        format: opts.format as GraphFormat,
        uncertainty: opts.uncertainty === "on",
      });
      const a = await reasoner.answer({ task, graph, bundle, format: opts.format as GraphFormat, uncertainty: opts.uncertainty === "on", images: opts.images as "single" | "multi" | undefined, maxImages: opts.maxImages as number });
      const out: string[] = [];
      out.push(`question: ${task.question}`);
      if (task.options.length) out.push(`options: ${task.options.join(" | ")}`);
      if (opts.showPrompt) out.push("", a.prompt ? `--- prompt ---\n${a.prompt}\n--- end of prompt ---` : `(${reasoner.id} builds no prompt: it is an offline program)`);
      out.push("", `${a.prompt ? "reply" : "program trace"}:`, ...a.raw.map((r) => `  ${r}`), "");
      out.push(`answer: ${a.answer ?? "(none)"}${a.confidence !== null ? ` (confidence ${a.confidence})` : ""} [${a.status}, ${a.method}${a.reprompted ? ", re-prompted" : ""}]`);
      if (a.status !== "parsed" && a.reason) out.push(`why: ${a.reason}`);
      if (!custom) {
        const s = a.status === "parsed" && a.answer !== null ? scoreAnswer(a, task) : null;
        out.push(s && s.scored ? `correct: ${s.correct ? "yes" : "no"} (truth: ${task.answer})` : `not scored (${a.status}); truth: ${task.answer}`);
      }
      process.stdout.write(out.join("\n") + "\n");
      if (a.status === "error") process.exitCode = 1;
    });
}
