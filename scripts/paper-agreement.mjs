#!/usr/bin/env node
/**
 * Prints a finished run's sign agreement with the ESI-Bench paper's Table 4: for each 3D arm, over the cells
 * (subcategory x paradigm) where the paper's 3D model differs from Gemini 3.1 by at least the threshold, how
 * many of the run's differences from 2D have the same sign, and how many of those are significant
 * (src/eval/paperAgreement.ts). With --cells, every cell compared.
 * Usage: node scripts/paper-agreement.mjs <runDir> [--threshold POINTS] [--cells]   (after `npm run build`)
 */
import { join } from "node:path";
import { readJsonFile } from "../dist/core/fs.js";
import { formatTable } from "../dist/core/table.js";
import { agreementTable, paperAgreement, PAPER_DIFFERENCE_MIN_POINTS, PARADIGM_LETTERS, signedPoints } from "../dist/src/eval/paperAgreement.js";
import { SummaryFileSchema, SUMMARY_FORMAT } from "../dist/src/eval/summary.js";

const USAGE = "usage: node scripts/paper-agreement.mjs <runDir> [--threshold POINTS] [--cells]";
const args = process.argv.slice(2);
const fail = (message) => {
  console.error(`paper-agreement: ${message}\n${USAGE}`);
  process.exit(2);
};
let runDir = null,
  threshold = PAPER_DIFFERENCE_MIN_POINTS,
  cells = false;
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === "--cells") cells = true;
  else if (a === "--threshold") {
    threshold = Number(args[++i]);
    if (!Number.isFinite(threshold) || threshold < 0) fail(`--threshold: expected a number of points >= 0, got ${JSON.stringify(args[i] ?? null)}`);
  } else if (a.startsWith("-")) fail(`unknown option ${a}`);
  else if (runDir === null) runDir = a;
  else fail(`one run directory, got a second: ${a}`);
}
if (runDir === null) fail("the run directory is missing");

let summary;
try {
  summary = readJsonFile(join(runDir, "summary.json"), SummaryFileSchema, `run summary (${SUMMARY_FORMAT}, written by esi3d run)`);
} catch (e) {
  fail(e.message);
}
const rows = paperAgreement(summary, threshold);
if (!rows.length) {
  console.log(`${runDir}: no 3D arm with a 2D arm to compare with (the paper's rows are GT 3D + Gemini and VGGT + Gemini against Gemini 3.1)`);
  process.exit(0);
}
console.log(`${runDir}: ${summary.items} items${summary.complete ? "" : " (an interrupted run)"}`);
console.log(agreementTable(rows));
if (cells) {
  const body = rows.flatMap((r) =>
    r.cells.map((c) => [
      r.method,
      c.subcategory,
      PARADIGM_LETTERS[c.paradigm] ?? c.paradigm,
      signedPoints(c.paperPoints),
      signedPoints(c.difference.diff * 100),
      `[${signedPoints(c.difference.lo * 100)}, ${signedPoints(c.difference.hi * 100)}]`,
      c.difference.p === null ? "-" : c.difference.p.toFixed(4),
      `${c.relation}${c.significant ? ", significant" : ""}`,
    ]),
  );
  console.log("");
  console.log(formatTable(["Arm", "subcategory", "paradigm", "paper (points)", "run (points)", "95 % interval", "p", "sign"], body, { align: "numbers" }));
}
