/**
 * The prompt files of a run directory: prompts/<prompt_hash>.json (src/reason/promptFile.ts PromptFileSchema)
 * and the images they reference, prompts/images/<sha256>.<ext>. Both are content-addressed, so a file that
 * exists already holds these bytes and is not written again (items that share a prompt share its file).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../core/errors.js";
import { readJsonFile, writeFileAtomic, writeJsonAtomic } from "../../core/fs.js";
import { PromptFileSchema, PROMPT_FILE_FORMAT, promptFileHash, type PromptFile, type PromptLog } from "../reason/promptFile.js";

/** Where a run keeps a prompt file, relative to the run directory. */
export function promptFilePath(hash: string): string {
  return `prompts/${hash}.json`;
}

/** Where a run keeps an image a prompt file references, relative to the run directory. */
export function promptImagePath(sha256: string, mimeType: string): string {
  return `prompts/images/${sha256}.${mimeType === "image/jpeg" ? "jpg" : (mimeType.split("/")[1] ?? "bin")}`;
}

/** Stores a prompt file and its images in the run directory `runDir` (atomically, once). */
export function writePromptLog(runDir: string, log: PromptLog): void {
  const file = join(runDir, promptFilePath(log.file.prompt_hash));
  for (const im of log.images) {
    const f = join(runDir, promptImagePath(im.sha256, im.mimeType));
    if (!existsSync(f)) writeFileAtomic(f, im.data);
  }
  if (!existsSync(file)) writeJsonAtomic(file, log.file);
}

const PROMPT_FILE_NAME = /^prompts\/[0-9a-f]{64}\.json$/;

/** Reads a record's prompt file (its `prompt_file`, relative to `runDir`); the name must be the hash of its content. */
export function readPromptFile(runDir: string, rel: string): PromptFile {
  if (!PROMPT_FILE_NAME.test(rel)) throw new InputError(`prompt_file "${rel}": expected prompts/<sha256>.json`, { field: "prompt_file" });
  const file = join(runDir, rel);
  const f = readJsonFile(file, PromptFileSchema, `prompt file (${PROMPT_FILE_FORMAT}, written by esi3d run)`);
  if (rel !== promptFilePath(f.prompt_hash) || promptFileHash(f) !== f.prompt_hash)
    throw new InputError(`${file}: its content does not hash to its name (the file was altered)`, { file, field: "prompt_hash" });
  return f;
}
