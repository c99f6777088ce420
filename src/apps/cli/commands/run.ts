import { Command } from "commander";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ZodError } from "zod";
import { EXIT_FAILURE, EXIT_INTERRUPTED, InputError } from "../../../../core/errors.js";
import { addSchemaFlags, parseSchemaFlags, schemaFlagValues, flagOfField, type FlagSpec } from "../../../../core/flags.js";
import { QUEUE_RUN_FLAGS, QueueRunOptionsSchema } from "../../../eval/queue/options.js";
import { VGGT_FLAGS } from "../../../../reconstruct/options.js";
import { GENERATOR_FLAGS } from "../../../../bridge/sim/generate/options.js";
import { GRAPH_FLAGS } from "../../../../scenegraph/options.js";
import { ACTIVE_FLAGS } from "../../../reason/active/options.js";
import { LLM_FLAGS } from "../../../llm/options.js";
import { IMAGE_FLAGS, OPTION_PRESENTATION_FLAGS, PROMPT_FORMAT_FLAGS } from "../../../prompt/formats.js";
import { DEFAULT_RUN_CONFIG, migrateRunConfig, modelReasoners, resolveRunConfig, RunConfigSchema, type RunConfig } from "../../../eval/config.js";
import { defaultCachePath } from "../../../llm/cache.js";
import { resumedConfig } from "../resume.js";
import { Progress } from "../progress.js";
import { INTERRUPT_NOTE, resumeHint, withInterrupts } from "../interrupts.js";
import { PACKAGE_VERSION } from "../../../../core/version.js";
import { givenPath, type NamedPath } from "../../../../core/outputPaths.js";
import { recordCacheFlags, refuseCacheContradiction } from "../cacheFlags.js";

const D = DEFAULT_RUN_CONFIG as unknown as Record<string, unknown>;
const prefixed = (prefix: string, specs: readonly FlagSpec[]) => specs.map((s) => ({ ...s, path: `${prefix}.${s.path}` }));

/** The flags of the run options shared by `run` and `ablate`, by field of RunConfig. */
export const RUN_FLAGS: readonly FlagSpec[] = [
  { path: "suite", flag: "--suite <suite>" },
  { path: "simulator", flag: "--simulator <name>" },
  { path: "perSubcategory", flag: "--per-subcategory <n>" },
  { path: "subcategories", flag: "--subcategories <list>", shownDefault: "all" },
  { path: "limit", flag: "--limit <n>" },
  { path: "paradigms", flag: "--paradigm <list>" },
  { path: "reasoner", flag: "--reasoner <list>" },
  { path: "baseline", flag: "--baseline <list>" },
  // a run's label modes are its arms (one column each), not a graph option: `labels` stays at the top
  ...GRAPH_FLAGS.map((s) => (s.path === "labels" ? s : { ...s, path: `graph.${s.path}` })),
  ...prefixed("prompt", PROMPT_FORMAT_FLAGS),
  ...prefixed("prompt", OPTION_PRESENTATION_FLAGS),
  ...prefixed("active", ACTIVE_FLAGS),
  { path: "noise.noiseSeed", flag: "--noise-seed <seed>" },
  { path: "seed", flag: "--seed <seed>" },
  ...prefixed("generator", GENERATOR_FLAGS),
  { path: "concurrency", flag: "--concurrency <k>" },
  { path: "maxConnections", flag: "--max-connections <n>" },
  ...prefixed("llm", LLM_FLAGS),
  ...prefixed("images", IMAGE_FLAGS),
  ...VGGT_FLAGS,
];
/** `run` only (ablate sweeps the noisy source's levels instead). */
export const RUN_ONLY_FLAGS: readonly FlagSpec[] = [
  { path: "sources", flag: "--source <list>" },
  { path: "noise.noiseLevel", flag: "--noise-level <x>" },
];

/** The run options shared by `run` and `ablate`. */
export function addRunOptions(cmd: Command, specs: readonly FlagSpec[] = RUN_FLAGS): Command {
  addSchemaFlags(cmd, RunConfigSchema, specs, D)
    .option("--config <file>", "a JSON file with any of these options (camelCase keys as in config.json, plus out); flags given on the command line win")
    .option(
      "--cache <file>",
      "response cache (SQLite), shared by every run and esi3d ask; default $XDG_CACHE_HOME/esi3d/llm-cache.sqlite or ~/.cache/esi3d/llm-cache.sqlite (docs/running.md: how keys are formed)",
    )
    .option("--no-cache", "do not use or fill the response cache")
    .option("--out <dir>", "run directory (default runs/<seed>-<date>)")
    .option(
      "--resume",
      "complete an interrupted run in --out with the options in its config.json (an option given beside it must agree, except worker counts and rate limits)",
    );
  return recordCacheFlags(cmd);
}

/** The --config file as an object of options; `out` is kept apart (it is not part of the run's config). */
function readConfigFile(f: string): { layer: Record<string, unknown>; out?: string } {
  if (!existsSync(f)) throw new InputError(`--config: ${f}: no such file`, { file: f });
  if (statSync(f).isDirectory()) throw new InputError(`--config: ${f}: is a directory, expected a JSON file`, { file: f });
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(f, "utf8"));
  } catch (e) {
    throw new InputError(`--config: ${f}: not valid JSON (${(e as Error).message})`, { file: f });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new InputError(
      `--config: ${f}: expected a JSON object of options (camelCase keys), got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`,
      { file: f },
    );
  // JSON.parse keeps "__proto__" as an own key, which every later spread and schema silently drops
  const forbidden = Object.keys(value).find((k) => k === "__proto__" || k === "constructor" || k === "prototype");
  if (forbidden)
    throw new InputError(`--config: ${f}: ${forbidden}: not an option (keys are the camelCase options of config.json, plus out)`, {
      file: f,
      field: forbidden,
    });
  const { out, ...layer } = value as Record<string, unknown>;
  if (out !== undefined && typeof out !== "string") throw new InputError(`--config: ${f}: out: expected a directory path (string)`, { file: f, field: "out" });
  // a file in the flat form of earlier versions (an old config.json's `config`) reads as the nested form
  try {
    return { layer: migrateRunConfig(layer) as Record<string, unknown>, out: out as string | undefined };
  } catch (e) {
    if (e instanceof InputError) throw new InputError(`--config: ${f}: ${e.message}`, { file: f, field: e.field });
    throw e;
  }
}

/** Config layers: defaults <- --config file <- flags given on the command line; errors name the file or the flag. */
export function configFromCommand(
  cmd: Command,
  extra: Partial<RunConfig> = {},
  specs: readonly FlagSpec[] = RUN_FLAGS,
): { config: RunConfig; out: string; resume: boolean; inputs: NamedPath[] } {
  const o = cmd.opts() as { config?: string; cache?: string | false; out?: string; resume?: boolean };
  refuseCacheContradiction(cmd);
  const inputs = givenPath("--config", o.config);
  const file = o.config ? readConfigFile(o.config) : { layer: {} };
  const flags = schemaFlagValues(cmd, specs, true);
  if (o.resume) {
    const cache = cmd.getOptionValueSource("cache") === "cli" ? (o.cache === false ? null : o.cache!) : undefined;
    const r = resumedConfig({
      out: o.out ?? file.out,
      flags,
      specs,
      configFile: o.config ? { path: o.config, layer: file.layer } : undefined,
      extra: extra as Record<string, unknown>,
      cache,
    });
    return { ...r, resume: true, inputs };
  }
  if (!cmd.getOptionValueSource("vggtModel") && process.env.ESI3D_VGGT_MODEL)
    flags.vggt = { ...(flags.vggt as object), modelPath: process.env.ESI3D_VGGT_MODEL };
  const resolve = (...layers: Array<Record<string, unknown>>) => {
    try {
      return resolveRunConfig(...layers);
    } catch (e) {
      if (!(e instanceof ZodError)) throw e;
      const issue = e.issues[0]!;
      const path = issue.path.map(String).join(".");
      // a list's element ("reasoner.1") belongs to the list's flag
      const field = specs.find((s) => path === s.path || path.startsWith(`${s.path}.`))?.path ?? path;
      const fromFlag =
        specs.some((s) => s.path === field) && field.split(".").reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], flags) !== undefined;
      const where = fromFlag ? flagOfField(specs, field) : o.config ? `--config: ${o.config}: ${path || "(root)"}` : path || "(options)";
      throw new InputError(`${where}: ${issue.message}`, { file: fromFlag ? undefined : o.config, field: path });
    }
  };
  const config0 = resolve(file.layer, flags, extra as Record<string, unknown>);
  const out =
    o.out ??
    file.out ??
    join(
      "runs",
      `${config0.seed}-${new Date()
        .toISOString()
        .slice(0, 19)
        .replace(/[-:T]/g, "")
        .replace(/^(\d{8})/, "$1-")}`,
    );
  // one cache for every run of this user by default: a key is the whole request, so a hit is always the same request
  const cachePath = o.cache === false ? null : (o.cache ?? defaultCachePath());
  const config = resolve(config0 as unknown as Record<string, unknown>, {
    llm: { ...config0.llm, cachePath: modelReasoners(config0).length ? cachePath : null },
  });
  refuseIdleGeneration(config, specs);
  return { config, out, resume: false, inputs };
}

/** The generation options only a model reads: the symbolic programs are deterministic and send no prompt. */
const GENERATION_FIELDS = ["temperature", "maxOutputTokens", "systemPrompt", "samples"] as const;

/** A generation option (or option labels) set for a run without a model reasoner would be recorded and silently mean nothing: refused. */
function refuseIdleGeneration(config: RunConfig, specs: readonly FlagSpec[]): void {
  if (modelReasoners(config).length) return;
  const set = GENERATION_FIELDS.find((k) => config.llm[k] !== DEFAULT_RUN_CONFIG.llm[k]);
  if (set)
    throw new InputError(
      `${flagOfField(specs, `llm.${set}`)}: only model reasoners (openai:<model>, gemini:<model>) take it; this run's reasoners are ${config.reasoner.join(",")}`,
      { field: `llm.${set}` },
    );
  // offline programs read no prompt: they answer with an option's text whatever the labels
  if (config.prompt.optionLabels !== DEFAULT_RUN_CONFIG.prompt.optionLabels)
    throw new InputError(
      `${flagOfField(specs, "prompt.optionLabels")}: only model reasoners (openai:<model>, gemini:<model>) read prompts, where the options are labelled; this run's reasoners are ${config.reasoner.join(",")}`,
      { field: "prompt.optionLabels" },
    );
}

export function registerRun(program: Command): void {
  const specs = [...RUN_FLAGS, ...RUN_ONLY_FLAGS];
  const cmd = addSchemaFlags(
    addRunOptions(
      program
        .command("run")
        .description("evaluate the pipeline on a task suite: 2D baseline vs 3D from each source, per subcategory and paradigm, with reports"),
      specs,
    ),
    QueueRunOptionsSchema,
    QUEUE_RUN_FLAGS,
  );
  cmd.option(
    "--prices <file>",
    "a price table (JSON, esi3d-prices/1: docs/logs.md) for the token costs in summary.json and report.md; without one costs are unknown (esi3d assumes no price)",
  );
  cmd.action(async () => {
    const { config, out, resume, inputs } = configFromCommand(cmd, {}, specs);
    const queue = parseSchemaFlags(cmd, QueueRunOptionsSchema, QUEUE_RUN_FLAGS);
    // a store is where a queue's workers read and write: without --queue it would be recorded and mean nothing
    if (queue.store !== null && queue.url === null)
      throw new InputError("--store: only with --queue (the shared store of a queue run's workers); a run without --queue keeps everything in --out", {
        field: "store",
      });
    // the runner and its report load here, on use: `run --help` and a usage error do not pay for them
    const [{ runEvaluation }, { readPriceTable }, { mainFailure, nothingSucceeded }, { leaderboardTable, paperTable }] = await Promise.all([
      import("../../../eval/runner.js"),
      import("../../../eval/usage.js"),
      import("../../../eval/summary.js"),
      import("../../../eval/report.js"),
    ]);
    const pricesFile = (cmd.opts() as { prices?: string }).prices;
    const prices = pricesFile ? readPriceTable(pricesFile) : null;
    const progress = new Progress("run", 0);
    const result = await withInterrupts(
      () => progress.line(INTERRUPT_NOTE),
      (signals) =>
        runEvaluation({
          config,
          out,
          resume,
          inputs: [...inputs, ...givenPath("--prices", pricesFile)],
          version: PACKAGE_VERSION,
          log: (l) => progress.line(l),
          progress,
          queue,
          prices,
          ...signals,
        }),
    );
    const partial = result.interrupted ? `INTERRUPTED: the tables below cover only the ${result.records.length} items done so far\n` : "";
    process.stdout.write(
      "\n" +
        partial +
        paperTable(result.summary) +
        "\n\n" +
        leaderboardTable(result.summary, config.reasoner) +
        "\n\n" +
        result.summary.headlines.map((h) => `- ${h}`).join("\n") +
        "\n\n",
    );
    process.stdout.write(`wrote ${join(out, "items.jsonl")}, summary.json, report.md, report.html (${result.wallSeconds.toFixed(0)} s)\n`);
    if (result.interrupted) process.stdout.write(resumeHint("run", out));
    if (result.interrupted) process.exitCode = EXIT_INTERRUPTED;
    else if (nothingSucceeded(result.records)) {
      // every model call failed (a bad key, a dead endpoint): a run of nothing must not look like a result
      const causes = Object.entries(result.summary.failures?.byClass ?? {})
        .map(([c, n]) => `${c} ${n}`)
        .join(", ");
      const main = mainFailure(result.records);
      const cause = main ? `; most common cause ${main.class} (${main.count} items): ${main.message}` : "";
      process.stderr.write(`esi3d: run: no item got an answer (${causes})${cause}; see the error field of ${join(out, "items.jsonl")}\n`);
      process.exitCode = EXIT_FAILURE;
    }
  });
}
