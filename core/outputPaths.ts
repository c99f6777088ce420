/**
 * The output-path rule, in one place for every command and the service's runs, applied before any work: an
 * output may not be, contain, or lie inside an input, and two outputs may not share a path. Paths are compared after
 * resolving symbolic links (of the part that exists: an output usually does not yet), segment by segment, so
 * `graph B -o B/bundle.json`, `import scannet S --out S --force` and `inspect RUN -o ../RUN-link/items.jsonl`
 * are refused alike, naming both paths, with nothing read or written yet.
 */
import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { InputError } from "./errors.js";
import { isWithin } from "./paths.js";

/** A path a command reads or writes, with what names it in messages (a flag such as `--out`, or `<bundle>`). */
export interface NamedPath {
  what: string;
  path: string;
}

/** Links followed when resolving a path whose last part is a link to a path that does not exist yet: Linux's own bound (MAXSYMLINKS). */
const MAX_LINK_HOPS = 40;

/**
 * The absolute path `p` stands for once links are followed: the real path of its longest existing prefix, with
 * the parts that do not exist yet joined on. A dangling link is followed to its target (writing through it
 * would write there). A link loop is an input error naming the path.
 */
function resolvedPath(p: string, what = p): string {
  let path = resolve(p);
  const rest: string[] = [];
  for (let hops = 0; ; ) {
    if (existsSync(path)) {
      try {
        return join(realpathSync(path), ...rest);
      } catch (e) {
        throw new InputError(`${what}: ${p}: cannot resolve the path (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file: p });
      }
    }
    let link: boolean;
    try {
      link = lstatSync(path).isSymbolicLink();
    } catch {
      link = false;
    }
    if (link) {
      // existsSync is false for a dangling link and for a loop: both are followed, a loop until the bound
      if (++hops > MAX_LINK_HOPS) throw new InputError(`${what}: ${p}: too many symbolic links (a link loop)`, { file: p });
      path = resolve(dirname(path), readlinkSync(path));
      continue;
    }
    const up = dirname(path);
    if (up === path) return join(path, ...rest);
    rest.unshift(basename(path));
    path = up;
  }
}

/** The rule's wording, said once in every refusal. */
const RULE = "an output may not be, contain or lie inside an input, and two outputs may not share a path";

const shown = (n: NamedPath, real: string) => (resolve(n.path) === real ? `${n.what} ${n.path}` : `${n.what} ${n.path} (${real})`);

/**
 * Refuses, as an input error naming both paths, an output that is, contains or lies inside an input, or two
 * outputs that share a path; and an output given as an empty path. Touches nothing on disk but to read links.
 */
export function checkOutputs(inputs: readonly NamedPath[], outputs: readonly NamedPath[]): void {
  for (const o of outputs) if (o.path.trim() === "") throw new InputError(`${o.what}: an empty path; expected a file or directory name`, { field: o.what });
  const ins = inputs.filter((i) => i.path !== "").map((i) => ({ ...i, real: resolvedPath(i.path, i.what) }));
  const outs = outputs.map((o) => ({ ...o, real: resolvedPath(o.path, o.what) }));
  for (const o of outs) {
    for (const i of ins) {
      const how = o.real === i.real ? "is" : isWithin(i.real, o.real) ? "lies inside" : isWithin(o.real, i.real) ? "contains" : null;
      if (how)
        throw new InputError(`${shown(o, o.real)}: the output ${how} the input ${shown(i, i.real)}; ${RULE} (choose another ${o.what})`, {
          file: o.path,
          field: o.what,
        });
    }
  }
  outs.forEach((a, k) => {
    for (const b of outs.slice(k + 1))
      if (a.real === b.real) throw new InputError(`${shown(b, b.real)}: the same path as ${shown(a, a.real)}; ${RULE}`, { file: b.path, field: b.what });
  });
}

/** One named path, or none when the option was not given (an empty string is given: checkOutputs refuses it). */
export const givenPath = (what: string, path: string | null | undefined): NamedPath[] => (path === undefined || path === null ? [] : [{ what, path }]);
