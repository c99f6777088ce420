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
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, unlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { InputError } from "../../core/errors.js";
import { HttpError } from "./errors.js";
import { checkId, inside } from "./ids.js";
import { TEMP_FILE_PATTERN, writeFileAtomic } from "../../core/fs.js";

export const DATA_FOLDERS = ["tasks", "sessions", "bundles", "graphs", "runs"] as const;
export type DataFolder = (typeof DATA_FOLDERS)[number];

export class DataStore {
  readonly root: string;

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

  readJson<T>(file: string): T | null {
    if (!existsSync(file)) return null;
    return JSON.parse(readFileSync(file, "utf8")) as T;
  }

  writeJson(file: string, value: unknown): void {
    writeFileAtomic(file, JSON.stringify(value, null, 1) + "\n");
  }

  private lockFile(): string {
    return join(this.root, "server.lock");
  }

  /** Refuses a data directory that another live server is using (two writers would corrupt runs). */
  private lock(): void {
    const f = this.lockFile();
    if (existsSync(f)) {
      const pid = Number(readFileSync(f, "utf8").trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid))
        throw new InputError(`--data ${this.root}: in use by another esi3d serve (pid ${pid}); stop it or choose another --data`);
    }
    writeFileAtomic(f, `${process.pid}\n`);
  }

  unlock(): void {
    try {
      const f = this.lockFile();
      if (existsSync(f) && Number(readFileSync(f, "utf8").trim()) === process.pid) unlinkSync(f);
    } catch {
      // best effort: a stale lock names a dead pid and is taken over at the next start
    }
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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}


