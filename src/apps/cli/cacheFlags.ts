/**
 * `--cache FILE` and `--no-cache` set one commander attribute, so a command line with both kept the last one
 * silently. Commands that take both record which were typed, and refuse the pair.
 */
import type { Command } from "commander";
import { InputError } from "../../../core/errors.js";

/** Which of --cache and --no-cache a command line typed, recorded as commander parses (both set one attribute). */
const cacheFlagsSeen = new WeakMap<Command, Set<string>>();

/** Registers the recording of --cache and --no-cache on `cmd`. */
export function recordCacheFlags(cmd: Command): Command {
  const seen = new Set<string>();
  cacheFlagsSeen.set(cmd, seen);
  cmd.on("option:cache", () => seen.add("--cache"));
  cmd.on("option:no-cache", () => seen.add("--no-cache"));
  return cmd;
}

/** `--no-cache --cache FILE` (either order) says two things; commander keeps the last silently. */
export function refuseCacheContradiction(cmd: Command): void {
  const seen = cacheFlagsSeen.get(cmd);
  if (seen?.has("--cache") && seen.has("--no-cache"))
    throw new InputError("--cache, --no-cache: both given; use one (--cache FILE uses that response cache, --no-cache none)", { field: "llm.cachePath" });
}
