/**
 * Listing a dataset's folders (frames are named by numbers or timestamps, and sorted by them) and reading its
 * files: only regular files, of a bounded size, so a frame that is a directory (EISDIR) or a named pipe (which
 * would block the import forever) is refused naming it.
 */
import { existsSync, readdirSync, readFileSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { DatasetError } from "./scene.js";

/**
 * The largest dataset file read (bytes): an uncompressed frame at the pixel cap (images.ts
 * MAX_IMPORT_IMAGE_PIXELS, 4 bytes a pixel) is 128 MiB; a trajectory of a day at 100 Hz is ~70 MiB of text.
 */
const MAX_DATASET_FILE_BYTES = 256 * 1024 * 1024;

/** What a path is when it is not a regular file, for messages. */
function kindOf(st: Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a named pipe";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  return "not a regular file";
}

/** The bytes of a regular dataset file (links followed), refused naming the file when it is missing, not a file, or too large. */
export function readDatasetFile(file: string, what: string): Buffer {
  let st: Stats;
  try {
    st = statSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new DatasetError(file, code === "ENOENT" ? `missing (${what})` : `cannot be read (${code ?? (e as Error).message}; ${what})`);
  }
  if (!st.isFile()) throw new DatasetError(file, `is ${kindOf(st)}, expected a file (${what})`);
  if (st.size > MAX_DATASET_FILE_BYTES)
    throw new DatasetError(
      file,
      `is ${(st.size / 2 ** 20).toFixed(0)} MiB, more than the ${MAX_DATASET_FILE_BYTES / 2 ** 20} MiB a dataset file may have (${what})`,
    );
  try {
    return readFileSync(file);
  } catch (e) {
    throw new DatasetError(file, `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; ${what})`);
  }
}

/** The directory `dir/sub`, refused naming the layout's expected folder when it is not there. */
export function requireDir(dir: string, sub: string, layout: string): string {
  const p = join(dir, sub);
  if (!existsSync(p) || !statSync(p).isDirectory())
    throw new DatasetError(p, `missing: a ${layout} scene has this folder (docs/own-data.md lists each layout's files)`);
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
function numericKey(stem: string): number {
  const m = stem.match(/(\d+(?:\.\d+)?)(?!.*\d)/);
  return m ? Number(m[1]) : Number.POSITIVE_INFINITY;
}
