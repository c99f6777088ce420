/**
 * `esi3d compare RUN_A RUN_B [RUN_C …]`: per-subcategory accuracy differences with 95 % intervals, each run
 * against the first (A is the reference: the tables give A − B, A − C, …; B is not compared with C). Every item
 * counts: items both runs have (the same item key: task, paradigm, arm and source) are paired with their scores
 * (1, 0, or an unanswered item's chance credit), clustered by task (src/eval/pairedTests.ts). Cells without shared
 * items fall back to the independent-samples (Newcombe) interval over each run's own items. p-values are per row,
 * not corrected for the number of rows (docs/statistics.md). Before each table, warnings say when the runs differ
 * in reasoner, suite or label mode, or share too few tasks for the comparison to mean much.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../core/errors.js";
import { columnWidths, tableRow } from "../../core/table.js";
import { SUBCATEGORY_TITLES, type Subcategory } from "../../core/task/taxonomy.js";
import { readRecords, type ItemRecord } from "./records.js";
import { creditOf, isAnswered, methodOf, newcombeDifference, summarizeRun, type Cell, type RunSummary } from "./summary.js";
import { checkSameTasks } from "./taskHash.js";
import { comparePaired, SIGNIFICANCE_ALPHA, type PairedSummary, type PairedTest } from "./pairedTests.js";
import { BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, type Pair } from "./taskBootstrap.js";
import { SMALL_CELL_ITEMS, smallMark } from "./smallSamples.js";
import { readRunFile, runConfigFile, type RunFile } from "./files.js";

/** One run's side of a comparison row: the three forms of its accuracy over the row's items. */
interface ComparedSide {
  /** mean score over all n items, an unanswered one credited at chance */
  score: number;
  /** share of the n items answered */
  coverage: number;
  /** accuracy on the answered items (NaN when none) */
  accuracy: number;
  n: number;
}

interface ComparisonRow {
  subcategory: string;
  method: string;
  paradigm: string;
  a: ComparedSide;
  b: ComparedSide;
  /** a − b of the scores over all items: the reference run minus the run compared */
  diff: number;
  lo: number;
  hi: number;
  test: PairedTest;
  /** two-sided p-value; null for the unpaired fallback */
  p: number | null;
  /** Paired rows: the shared items, their tasks, and those A or B scored more on (null: unpaired). */
  pairs: PairedSummary | null;
}

interface LoadedRun {
  dir: string;
  summary: RunSummary;
  records: ItemRecord[];
  /** config.json, when the run has a readable one (runs of other versions may not) */
  run: RunFile | null;
  /** lines whose item key an earlier line already had (each item is counted once, by its first record) */
  duplicates?: number;
}

function loadRun(dir: string): LoadedRun {
  const f = join(dir, "items.jsonl");
  if (!existsSync(f)) throw new InputError(`${dir}: not a run directory (no items.jsonl)`, { file: dir });
  const { records, duplicates } = readRecords(f);
  let run: RunFile | null = null;
  if (existsSync(runConfigFile(dir))) {
    try {
      run = readRunFile(dir);
    } catch {
      run = null; // another version's config: the checks below fall back on the records
    }
  }
  return { dir, summary: summarizeRun(records), records, run, duplicates };
}

/** The items of one cell (subcategory or "overall", method, paradigm or "all"), by key: every item, answered or not. */
function cellItems(records: ItemRecord[], sub: string, method: string, paradigm: string): Map<string, ItemRecord> {
  const out = new Map<string, ItemRecord>();
  for (const r of records)
    if ((sub === "overall" || r.subcategory === sub) && methodOf(r) === method && (paradigm === "all" || r.paradigm === paradigm)) out.set(r.key, r);
  return out;
}

/** The three forms of accuracy over some items. */
function sideOf(items: readonly ItemRecord[]): ComparedSide {
  const answered = items.filter(isAnswered);
  return {
    score: items.reduce((t, r) => t + creditOf(r), 0) / items.length,
    coverage: answered.length / items.length,
    accuracy: answered.length ? answered.filter((r) => r.correct).length / answered.length : Number.NaN,
    n: items.length,
  };
}

const sideOfCell = (c: Cell): ComparedSide => ({ score: c.score.p, coverage: c.coverage.p, accuracy: c.accuracy.p, n: c.n });

/** Run A against run B on the items both have (an unanswered one scores its chance credit), clustered by task. */
function pairedRow(a: Map<string, ItemRecord>, b: Map<string, ItemRecord>): Omit<ComparisonRow, "subcategory" | "method" | "paradigm"> | null {
  const pairs: Pair[] = [];
  const sharedA: ItemRecord[] = [],
    sharedB: ItemRecord[] = [];
  for (const [k, ra] of a) {
    const rb = b.get(k);
    if (!rb) continue;
    pairs.push({ cluster: ra.task_id, a: creditOf(ra), b: creditOf(rb) });
    sharedA.push(ra);
    sharedB.push(rb);
  }
  const t = comparePaired(pairs);
  if (!t) return null;
  return { a: sideOf(sharedA), b: sideOf(sharedB), diff: t.diff, lo: t.lo, hi: t.hi, test: t.test, p: t.p, pairs: t.pairs };
}

/** Rows of the reference run A against run B: A − B per subcategory (and overall) and method. */
function compareRuns(A: LoadedRun, B: LoadedRun, paradigm = "all"): ComparisonRow[] {
  const a = A.summary,
    b = B.summary;
  const rows: ComparisonRow[] = [];
  const subs = a.subcategories.filter((s) => b.subcategories.includes(s));
  for (const s of [...subs, "overall"])
    for (const m of a.methods.filter((x) => b.methods.includes(x))) {
      const paired = pairedRow(cellItems(A.records, s, m, paradigm), cellItems(B.records, s, m, paradigm));
      if (paired) {
        rows.push({ subcategory: s, method: m, paradigm, ...paired });
        continue;
      }
      const ca = s === "overall" ? a.overall[m]?.[paradigm] : a.table[s]?.[m]?.[paradigm];
      const cb = s === "overall" ? b.overall[m]?.[paradigm] : b.table[s]?.[m]?.[paradigm];
      if (!ca || !cb || ca.n === 0 || cb.n === 0) continue;
      rows.push({
        subcategory: s,
        method: m,
        paradigm,
        a: sideOfCell(ca),
        b: sideOfCell(cb),
        ...newcombeDifference(ca.score, cb.score),
        test: "newcombe",
        p: null,
        pairs: null,
      });
    }
  return rows;
}

/** The share of tasks two runs must have in common, of each run's tasks, before compare stops warning. */
const MIN_SHARED_TASK_SHARE = 0.5;

/**
 * Why a comparison of two runs may not mean what its table says, one line each: they ask different reasoners,
 * read different suites (another directory or seed), use different label modes, or share fewer than half of
 * either run's tasks. Reasoners and labels come from the records; the suite from config.json where both have one.
 */
function comparisonWarnings(A: LoadedRun, B: LoadedRun, nameA: string, nameB: string): string[] {
  const out: string[] = [];
  const set = (rs: readonly ItemRecord[], f: (r: ItemRecord) => string | null) => [...new Set(rs.map(f).filter((x): x is string => x !== null))].sort();
  const differ = (x: string[], y: string[]) => x.join("\u0000") !== y.join("\u0000");
  const list = (x: string[]) => x.join(", ") || "none";
  const reasoners = [A, B].map((R) => set(R.records, (r) => (r.arm === "shortcut" ? null : r.reasoner)));
  if (differ(reasoners[0]!, reasoners[1]!)) out.push(`the runs use different reasoners: ${nameA} ${list(reasoners[0]!)}; ${nameB} ${list(reasoners[1]!)}`);
  const suiteOf = (R: LoadedRun) => (R.run ? `${R.run.config.suite} (seed ${R.run.config.seed}, ${R.run.config.perSubcategory} per subcategory)` : null);
  const [sa, sb] = [suiteOf(A), suiteOf(B)];
  if (sa !== null && sb !== null && sa !== sb) out.push(`the runs read different suites: ${nameA} ${sa}; ${nameB} ${sb}`);
  const labels = [A, B].map((R) => set(R.records, (r) => (r.arm === "3d" ? r.labels : null)));
  if (differ(labels[0]!, labels[1]!)) out.push(`the runs' 3D arms use different label modes: ${nameA} ${list(labels[0]!)}; ${nameB} ${list(labels[1]!)}`);
  const tasks = [A, B].map((R) => new Set(R.records.map((r) => r.task_id)));
  const shared = [...tasks[0]!].filter((t) => tasks[1]!.has(t)).length;
  if (shared < MIN_SHARED_TASK_SHARE * tasks[0]!.size || shared < MIN_SHARED_TASK_SHARE * tasks[1]!.size)
    out.push(
      `the runs share ${shared} task(s): ${nameA} has ${tasks[0]!.size}, ${nameB} ${tasks[1]!.size} (fewer than ${MIN_SHARED_TASK_SHARE * 100} % of ${shared < MIN_SHARED_TASK_SHARE * tasks[0]!.size ? nameA : nameB}'s)`,
    );
  return out;
}

const TEST_NAMES: Record<PairedTest, string> = { "mcnemar-exact": "McNemar exact", "signflip-task": "task sign-flip", newcombe: "unpaired (Newcombe)" };

const pValue = (p: number | null) => (p === null ? "-" : p < 0.001 ? "<0.001" : p.toFixed(3));
const pct = (x: number) => (Number.isFinite(x) ? (x * 100).toFixed(1) : "-");

/** A row is marked when its test says so: p < SIGNIFICANCE_ALPHA, or (unpaired) an interval that excludes 0. */
function verdict(r: ComparisonRow, nameA: string, nameB: string): string {
  const sig = r.p === null ? r.lo > 0 || r.hi < 0 : r.p < SIGNIFICANCE_ALPHA;
  return sig ? (r.diff > 0 ? `${nameA} better` : `${nameB} better`) : "";
}

/** "61.2 (n=40) cov 87.5 ans 70.0": a side's score over all items with n, its coverage and its accuracy on answered items. */
const sideCell = (x: ComparedSide) => `${pct(x.score)} (n=${x.n}${smallMark(x.n)}) cov ${pct(x.coverage)} ans ${pct(x.accuracy)}`;

function formatComparison(rows: ComparisonRow[], nameA: string, nameB: string): string {
  const head = ["subcategory", "method", `${nameA} %`, `${nameB} %`, `${nameA}-${nameB} (points)`, "95% interval", "p", "test", "pairs (tasks)", ""];
  const body = rows.map((r) => [
    r.subcategory === "overall" ? "Overall" : (SUBCATEGORY_TITLES[r.subcategory as Subcategory] ?? r.subcategory),
    r.method,
    sideCell(r.a),
    sideCell(r.b),
    `${r.diff >= 0 ? "+" : ""}${(r.diff * 100).toFixed(1)}`,
    `[${(r.lo * 100).toFixed(1)}, ${(r.hi * 100).toFixed(1)}]`,
    pValue(r.p),
    TEST_NAMES[r.test],
    r.pairs ? `${r.pairs.n} (${r.pairs.clusters}); ${nameA} higher ${r.pairs.aBetter}, ${nameB} higher ${r.pairs.bBetter}` : "unpaired",
    verdict(r, nameA, nameB),
  ]);
  const w = columnWidths([head, ...body]);
  return [head, ...body].map((r) => tableRow(r, w)).join("\n");
}

/** Run names in the table: A, B, C, … (Z, then AA, AB, …). */
const runName = (i: number): string => (i < 26 ? String.fromCharCode(65 + i) : runName(Math.floor(i / 26) - 1) + runName(i % 26));

/**
 * Every run after the first against the first, one table each, each after the warnings that apply to it: those
 * of comparisonWarnings, a run whose items.jsonl repeats item keys, shared items whose task content
 * cannot be checked (one run's records written before task_hash). Runs whose shared tasks differ in content are refused
 * before any table (src/eval/taskHash.ts).
 */
export function compareCommand(dirs: readonly string[], paradigm: string): string {
  if (dirs.length < 2) throw new InputError(`compare needs at least two run directories, got ${dirs.length}`);
  const runs = dirs.map(loadRun);
  const unchecked = runs.map((r, i) =>
    i === 0 ? 0 : checkSameTasks({ dir: dirs[0]!, records: runs[0]!.records }, { dir: dirs[i]!, records: r.records }).unchecked,
  );
  const repeated = (i: number, name: string) =>
    runs[i]!.duplicates
      ? [`${name}'s ${join(dirs[i]!, "items.jsonl")} repeats ${runs[i]!.duplicates} item key(s) on later lines; each item is counted once, by its first record`]
      : [];
  const out: string[] = [];
  for (let i = 1; i < runs.length; i++) {
    const rows = compareRuns(runs[0]!, runs[i]!, paradigm);
    if (!rows.length) throw new InputError(`${dirs[0]} and ${dirs[i]} share no method and subcategory with items to compare (paradigm ${paradigm})`);
    const name = runName(i);
    if (runs.length > 2) out.push(`## ${name} against A`);
    const hashless = unchecked[i]
      ? [
          `${unchecked[i]} shared item(s) have a task_hash in one run only (the other's records were written before esi3d recorded it), so that both runs asked the same tasks is not checked`,
        ]
      : [];
    for (const w of [...comparisonWarnings(runs[0]!, runs[i]!, "A", name), ...repeated(0, "A"), ...repeated(i, name), ...hashless]) out.push(`WARNING: ${w}.`);
    out.push(formatComparison(rows, "A", name));
  }
  const legend = dirs.map((d, i) => `${runName(i)} = ${d}`).join(", ");
  out.push(
    `(${legend}; each run against A; paradigm ${paradigm}. Each cell: accuracy % over all n items, an item without an answer credited at chance (1/k of its options); cov = share answered; ans = accuracy on the answered items. Items of both runs are paired by item and clustered by task, each scored 1, 0 or its chance credit: McNemar's exact test with Bonett-Price's interval when each task gives one pair and no item is unanswered, otherwise a sign-flip test over tasks with the interval of a task bootstrap (${BOOTSTRAP_RESAMPLES} resamples, seed "${BOOTSTRAP_SEED}"); runs without a shared item, Newcombe's interval for two independent proportions. p < ${SIGNIFICANCE_ALPHA} marks a side, per row, uncorrected for the number of rows; n < ${SMALL_CELL_ITEMS} is marked *.)`,
  );
  return out.join("\n") + "\n";
}
