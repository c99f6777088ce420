/** Reading scene-graph files (esi3d-graph/1, written by `esi3d graph -o` or a run): parsed, never cast. */
import { readJsonFile } from "../src/core/fs.js";
import { GRAPH_FORMAT, MAX_GRAPH_FILE_BYTES, SceneGraphSchema, type SceneGraph } from "./types.js";

export function readSceneGraphFile(file: string): SceneGraph {
  return readJsonFile(file, SceneGraphSchema, `scene graph (${GRAPH_FORMAT}, written by esi3d graph -o)`, MAX_GRAPH_FILE_BYTES);
}

