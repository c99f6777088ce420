/**
 * Re-asking one item of a run (`esi3d ask RUN --item KEY`): the item's unit is run again through the
 * runner's own code (runUnit, and answerPending for a model), with the run's configuration (config.json)
 * and any overrides, and with every other item of the unit marked done, so only this item's arm is built
 * and answered. The new record is made exactly as the run made the stored one, so the two can be set side
 * by side; the rebuilt graph is compared with the stored one.
 */
import { join } from "node:path";
import pLimit from "p-limit";
import type { Paradigm } from "../../core/bundle/schema.js";
import { readTaskFile } from "../../core/task/io.js";
import type { Task } from "../../core/task/schema.js";
import type { Diagnosis } from "../../scenegraph/diagnosisSchema.js";
import type { SceneGraph } from "../../scenegraph/types.js";
import { InputError } from "../../core/errors.js";
import { pathBelow } from "../../core/paths.js";
import type { PromptLog } from "../reason/promptFile.js";
import { answerPending, makeRunModels } from "./answer.js";
import { reasonerKeyPart, resolveRunConfig, type RunConfig } from "./config.js";
import { readRunFile, readStoredGraph, type RunFile } from "./files.js";
import { runUnit } from "./unit.js";
import type { UnitGraph } from "./pipeline.js";
import { itemKey, readRecords, type ItemRecord } from "./records.js";
import { unitKeys } from "./runner.js";

/** The parts of an item key: task|paradigm|arm[|reasoner] (records.ts itemKey). */
interface ItemKeyParts {
  taskId: string;
  paradigm: Paradigm;
  /** "2d", "shortcut" or "3d:<arm label>" */
  arm: string;
  reasoner: string | null;
}

function parseItemKey(key: string): ItemKeyParts {
  const parts = key.split("|");
  const [taskId, paradigm, arm] = parts;
  if (parts.length < 3 || parts.length > 4 || !taskId || !paradigm || !arm || !/^(2d|shortcut|3d:.+)$/.test(arm))
    throw new InputError(
      `--item "${key.slice(0, 200)}": expected an item key task|paradigm|arm[|reasoner], as in the run's items.jsonl (e.g. linear_alignment-000|multi|3d:noisy)`,
      { field: "item" },
    );
  return { taskId, paradigm: paradigm as Paradigm, arm, reasoner: parts[3] ?? null };
}

/** The options a re-ask may change: what is asked and how, never which item (its arm is its key's). */
export interface ReaskOverrides {
  reasoner?: string;
  /** run-configuration fields (format, uncertainty, images, maxImages, masks, instances, llm.*) */
  config?: Record<string, unknown>;
}

export interface ReaskResult {
  run: RunFile;
  task: Task;
  stored: ItemRecord;
  now: ItemRecord;
  /** the configuration the item was asked again with */
  config: RunConfig;
  /** the model's first request (null for an offline program) */
  prompt: PromptLog | null;
  /** a 3D item: the graph it was asked over now, and the run's stored graph of the same arm (null when the run has none) */
  graph: { now: SceneGraph; diagnosis: Diagnosis; stored: SceneGraph | null } | null;
}

/** Keys like the one asked for, for the error that says it is not in the run. */
function nearKeys(records: readonly ItemRecord[], key: string): string[] {
  const task = key.split("|")[0] ?? "";
  const same = records.filter((r) => r.task_id === task).map((r) => r.key);
  return (same.length ? same : records.map((r) => r.key)).slice(0, 8);
}

function findRecord(runDir: string, key: string): ItemRecord {
  const { records } = readRecords(join(runDir, "items.jsonl"));
  // a resumed run may hold a key twice in principle; the last line is the newest
  const r = records.findLast((x) => x.key === key);
  if (!r) {
    const near = nearKeys(records, key);
    throw new InputError(
      `--item "${key.slice(0, 200)}": no such item in ${join(runDir, "items.jsonl")} (${records.length} items)${near.length ? `; items such as: ${near.join(", ")}` : ""}`,
      { field: "item" },
    );
  }
  return r;
}

export async function reaskItem(runDir: string, key: string, overrides: ReaskOverrides = {}): Promise<ReaskResult> {
  const parts = parseItemKey(key);
  const run = readRunFile(runDir);
  const stored = findRecord(runDir, key);
  const task = readTaskFile(pathBelow(join(runDir, "tasks"), `${parts.taskId}.json`));
  const reasoner = overrides.reasoner ?? stored.reasoner;
  if (parts.arm === "shortcut" && reasoner !== "shortcut")
    throw new InputError(
      `--reasoner ${reasoner}: the shortcut arm (${key}) is answered by the question-only shortcut program alone; choose a 2d or 3d item to ask another reasoner`,
      { field: "reasoner" },
    );
  if (parts.arm.startsWith("3d:") && (reasoner === "symbolic-2d" || reasoner === "shortcut"))
    throw new InputError(
      `--reasoner ${reasoner}: ${key} is a 3D item (asked over its graph); ${reasoner} answers the ${reasoner === "shortcut" ? "shortcut" : "2d"} arm`,
      { field: "reasoner" },
    );
  if (parts.arm === "2d" && reasoner === "shortcut")
    throw new InputError(`--reasoner shortcut: ${key} is a 2D item; the shortcut answers the shortcut arm`, { field: "reasoner" });
  // the offline 2D and shortcut arms name their own programs; the run's reasoner list names symbolic
  const runReasoner = reasoner === "symbolic-2d" || reasoner === "shortcut" ? "symbolic" : reasoner;
  const config = resolveRunConfig(run.config as unknown as Record<string, unknown>, overrides.config ?? {}, { reasoner: [runReasoner] });
  const target = itemKey(
    parts.taskId,
    parts.paradigm,
    parts.arm === "2d" || parts.arm === "shortcut" ? parts.arm : "3d",
    parts.arm.startsWith("3d:") ? parts.arm.slice(3) : null,
    reasonerKeyPart(config, runReasoner),
  );
  const keys = unitKeys(config, task, parts.paradigm);
  if (!keys.includes(target))
    throw new InputError(`--item ${key}: with ${reasoner} the run's unit has no such arm (its items would be ${keys.join(", ")})`, { field: "item" });
  const done = keys.filter((k) => k !== target);
  const res = await runUnit({ task, paradigm: parts.paradigm, config, done });
  let now = res.records.find((r) => r.key === target) ?? null;
  let prompt: PromptLog | null = null;
  let episodeGraph: UnitGraph | undefined;
  if (!now && res.pending.length) {
    const models = makeRunModels(config);
    const ctx = { config, models, limit: pLimit(1), signal: new AbortController().signal, abandoned: () => false };
    await answerPending(ctx, task, parts.paradigm, res, (r, g, prompts) => {
      now = r;
      episodeGraph = g;
      prompt = prompts?.[0] ?? null;
    });
  }
  if (!now) throw new Error(`re-ask: the unit made no record ${target}`);
  const source = parts.arm.startsWith("3d:") ? parts.arm.slice(3) : null;
  const g = episodeGraph ?? (source ? res.graphs.find((x) => x.source === source) : undefined);
  let storedGraph: SceneGraph | null = null;
  if (g && source) {
    try {
      storedGraph = readStoredGraph(join(pathBelow(join(runDir, "graphs"), parts.taskId), `${parts.paradigm}__${source}.json`)).graph;
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
    }
  }
  return { run, task, stored, now, config, prompt, graph: g ? { now: g.graph, diagnosis: g.diagnosis, stored: storedGraph } : null };
}
