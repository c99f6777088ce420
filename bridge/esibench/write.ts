/**
 * `esi3d import esi-bench DIR --out TASKS`: imports, audits, and writes the task files plus audit/audit.json,
 * audit/audit.md and audit/import.json. The whole output directory is written under a temporary name and
 * renamed into place at the end, so a reader never sees half an import.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { InputError } from "../../core/errors.js";
import { writeFileAtomic, writeJsonAtomic } from "../../core/fs.js";
import { pathBelow } from "../../core/paths.js";
import { checkOutputs } from "../../core/outputPaths.js";
import { auditImport, droppedIds, type Audit } from "./audit.js";
import { auditMarkdown } from "./auditTable.js";
import { importRecords } from "./importer.js";

export interface ImportOptions {
  dedupe: boolean;
  dropInconsistent: boolean;
  force: boolean;
}

export interface ImportSummary {
  out: string;
  records: number;
  written: number;
  excluded: number;
  dropped: Array<{ record_id: string; reason: string }>;
  refused: Audit["refused"];
  internal: number;
  audit: Audit;
}

export const AUDIT_DIR = "audit";

export function importEsiBench(dir: string, out: string, opts: ImportOptions): ImportSummary {
  // before anything is read, and long before --force replaces --out: never the records being imported
  checkOutputs([{ what: "<dir>", path: dir }], [{ what: "--out", path: out }]);
  const target = resolve(out);
  if (existsSync(target) && !opts.force) throw new InputError(`--out: ${out} already exists; choose another directory or pass --force to replace it`);
  const res = importRecords(dir);
  const audit = auditImport(res, dir);
  const drop = droppedIds(audit, { dedupe: opts.dedupe, dropInconsistent: opts.dropInconsistent });
  const tasks = res.imported.filter((x) => x.task && !drop.has(x.record.raw.id)).map((x) => x.task!);
  const dropped = [...drop.entries()].map(([record_id, reason]) => ({ record_id, reason }));
  const tmp = join(dirname(target), `.${basename(target)}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
  mkdirSync(join(tmp, AUDIT_DIR), { recursive: true });
  try {
    for (const t of tasks) writeJsonAtomic(pathBelow(tmp, `${t.task_id}.json`), t);
    writeJsonAtomic(join(tmp, AUDIT_DIR, "audit.json"), audit);
    writeFileAtomic(join(tmp, AUDIT_DIR, "audit.md"), auditMarkdown(audit, { tasks: tasks.length, dropped }));
    const summary = {
      format: "esi3d-esi-import/1",
      source: dir,
      kind: res.located.kind,
      records: audit.records,
      written: tasks.length,
      excluded: audit.excluded,
      dropped,
      refused: res.refused,
      options: opts,
    };
    writeJsonAtomic(join(tmp, AUDIT_DIR, "import.json"), summary);
    if (existsSync(target)) rmSync(target, { recursive: true, force: true });
    renameSync(tmp, target);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  return {
    out: target,
    records: audit.records,
    written: tasks.length,
    excluded: audit.excluded.length,
    dropped,
    refused: res.refused,
    internal: res.refused.filter((r) => r.internal).length,
    audit,
  };
}
