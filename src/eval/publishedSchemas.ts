/**
 * The formats esi3d reads and writes, by the name `esi3d schema <name>` prints them under, each as its one zod
 * declaration. `docs/<name>.schema.json` is the output of `esi3d schema <name>` (a test keeps them equal), so
 * the published form cannot drift from what the readers parse.
 *
 * `io: "input"` is the form on disk (what a reader accepts: defaults optional, NaN as null); outputs that the
 * code derives on reading are not part of a file's format.
 */
import * as z from "zod";
import { BundleManifestSchema } from "../../core/bundle/schema.js";
import { TaskRecordSchema } from "../../core/task/schema.js";
import { DiagnosisSchema } from "../../scenegraph/diagnosisSchema.js";
import { SceneGraphSchema } from "../../scenegraph/types.js";
import { RunConfigSchema } from "./config.js";
import { RunFileSchema } from "./files.js";
import { ItemRecordSchema } from "./records.js";
import { SummaryFileSchema } from "./summary.js";
import { PromptFileSchema } from "../reason/promptFile.js";
import { PriceTableSchema } from "./usage.js";

export const PUBLISHED_SCHEMAS = {
  task: { schema: TaskRecordSchema, what: "a task record (esi3d generate, fixtures/tasks/*.json)" },
  bundle: { schema: BundleManifestSchema, what: "a frame bundle's manifest (bundle.json)" },
  graph: { schema: SceneGraphSchema, what: "a scene graph (esi3d graph --out); a run stores one with its diagnosis in graphs/<task>/" },
  diagnosis: { schema: DiagnosisSchema, what: "a scene graph's quality diagnosis against ground truth" },
  item: { schema: ItemRecordSchema, what: "one line of a run's items.jsonl" },
  prompt: { schema: PromptFileSchema, what: "an LLM item's first request as sent: a run's prompts/<prompt_hash>.json (docs/logs.md)" },
  summary: { schema: SummaryFileSchema, what: "a run's summary.json" },
  run: { schema: RunFileSchema, what: "a run's run.json (its configuration and provenance)" },
  prices: {
    schema: PriceTableSchema,
    what: "a price table for the token costs of summary.json, report.md and the log viewer (esi3d run --prices FILE, esi3d inspect RUN --serve --prices FILE; docs/logs.md)",
  },
  config: { schema: RunConfigSchema, what: "a run configuration, as in run.json (esi3d run --config FILE takes any of its keys, plus out)" },
} as const satisfies Record<string, { schema: z.ZodType; what: string }>;

export type PublishedSchemaName = keyof typeof PUBLISHED_SCHEMAS;
export const PUBLISHED_SCHEMA_NAMES = Object.keys(PUBLISHED_SCHEMAS) as PublishedSchemaName[];

/** The JSON Schema of one published format, as written to docs/<name>.schema.json. */
export function publishedJsonSchema(name: PublishedSchemaName): object {
  return z.toJSONSchema(PUBLISHED_SCHEMAS[name].schema, { io: "input", unrepresentable: "any" });
}
