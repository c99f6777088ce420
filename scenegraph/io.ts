/**
 * Reading scene-graph files, parsed, never cast. esi3d writes a graph in two shapes, and every reader takes both:
 *   - a graph alone (esi3d-graph/1): `esi3d graph -o`;
 *   - a graph with its diagnosis, {graph, diagnosis}: a run's graphs/<task>/<paradigm>__<source>.json and
 *     `esi3d inspect --graph-json` (whose diagnosis is null for a bundle without a task record).
 */
import * as z from "zod";
import { InputError, inputErrorFromZod } from "../core/errors.js";
import { readJsonFile } from "../core/fs.js";
import { DiagnosisSchema, type Diagnosis } from "./diagnosisSchema.js";
import { GRAPH_FORMAT, MAX_GRAPH_FILE_BYTES, SceneGraphSchema, type SceneGraph } from "./types.js";

/** {graph, diagnosis}: what a run stores per arm and `inspect --graph-json` exports. */
const GraphWithDiagnosisSchema = z.object({ graph: SceneGraphSchema, diagnosis: DiagnosisSchema.nullable() }).strict();

/** A graph file of either shape, with its diagnosis when the file has one. */
export function readAnyGraphFile(file: string): { graph: SceneGraph; diagnosis: Diagnosis | null } {
  const shapes = `expected ${GRAPH_FORMAT} (esi3d graph -o) or {graph, diagnosis} (a run's graphs/…/<paradigm>__<source>.json, esi3d inspect --graph-json)`;
  // read once, bounded as every graph file is (a regular file of at most MAX_GRAPH_FILE_BYTES), then told apart by shape
  const raw: unknown = readJsonFile(file, z.unknown(), `scene graph (${shapes})`, MAX_GRAPH_FILE_BYTES);
  const withDiagnosis = raw !== null && typeof raw === "object" && !Array.isArray(raw) && "graph" in raw;
  if (withDiagnosis)
    return parsed(
      file,
      GraphWithDiagnosisSchema,
      raw,
      `scene graph with its diagnosis ({graph, diagnosis}: a run's graphs/<task>/<paradigm>__<source>.json or esi3d inspect --graph-json)`,
    );
  const format = raw !== null && typeof raw === "object" ? (raw as { format?: unknown }).format : undefined;
  if (format !== GRAPH_FORMAT)
    throw new InputError(
      `${file}: not a scene graph${typeof format === "string" ? ` (its format is ${JSON.stringify(format.slice(0, 40))})` : ""}: ${shapes}`,
      { file },
    );
  return { graph: parsed(file, SceneGraphSchema, raw, `scene graph (${GRAPH_FORMAT}, written by esi3d graph -o)`), diagnosis: null };
}

function parsed<S extends z.ZodType>(file: string, schema: S, raw: unknown, what: string): z.infer<S> {
  const r = schema.safeParse(raw);
  if (!r.success) throw inputErrorFromZod(r.error, { file, what: `not a valid ${what}` });
  return r.data;
}
