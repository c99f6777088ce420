/**
 * items.jsonl: one line per finished item, appended and fsynced one at a time, so a run killed at any
 * moment loses at most the items in flight. A reader tolerates a torn last line; before appending again,
 * a resumed run cuts the file back to its last complete line.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, statSync, ftruncateSync, writeSync } from "node:fs";

export type Arm = "2d" | "3d";

export interface ItemRecord {
  key: string;
  task_id: string;
  subcategory: string;
  category: string;
  paradigm: string;
  arm: Arm;
  /** Point-cloud source of the 3D arm, null for 2D. */
  source: string | null;
  noise_level: number | null;
  reasoner: string;
  masks: string | null;
  instances: string | null;
  format: string | null;
  uncertainty: boolean | null;
  question: string;
  answer_format: string;
  options: string[];
  truth: string;
  status: "parsed" | "invalid" | "empty" | "error";
  answer: string | null;
  confidence: number | null;
  correct: boolean | null;
  /** VSI-Bench mean relative accuracy for integer answers (0 when unparsed). */
  mra: number | null;
  prompt_hash: string | null;
  raw: string[];
  method: string;
  reprompted: boolean;
  views: number;
  graph_quality: Record<string, number | null> | null;
  timings_ms: Record<string, number>;
  /** Set when the task was rendered as a proxy scene (bridge/esibench/proxy.ts): the results are about the proxy. */
  proxy?: true;
  /** The task's simulator, on proxy records ("esi3d-builtin/1 proxy of esi-bench/omnigibson"). */
  simulator?: string;
}

export function itemKey(taskId: string, paradigm: string, arm: Arm, source: string | null): string {
  return `${taskId}|${paradigm}|${arm === "2d" ? "2d" : `3d:${source}`}`;
}

/** Reads every complete record; a torn or unparsable last line is ignored (a kill mid-write). */
export function readRecords(file: string): { records: ItemRecord[]; tornBytes: number } {
  if (!existsSync(file)) return { records: [], tornBytes: 0 };
  const text = readFileSync(file, "utf8");
  const lastNl = text.lastIndexOf("\n");
  const complete = lastNl >= 0 ? text.slice(0, lastNl) : "";
  const records: ItemRecord[] = [];
  const lines = complete.split("\n");
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    try {
      records.push(JSON.parse(line) as ItemRecord);
    } catch (e) {
      // only a kill can tear a line, and only the last one; anything else is corruption
      if (i < lines.length - 1) throw new Error(`${file}: line ${i + 1} is not valid JSON (${(e as Error).message})`);
    }
  });
  return { records, tornBytes: Buffer.byteLength(text.slice(lastNl + 1)) };
}

export class RecordWriter {
  private fd: number;

  constructor(readonly file: string) {
    this.fd = openSync(file, "a+");
    // cut a torn last line so the next record starts on a fresh line
    const size = statSync(file).size;
    if (size > 0) {
      const text = readFileSync(file, "utf8");
      const keep = text.lastIndexOf("\n") + 1;
      if (Buffer.byteLength(text.slice(0, keep)) !== size) ftruncateSync(this.fd, Buffer.byteLength(text.slice(0, keep)));
    }
  }

  append(r: ItemRecord): void {
    writeSync(this.fd, JSON.stringify(r) + "\n");
    fsyncSync(this.fd);
  }

  close(): void {
    closeSync(this.fd);
  }
}
