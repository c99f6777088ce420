import { Command } from "commander";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_SUBCATEGORIES } from "../../../../bridge/task/taxonomy.js";
import { InputError } from "../../../core/errors.js";
import { MASK_MODES } from "../../../../scenegraph/evidence.js";
import { INSTANCE_MODES } from "../../../../scenegraph/build.js";
import { DEFAULT_RUN_CONFIG, NOISE_COMPONENT_NAMES, resolveRunConfig, RUN_PARADIGMS, RUN_SOURCES, type RunConfig } from "../../../eval/config.js";
import { runEvaluation, paperTable } from "../../../eval/runner.js";
import { GRAPH_FORMATS } from "../../../prompt/formats.js";
import { choiceOption, intOption, listOption, numberOption } from "../options.js";
import { Progress } from "../progress.js";
import { PACKAGE_VERSION } from "../../../core/version.js";

const D = DEFAULT_RUN_CONFIG;

/** The run options shared by `run` and `ablate`. */
export function addRunOptions(cmd: Command): Command {
  return cmd
    .option("--suite <suite>", "'default' (built-in suite, generated from --seed) or a directory of task JSON files", D.suite)
    .option("--per-subcategory <n>", "built-in suite: tasks per subcategory", intOption("--per-subcategory", 1, 10000), D.perSubcategory)
    .option("--subcategories <list>", "comma-separated subset of subcategories", listOption("--subcategories", BUILTIN_SUBCATEGORIES))
    .option("--limit <n>", "use at most n tasks (round-robin over subcategories)", intOption("--limit", 1))
    .option("--paradigm <list>", "view sets: single, multi, gt", listOption("--paradigm", RUN_PARADIGMS), D.paradigms)
    .option("--reasoner <name>", "symbolic (offline graph programs) | openai:<model> | gemini:<model>", D.reasoner)
    .option("--baseline <b>", "2d (symbolic-2d, or the VLM with images for an LLM reasoner) | none", choiceOption("--baseline", ["2d", "none"] as const), D.baseline)
    .option("--masks <mode>", "evidence for the 3D arms: semantic | instance | oracle | none", choiceOption("--masks", MASK_MODES), D.masks)
    .option("--instances <mode>", "instance builder: fusion | dbscan", choiceOption("--instances", INSTANCE_MODES), D.instances)
    .option("--format <f>", "graph serialization for LLMs: json | text | relations | cogmap", choiceOption("--format", GRAPH_FORMATS), D.format)
    .option("--uncertainty <on|off>", "uncertainty-aware serialization (node support and flags, relation margins)", choiceOption("--uncertainty", ["on", "off"] as const), "off")
    .option("--noise-seed <seed>", "seed of the noisy error model", D.noiseSeed)
    .option("--seed <seed>", "seed of the built-in suite", D.seed)
    .option("--concurrency <k>", "worker threads for CPU stages", intOption("--concurrency", 1, 64), D.concurrency)
    .option("--max-connections <n>", "model calls in flight at once", intOption("--max-connections", 1, 256), D.maxConnections)
    .option("--config <file>", "a JSON file with any of these options (camelCase keys); flags given on the command line win")
    .option("--base-url <url>", "OpenAI-compatible server (vLLM, Ollama, llama.cpp) or Gemini endpoint")
    .option("--cache <file>", "response cache (SQLite); default <out>/llm-cache.sqlite")
    .option("--no-cache", "do not use or fill the response cache")
    .option("--timeout <s>", "per-request timeout for model calls (s)", numberOption("--timeout", 1, 3600), D.llm.timeoutMs / 1000)
    .option("--max-retries <n>", "retries of a failed model call", intOption("--max-retries", 0, 20), D.llm.maxRetries)
    .option("--images <mode>", "VLM 2D baseline: single | multi", choiceOption("--images", ["single", "multi"] as const), D.images)
    .option("--max-images <n>", "VLM 2D baseline: images per question", intOption("--max-images", 1, 30), D.maxImages)
    .option("--vggt-model <path>", "vggt: the .onnx file; default $ESI3D_VGGT_MODEL")
    .option("--device <device>", "vggt: auto | cuda | cpu", choiceOption("--device", ["auto", "cuda", "cpu"] as const), D.vggt.device)
    .option("--out <dir>", "run directory (default runs/<seed>-<date>)")
    .option("--resume", "complete an interrupted run in --out");
}

/** Config layers: defaults <- --config file <- flags given on the command line. */
export function configFromCommand(cmd: Command, extra: Partial<RunConfig> = {}): { config: RunConfig; out: string; resume: boolean } {
  const o = cmd.opts() as Record<string, unknown>;
  const given = (name: string) => cmd.getOptionValueSource(name) === "cli";
  let fileLayer: Record<string, unknown> = {};
  if (o.config) {
    const f = o.config as string;
    if (!existsSync(f)) throw new InputError(`--config: ${f}: no such file`);
    try {
      fileLayer = JSON.parse(readFileSync(f, "utf8"));
    } catch (e) {
      throw new InputError(`--config: ${f}: not valid JSON (${(e as Error).message})`);
    }
  }
  const flags: Record<string, unknown> = {};
  const map: Array<[string, string, (v: unknown) => unknown]> = [
    ["suite", "suite", (v) => v],
    ["perSubcategory", "perSubcategory", (v) => v],
    ["subcategories", "subcategories", (v) => v],
    ["limit", "limit", (v) => v],
    ["paradigm", "paradigms", (v) => v],
    ["reasoner", "reasoner", (v) => v],
    ["baseline", "baseline", (v) => v],
    ["masks", "masks", (v) => v],
    ["instances", "instances", (v) => v],
    ["format", "format", (v) => v],
    ["uncertainty", "uncertainty", (v) => v === "on"],
    ["noiseSeed", "noiseSeed", (v) => v],
    ["seed", "seed", (v) => v],
    ["concurrency", "concurrency", (v) => v],
    ["maxConnections", "maxConnections", (v) => v],
    ["images", "images", (v) => v],
    ["maxImages", "maxImages", (v) => v],
  ];
  for (const [opt, key, conv] of map) if (given(opt) && o[opt] !== undefined) flags[key] = conv(o[opt]);
  if (given("source") && o.source !== undefined) flags.sources = o.source;
  if (given("noiseLevel") && o.noiseLevel !== undefined) flags.noiseLevel = o.noiseLevel;
  const llm: Record<string, unknown> = {};
  if (given("baseUrl")) llm.baseUrl = o.baseUrl;
  if (given("timeout")) llm.timeoutMs = Math.round((o.timeout as number) * 1000);
  if (given("maxRetries")) llm.maxRetries = o.maxRetries;
  const vggt: Record<string, unknown> = {};
  if (given("vggtModel")) vggt.modelPath = o.vggtModel;
  else if (process.env.ESI3D_VGGT_MODEL) vggt.modelPath = process.env.ESI3D_VGGT_MODEL;
  if (given("device")) vggt.device = o.device;
  const config0 = resolveRunConfig(fileLayer, flags, { llm, vggt }, extra);
  const out = (o.out as string | undefined) ?? (fileLayer.out as string | undefined) ?? join("runs", `${config0.seed}-${new Date().toISOString().slice(0, 19).replace(/[-:T]/g, "").replace(/^(\d{8})/, "$1-")}`);
  const cachePath = o.cache === false ? null : ((o.cache as string | undefined) ?? join(out, "llm-cache.sqlite"));
  const config = resolveRunConfig(config0, { llm: { ...config0.llm, cachePath: config0.reasoner === "symbolic" ? null : cachePath } });
  return { config, out, resume: !!o.resume };
}

export function registerRun(program: Command): void {
  const cmd = addRunOptions(
    program
      .command("run")
      .description("evaluate the pipeline on a task suite: 2D baseline vs 3D from each source, per subcategory and paradigm, with reports")
      .option("--source <list>", "point-cloud sources for the 3D arms: gt, noisy, vggt", listOption("--source", RUN_SOURCES), D.sources)
      .option("--noise-level <x>", "noisy: error level 0..1", numberOption("--noise-level", 0, 1), D.noiseLevel),
  );
  cmd.action(async () => {
    const { config, out, resume } = configFromCommand(cmd);
    const progress = new Progress("run", 0);
    const result = await runEvaluation({ config, out, resume, version: PACKAGE_VERSION, log: (l) => progress.line(l), progress });
    process.stdout.write("\n" + paperTable(result.summary) + "\n\n" + result.summary.headlines.map((h) => `- ${h}`).join("\n") + "\n\n");
    process.stdout.write(`wrote ${join(out, "items.jsonl")}, summary.json, report.md, report.html (${result.wallSeconds.toFixed(0)} s)${result.interrupted ? "; interrupted: rerun with --resume to finish" : ""}\n`);
    if (result.interrupted) process.exitCode = 130;
  });
  void NOISE_COMPONENT_NAMES;
}
