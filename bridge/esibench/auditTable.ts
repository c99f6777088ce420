/** The audit as a readable Markdown table (audit.md beside audit.json). */
import type { Audit } from "./audit.js";
import type { AnswerPositions } from "./answerPositions.js";
import { FINDING_KINDS } from "./audit.js";

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
const frac = (a: number, b: number) => (b ? `${a}/${b}` : "–");

/** "6 / 0 (3 / 3), biased to slot 1": the answers at each option slot, the counts expected without bias. */
function positions(p: AnswerPositions): string {
  if (p.tasks === 0) return "–";
  const round = (x: number) => String(Math.round(x * 10) / 10);
  return `${p.counts.join(" / ")} (${p.expected.map(round).join(" / ")})${p.biased && p.top ? `, biased to slot ${p.top.slot + 1}` : ""}`;
}

export function auditMarkdown(a: Audit, written: { tasks: number; dropped: Array<{ record_id: string; reason: string }> }): string {
  const out: string[] = [];
  out.push(`# ESI-Bench import audit`, "");
  out.push(
    `Source: \`${a.source}\`. ${a.records} record files: ${a.tasks} imported as tasks, ${a.excluded.length} kept out (answer not mappable into its options), ${a.refused.length} refused (malformed). ${written.tasks} task files written${written.dropped.length ? `, ${written.dropped.length} dropped by --dedupe / --drop-inconsistent` : ""}.`,
    "",
  );
  out.push(
    "Finding classes: **duplicate** (dropped by `--dedupe`), **inconsistent** (dropped by `--drop-inconsistent`), **fixed** (the importer changed the answer or options to fit esi3d's formats), **camera** (the initial view; kept).",
    "",
  );
  out.push("## Per subcategory", "");
  const kinds = FINDING_KINDS.filter((k) => Object.values(a.subcategories).some((s) => s?.findings[k]));
  out.push(
    `| subcategory | records | tasks | esi3d rule agrees | proxiable | proxy implies ESI's label | answers per option slot (expected) | ${kinds.join(" | ")} |`,
  );
  out.push(`|---|---|---|---|---|---|---|${kinds.map(() => "---|").join("")}`);
  for (const [, s] of Object.entries(a.subcategories).sort((x, y) => x[1]!.title.localeCompare(y[1]!.title))) {
    const skip = Object.entries(s!.proxy.skip_reasons)
      .map(([r, n]) => `${n} skipped: ${r}`)
      .join("; ");
    out.push(
      `| ${s!.title} | ${s!.records} | ${s!.tasks} | ${s!.rule ? frac(s!.rule.agree, s!.rule.checked) : "no rule"} | ${s!.proxy.proxiable}${skip ? ` (${cell(skip)})` : ""} | ${frac(s!.proxy.implies_label, s!.proxy.checked)} | ${positions(s!.answer_positions)} | ${kinds.map((k) => s!.findings[k] ?? "").join(" | ")} |`,
    );
  }
  out.push("");
  if (a.refused.length) {
    out.push("## Refused records", "", "| file | field | reason |", "|---|---|---|");
    for (const r of a.refused) out.push(`| ${cell(r.rel)} | ${cell(r.field)} | ${cell(r.reason.split("\n")[0]!)} |`);
    out.push("");
  }
  if (written.dropped.length) {
    out.push("## Dropped", "", "| record | reason |", "|---|---|");
    for (const d of written.dropped) out.push(`| ${d.record_id} | ${cell(d.reason)} |`);
    out.push("");
  }
  out.push("## Findings", "", "| record | file | field | class | kind | finding |", "|---|---|---|---|---|---|");
  for (const f of a.findings) out.push(`| ${f.record_id} | ${cell(f.file)} | ${cell(f.field)} | ${f.class} | ${f.kind} | ${cell(f.message)} |`);
  out.push("");
  return out.join("\n");
}
