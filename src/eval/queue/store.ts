/**
 * The shared store of a queue run, as a worker sees it: the run's configuration and tasks to read, the
 * graphs to write and read back. Heavy data goes through here by reference, never through Redis. Two
 * kinds, named by the job's `store`:
 *   a directory every worker mounts (NFS, a shared disk): files, as the run directory holds them;
 *   http://HOST:PORT/TOKEN: the producer's own run directory, served by storeServer.ts.
 * Both parse through the run files' schemas, so a damaged or foreign file is the job's error, named.
 */
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { z } from "zod";
import { parseTask, readTaskFile } from "../../../core/task/io.js";
import type { Task } from "../../../core/task/schema.js";
import { inputErrorFromZod } from "../../../core/errors.js";
import { writeJsonAtomic } from "../../../core/fs.js";
import { pathBelow } from "../../../core/paths.js";
import type { RunConfig } from "../config.js";
import { readRunFile, readStoredGraph, RunFileSchema, sceneGraphFile, StoredGraphSchema, type StoredGraph } from "../files.js";
import { promptFilePath, promptImagePath, writePromptLog } from "../promptFiles.js";
import type { PromptLog } from "../../reason/promptFile.js";

/** How long a worker waits for one store request (ms): graphs are kilobytes to a few megabytes. */
const STORE_REQUEST_TIMEOUT_MS = 60_000;

export interface SharedStore {
  readonly location: string;
  config(): Promise<RunConfig>;
  task(taskId: string): Promise<Task>;
  writeGraph(taskId: string, paradigm: string, source: string, stored: StoredGraph): Promise<void>;
  readGraph(taskId: string, paradigm: string, source: string): Promise<StoredGraph>;
  /** an LLM answer's prompt file and its images (src/eval/promptFiles.ts) */
  writePrompt(log: PromptLog): Promise<void>;
  /** the model response cache of this worker for the store's run: beside the run when it is a shared directory */
  llmCachePath(): string;
}

export const isHttpStore = (location: string) => /^https?:\/\//.test(location);

/** A store's location for messages: a served store's token (its last path segment) masked. */
export const shownStore = (location: string) => (isHttpStore(location) ? location.replace(/\/+$/, "").replace(/\/[^/]+$/, "/***") : location);

/** The store a job names. */
export function openStore(location: string): SharedStore {
  return isHttpStore(location) ? httpStore(location) : directoryStore(location);
}

function directoryStore(dir: string): SharedStore {
  return {
    location: dir,
    config: async () => readRunFile(dir).config,
    task: async (taskId) => readTaskFile(pathBelow(join(dir, "tasks"), `${taskId}.json`)),
    writeGraph: async (taskId, paradigm, source, stored) => writeJsonAtomic(sceneGraphFile(dir, taskId, paradigm, source), stored),
    readGraph: async (taskId, paradigm, source) => readStoredGraph(sceneGraphFile(dir, taskId, paradigm, source)),
    writePrompt: async (log) => writePromptLog(dir, log),
    llmCachePath: () => join(dir, "llm-cache.sqlite"),
  };
}

/** The path of a store file below the store's root, as URL path segments (names are checked by the server too). */
const graphPath = (taskId: string, paradigm: string, source: string) =>
  `graphs/${encodeURIComponent(taskId)}/${encodeURIComponent(`${paradigm}__${source}.json`)}`;
const taskPath = (taskId: string) => `tasks/${encodeURIComponent(`${taskId}.json`)}`;

function httpStore(base: string): SharedStore {
  const root = base.replace(/\/+$/, "");
  const shown = shownStore(root);
  const request = async (method: "GET" | "PUT", path: string, body?: string | Uint8Array<ArrayBuffer>): Promise<string> => {
    const type = typeof body === "string" ? "application/json" : "application/octet-stream";
    const r = await fetch(`${root}/${path}`, {
      method,
      body,
      headers: body ? { "content-type": type } : {},
      signal: AbortSignal.timeout(STORE_REQUEST_TIMEOUT_MS),
    }).catch((e: Error) => {
      throw new Error(`store ${shown}/${path}: ${e.message} (is the producer of the run still running?)`);
    });
    const text = await r.text();
    if (!r.ok) throw new Error(`store ${shown}/${path}: HTTP ${r.status} ${text.slice(0, 200)}`);
    return text;
  };
  const parsed = async <S extends z.ZodType>(path: string, schema: S, what: string): Promise<z.infer<S>> => {
    const text = await request("GET", path);
    const r = schema.safeParse(JSON.parse(text));
    if (!r.success) throw inputErrorFromZod(r.error, { file: `${shown}/${path}`, what: `not a valid ${what}` });
    return r.data;
  };
  return {
    location: root,
    config: async () => (await parsed("config.json", RunFileSchema, "run configuration")).config,
    task: async (taskId) => parseTask(JSON.parse(await request("GET", taskPath(taskId))), `${shown}/${taskPath(taskId)}`),
    writeGraph: async (taskId, paradigm, source, stored) => void (await request("PUT", graphPath(taskId, paradigm, source), JSON.stringify(stored))),
    writePrompt: async (log) => {
      // the images first: a prompt file on disk names only images that are there
      for (const im of log.images) await request("PUT", promptImagePath(im.sha256, im.mimeType), new Uint8Array(im.data));
      await request("PUT", promptFilePath(log.file.prompt_hash), JSON.stringify(log.file, null, 1) + "\n");
    },
    readGraph: (taskId, paradigm, source) => parsed(graphPath(taskId, paradigm, source), StoredGraphSchema, "stored graph"),
    // one cache per run on each worker's disk: the producer's cache is not reachable from here
    llmCachePath: () => join(tmpdir(), `esi3d-llm-cache-${createHash("sha256").update(root).digest("hex").slice(0, 16)}.sqlite`),
  };
}
