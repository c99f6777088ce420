#!/usr/bin/env node
/**
 * Re-answers a finished run's symbolic 3D items over the graphs the run stored, with `--uncertainty on` or
 * `off`, and writes the re-scored records (2D items copied) to a new directory that `esi3d compare` reads.
 * The graphs do not depend on the uncertainty option, so this measures the reasoner's two modes on the very
 * same graphs, without rebuilding them (a run takes ~35 min on the shared 2-core machine).
 * Usage: node scripts/replay-symbolic.mjs <runDir> <outDir> on|off   (after `npm run build`)
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSymbolicReasoner } from "../dist/src/reason/symbolic.js";
import { scoreAnswer } from "../dist/src/eval/score.js";
import { sceneGraphFile } from "../dist/src/eval/files.js";

const [runDir, outDir, mode] = process.argv.slice(2);
if (!runDir || !outDir || !["on", "off"].includes(mode ?? "")) {
  console.error("usage: node scripts/replay-symbolic.mjs <runDir> <outDir> on|off");
  process.exit(2);
}
const uncertainty = mode === "on";
const reasoner = createSymbolicReasoner();
const lines = readFileSync(join(runDir, "items.jsonl"), "utf8").split("\n").filter(Boolean);
const out = [];
let changed = 0;
for (const line of lines) {
  const r = JSON.parse(line);
  if (r.arm !== "3d" || r.reasoner !== "symbolic" || r.paradigm === "active") {
    out.push(line);
    continue;
  }
  const task = JSON.parse(readFileSync(join(runDir, "tasks", `${r.task_id}.json`), "utf8"));
  const graph = JSON.parse(readFileSync(sceneGraphFile(runDir, r.task_id, r.paradigm, r.key.split("3d:")[1]), "utf8")).graph;
  const a = await reasoner.answer({ task, graph, uncertainty });
  const score = a.status === "parsed" && a.answer !== null ? scoreAnswer(a, task) : null;
  const next = {
    ...r,
    uncertainty,
    status: a.status,
    answer: a.answer,
    confidence: a.confidence,
    correct: score && score.scored ? score.correct : null,
    mra: task.answer_format === "integer" ? (score && score.scored ? (score.mra ?? null) : 0) : null,
    raw: a.raw,
    method: a.method,
  };
  if (next.answer !== r.answer || next.status !== r.status) changed++;
  out.push(JSON.stringify(next));
}
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, "items.jsonl"), out.join("\n") + "\n");
console.log(`${out.length} records, ${changed} 3D answers differ from ${runDir}'s (uncertainty ${mode})`);
