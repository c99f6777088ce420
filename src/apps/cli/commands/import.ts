import type { Command } from "commander";
import { join } from "node:path";
import { AUDIT_DIR, importEsiBench } from "../../../../bridge/esibench/write.js";
import { choiceOption } from "../../../core/flags.js";
import { EXIT_FAILURE, EXIT_USAGE } from "../../../core/errors.js";

/**
 * `esi3d import esi-bench DIR --out TASKS`. Exit codes: 0 when every record imported (audit findings do
 * not change it), 2 when some records were refused as malformed (all others are written; the refusals are
 * printed and in audit/import.json) or DIR / --out is unusable, 1 when the importer itself failed on a record.
 */
export function registerImport(program: Command): void {
  program
    .command("import")
    .description("import a released task set as esi3d task records, with an audit of its data problems")
    .argument("<source>", "the task set's format: esi-bench (ESI-Bench's dataset/json_clean records)", choiceOption("<source>", ["esi-bench"] as const))
    .argument("<dir>", "dataset/json_clean (or the checkout above it, a folder below it, one record, or a <Category>.json index)")
    .requiredOption("--out <dir>", "directory for the task files (audit/ holds audit.json, audit.md and import.json)")
    .option("--dedupe", "leave out records identical to an earlier one apart from their id")
    .option("--drop-inconsistent", "leave out records the audit finds inconsistent (question, answer or label against the placed objects)")
    .option("--force", "replace --out if it exists")
    .action((_source: string, dir: string, opts: { out: string; dedupe?: boolean; dropInconsistent?: boolean; force?: boolean }) => {
      const s = importEsiBench(dir, opts.out, { dedupe: !!opts.dedupe, dropInconsistent: !!opts.dropInconsistent, force: !!opts.force });
      for (const r of s.refused) process.stderr.write(`import: refused ${r.file}: ${r.field}: ${r.reason.split("\n")[0]}\n`);
      const classes = new Map<string, number>();
      for (const f of s.audit.findings) classes.set(f.class, (classes.get(f.class) ?? 0) + 1);
      process.stdout.write(
        `import: ${s.records} records: ${s.written} tasks written to ${s.out}, ${s.excluded} kept out (answer outside its options), ${s.dropped.length} dropped, ${s.refused.length} refused\n` +
          `audit: ${s.audit.findings.length} findings (${[...classes].map(([c, n]) => `${n} ${c}`).join(", ") || "none"}): ${join(s.out, AUDIT_DIR, "audit.md")}\n`,
      );
      if (s.internal) process.exitCode = EXIT_FAILURE;
      else if (s.refused.length) process.exitCode = EXIT_USAGE;
    });
}
