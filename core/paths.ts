/**
 * Paths built from names that came from input. Whether a path stays inside a folder is compared by path
 * segment (so `/data/b-evil` is not inside `/data/b`); callers that must also follow symbolic
 * links compare the real paths (fs.realpathSync). Ids that become file or folder names (task ids, bundle
 * task ids) must be safe path segments (a task id `..` made `render` replace a folder outside --out).
 */
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import * as z from "zod";
import { InputError } from "./errors.js";

/** True when `path` is `root` or below it, segment by segment; both are resolved first (no file-system access). */
export function isWithin(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(path));
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}

/** Longest id used as a file or folder name (characters): well under every file system's 255-byte name limit. */
export const MAX_SEGMENT_CHARS = 128;
/**
 * A name that is one path segment and nothing else: letters, digits, '_', '.', '-'; not starting with '.'
 * (no hidden files, no `.` or `..`), no `..` anywhere, at most MAX_SEGMENT_CHARS characters.
 */
const SAFE_SEGMENT_PATTERN = new RegExp(`^(?!.*\\.\\.)[A-Za-z0-9_-][A-Za-z0-9_.-]{0,${MAX_SEGMENT_CHARS - 1}}$`);
export const SAFE_SEGMENT_RULE = `letters, digits, '_', '.', '-' only; not starting with '.', no '..', at most ${MAX_SEGMENT_CHARS} characters`;

export function isSafeSegment(s: unknown): s is string {
  return typeof s === "string" && SAFE_SEGMENT_PATTERN.test(s);
}

/** The zod form of a safe segment: the one declaration task and bundle schemas use for their ids. */
export const SafeSegmentSchema = z.string().regex(SAFE_SEGMENT_PATTERN, SAFE_SEGMENT_RULE);

/**
 * `root` joined with `parts`, checked to stay below `root` (defence in depth after the schema checks: every
 * writer that builds a path from an id calls this). Throws an input error naming the path otherwise.
 */
export function pathBelow(root: string, ...parts: string[]): string {
  const p = join(root, ...parts);
  if (!isWithin(root, p) || resolve(p) === resolve(root))
    throw new InputError(`${p}: refusing to write outside ${root} (a name in the input is not a plain file name: ${SAFE_SEGMENT_RULE})`, { file: p });
  return p;
}
