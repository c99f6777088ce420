/**
 * Whether a path stays inside a folder, compared by path segment (so `/data/b-evil` is not inside `/data/b`,
 * audit B20). Callers that must also follow symbolic links compare the real paths (fs.realpathSync).
 */
import { isAbsolute, relative, resolve, sep } from "node:path";

/** True when `path` is `root` or below it, segment by segment; both are resolved first (no file-system access). */
export function isWithin(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(path));
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}
