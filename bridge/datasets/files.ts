/** Listing a dataset's folders: frames are named by numbers or timestamps, and sorted by them. */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { DatasetError } from "./scene.js";

/** The directory `dir/sub`, refused naming the layout's expected folder when it is not there. */
export function requireDir(dir: string, sub: string, layout: string): string {
  const p = join(dir, sub);
  if (!existsSync(p) || !statSync(p).isDirectory()) throw new DatasetError(p, `missing: a ${layout} scene has this folder (docs/own-data.md lists each layout's files)`);
  return p;
}

/** Files of `dir` ending in `ext`, with the stem (name without extension), sorted by the number in the stem. */
export function framesIn(dir: string, ext: string): Array<{ stem: string; file: string }> {
  return readdirSync(dir)
    .filter((f) => f.toLowerCase().endsWith(ext))
    .map((f) => ({ stem: f.slice(0, f.length - ext.length), file: join(dir, f) }))
    .sort((a, b) => numericKey(a.stem) - numericKey(b.stem) || a.stem.localeCompare(b.stem));
}

/** The last number in a frame name ("frame_000120" -> 120, "41069021_3050.285" -> 3050.285). */
export function numericKey(stem: string): number {
  const m = stem.match(/(\d+(?:\.\d+)?)(?!.*\d)/);
  return m ? Number(m[1]) : Number.POSITIVE_INFINITY;
}
