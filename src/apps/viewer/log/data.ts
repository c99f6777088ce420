/**
 * The run log viewer's data (docs/logs.md): one row per item record of every served run for the list
 * (searchable text included), one item in full for its detail pane (its prompt read back from the run's prompt
 * file, its hash checked), one question with every arm and reasoner of every run beside each other, and the
 * token and cost totals per reasoner. Nothing is recomputed.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../../../core/errors.js";
import { promptImagePath, readPromptFile } from "../../../eval/promptFiles.js";
import type { ItemRecord } from "../../../eval/records.js";
import { usageTotals, type PriceTable, type UsageRow } from "../../../eval/usage.js";
import { promptTexts } from "../../../reason/promptFile.js";
import { graphFile, variantKey, variantsOf, type RunDir } from "../run.js";

/** How an item ended, as the list filters it: a scored answer right or wrong, or the status of one without. */
export const OUTCOMES = ["correct", "wrong", "unscored", "invalid", "unanswerable", "empty", "error"] as const;
type Outcome = (typeof OUTCOMES)[number];

function outcomeOf(r: ItemRecord): Outcome {
  if (r.status !== "parsed") return r.status;
  return r.correct === null ? "unscored" : r.correct ? "correct" : "wrong";
}

/** The arm part of an item key: 2d, shortcut, or 3d:<source label> (records.ts itemKey). */
const armLabel = (r: ItemRecord): string => r.key.split("|").slice(2, 3).join("|");

/** A served run: its directory, the name the pages give it, and the URL prefix of its 3D pages ("" when it is the only one). */
export interface ServedRun {
  run: RunDir;
  label: string;
  base: string;
}

/** Replies and traces longer than this are cut in the list's search text (the detail pane shows them whole). */
const SEARCH_TEXT_MAX_CHARS = 4000;

export interface ItemRow {
  run: string;
  key: string;
  task_id: string;
  subcategory: string;
  paradigm: string;
  arm: string;
  reasoner: string;
  outcome: Outcome;
  answer: string | null;
  truth: string;
  /** the reasoner's stated confidence in [0, 1], or null */
  confidence: number | null;
  /** how the answer was matched to an option (text, letter, fuzzy), where the record says */
  match: string | null;
  question: string;
  /** the replies or the program's trace, for the search (cut at SEARCH_TEXT_MAX_CHARS) */
  reply: string;
  served_model: string | null;
  tokens: number | null;
  reason_ms: number | null;
  /** the 3D arm's graph: node F1 over the observed objects, duplicate and hallucinated nodes */
  f1: number | null;
  duplicates: number | null;
  hallucinated: number | null;
}

/** How the answer was matched to an option; null without an answer, and in records made before the field. */
const matchOf = (r: ItemRecord): string | null => r.match ?? null;

const quality = (r: ItemRecord, k: string): number | null => r.graph_quality?.[k] ?? null;

export function itemRows(runs: readonly ServedRun[]): ItemRow[] {
  return runs.flatMap(({ run, label }) =>
    run.records.map((r) => ({
      run: label,
      key: r.key,
      task_id: r.task_id,
      subcategory: r.subcategory,
      paradigm: r.paradigm,
      arm: armLabel(r),
      reasoner: r.reasoner,
      outcome: outcomeOf(r),
      answer: r.answer,
      truth: r.truth,
      confidence: r.confidence,
      match: matchOf(r),
      question: r.question,
      reply: r.raw.join("\n").slice(0, SEARCH_TEXT_MAX_CHARS),
      served_model: r.served_model ?? null,
      tokens: r.usage ? (r.usage.input_tokens ?? 0) + (r.usage.output_tokens ?? 0) : null,
      reason_ms: r.timings_ms.reason ?? null,
      f1: quality(r, "f1_observed"),
      duplicates: quality(r, "duplicates"),
      hallucinated: quality(r, "hallucinated"),
    })),
  );
}

interface ItemPrompt {
  file: string;
  system: string;
  user: string;
  images: Array<{ url: string; view: number | null; sha256: string; mime_type: string }>;
}

export interface ItemDetail {
  run: string;
  record: ItemRecord;
  outcome: Outcome;
  /** the first request, from the prompt file; null for offline reasoners or when the file cannot be read */
  prompt: ItemPrompt | null;
  /** why there is no prompt to show */
  prompt_note: string | null;
  /** the task's 3D inspection page (this item's graph when it has one); null when the run stored no graph for the task */
  page: string | null;
  /** the page with this question's every arm and reasoner, of every served run */
  question_page: string;
}

/** The URL the viewer serves a prompt image at: its path in the run directory, below the run's prefix. */
const promptImageUrl = (s: ServedRun, sha256: string, mimeType: string) => `${s.base}/${promptImagePath(sha256, mimeType)}`;

function promptOf(s: ServedRun, r: ItemRecord): { prompt: ItemPrompt | null; note: string | null } {
  const { run } = s;
  if (!r.prompt_file) {
    if (r.prompt_hash) return { prompt: null, note: `this record names no prompt file (a run made before prompt files; prompt hash ${r.prompt_hash})` };
    return { prompt: null, note: `${r.reasoner} sends no prompt: it is an offline program (its trace is under "Program trace")` };
  }
  try {
    const f = readPromptFile(run.dir, r.prompt_file);
    const t = promptTexts(f);
    return {
      prompt: {
        file: r.prompt_file,
        system: t.system,
        user: t.user,
        images: t.images.map((im) => ({ url: promptImageUrl(s, im.sha256, im.mimeType), view: im.view, sha256: im.sha256, mime_type: im.mimeType })),
      },
      note: null,
    };
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { prompt: null, note: e.message.replaceAll(run.dir, ".") };
  }
}

function pageOf(s: ServedRun, r: ItemRecord): string | null {
  const { run } = s;
  const base = `${s.base}/task/${encodeURIComponent(r.task_id)}`;
  const arm = armLabel(r);
  if (arm.startsWith("3d:")) {
    const source = arm.slice(3);
    if (existsSync(graphFile(run, r.task_id, r.paradigm, source))) return `${base}?v=${encodeURIComponent(variantKey(r.paradigm, source))}`;
  }
  return existsSync(join(run.dir, "graphs", r.task_id)) && variantsOf(run, r.task_id).length > 0 ? base : null;
}

const questionPageUrl = (taskId: string) => `/question?task=${encodeURIComponent(taskId)}`;

function servedRun(runs: readonly ServedRun[], label: string | undefined): ServedRun {
  if (runs.length === 1 && (label === undefined || label === runs[0]!.label)) return runs[0]!;
  const s = runs.find((x) => x.label === label);
  if (!s) throw new InputError(`run "${String(label).slice(0, 100)}": not a served run (${runs.map((x) => x.label).join(", ")})`);
  return s;
}

export function itemDetail(runs: readonly ServedRun[], label: string | undefined, key: string): ItemDetail {
  const s = servedRun(runs, label);
  const r = s.run.records.findLast((x) => x.key === key);
  if (!r) throw new InputError(`no item "${key.slice(0, 200)}" in this run (item keys are task|paradigm|arm, as in items.jsonl)`);
  const { prompt, note } = promptOf(s, r);
  return { run: s.label, record: r, outcome: outcomeOf(r), prompt, prompt_note: note, page: pageOf(s, r), question_page: questionPageUrl(r.task_id) };
}

/** One arm of one question, as the question page sets it beside the others. */
interface QuestionArm {
  run: string;
  key: string;
  paradigm: string;
  arm: string;
  reasoner: string;
  outcome: Outcome;
  answer: string | null;
  confidence: number | null;
  match: string | null;
  /** the replies, or the program's trace */
  raw: string[];
  tokens: number | null;
  graph_quality: Record<string, number | null> | null;
  page: string | null;
}

export interface QuestionView {
  task_id: string;
  subcategory: string;
  question: string;
  options: string[];
  truth: string;
  /** every item of the task in every served run, by paradigm (the run's paradigm order), arms in key order */
  paradigms: Array<{ paradigm: string; arms: QuestionArm[] }>;
}

export function questionView(runs: readonly ServedRun[], taskId: string): QuestionView {
  const items = runs.flatMap((s) => s.run.records.filter((r) => r.task_id === taskId).map((r) => ({ s, r })));
  if (!items.length) throw new InputError(`no task "${taskId.slice(0, 200)}" in the served run(s)`);
  const first = items[0]!.r;
  const paradigms = [...new Set(items.map((x) => x.r.paradigm))].sort((a, b) => PARADIGM_ORDER.indexOf(a) - PARADIGM_ORDER.indexOf(b));
  return {
    task_id: taskId,
    subcategory: first.subcategory,
    question: first.question,
    options: first.options,
    truth: first.truth,
    paradigms: paradigms.map((p) => ({
      paradigm: p,
      arms: items
        .filter((x) => x.r.paradigm === p)
        // the same arm of each run and reasoner beside each other: 2D, the shortcut, then the 3D arms
        .sort(
          (a, b) =>
            armRank(armLabel(a.r)) - armRank(armLabel(b.r)) ||
            armLabel(a.r).localeCompare(armLabel(b.r)) ||
            a.r.reasoner.localeCompare(b.r.reasoner) ||
            a.s.label.localeCompare(b.s.label),
        )
        .map(
          ({ s, r }): QuestionArm => ({
            run: s.label,
            key: r.key,
            paradigm: p,
            arm: armLabel(r),
            reasoner: r.reasoner,
            outcome: outcomeOf(r),
            answer: r.answer,
            confidence: r.confidence,
            match: matchOf(r),
            raw: r.raw,
            tokens: r.usage ? (r.usage.input_tokens ?? 0) + (r.usage.output_tokens ?? 0) : null,
            graph_quality: r.graph_quality,
            page: pageOf(s, r),
          }),
        ),
    })),
  };
}

const PARADIGM_ORDER = ["single", "multi", "gt", "active"];
const armRank = (arm: string) => (arm === "2d" ? 0 : arm === "shortcut" ? 1 : 2);

/** Token and cost totals per reasoner of each served run (costs only from the price table given to inspect). */
export function usageByRun(runs: readonly ServedRun[], prices: PriceTable | null): Array<{ run: string; rows: UsageRow[] }> {
  return runs.map((s) => ({ run: s.label, rows: usageTotals(s.run.records, prices) }));
}
