/**
 * Finding the released records (ESI-Bench's released dataset layout): a dataset checkout
 * (dataset/json_clean/<Category>/<Subcategory>/<scene>/<room>/<file>.json), a json_clean directory or any
 * folder below it, one record file, or a category index file (`<Category>.json` with `json_paths`
 * relative to json_clean/).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { InputError } from "../../core/errors.js";
import { RecordRefusal } from "./record.js";

interface RecordFile {
  file: string;
  /** Path relative to json_clean (the form index files and provenance use). */
  rel: string;
  /** The file's text, or the refusal when it cannot be read. */
  text: string | RecordRefusal;
}

export interface Located {
  root: string;
  files: RecordFile[];
  /** What DIR turned out to be, for the summary. */
  kind: "dataset" | "json_clean" | "folder" | "record" | "index";
}

const JSON_CLEAN = "json_clean";

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    let directory = false;
    try {
      directory = statSync(p).isDirectory();
    } catch {
      // a dangling link: readText refuses it by name
    }
    if (directory) out.push(...walk(p));
    else if (name.endsWith(".json")) out.push(p);
  }
  return out;
}

/** The json_clean directory a path lies in, if any. */
function jsonCleanAbove(path: string): string | null {
  const parts = resolve(path).split(sep);
  const i = parts.lastIndexOf(JSON_CLEAN);
  return i >= 0 ? parts.slice(0, i + 1).join(sep) || sep : null;
}

/** A record larger than this (bytes) is no record: the released ones are a few kB. */
const MAX_RECORD_FILE_BYTES = 16 * 1024 * 1024;

function readText(file: string, rel: string): RecordFile {
  try {
    // a named pipe or device would block the import forever; a huge file would fill memory
    const st = statSync(file);
    if (!st.isFile())
      return {
        file,
        rel,
        text: new RecordRefusal(
          file,
          "(file)",
          `is ${st.isDirectory() ? "a directory" : st.isFIFO() ? "a named pipe" : "not a regular file"}, expected a record file (JSON)`,
        ),
      };
    if (st.size > MAX_RECORD_FILE_BYTES)
      return { file, rel, text: new RecordRefusal(file, "(file)", `is ${st.size} bytes, more than the ${MAX_RECORD_FILE_BYTES} a record file may have`) };
    return { file, rel, text: readFileSync(file, "utf8") };
  } catch (e) {
    return { file, rel, text: new RecordRefusal(file, "(file)", `cannot be read (${(e as Error).message})`) };
  }
}

function isIndex(text: string): { json_paths: unknown } | null {
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    return v && typeof v === "object" && !Array.isArray(v) && "json_paths" in v && !("metadata_json" in v) ? (v as { json_paths: unknown }) : null;
  } catch {
    return null;
  }
}

/** Every record file DIR names, in path order (ESI's ids follow path order). */
export function locateRecords(dir: string): Located {
  if (!existsSync(dir))
    throw new InputError(`${dir}: no such file or directory (expected ESI-Bench's dataset/json_clean, a folder below it, a record or an index file)`);
  const st = statSync(dir);
  if (!st.isFile() && !st.isDirectory())
    throw new InputError(
      `${dir}: is ${st.isFIFO() ? "a named pipe" : "not a regular file or directory"} (expected ESI-Bench's dataset/json_clean, a folder below it, a record or an index file)`,
      { file: dir },
    );
  if (st.isFile()) {
    const one = readText(dir, basename(dir));
    if (one.text instanceof RecordRefusal) throw new InputError(one.text.message, { file: dir });
    const text = one.text;
    const index = isIndex(text);
    if (index) {
      const base = dirname(resolve(dir));
      if (!Array.isArray(index.json_paths) || !index.json_paths.every((p) => typeof p === "string"))
        throw new InputError(`${dir}: json_paths: expected a list of record paths relative to json_clean/`);
      const files = (index.json_paths as string[]).map((rel) => {
        const file = join(base, rel);
        return existsSync(file) ? readText(file, rel) : { file, rel, text: new RecordRefusal(file, "(file)", `listed in ${basename(dir)} but not found`) };
      });
      return { root: base, files, kind: "index" };
    }
    const root = jsonCleanAbove(dirname(dir));
    return {
      root: root ?? dirname(resolve(dir)),
      files: [{ file: resolve(dir), rel: root ? relative(root, resolve(dir)) : basename(dir), text }],
      kind: "record",
    };
  }
  let root = resolve(dir),
    kind: Located["kind"] = "folder";
  if (existsSync(join(root, "dataset", JSON_CLEAN))) [root, kind] = [join(root, "dataset", JSON_CLEAN), "dataset"];
  else if (existsSync(join(root, JSON_CLEAN))) [root, kind] = [join(root, JSON_CLEAN), "json_clean"];
  else if (basename(root) === JSON_CLEAN) kind = "json_clean";
  const relBase = jsonCleanAbove(root) ?? root;
  const files = walk(root)
    .map((f) => readText(f, relative(relBase, f)))
    // <Category>.json index files sit directly in json_clean; the records they list are walked anyway
    .filter((r) => !(dirname(r.file) === relBase && typeof r.text === "string" && isIndex(r.text)));
  if (files.length === 0) throw new InputError(`${dir}: no record files (*.json) here`);
  return { root: relBase, files, kind };
}
