/** `esi3d compare RUN_A RUN_B`: per-subcategory accuracy differences with 95 % intervals. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../core/errors.js";
import { columnWidths, tableRow } from "../core/table.js";
import { SUBCATEGORY_TITLES, type Subcategory } from "../../bridge/task/taxonomy.js";
import { readRecords } from "./records.js";
import { newcombeDifference, summarizeRun, type RunSummary } from "./summary.js";

export interface ComparisonRow {
  subcategory: string;
  method: string;
  paradigm: string;
  a: number;
  b: number;
  nA: number;
  nB: number;
  diff: number;
  lo: number;
  hi: number;
}

export function loadRunSummary(dir: string): RunSummary {
  const f = join(dir, "items.jsonl");
  if (!existsSync(f)) throw new InputError(`${dir}: not a run directory (no items.jsonl)`);
  return summarizeRun(readRecords(f).records);
}

export function compareRuns(a: RunSummary, b: RunSummary, paradigm = "all"): ComparisonRow[] {
  const rows: ComparisonRow[] = [];
  const subs = a.subcategories.filter((s) => b.subcategories.includes(s));
  for (const s of [...subs, "overall"])
    for (const m of a.methods.filter((x) => b.methods.includes(x))) {
      const ca = s === "overall" ? a.overall[m]?.[paradigm] : a.table[s]?.[m]?.[paradigm];
      const cb = s === "overall" ? b.overall[m]?.[paradigm] : b.table[s]?.[m]?.[paradigm];
      if (!ca || !cb || ca.nScored === 0 || cb.nScored === 0) continue;
      rows.push({ subcategory: s, method: m, paradigm, a: ca.accuracy.p, b: cb.accuracy.p, nA: ca.nScored, nB: cb.nScored, ...newcombeDifference(ca.accuracy, cb.accuracy) });
    }
  return rows;
}

export function formatComparison(rows: ComparisonRow[], nameA: string, nameB: string): string {
  const head = ["subcategory", "method", `${nameA} %`, `${nameB} %`, "diff (points)", "95% interval", ""];
  const body = rows.map((r) => [
    r.subcategory === "overall" ? "Overall" : (SUBCATEGORY_TITLES[r.subcategory as Subcategory] ?? r.subcategory),
    r.method,
    `${(r.a * 100).toFixed(1)} (n=${r.nA})`,
    `${(r.b * 100).toFixed(1)} (n=${r.nB})`,
    `${r.diff >= 0 ? "+" : ""}${(r.diff * 100).toFixed(1)}`,
    `[${(r.lo * 100).toFixed(1)}, ${(r.hi * 100).toFixed(1)}]`,
    r.lo > 0 ? "A better" : r.hi < 0 ? "B better" : "",
  ]);
  const w = columnWidths([head, ...body]);
  return [head, ...body].map((r) => tableRow(r, w)).join("\n");
}

export function compareCommand(dirA: string, dirB: string, paradigm: string): string {
  const rows = compareRuns(loadRunSummary(dirA), loadRunSummary(dirB), paradigm);
  if (!rows.length) throw new InputError(`${dirA} and ${dirB} share no method and subcategory to compare (paradigm ${paradigm})`);
  return formatComparison(rows, "A", "B") + `\n(A = ${dirA}, B = ${dirB}; paradigm ${paradigm}; Newcombe's 95% interval for the difference of two proportions)\n`;
}
