/**
 * Prints a run's table for docs/results.md: per subcategory and arm, paradigms pooled, the three forms the
 * summary keeps (accuracy over all items with a declined item credited at chance, coverage, accuracy over the
 * answered items) and n, read from the run's items.jsonl by the same summarizer as summary.json.
 * Usage: node scripts/results-table.mjs RUN_DIR   (after `npm run build`)
 */
import { readRecords } from "../dist/src/eval/records.js";
import { summarizeRun, METHOD_LABELS } from "../dist/src/eval/summary.js";
import { SUBCATEGORY_TITLES } from "../dist/core/task/taxonomy.js";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node scripts/results-table.mjs RUN_DIR");
  process.exit(2);
}
const s = summarizeRun(readRecords(`${dir}/items.jsonl`).records);
const pct = (x) => (Number.isFinite(x) ? (x * 100).toFixed(1) : "–");
const cell = (c) => (c ? `${pct(c.score.p)} / ${pct(c.coverage.p)} / ${pct(c.accuracy.p)} (${c.n})` : "");
const row = (cells) => `| ${cells.join(" | ")} |`;
console.log(row(["subcategory", ...s.methods.map((m) => METHOD_LABELS[m] ?? m)]));
console.log(row(["---", ...s.methods.map(() => "---:")]));
for (const sub of s.subcategories) console.log(row([SUBCATEGORY_TITLES[sub] ?? sub, ...s.methods.map((m) => cell(s.table[sub]?.[m]?.all))]));
console.log(row(["**all, pooled**", ...s.methods.map((m) => cell(s.overall[m]?.all))]));
