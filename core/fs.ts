/**
 * Reading and writing files. JSON files are read through their zod schema (readJsonFile). Writes are atomic,
 * so that a reader never sees half of a file: data goes to a temporary name next to the
 * target, then is renamed over it (atomic on POSIX). The temporary file is removed when the write fails,
 * and operating-system failures become errors that name the path: a path the user got wrong (a file where a
 * directory is needed, a directory where a file is) is an input error; a full or read-only disk is a failure.
 */
import { accessSync, constants, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { dirname, resolve } from "node:path";
import type { z } from "zod";
import { InputError, inputErrorFromZod } from "./errors.js";

/** Temporary files are `<name>.tmp-<pid>-<hex>`: a sweeper can recognise (and remove) leftovers of a kill. */
export const TEMP_FILE_PATTERN = /\.tmp-\d+-[0-9a-f]+$/;

export function tempNameFor(file: string): string {
  return `${file}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
}

const USER_PATH_ERRORS: Record<string, string> = {
  ENOTDIR: "a part of the path is a file, not a directory",
  // mkdir -p of a directory whose name a file already has
  EEXIST: "a part of the path exists and is not a directory",
  EISDIR: "it is a directory",
  ELOOP: "too many symbolic links (a link loop)",
  ENAMETOOLONG: "the name is too long",
};
const SYSTEM_PATH_ERRORS: Record<string, string> = {
  ENOSPC: "no space left on the device",
  EROFS: "the file system is read-only",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EDQUOT: "disk quota exceeded",
};

/** A failure of the system (a full or read-only disk, permissions) about `path`; `code` is the errno name. */
class FileSystemError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly path: string,
  ) {
    super(message);
    this.name = "FileSystemError";
  }
}

/** An error of the file system about `path`, as an error naming the path (input error when the path is the user's mistake). */
export function pathError(e: unknown, path: string, verb = "write"): Error {
  const code = (e as NodeJS.ErrnoException)?.code ?? "";
  if (code in USER_PATH_ERRORS) return new InputError(`${path}: cannot ${verb}: ${USER_PATH_ERRORS[code]}`, { file: path });
  if (code in SYSTEM_PATH_ERRORS) return new FileSystemError(`${path}: cannot ${verb}: ${SYSTEM_PATH_ERRORS[code]} (${code})`, code, path);
  return e as Error;
}

/**
 * Checks, before any long work, that `path` can be made: a file (`kind: "file"`, e.g. `graph -o`) or a directory
 * (`kind: "dir"`, e.g. `run --out`). Finds the nearest part of the path that exists: it must be a directory (else
 * ENOTDIR, an input error) that this process may write (else EACCES/EROFS, a failure naming the path); an
 * existing target must be of the right kind (a directory where a file goes is EISDIR). Creates nothing, so a
 * command refused here leaves no trace (`graph -o missing/dir/g.json` failed after the whole graph).
 */
export function checkWritable(path: string, kind: "file" | "dir"): void {
  const target = resolve(path);
  const stat = (p: string) => {
    try {
      return statSync(p);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return null;
      throw pathError(e, path, "write");
    }
  };
  const own = stat(target);
  if (own) {
    if (kind === "file" && own.isDirectory()) throw pathError(Object.assign(new Error("EISDIR"), { code: "EISDIR" }), path);
    if (kind === "dir" && !own.isDirectory()) throw new InputError(`${path}: cannot write: it exists and is not a directory`, { file: path });
  }
  let probe = own?.isDirectory() ? target : dirname(target);
  for (;;) {
    const s = stat(probe);
    if (s) {
      if (!s.isDirectory()) throw new InputError(`${path}: cannot write: ${probe} is a file, not a directory`, { file: path });
      try {
        accessSync(probe, constants.W_OK);
      } catch (e) {
        throw pathError(e, path, "write");
      }
      return;
    }
    const up = dirname(probe);
    if (up === probe) return;
    probe = up;
  }
}

/**
 * Whether a directory entry exists at `p`, whatever it is: unlike existsSync, true for a dangling link or a link
 * loop, which a reader must then refuse by name rather than skip as absent (a stored graph that was a
 * self-link was left out of the page silently).
 */
export function entryExists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** Writes `data` to `file` atomically, creating its directory; nothing is left behind on failure. */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const tmp = tempNameFor(file);
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(tmp, data);
    renameSync(tmp, file);
  } catch (e) {
    // the cleanup must not hide the cause: below a file, removing the temporary name fails with ENOTDIR too
    try {
      rmSync(tmp, { force: true });
    } catch {
      /* nothing was created there */
    }
    throw pathError(e, file);
  }
}

/** JSON as esi3d writes it (one space of indent, a final newline), atomically. */
export function writeJsonAtomic(file: string, value: unknown): void {
  writeFileAtomic(file, JSON.stringify(value, null, 1) + "\n");
}

/**
 * The largest JSON file read by default (bytes): 256 MiB, beyond any file esi3d writes (a run's summary or a
 * scene graph is kilobytes to megabytes); JSON.parse needs several times the text in memory. Readers of
 * larger-than-usual files pass their own bound (scene graphs: scenegraph/io.ts).
 */
export const MAX_JSON_FILE_BYTES = 256 * 1024 * 1024;

/**
 * A JSON file parsed by its schema. Every failure is an input error naming the file and, for a schema
 * failure, the first field (`what` says what the file should be, e.g. "scene graph (esi3d graph -o)").
 */
export function readJsonFile<S extends z.ZodType>(file: string, schema: S, what: string, maxBytes = MAX_JSON_FILE_BYTES): z.infer<S> {
  let text: string;
  try {
    // a named pipe would block the read forever, a huge file fill memory before JSON.parse sees it
    const st = statSync(file);
    if (!st.isFile() && !st.isDirectory()) throw new InputError(`${file}: not a regular file (a named pipe, socket or device); expected a ${what}`, { file });
    if (st.size > maxBytes)
      throw new InputError(`${file}: ${(st.size / 2 ** 20).toFixed(1)} MiB, more than the ${(maxBytes / 2 ** 20).toFixed(0)} MiB a ${what} may have`, { file });
    text = readFileSync(file, "utf8");
  } catch (e) {
    if (e instanceof InputError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new InputError(`${file}: no such file (expected a ${what})`, { file });
    throw pathError(e, file, "read");
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new InputError(`${file}: not valid JSON (${(e as Error).message}); expected a ${what}`, { file });
  }
  const r = schema.safeParse(raw);
  if (!r.success) throw inputErrorFromZod(r.error, { file, what: `not a valid ${what}` });
  return r.data;
}
