import type { Command } from "commander";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { AUDIT_DIR, importEsiBench } from "../../../../bridge/esibench/write.js";
import { importDataset } from "../../../../bridge/datasets/importer.js";
import { DATASET_IMPORT_FLAGS, DatasetImportOptionsSchema } from "../../../../bridge/datasets/options.js";
import { DATASET_LAYOUTS, type DatasetLayout } from "../../../../bridge/datasets/scene.js";
import { addSchemaFlags, choiceOption, flagAttribute, parseSchemaFlags } from "../../../../core/flags.js";
import { EXIT_FAILURE, EXIT_USAGE, InputError } from "../../../../core/errors.js";
import { checkOutputs } from "../../../../core/outputPaths.js";

const SOURCES = ["esi-bench", ...DATASET_LAYOUTS] as const;
const ESI_ONLY = ["--dedupe", "--drop-inconsistent"];

interface ImportOpts {
  out: string;
  dedupe?: boolean;
  dropInconsistent?: boolean;
  force?: boolean;
}

/**
 * `esi3d import esi-bench DIR --out TASKS` and `esi3d import <layout> DIR --out BUNDLE`.
 * esi-bench exit codes: 0 when every record imported (audit findings do not change it), 2 when some records
 * were refused as malformed (all others are written; the refusals are printed and in audit/import.json) or
 * DIR / --out is unusable, 1 when the importer itself failed on a record. A dataset layout (scannet,
 * scannetpp, arkitscenes, tum, replica; docs/own-data.md) writes one frame bundle with no task: exit 0, or 2
 * naming the file that cannot be read.
 */
export function registerImport(program: Command): void {
  const cmd = program
    .command("import")
    .description("import a released task set as esi3d task records (with an audit of its data problems), or an RGB-D dataset scene as a frame bundle")
    .argument(
      "<source>",
      `esi-bench (ESI-Bench's dataset/json_clean records), or a dataset layout: ${DATASET_LAYOUTS.join(", ")} (docs/own-data.md)`,
      choiceOption("<source>", SOURCES),
    )
    .argument(
      "<dir>",
      "esi-bench: dataset/json_clean (or the checkout above it, a folder below it, one record, or a <Category>.json index); a layout: the scene folder",
    )
    .requiredOption(
      "--out <dir>",
      "esi-bench: directory for the task files (audit/ holds audit.json, audit.md and import.json); a layout: the frame bundle directory",
    )
    .option("--dedupe", "esi-bench: leave out records identical to an earlier one apart from their id")
    .option("--drop-inconsistent", "esi-bench: leave out records the audit finds inconsistent (question, answer or label against the placed objects)")
    .option("--force", "replace --out if it exists");
  addSchemaFlags(cmd, DatasetImportOptionsSchema, DATASET_IMPORT_FLAGS);
  cmd.action((source: (typeof SOURCES)[number], dir: string, opts: ImportOpts) => {
    checkOutputs([{ what: "<dir>", path: dir }], [{ what: "--out", path: opts.out }]);
    if (source === "esi-bench") {
      const given = DATASET_IMPORT_FLAGS.map((f) => f.flag).find((f) => cmd.getOptionValueSource(flagAttribute(f)) === "cli");
      if (given) throw new InputError(`${given.split(" ")[0]}: only for a dataset layout (${DATASET_LAYOUTS.join(", ")}), not esi-bench`);
      importEsiRecords(dir, opts);
      return;
    }
    const esiFlag = ESI_ONLY.find((f) => cmd.getOptionValueSource(flagAttribute(f)) === "cli");
    if (esiFlag) throw new InputError(`${esiFlag}: only for esi-bench records, not a ${source} scene`);
    const o = parseSchemaFlags(cmd, DatasetImportOptionsSchema, DATASET_IMPORT_FLAGS);
    if (existsSync(resolve(opts.out)) && !opts.force)
      throw new InputError(`--out: ${opts.out} already exists; choose another directory or pass --force to replace it`);
    const s = importDataset(source as DatasetLayout, dir, opts.out, o);
    for (const n of s.notes) process.stderr.write(`import: ${n}\n`);
    process.stdout.write(
      `import: wrote ${s.out}: ${s.views} views (${s.image.width}x${s.image.height}) of ${s.frames} ${s.layout} frames, world ${s.world}, ${s.masks ? "instance masks" : "no instance masks"}, no task record\n`,
    );
  });
}

function importEsiRecords(dir: string, opts: ImportOpts): void {
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
}
