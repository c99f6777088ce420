/**
 * Imports ESI-Bench's released records: every record becomes an esi3d task record, or is refused with
 * the file, the field and the reason (malformed records), or is kept out of the task set with a reason
 * (its answer cannot be mapped into its options). A bad record never stops the others.
 */
import type { TaskRecord } from "../../core/task/schema.js";
import type { Subcategory } from "../../core/task/taxonomy.js";
import { buildTask } from "./build.js";
import type { Draft } from "./draft.js";
import { locateRecords, type Located } from "./read.js";
import { Field, parseEsiRecord, RecordRefusal, type EsiRecord } from "./record.js";
import { subcategoryOf } from "./subcategories.js";

export interface ImportedRecord {
  record: EsiRecord;
  subcategory: Subcategory;
  draft: Draft;
  /** The task, or null when the record is kept out of the task set (`excluded` says why). */
  task: TaskRecord | null;
  excluded?: string;
}

export interface Refusal {
  file: string;
  rel: string;
  field: string;
  reason: string;
  /** true when the importer itself failed (a bug, not the record): the command then exits 1. */
  internal?: boolean;
}

export interface ImportResult {
  located: Located;
  imported: ImportedRecord[];
  refused: Refusal[];
}

function importOne(record: EsiRecord): ImportedRecord {
  const entry = subcategoryOf(record.raw.big_task, record.raw.small_task);
  if (!entry)
    throw new RecordRefusal(
      record.file,
      "small_task",
      `unknown subcategory (big_task "${record.raw.big_task}", small_task "${record.raw.small_task}"): expected one of ESI-Bench's 29`,
    );
  const draft = entry.map(record, Field.root(record));
  if (draft.answer.outside) return { record, subcategory: entry.sub, draft, task: null, excluded: `answer outside its options: ${draft.answer.outside}` };
  return { record, subcategory: entry.sub, draft, task: buildTask(record, entry.sub, draft) };
}

export function importRecords(dir: string): ImportResult {
  const located = locateRecords(dir);
  const imported: ImportedRecord[] = [];
  const refused: Refusal[] = [];
  for (const f of located.files) {
    try {
      if (f.text instanceof RecordRefusal) throw f.text;
      imported.push(importOne(parseEsiRecord(f.text, f.file, f.rel)));
    } catch (e) {
      if (e instanceof RecordRefusal) refused.push({ file: e.file, rel: f.rel, field: e.field, reason: e.reason });
      else refused.push({ file: f.file, rel: f.rel, field: "(importer)", reason: `internal error: ${(e as Error).stack ?? String(e)}`, internal: true });
    }
  }
  return { located, imported, refused };
}
