/**
 * The fully resolved configuration of a run (config.json): defaults <- --config file <- flags. Composed
 * from the option sets of the stages (cloud sources, noise, VGGT, graphs, prompts, reasoners, model calls),
 * so a run, `esi3d graph` and the service accept the same options under the same names.
 */
import * as z from "zod";
import { BUILTIN_SUBCATEGORIES } from "../../core/task/taxonomy.js";
import { SourceSchema, SOURCES, VggtOptionsSchema } from "../../reconstruct/options.js";
import { NoiseOptionsSchema, type NoiseSettings } from "../../reconstruct/noisy/params.js";
import { GraphOptionsSchema } from "../../scenegraph/options.js";
import { LABEL_MODES, type LabelMode } from "../../scenegraph/options.js";
import { LlmOptionsSchema } from "../llm/options.js";
import { ImageOptionsSchema, OptionPresentationSchema, PromptFormatSchema } from "../prompt/formats.js";
import { isLlmReasoner, RunReasonersSchema } from "../reason/spec.js";
import { ActiveOptionsSchema } from "../reason/active/options.js";
import { InputError } from "../../core/errors.js";
import { GeneratorOptionsSchema } from "../../bridge/sim/generate/options.js";

export const RUN_PARADIGMS = ["single", "multi", "gt", "active"] as const;
/** Who renders a run's views in-process: the built-in simulator (imported ESI-Bench tasks as proxy scenes). */
const RUN_SIMULATORS = ["builtin"] as const;
export { NOISE_COMPONENTS as NOISE_COMPONENT_NAMES } from "../../reconstruct/noisy/params.js";
import { MAX_NOISE_LEVEL } from "../../reconstruct/noisy/params.js";

/** The baseline arms a run can add beside its 3D arms; "none" alone adds neither. */
const BASELINES = ["2d", "shortcut", "none"] as const;
export type BaselineArm = Exclude<(typeof BASELINES)[number], "none">;
/** Whether a run has this baseline arm. */
export const hasBaseline = (config: Pick<RunConfig, "baseline">, arm: BaselineArm): boolean => config.baseline.includes(arm);
/** The baseline arms of a run, in BASELINES order. */
export const baselineArms = (config: Pick<RunConfig, "baseline">): BaselineArm[] => (["2d", "shortcut"] as const).filter((b) => hasBaseline(config, b));

/** A seed is also a file-name part of the default run directory: letters, digits, '_', '.', '-'. */
const SEED_PATTERN = /^[A-Za-z0-9_.-]+$/;

/** The graph options of a run: the graph stage's, less the label mode (a run's `labels` lists one arm per mode). */
export const RunGraphOptionsSchema = GraphOptionsSchema.omit({ labels: true });
/**
 * How a run's prompts carry the evidence and list the options (the prompt stage's two schemas as one object: the
 * active paradigm's episodes are asked once, in the options' own order, docs/prompts.md "Reading the answer").
 */
export const RunPromptOptionsSchema = PromptFormatSchema.extend(OptionPresentationSchema.shape).strict();

export const RunConfigSchema = z
  .object({
    suite: z.string().min(1).default("default").describe("'default' (the built-in suite, generated from the seed) or a directory of task JSON files"),
    simulator: z
      .enum(RUN_SIMULATORS)
      .default("builtin")
      .describe(
        "who renders: builtin (imported ESI-Bench tasks run as proxy scenes; OmniGibson renders go through bridge/omnigibson/capture.py and esi3d serve)",
      ),
    perSubcategory: z.number().int().min(1).max(10000).default(10).describe("built-in suite: tasks per subcategory"),
    subcategories: z
      .array(z.enum(BUILTIN_SUBCATEGORIES))
      .min(1)
      // named twice, a subcategory's tasks were planned twice and counted twice
      .superRefine((l, ctx) => {
        const twice = l.find((x, i) => l.indexOf(x) !== i);
        if (twice) ctx.addIssue({ code: "custom", message: `each subcategory once: ${twice} is named twice` });
      })
      .default([...BUILTIN_SUBCATEGORIES])
      .describe("comma-separated subset of subcategories"),
    limit: z.number().int().min(1).nullable().default(null).describe("use at most this many tasks (round-robin over subcategories)"),
    sources: z.array(SourceSchema).min(1).default(["gt", "noisy"]).describe("point-cloud sources for the 3D arms: gt, noisy, vggt"),
    paradigms: z
      .array(z.enum(RUN_PARADIGMS))
      .min(1)
      .default(["single", "multi", "gt"])
      .describe("view sets: single, multi, gt; active (an agent chooses its views: docs/active.md)"),
    reasoner: RunReasonersSchema.default(["symbolic"]),
    baseline: z
      // a single name, as configs before the shortcut arm wrote it ("2d", "none"), is a list of one
      .preprocess(
        (v) => (typeof v === "string" ? v.split(",") : v),
        z
          .array(z.enum(BASELINES))
          .min(1)
          .refine((b) => !b.includes("none") || b.length === 1, "none stands alone (no baseline arm)"),
      )
      .default(["2d", "shortcut"])
      .describe(
        "baseline arms: 2d (symbolic-2d, or the VLM with images for an LLM reasoner), shortcut (question and options only: src/reason/shortcut.ts) | none",
      ),
    // a run compares label modes side by side: one 3D arm per source and label mode (threeDArms)
    // a single mode, as a graph option or an active session's episode names it, is a list of one
    labels: z
      .preprocess((v) => (typeof v === "string" ? v.split(",") : v), z.array(z.enum(LABEL_MODES)).min(1))
      .default(["oracle", "appearance"])
      .describe(
        "mask labels of the 3D arms, one column each: oracle (true categories) | appearance (a seeded detector error model, docs/labels.md); the 2D baseline reads appearance labels whenever a 3D arm does",
      ),
    noiseLevels: z
      .array(z.number().min(0).max(MAX_NOISE_LEVEL))
      .min(1)
      .nullable()
      .default(null)
      .describe("ablation: evaluate the noisy source at each of these levels (null: noise.noiseLevel only)"),
    seed: z.string().regex(SEED_PATTERN, "use letters, digits, '_', '.', '-' only").default("0").describe("seed of the built-in suite"),
    concurrency: z.number().int().min(1).max(64).default(2).describe("worker threads for CPU stages"),
    maxConnections: z.number().int().min(1).max(256).default(8).describe("model calls in flight at once"),
    // one object per stage, passed whole to it (docs/design.md "The run configuration: one object per stage")
    graph: RunGraphOptionsSchema.default(RunGraphOptionsSchema.parse({})),
    prompt: RunPromptOptionsSchema.default(RunPromptOptionsSchema.parse({})),
    noise: NoiseOptionsSchema.default(NoiseOptionsSchema.parse({})),
    active: ActiveOptionsSchema.default(ActiveOptionsSchema.parse({})),
    generator: GeneratorOptionsSchema.default(GeneratorOptionsSchema.parse({})),
    llm: LlmOptionsSchema.default(LlmOptionsSchema.parse({})),
    images: ImageOptionsSchema.default(ImageOptionsSchema.parse({})),
    vggt: VggtOptionsSchema.default(VggtOptionsSchema.parse({})),
  })
  .strict();

export type RunConfig = z.infer<typeof RunConfigSchema>;

/** The option objects of a run, one per stage, by their key in RunConfig. */
const RUN_STAGE_SCHEMAS = {
  graph: RunGraphOptionsSchema,
  prompt: RunPromptOptionsSchema,
  noise: NoiseOptionsSchema,
  active: ActiveOptionsSchema,
  generator: GeneratorOptionsSchema,
  images: ImageOptionsSchema,
} as const;
type RunStage = keyof typeof RUN_STAGE_SCHEMAS;
/** The stage each key of the flat form belongs to (the form of config.json before the stages were nested). */
const STAGE_OF_FLAT_KEY = new Map<string, RunStage>(
  Object.entries(RUN_STAGE_SCHEMAS).flatMap(([stage, schema]) => Object.keys(schema.shape).map((k) => [k, stage as RunStage] as const)),
);

/**
 * A configuration in the nested form: the flat form's stage keys (`noiseLevel`, `format`, `maxSteps`, ...) move
 * into their stage's object under the same name (`noise.noiseLevel`), so config.json files, --config files and
 * service requests from before the nesting read as they did. Anything else (a nested form, a partial layer, a
 * non-object) is returned as it is, for the schema to judge. A key given both flat and nested with different
 * values is refused: neither can be said to win. `moves`, when given, records each move: the nested path
 * ("noise.noiseLevel") to the key as it was given ("noiseLevel"), so an error can name what the sender wrote.
 */
export function migrateRunConfig(value: unknown, moves?: Map<string, string>): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  const moved: Array<[RunStage, string, unknown]> = [];
  for (const [k, v] of Object.entries(value)) {
    const stage = STAGE_OF_FLAT_KEY.get(k);
    // `images` names both the flat form's image mode (a string) and the nested form's image options (an object)
    if (stage === undefined || (k === "images" && v !== null && typeof v === "object")) out[k] = v;
    else moved.push([stage, k, v]);
  }
  for (const [stage, k, v] of moved) {
    const group = out[stage] ?? {};
    if (group === null || typeof group !== "object" || Array.isArray(group)) continue; // the schema names the bad group
    const was = (group as Record<string, unknown>)[k];
    if (was !== undefined && JSON.stringify(was) !== JSON.stringify(v))
      throw new InputError(`${k} and ${stage}.${k} are both given, with different values; give ${stage}.${k} only (the nested form)`, {
        field: `${stage}.${k}`,
      });
    out[stage] = { ...group, [k]: v };
    moves?.set(`${stage}.${k}`, k);
  }
  return out;
}

/** A stored run configuration (config.json, a served run's record): the nested form, or the flat form migrated. */
export const StoredRunConfigSchema = z.preprocess((value) => migrateRunConfig(value), RunConfigSchema);

export const DEFAULT_RUN_CONFIG: RunConfig = RunConfigSchema.parse({});

/**
 * Deep-merges partial configs over the defaults, then validates: the one parse of a run's options, at each
 * front-end. A layer must be an object, in the nested form or the flat one (migrated first).
 */
export function resolveRunConfig(...layers: Array<Partial<Record<string, unknown>>>): RunConfig {
  const merged: Record<string, unknown> = structuredClone(DEFAULT_RUN_CONFIG) as unknown as Record<string, unknown>;
  for (const layer of layers) {
    if (layer === null || typeof layer !== "object" || Array.isArray(layer))
      throw new InputError(
        `a configuration must be a JSON object of options, got ${layer === null ? "null" : Array.isArray(layer) ? "an array" : typeof layer}`,
      );
    for (const [k, v] of Object.entries(migrateRunConfig(layer) as Record<string, unknown>)) {
      if (v === undefined) continue;
      if (v && typeof v === "object" && !Array.isArray(v) && merged[k] && typeof merged[k] === "object")
        merged[k] = { ...(merged[k] as object), ...(v as object) };
      else merged[k] = v;
    }
  }
  return RunConfigSchema.parse(merged);
}

/** The 3D arms of a run: each source (the noisy source once per level in an ablation) under each label mode. */
export interface ThreeDArm {
  source: (typeof SOURCES)[number];
  /** the noise options its cloud is built with: the run's, at the arm's own level in an ablation (only the noisy source reads them) */
  noise: NoiseSettings;
  labels: LabelMode;
  /** the item-key part: the source ("gt", "noisy@1.5"), with "-appearance" for appearance labels */
  label: string;
}

/** The arm label's suffix of a label mode: none for oracle labels, so oracle arms keep their source's name. */
const labelSuffix = (labels: LabelMode) => (labels === "oracle" ? "" : `-${labels}`);

/**
 * The arms of a run, or of one paradigm of it: the active paradigm's graph memory has no appearance labels yet
 * (scenegraph/pipeline.ts GraphMemory), so its arms are the oracle-label ones.
 */
export function threeDArms(config: RunConfig, paradigm?: string): ThreeDArm[] {
  const modes = paradigm === "active" ? config.labels.filter((l) => l === "oracle") : config.labels;
  const sources = config.sources.flatMap((source): Array<Omit<ThreeDArm, "labels">> => {
    if (source !== "noisy" || config.noiseLevels === null) return [{ source, noise: config.noise, label: source }];
    return config.noiseLevels.map((noiseLevel) => ({ source, noise: { ...config.noise, noiseLevel }, label: `noisy@${noiseLevel}` }));
  });
  return modes.flatMap((labels) => sources.map((a) => ({ ...a, labels, label: `${a.label}${labelSuffix(labels)}` })));
}

/** The model reasoners of a run (openai:, gemini:), in the order given. */
export const modelReasoners = (config: Pick<RunConfig, "reasoner">): string[] => config.reasoner.filter(isLlmReasoner);
/** Whether the run's offline symbolic reasoner answers (its 3D programs and the symbolic-2d baseline). */
export const hasSymbolic = (config: Pick<RunConfig, "reasoner">): boolean => config.reasoner.includes("symbolic");
/**
 * The item-key part naming a reasoner: none when the run has one reasoner, so single-reasoner runs keep the keys
 * (and records) of runs before several reasoners.
 */
export const reasonerKeyPart = (config: Pick<RunConfig, "reasoner">, reasoner: string): string | null => (config.reasoner.length > 1 ? reasoner : null);

/** The label evidence of the 2D baseline: appearance whenever a 3D arm reads appearance labels (both arms see the same kind). */
export const baselineLabels = (config: RunConfig): LabelMode => (config.labels.includes("appearance") ? "appearance" : "oracle");
