/** Paths inside a run directory. */
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export function sceneGraphFile(runDir: string, taskId: string, paradigm: string, source: string): string {
  const dir = join(runDir, "graphs", taskId);
  mkdirSync(dir, { recursive: true });
  return join(dir, `${paradigm}__${source}.json`);
}


