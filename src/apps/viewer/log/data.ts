/**
 * The run log viewer's data (docs/logs.md): one row per item record for the filterable list, and one item in
 * full for its detail pane, with the prompt read back from the run's prompt file (its hash checked) and the
 * link to the task's 3D page when the run stored a graph for it. Nothing is recomputed.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../../core/errors.js";
import { promptImagePath, readPromptFile } from "../../../eval/promptFiles.js";
import type { ItemRecord } from "../../../eval/records.js";
import { promptTexts } from "../../../reason/promptFile.js";
import { graphFile, variantKey, variantsOf, type RunDir } from "../run.js";

/** How an item ended, as the list filters it: a scored answer right or wrong, or the status of one without. */
export const OUTCOMES = ["correct", "wrong", "unscored", "invalid", "unanswerable", "empty", "error"] as const;
export type Outcome = (typeof OUTCOMES)[number];

export function outcomeOf(r: ItemRecord): Outcome {
  if (r.status !== "parsed") return r.status;
  return r.correct === null ? "unscored" : r.correct ? "correct" : "wrong";
}

/** The arm part of an item key: 2d, shortcut, or 3d:<source label> (records.ts itemKey). */
export const armLabel = (r: ItemRecord): string => r.key.split("|").slice(2).join("|");

export interface ItemRow {
  key: string;
  task_id: string;
  subcategory: string;
  paradigm: string;
  arm: string;
  reasoner: string;
  outcome: Outcome;
  answer: string | null;
  truth: string;
  question: string;
  served_model: string | null;
  tokens: number | null;
  reason_ms: number | null;
}

export function itemRows(run: RunDir): ItemRow[] {
  return run.records.map((r) => ({
    key: r.key,
    task_id: r.task_id,
    subcategory: r.subcategory,
    paradigm: r.paradigm,
    arm: armLabel(r),
    reasoner: r.reasoner,
    outcome: outcomeOf(r),
    answer: r.answer,
    truth: r.truth,
    question: r.question,
    served_model: r.served_model ?? null,
    tokens: r.usage ? (r.usage.input_tokens ?? 0) + (r.usage.output_tokens ?? 0) : null,
    reason_ms: r.timings_ms.reason ?? null,
  }));
}

export interface ItemPrompt {
  file: string;
  system: string;
  user: string;
  images: Array<{ url: string; view: number | null; sha256: string; mime_type: string }>;
}

export interface ItemDetail {
  record: ItemRecord;
  outcome: Outcome;
  /** the first request, from the prompt file; null for offline reasoners or when the file cannot be read */
  prompt: ItemPrompt | null;
  /** why there is no prompt to show */
  prompt_note: string | null;
  /** the task's 3D inspection page (this item's graph when it has one); null when the run stored no graph for the task */
  page: string | null;
}

/** The URL the viewer serves a prompt image at: its path in the run directory. */
const promptImageUrl = (sha256: string, mimeType: string) => `/${promptImagePath(sha256, mimeType)}`;

function promptOf(run: RunDir, r: ItemRecord): { prompt: ItemPrompt | null; note: string | null } {
  if (!r.prompt_file) {
    if (r.prompt_hash) return { prompt: null, note: `this record names no prompt file (a run made before prompt files; prompt hash ${r.prompt_hash})` };
    return { prompt: null, note: `${r.reasoner} sends no prompt: it is an offline program (its trace is under "Replies")` };
  }
  try {
    const f = readPromptFile(run.dir, r.prompt_file);
    const t = promptTexts(f);
    return { prompt: { file: r.prompt_file, system: t.system, user: t.user, images: t.images.map((im) => ({ url: promptImageUrl(im.sha256, im.mimeType), view: im.view, sha256: im.sha256, mime_type: im.mimeType })) }, note: null };
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { prompt: null, note: e.message.replaceAll(run.dir, ".") };
  }
}

function pageOf(run: RunDir, r: ItemRecord): string | null {
  const base = `/task/${encodeURIComponent(r.task_id)}`;
  const arm = armLabel(r);
  if (arm.startsWith("3d:")) {
    const source = arm.slice(3);
    if (existsSync(graphFile(run, r.task_id, r.paradigm, source))) return `${base}?v=${encodeURIComponent(variantKey(r.paradigm, source))}`;
  }
  return existsSync(join(run.dir, "graphs", r.task_id)) && variantsOf(run, r.task_id).length > 0 ? base : null;
}

export function itemDetail(run: RunDir, key: string): ItemDetail {
  const r = run.records.find((x) => x.key === key);
  if (!r) throw new InputError(`no item "${key.slice(0, 200)}" in this run (item keys are task|paradigm|arm, as in items.jsonl)`);
  const { prompt, note } = promptOf(run, r);
  return { record: r, outcome: outcomeOf(r), prompt, prompt_note: note, page: pageOf(run, r) };
}
