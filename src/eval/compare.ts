/**
 * `esi3d compare RUN_A RUN_B`: per-subcategory accuracy differences with 95 % intervals. Items both runs
 * scored (the same item key: task, paradigm, arm and source) are paired, so two runs over the same suite
 * (say, two explorers of the active paradigm) are compared item by item: Bonett and Price's paired
 * interval (summary.ts pairedDifference), with the discordant pairs shown. Subcategories and methods without shared items fall back to the
 * independent-samples interval over each run's own items.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../core/errors.js";
import { columnWidths, tableRow } from "../core/table.js";
import { SUBCATEGORY_TITLES, type Subcategory } from "../../bridge/task/taxonomy.js";
import { readRecords, type ItemRecord } from "./records.js";
import { methodOf, newcombeDifference, pairedDifference, summarizeRun, type RunSummary } from "./summary.js";

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
  /** Paired rows: the shared items, and those only A or only B answered right (null: unpaired). */
  pairs: { n: number; aOnly: number; bOnly: number } | null;
}

export interface LoadedRun {
  summary: RunSummary;
  records: ItemRecord[];
}

export function loadRun(dir: string): LoadedRun {
  const f = join(dir, "items.jsonl");
  if (!existsSync(f)) throw new InputError(`${dir}: not a run directory (no items.jsonl)`, { file: dir });
  const records = readRecords(f).records;
  return { summary: summarizeRun(records), records };
}

const isScored = (r: ItemRecord) => r.status === "parsed" && r.correct !== null;

/** The items of one cell (subcategory or "overall", method, paradigm or "all") that were scored, by key. */
function scoredCell(records: ItemRecord[], sub: string, method: string, paradigm: string): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const r of records) if ((sub === "overall" || r.subcategory === sub) && methodOf(r) === method && (paradigm === "all" || r.paradigm === paradigm) && isScored(r)) out.set(r.key, r.correct === true);
  return out;
}

function pairedRow(a: Map<string, boolean>, b: Map<string, boolean>): Pick<ComparisonRow, "a" | "b" | "nA" | "nB" | "diff" | "lo" | "hi" | "pairs"> | null {
  let both = 0, aOnly = 0, bOnly = 0, neither = 0;
  for (const [k, ra] of a) {
    const rb = b.get(k);
    if (rb === undefined) continue;
    if (ra && rb) both++;
    else if (ra) aOnly++;
    else if (rb) bOnly++;
    else neither++;
  }
  const n = both + aOnly + bOnly + neither;
  if (n === 0) return null;
  return { a: (both + aOnly) / n, b: (both + bOnly) / n, nA: n, nB: n, ...pairedDifference(n, aOnly, bOnly), pairs: { n, aOnly, bOnly } };
}

export function compareRuns(A: LoadedRun, B: LoadedRun, paradigm = "all"): ComparisonRow[] {
  const a = A.summary, b = B.summary;
  const rows: ComparisonRow[] = [];
  const subs = a.subcategories.filter((s) => b.subcategories.includes(s));
  for (const s of [...subs, "overall"])
    for (const m of a.methods.filter((x) => b.methods.includes(x))) {
      const paired = pairedRow(scoredCell(A.records, s, m, paradigm), scoredCell(B.records, s, m, paradigm));
      if (paired) {
        rows.push({ subcategory: s, method: m, paradigm, ...paired });
        continue;
      }
      const ca = s === "overall" ? a.overall[m]?.[paradigm] : a.table[s]?.[m]?.[paradigm];
      const cb = s === "overall" ? b.overall[m]?.[paradigm] : b.table[s]?.[m]?.[paradigm];
      if (!ca || !cb || ca.nScored === 0 || cb.nScored === 0) continue;
      rows.push({ subcategory: s, method: m, paradigm, a: ca.accuracy.p, b: cb.accuracy.p, nA: ca.nScored, nB: cb.nScored, ...newcombeDifference(ca.accuracy, cb.accuracy), pairs: null });
    }
  return rows;
}

export function formatComparison(rows: ComparisonRow[], nameA: string, nameB: string): string {
  const head = ["subcategory", "method", `${nameA} %`, `${nameB} %`, "diff (points)", "95% interval", "pairs", ""];
  const body = rows.map((r) => [
    r.subcategory === "overall" ? "Overall" : (SUBCATEGORY_TITLES[r.subcategory as Subcategory] ?? r.subcategory),
    r.method,
    `${(r.a * 100).toFixed(1)} (n=${r.nA})`,
    `${(r.b * 100).toFixed(1)} (n=${r.nB})`,
    `${r.diff >= 0 ? "+" : ""}${(r.diff * 100).toFixed(1)}`,
    `[${(r.lo * 100).toFixed(1)}, ${(r.hi * 100).toFixed(1)}]`,
    r.pairs ? `${r.pairs.n} (${nameA} only ${r.pairs.aOnly}, ${nameB} only ${r.pairs.bOnly})` : "unpaired",
    r.lo > 0 ? `${nameA} better` : r.hi < 0 ? `${nameB} better` : "",
  ]);
  const w = columnWidths([head, ...body]);
  return [head, ...body].map((r) => tableRow(r, w)).join("\n");
}

export function compareCommand(dirA: string, dirB: string, paradigm: string): string {
  const rows = compareRuns(loadRun(dirA), loadRun(dirB), paradigm);
  if (!rows.length) throw new InputError(`${dirA} and ${dirB} share no method and subcategory with scored items to compare (paradigm ${paradigm})`);
  const paired = rows.some((r) => r.pairs) ? "items both runs scored are paired (Bonett-Price paired interval); " : "";
  return formatComparison(rows, "A", "B") + `\n(A = ${dirA}, B = ${dirB}; paradigm ${paradigm}; ${paired}otherwise Newcombe's 95% interval for the difference of two independent proportions)\n`;
}
