/**
 * `esi3d ask --paradigm active`: one active episode (docs/active.md) from a task's initial pose in the
 * built-in simulator, shown step by step: the agent's action, whether it was blocked, its answer and
 * confidence, the graph's size; then the stop reason and the final answer, scored. The input is a task JSON
 * or a frame bundle (whose task is used; its views are not: the agent gathers its own). `--save-episode DIR`
 * writes the views the agent gathered as a frame bundle of paradigm active, which `esi3d ask DIR` (or
 * `esi3d graph DIR`) then reads like any other bundle.
 */
import { readFileSync, statSync } from "node:fs";
import type { z } from "zod";
import { readManifest, writeBundle } from "../../../../core/bundle/io.js";
import { readTaskFile } from "../../../../core/task/io.js";
import type { Task } from "../../../../core/task/schema.js";
import type { GraphPipelineOptions } from "../../../../scenegraph/pipelineOptions.js";
import { InputError } from "../../../../core/errors.js";
import { checkWritable } from "../../../../core/fs.js";
import { resolveRunConfig, type ThreeDArm } from "../../../eval/config.js";
import { runActiveEpisode, type EpisodeOutcome } from "../../../eval/active.js";
import { scoreAnswer } from "../../../eval/score.js";
import { createLlmClient } from "../../../llm/client.js";
import type { ActiveOptions } from "../../../reason/active/options.js";
import { createExplorerAgent } from "../../../reason/active/explorers.js";
import { createLlmAgent } from "../../../reason/active/llmAgent.js";
import type { ActiveAgent } from "../../../reason/active/types.js";
import type { LlmOptionsSchema } from "../../../llm/options.js";
import type { GraphFormat, OptionLabels } from "../../../prompt/formats.js";
import { columnWidths, tableRow } from "../../../../core/table.js";
import { requireTask } from "../../../../core/bundle/freeTask.js";

/** The paradigms `ask` runs itself; a bundle already is its passive paradigm's views. */
export const ASK_PARADIGMS = ["active"] as const;

/** The task an episode starts from: a task JSON, or a bundle's task (never a graph: it has no simulator scene). */
export function episodeTask(input: string): Task {
  if (statSync(input).isDirectory())
    return requireTask(readManifest(input), input, "--paradigm active (an episode explores the task's scene in the simulator)");
  let format: unknown;
  try {
    format = (JSON.parse(readFileSync(input, "utf8")) as { format?: unknown })?.format;
  } catch {
    format = undefined; // readTaskFile says what is wrong with it
  }
  if (typeof format === "string" && format.startsWith("esi3d-graph/"))
    throw new InputError(
      `${input}: --paradigm active: a scene graph has no scene to explore; give a task JSON or a frame bundle (its task's initial pose starts the episode)`,
      { file: input },
    );
  return readTaskFile(input);
}

export interface AskEpisodeOptions {
  task: Task;
  reasoner: string;
  /** null: the 2D arm (symbolic-2d, or the VLM with --images). */
  cloud: GraphPipelineOptions | null;
  active: ActiveOptions;
  format: { format: GraphFormat; uncertainty: boolean };
  /** how the agent's prompts list the options (default "none") */
  optionLabels?: OptionLabels;
  llm: z.infer<typeof LlmOptionsSchema>;
  cache: string | null;
  showTrace: boolean;
  saveEpisode?: string;
  /** Score the answer (false for a question of one's own). */
  scored: boolean;
}

/** The episode's agent: an offline explorer for the symbolic programs, the per-step LLM contract otherwise. */
function makeAgent(o: AskEpisodeOptions): ActiveAgent {
  const arm = o.cloud ? "3d" : "2d";
  if (o.reasoner === "symbolic" || o.reasoner === "symbolic-2d") return createExplorerAgent(o.active.explorer, o.task, arm);
  const client = createLlmClient(o.reasoner, {
    baseUrl: o.llm.baseUrl ?? undefined,
    cache: o.cache,
    timeoutMs: o.llm.timeoutMs,
    maxRetries: o.llm.maxRetries,
    maxConcurrency: 1,
  });
  return createLlmAgent(
    client,
    o.task,
    { invalidAction: o.active.invalidAction, threshold: o.active.threshold, temperature: o.llm.temperature, ...o.format, optionLabels: o.optionLabels },
    arm,
  );
}

export async function askEpisode(o: AskEpisodeOptions): Promise<{ text: string; outcome: EpisodeOutcome }> {
  if (o.saveEpisode) checkWritable(o.saveEpisode, "dir");
  const agent = makeAgent(o); // a reasoner that cannot be made (no key, bad URL) fails before any view is rendered
  const { source, ...cloud } = o.cloud ?? { source: "gt" as const };
  const config = resolveRunConfig({ ...cloud, sources: [source], ...o.active, ...o.format, llm: { temperature: o.llm.temperature } });
  const arm: ThreeDArm | null = o.cloud ? { source, noise: config.noise, labels: "oracle", label: source } : null;
  const out = await runActiveEpisode({ task: o.task, config, arm, agent });
  if (o.saveEpisode) writeBundle(o.saveEpisode, out.bundle.manifest, out.bundle.views);
  return { text: episodeText(o, out), outcome: out };
}

const fmt = (x: number | null) => (x === null ? "-" : String(Math.round(x * 1000) / 1000));

function episodeText(o: AskEpisodeOptions, out: EpisodeOutcome): string {
  const e = out.episode;
  const lines: string[] = [`question: ${o.task.question}`];
  if (o.task.options.length) lines.push(`options: ${o.task.options.join(" | ")}`);
  lines.push(
    `episode: ${e.agent}, ${o.cloud ? `3D (source ${o.cloud.source})` : "2D"}; max steps ${e.max_steps}, threshold ${e.threshold}, min steps ${e.min_steps}, invalid actions ${e.invalid_action}`,
    "",
  );
  const head = ["step", "asked", "action", "blocked", "answer", "confidence", "nodes"];
  const rows = e.steps.map((s) => [
    String(s.step),
    s.valid ? "" : s.requested_action.slice(0, 40),
    s.action ?? (s.valid ? "-" : "(stays)"),
    s.blocked === null ? "" : s.blocked ? "yes" : "no",
    s.answer ?? (s.status === "parsed" ? "not sure" : `(${s.status})`),
    fmt(s.confidence),
    s.graph_nodes === null ? "" : String(s.graph_nodes),
  ]);
  const w = columnWidths([head, ...rows]);
  lines.push(tableRow(head, w));
  e.steps.forEach((s, i) => {
    lines.push(tableRow(rows[i]!, w));
    if (o.showTrace) for (const t of [s.reasoning, ...s.trace].filter(Boolean)) lines.push(`      ${t}`);
  });
  lines.push(
    "",
    `stopped: ${e.stop_reason} after ${e.steps_used} step(s), ${out.views} view(s)${e.forced_choice ? "; the final answer was a forced choice" : ""}`,
  );
  const a = out.answer;
  lines.push(
    `answer: ${a.answer ?? "(none)"}${a.confidence !== null ? ` (confidence ${a.confidence})` : ""} [${a.status}, ${a.method}${a.reprompted ? ", re-prompted" : ""}]`,
  );
  if (o.scored) {
    const s = a.status === "parsed" && a.answer !== null ? scoreAnswer(a, o.task) : null;
    lines.push(s && s.scored ? `correct: ${s.correct ? "yes" : "no"} (truth: ${o.task.answer})` : `not scored (${a.status}); truth: ${o.task.answer}`);
  }
  if (o.saveEpisode) lines.push(`wrote ${o.saveEpisode} (${out.views} views, paradigm active); \`esi3d ask ${o.saveEpisode}\` asks over them`);
  return lines.join("\n") + "\n";
}
