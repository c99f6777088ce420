/**
 * `esi3d compare RUN_A RUN_B [RUN_C …]`: per-subcategory accuracy differences with 95 % intervals, each run
 * against the first (A is the reference: the tables give A − B, A − C, …; B is not compared with C). Items both
 * runs scored (the same item key: task, paradigm, arm and source) are paired, clustered by task
 * (src/eval/pairedTests.ts): McNemar's exact test with Bonett and Price's interval when each task gives one pair
 * (one paradigm), an exact sign-flip test over tasks (interval: a task bootstrap) when a task gives several (paradigms pooled). Cells without shared items fall
 * back to the independent-samples (Newcombe) interval over each run's own items. p-values are per row,
 * not corrected for the number of rows (docs/statistics.md).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../core/errors.js";
import { columnWidths, tableRow } from "../core/table.js";
import { SUBCATEGORY_TITLES, type Subcategory } from "../../bridge/task/taxonomy.js";
import { readRecords, type ItemRecord } from "./records.js";
import { methodOf, newcombeDifference, summarizeRun, type RunSummary } from "./summary.js";
import { BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, comparePaired, SIGNIFICANCE_ALPHA, type Pair, type PairedSummary, type PairedTest } from "./pairedTests.js";
import { SMALL_CELL_ITEMS, smallMark } from "./smallSamples.js";

export interface ComparisonRow {
  subcategory: string;
  method: string;
  paradigm: string;
  a: number;
  b: number;
  nA: number;
  nB: number;
  /** a − b: the reference run minus the run compared */
  diff: number;
  lo: number;
  hi: number;
  test: PairedTest;
  /** two-sided p-value; null for the unpaired fallback */
  p: number | null;
  /** Paired rows: the shared items, their tasks, and those only A or only B answered right (null: unpaired). */
  pairs: PairedSummary | null;
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
function scoredCell(records: ItemRecord[], sub: string, method: string, paradigm: string): Map<string, ItemRecord> {
  const out = new Map<string, ItemRecord>();
  for (const r of records) if ((sub === "overall" || r.subcategory === sub) && methodOf(r) === method && (paradigm === "all" || r.paradigm === paradigm) && isScored(r)) out.set(r.key, r);
  return out;
}

/** Run A against run B on the items both scored, clustered by task. */
function pairedRow(a: Map<string, ItemRecord>, b: Map<string, ItemRecord>): Omit<ComparisonRow, "subcategory" | "method" | "paradigm"> | null {
  const pairs: Pair[] = [];
  for (const [k, ra] of a) {
    const rb = b.get(k);
    if (rb) pairs.push({ cluster: ra.task_id, a: ra.correct === true, b: rb.correct === true });
  }
  const t = comparePaired(pairs);
  if (!t) return null;
  const n = t.pairs.n;
  return { a: pairs.filter((p) => p.a).length / n, b: pairs.filter((p) => p.b).length / n, nA: n, nB: n, diff: t.diff, lo: t.lo, hi: t.hi, test: t.test, p: t.p, pairs: t.pairs };
}

/** Rows of the reference run A against run B: A − B per subcategory (and overall) and method. */
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
      rows.push({ subcategory: s, method: m, paradigm, a: ca.accuracy.p, b: cb.accuracy.p, nA: ca.nScored, nB: cb.nScored, ...newcombeDifference(ca.accuracy, cb.accuracy), test: "newcombe", p: null, pairs: null });
    }
  return rows;
}

const TEST_NAMES: Record<PairedTest, string> = { "mcnemar-exact": "McNemar exact", "signflip-task": "task sign-flip", newcombe: "unpaired (Newcombe)" };

const pValue = (p: number | null) => (p === null ? "-" : p < 0.001 ? "<0.001" : p.toFixed(3));

/** A row is marked when its test says so: p < SIGNIFICANCE_ALPHA, or (unpaired) an interval that excludes 0. */
function verdict(r: ComparisonRow, nameA: string, nameB: string): string {
  const sig = r.p === null ? r.lo > 0 || r.hi < 0 : r.p < SIGNIFICANCE_ALPHA;
  return sig ? (r.diff > 0 ? `${nameA} better` : `${nameB} better`) : "";
}

export function formatComparison(rows: ComparisonRow[], nameA: string, nameB: string): string {
  const head = ["subcategory", "method", `${nameA} %`, `${nameB} %`, `${nameA}-${nameB} (points)`, "95% interval", "p", "test", "pairs (tasks)", ""];
  const body = rows.map((r) => [
    r.subcategory === "overall" ? "Overall" : (SUBCATEGORY_TITLES[r.subcategory as Subcategory] ?? r.subcategory),
    r.method,
    `${(r.a * 100).toFixed(1)} (n=${r.nA}${smallMark(r.nA)})`,
    `${(r.b * 100).toFixed(1)} (n=${r.nB}${smallMark(r.nB)})`,
    `${r.diff >= 0 ? "+" : ""}${(r.diff * 100).toFixed(1)}`,
    `[${(r.lo * 100).toFixed(1)}, ${(r.hi * 100).toFixed(1)}]`,
    pValue(r.p),
    TEST_NAMES[r.test],
    r.pairs ? `${r.pairs.n} (${r.pairs.clusters}); ${nameA} only ${r.pairs.aOnly}, ${nameB} only ${r.pairs.bOnly}` : "unpaired",
    verdict(r, nameA, nameB),
  ]);
  const w = columnWidths([head, ...body]);
  return [head, ...body].map((r) => tableRow(r, w)).join("\n");
}

/** Run names in the table: A, B, C, … (Z, then AA, AB, …). */
const runName = (i: number): string => (i < 26 ? String.fromCharCode(65 + i) : runName(Math.floor(i / 26) - 1) + runName(i % 26));

/** Every run after the first against the first, one table each. */
export function compareCommand(dirs: readonly string[], paradigm: string): string {
  if (dirs.length < 2) throw new InputError(`compare needs at least two run directories, got ${dirs.length}`);
  const runs = dirs.map(loadRun);
  const out: string[] = [];
  for (let i = 1; i < runs.length; i++) {
    const rows = compareRuns(runs[0]!, runs[i]!, paradigm);
    if (!rows.length) throw new InputError(`${dirs[0]} and ${dirs[i]} share no method and subcategory with scored items to compare (paradigm ${paradigm})`);
    const name = runName(i);
    if (runs.length > 2) out.push(`## ${name} against A`);
    out.push(formatComparison(rows, "A", name));
  }
  const legend = dirs.map((d, i) => `${runName(i)} = ${d}`).join(", ");
  out.push(`(${legend}; each run against A; paradigm ${paradigm}. Items both runs scored are paired by item and clustered by task: McNemar's exact test with Bonett-Price's interval when each task gives one pair, an exact sign-flip test over tasks, with the interval of a task bootstrap (${BOOTSTRAP_RESAMPLES} resamples, seed "${BOOTSTRAP_SEED}"), when it gives several; otherwise Newcombe's interval for two independent proportions. p < ${SIGNIFICANCE_ALPHA} marks a side, per row, uncorrected for the number of rows; n < ${SMALL_CELL_ITEMS} is marked *.)`);
  return out.join("\n") + "\n";
}
