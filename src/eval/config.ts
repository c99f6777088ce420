/**
 * The fully resolved configuration of a run (config.json): defaults <- --config file <- flags.
 */
import { z } from "zod";
import { BUILTIN_SUBCATEGORIES } from "../../bridge/task/taxonomy.js";
import { MASK_MODES } from "../../scenegraph/evidence.js";
import { INSTANCE_MODES } from "../../scenegraph/build.js";
import { GRAPH_FORMATS } from "../prompt/formats.js";

export const RUN_SOURCES = ["gt", "noisy", "vggt"] as const;
export const RUN_PARADIGMS = ["single", "multi", "gt"] as const;
export const NOISE_COMPONENT_NAMES = ["depth", "pose", "flying", "dropout", "blobs"] as const;

export const RunConfigSchema = z
  .object({
    suite: z.string().min(1).describe("'default' (the built-in suite, generated from the seed) or a directory of task JSON files"),
    perSubcategory: z.number().int().min(1).max(10000),
    subcategories: z.array(z.enum(BUILTIN_SUBCATEGORIES)).min(1),
    limit: z.number().int().min(1).nullable().describe("use at most this many tasks (after --subcategories)"),
    sources: z.array(z.enum(RUN_SOURCES)).min(1),
    paradigms: z.array(z.enum(RUN_PARADIGMS)).min(1),
    reasoner: z.string().regex(/^(symbolic|(openai|gemini):.+)$/, "symbolic, openai:<model> or gemini:<model>"),
    baseline: z.enum(["2d", "none"]),
    masks: z.enum(MASK_MODES),
    instances: z.enum(INSTANCE_MODES),
    format: z.enum(GRAPH_FORMATS),
    uncertainty: z.boolean(),
    noiseLevel: z.number().min(0).max(1),
    noiseLevels: z.array(z.number().min(0).max(1)).min(1).nullable().describe("ablation: evaluate the noisy source at each of these levels (null: --noise-level only)"),
    noiseSeed: z.string(),
    noiseComponents: z.array(z.enum(NOISE_COMPONENT_NAMES)).min(1),
    seed: z.string().regex(/^[A-Za-z0-9_.-]+$/),
    concurrency: z.number().int().min(1).max(64),
    maxConnections: z.number().int().min(1).max(256),
    llm: z.object({
      baseUrl: z.string().nullable(),
      cachePath: z.string().nullable(),
      timeoutMs: z.number().int().positive(),
      maxRetries: z.number().int().min(0).max(20),
      temperature: z.number().min(0).max(2),
    }),
    images: z.enum(["single", "multi"]),
    maxImages: z.number().int().min(1).max(30),
    vggt: z.object({
      modelPath: z.string().nullable(),
      device: z.enum(["auto", "cuda", "cpu"]),
      points: z.enum(["depth", "pointmap"]),
      confPercentile: z.number().min(0).max(100),
      align: z.enum(["sim3", "none"]),
    }),
  })
  .strict();

export type RunConfig = z.infer<typeof RunConfigSchema>;

export const DEFAULT_RUN_CONFIG: RunConfig = {
  suite: "default",
  perSubcategory: 10,
  subcategories: [...BUILTIN_SUBCATEGORIES],
  limit: null,
  sources: ["gt", "noisy"],
  paradigms: ["single", "multi", "gt"],
  reasoner: "symbolic",
  baseline: "2d",
  masks: "instance",
  instances: "fusion",
  format: "relations",
  uncertainty: false,
  noiseLevel: 0.5,
  noiseLevels: null,
  noiseSeed: "0",
  noiseComponents: [...NOISE_COMPONENT_NAMES],
  seed: "0",
  concurrency: 2,
  maxConnections: 8,
  llm: { baseUrl: null, cachePath: null, timeoutMs: 300_000, maxRetries: 4, temperature: 0 },
  images: "multi",
  maxImages: 8,
  vggt: { modelPath: null, device: "auto", points: "depth", confPercentile: 50, align: "sim3" },
};

/** Deep-merges partial configs over the defaults, then validates. */
export function resolveRunConfig(...layers: Array<Partial<Record<string, unknown>>>): RunConfig {
  const merged: Record<string, unknown> = structuredClone(DEFAULT_RUN_CONFIG) as unknown as Record<string, unknown>;
  for (const layer of layers) {
    for (const [k, v] of Object.entries(layer)) {
      if (v === undefined) continue;
      if (v && typeof v === "object" && !Array.isArray(v) && merged[k] && typeof merged[k] === "object") merged[k] = { ...(merged[k] as object), ...(v as object) };
      else merged[k] = v;
    }
  }
  return RunConfigSchema.parse(merged);
}

/** The 3D arms of a run: each source, and the noisy source once per level in an ablation. */
export interface ThreeDArm {
  source: (typeof RUN_SOURCES)[number];
  level: number | null;
  label: string;
}

export function threeDArms(config: RunConfig): ThreeDArm[] {
  return config.sources.flatMap((source): ThreeDArm[] => {
    if (source !== "noisy") return [{ source, level: null, label: source }];
    const levels = config.noiseLevels ?? [config.noiseLevel];
    return levels.map((level) => ({ source, level, label: config.noiseLevels ? `noisy@${level}` : "noisy" }));
  });
}
