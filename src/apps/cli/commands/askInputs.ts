/**
 * What `esi3d ask` reads: a frame bundle, a task JSON (rendered in the paradigm asked for), a run directory
 * (one item of it: askItem.ts), or a graph file of either shape esi3d writes (scenegraph/io.ts). A graph's
 * task record is --task, else the run's own task file when the graph is a run's, else none: a question of
 * one's own (--question) then needs no task record.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { FrameBundle } from "../../../../core/bundle/io.js";
import { freeQuestionTaskAt } from "../../../../core/bundle/freeTask.js";
import { PARADIGMS, type Paradigm } from "../../../../core/bundle/schema.js";
import { renderBundle } from "../../../../bridge/sim/capture.js";
import { IMAGE_SIZES } from "../../../../bridge/sim/generate/options.js";
import { readTaskFile } from "../../../../core/task/io.js";
import type { Task } from "../../../../core/task/schema.js";
import { readAnyGraphFile } from "../../../../scenegraph/io.js";
import type { SceneGraph } from "../../../../scenegraph/types.js";
import { InputError } from "../../../../core/errors.js";
import { MAX_JSON_FILE_BYTES } from "../../../../core/fs.js";

export type AskInputKind = "run" | "bundle" | "task" | "graph";

/** The passive paradigms ask renders a task in (active runs an episode: askActive.ts). */
export const RENDERED_PARADIGMS = PARADIGMS.filter((p): p is Exclude<Paradigm, "active"> => p !== "active");

/** What the input is: a run directory (config.json), a bundle (bundle.json), a task JSON (schema esi3d-task/*), else a graph file. */
export function askInputKind(input: string): AskInputKind {
  const st = statSync(input);
  if (st.isDirectory()) return existsSync(join(input, "config.json")) && !existsSync(join(input, "bundle.json")) ? "run" : "bundle";
  // only a regular file of a JSON file's size is peeked at (a named pipe would block the read, a huge file fill
  // memory); readAnyGraphFile refuses the others by name
  if (!st.isFile() || st.size > MAX_JSON_FILE_BYTES) return "graph";
  try {
    const raw = JSON.parse(readFileSync(input, "utf8")) as { schema?: unknown };
    if (typeof raw?.schema === "string" && raw.schema.startsWith("esi3d-task/")) return "task";
  } catch {
    // not JSON: readAnyGraphFile names the problem
  }
  return "graph";
}

/** A task JSON's views in a passive paradigm, rendered by the built-in simulator (as a run renders them). */
export function renderedTask(input: string, paradigm: string | undefined): FrameBundle {
  const task = readTaskFile(input);
  if (!paradigm || !(RENDERED_PARADIGMS as readonly string[]).includes(paradigm))
    throw new InputError(
      `--paradigm: ${input} is a task record; say which views to ask over: --paradigm ${[...RENDERED_PARADIGMS, "active"].join(" | ")} (active: an agent explores)`,
      { field: "paradigm" },
    );
  return renderBundle(task, paradigm as Paradigm);
}

/** The run's task record of a run's graph file (RUN/graphs/<task>/<paradigm>__<source>.json), when there is one. */
function runTaskOf(graphFile: string, taskId: string): string | null {
  const taskDir = dirname(graphFile);
  if (basename(taskDir) !== taskId || basename(dirname(taskDir)) !== "graphs") return null;
  const file = join(dirname(dirname(taskDir)), "tasks", `${taskId}.json`);
  return existsSync(file) ? file : null;
}

/** The place of a free question over a graph: its viewpoint; a graph has no image, so ESI's camera stands in (no reasoner reads it over a graph). */
const GRAPH_CAMERA = IMAGE_SIZES["1280x720"];

export interface AskGraph {
  graph: SceneGraph;
  /** the task record; null when there is none and the question is one's own */
  task: Task;
  /** where the task came from, to say so */
  note: string | null;
}

export function graphInput(input: string, taskFile: string | undefined, question: Pick<Task, "question" | "answer_format" | "options"> | null): AskGraph {
  const { graph } = readAnyGraphFile(input);
  if (taskFile) return { graph, task: readTaskFile(taskFile), note: null };
  const runTask = runTaskOf(input, graph.task_id);
  if (runTask) return { graph, task: readTaskFile(runTask), note: `the task record is the run's ${runTask}` };
  if (question)
    return {
      graph,
      task: freeQuestionTaskAt({ taskId: graph.task_id, simulator: "esi3d-graph", viewpoint: graph.viewpoint, camera: GRAPH_CAMERA }, question),
      note: null,
    };
  throw new InputError(
    `--task: ${input} has no task record beside it (it is not a run's graph); give --task TASK.json (its question is then asked and scored), or ask a question of your own with --question "..." and an LLM reasoner`,
    { field: "task" },
  );
}
