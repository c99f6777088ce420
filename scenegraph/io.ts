/** Reading scene-graph files (esi3d-graph/1, written by `esi3d graph -o` or a run). */
import { readFileSync } from "node:fs";
import { InputError } from "../src/core/errors.js";
import type { SceneGraph } from "./types.js";

export const GRAPH_FORMAT = "esi3d-graph/1";

export function readSceneGraphFile(file: string): SceneGraph {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new InputError(`${file}: not valid JSON (${(e as Error).message})`, { file });
  }
  const g = raw as SceneGraph;
  if (g?.format !== GRAPH_FORMAT) throw new InputError(`${file}: format: expected "${GRAPH_FORMAT}" (a file written by esi3d graph -o), found ${JSON.stringify(g?.format)}`, { file, field: "format" });
  return g;
}
