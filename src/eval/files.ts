/** Paths and atomic writes inside a run directory. */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";

export function sceneGraphFile(runDir: string, taskId: string, paradigm: string, source: string): string {
  const dir = join(runDir, "graphs", taskId);
  mkdirSync(dir, { recursive: true });
  return join(dir, `${paradigm}__${source}.json`);
}

export function writeTextAtomic(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}
