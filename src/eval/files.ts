/**
 * The files of a run directory, and their formats:
 *   config.json            RunFileSchema: the resolved RunConfig and who made the run
 *   items.jsonl            one ItemRecord per line (records.ts)
 *   graphs/<task>/<paradigm>__<source>.json   StoredGraphSchema: a graph and its diagnosis
 *   summary.json           SummaryFileSchema (summary.ts)
 *   prompts/<hash>.json    LLM items' first requests, prompts/images/ their images (promptFiles.ts)
 * Every reader parses through these schemas, so a damaged or foreign file is an input error naming the
 * file and the field, never a crash later on.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod";
import { InputError } from "../../core/errors.js";
import { entryExists, readJsonFile } from "../../core/fs.js";
import { pathBelow } from "../../core/paths.js";
import { DiagnosisSchema } from "../../scenegraph/diagnosisSchema.js";
import { MAX_GRAPH_FILE_BYTES, SceneGraphSchema } from "../../scenegraph/types.js";
import { StoredRunConfigSchema } from "./config.js";

export const RUN_FORMAT = "esi3d-run/1";

export const RunFileSchema = z
  .object({
    format: z.literal(RUN_FORMAT),
    package_version: z.string().describe("the esi3d that made the run"),
    node: z.string().describe("the Node.js version it ran on"),
    started_at: z.string().describe("ISO time of the (last) start"),
    config: StoredRunConfigSchema,
  })
  .strict();
export type RunFile = z.infer<typeof RunFileSchema>;

export const StoredGraphSchema = z.object({ graph: SceneGraphSchema, diagnosis: DiagnosisSchema }).strict();
export type StoredGraph = z.infer<typeof StoredGraphSchema>;

export function runConfigFile(runDir: string): string {
  return join(runDir, "config.json");
}

export function readRunFile(runDir: string): RunFile {
  return readJsonFile(runConfigFile(runDir), RunFileSchema, `run configuration (${RUN_FORMAT}, written by esi3d run)`);
}

export function sceneGraphFile(runDir: string, taskId: string, paradigm: string, source: string): string {
  const dir = pathBelow(join(runDir, "graphs"), taskId);
  mkdirSync(dir, { recursive: true });
  return join(dir, `${paradigm}__${source}.json`);
}

export function readStoredGraph(file: string): StoredGraph {
  if (!entryExists(file)) throw new InputError(`${file}: missing (the run did not finish this graph; esi3d run --resume completes it)`, { file });
  return readJsonFile(file, StoredGraphSchema, "stored graph ({graph, diagnosis}, written by esi3d run)", MAX_GRAPH_FILE_BYTES);
}
