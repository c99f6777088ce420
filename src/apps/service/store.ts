/**
 * The data directory of `esi3d serve` (--data). Everything the service keeps lives here, so it survives a
 * restart:
 *
 *   tasks/<task_id>.json            task records stored with PUT /v1/tasks/{id}
 *   sessions/<s-id>/session.json    an open capture session (task, paradigm, image size, instances table)
 *   sessions/<s-id>/views/NNN.view  its uploaded views, as received (binary view layout)
 *   bundles/<b-id>/                 finished frame bundles (bundle.json + views/), written atomically
 *   graphs/<g-id>.json              scene graphs with their diagnosis and options
 *   runs/<r-id>/run.json            a run's state; the runner's files beside it (config.json, items.jsonl, ...)
 *   server.lock                     the pid of the server using the directory
 *
 * Files are written to a temporary name and renamed, so a kill never leaves half a file under a final name.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { z } from "zod";
import { InputError } from "../../../core/errors.js";
import { acquireLockFile, type HeldLock } from "../../../core/lockFile.js";
import { HttpError } from "./errors.js";
import { checkId, inside } from "./ids.js";
import { pathError, TEMP_FILE_PATTERN, writeFileAtomic } from "../../../core/fs.js";

const DATA_FOLDERS = ["tasks", "sessions", "bundles", "graphs", "runs"] as const;
export type DataFolder = (typeof DATA_FOLDERS)[number];

/** Names the live server using a data directory. */
const SERVER_LOCK_FILE = "server.lock";

export class DataStore {
  readonly root: string;
  /** The data directory's server.lock while this server holds it. */
  private held: HeldLock | null = null;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** Creates the folders, takes the lock, and removes leftovers of interrupted writes. */
  open(): void {
    mkdirSync(this.root, { recursive: true });
    for (const f of DATA_FOLDERS) mkdirSync(join(this.root, f), { recursive: true });
    this.lock();
    this.sweepTemporaries();
  }

  /** A path inside one of the data folders; parts must already be validated ids. */
  path(folder: DataFolder, ...parts: string[]): string {
    return inside(join(this.root, folder), ...parts);
  }

  /** The directory of a finished bundle, or a 404 naming `field` (the request field that named it). */
  bundleDir(bundle: unknown, field: string): string {
    const id = checkId("bundle", bundle, field);
    if (!existsSync(this.path("bundles", id, "bundle.json"))) throw new HttpError(404, "not_found", `${field}: bundle ${id} does not exist`, field);
    return this.path("bundles", id);
  }

  /**
   * A stored JSON file parsed through its schema, or null when there is none. Stored files are the server's
   * own, so one that does not parse is a server fault (500), named by its kind and field, never its path.
   */
  readJson<S extends z.ZodType>(file: string, schema: S, kind: string): z.output<S> | null {
    if (!existsSync(file)) return null;
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (e) {
      throw new HttpError(500, "stored_file_corrupt", `a stored ${kind} is not valid JSON (${(e as Error).message})`);
    }
    const r = schema.safeParse(raw);
    if (!r.success) {
      const issue = r.error.issues[0]!;
      throw new HttpError(500, "stored_file_corrupt", `a stored ${kind} does not match its format: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
    }
    return r.data;
  }

  writeJson(file: string, value: unknown): void {
    writeFileAtomic(file, JSON.stringify(value, null, 1) + "\n");
  }

  /** Refuses a data directory that another live server is using (two writers would corrupt runs). */
  private lock(): void {
    const file = join(this.root, SERVER_LOCK_FILE);
    try {
      this.held = acquireLockFile(
        file,
        (h) =>
          new InputError(`--data ${this.root}: in use by another esi3d serve (pid ${h.pid} on ${h.host}, since ${h.since}); stop it or choose another --data`),
      );
    } catch (e) {
      throw e instanceof InputError ? e : pathError(e, file, "create");
    }
  }

  unlock(): void {
    this.held?.release();
    this.held = null;
  }

  /** Temporary files and directories of writes a kill interrupted (never under a final name). */
  private sweepTemporaries(): void {
    for (const folder of DATA_FOLDERS) {
      const dir = join(this.root, folder);
      for (const name of readdirSync(dir)) {
        if (TEMP_FILE_PATTERN.test(name) || /\.old-\d+-[0-9a-f]+$/.test(name)) rmSync(join(dir, name), { recursive: true, force: true });
      }
    }
  }
}
