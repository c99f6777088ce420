/**
 * `--resume`: the run's own config.json is the configuration; nothing needs retyping. A flag (or a --config key)
 * given beside --resume must agree with what the run was made with, or the resume is refused naming the flag,
 * the stored value and the given one: a resumed run that silently mixed two configurations would report
 * items that were never asked the same way. Worker counts and rate limits may change (they change when items
 * finish, never what they say; src/eval/runner.ts checkResume ignores them too).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { InputError } from "../../../core/errors.js";
import { canonicalJson } from "../../../core/hash.js";
import { flagName, type FlagSpec } from "../../../core/flags.js";
import { modelReasoners, resolveRunConfig, type RunConfig } from "../../eval/config.js";
import { readRunFile, runConfigFile } from "../../eval/files.js";

/** Fields a resume may change: how fast items finish, never what they say. */
const RESUME_MUTABLE_FIELDS: ReadonlySet<string> = new Set([
  "concurrency",
  "maxConnections",
  "llm.requestsPerWindow",
  "llm.tokensPerWindow",
  "llm.rateWindowMs",
]);

/** Longest text shown of a stored or given value in a refusal (a system prompt can be pages long); ours. */
const SHOWN_TEXT_CHARS = 60;

export interface ResumeInput {
  out: string | undefined;
  /** the values typed on the command line, by field path (core/flags.ts schemaFlagValues, onlyGiven) */
  flags: Record<string, unknown>;
  specs: readonly FlagSpec[];
  /** the --config file and its keys, when one was given */
  configFile?: { path: string; layer: Record<string, unknown> };
  /** values a command sets itself (ablate's sweep): checked like flags, named by field */
  extra: Record<string, unknown>;
  /** `--cache PATH` (a string), `--no-cache` (null), or undefined when neither was typed */
  cache: string | null | undefined;
}

/** The stored configuration of the run in `out`, after checking every given value against it. */
export function resumedConfig(input: ResumeInput): { config: RunConfig; out: string } {
  const out = input.out;
  if (out === undefined) throw new InputError("--resume: name the run to complete with --out <dir> (its config.json holds every option)");
  if (!existsSync(runConfigFile(out)))
    throw new InputError(`${out}: --resume: there is no run here to complete (no config.json); drop --resume to start one`, { file: out });
  const stored = readRunFile(out).config;
  const file = runConfigFile(out);
  const given: Array<{ name: string; spec?: FlagSpec; layer: Record<string, unknown> }> = [
    ...(input.configFile ? [{ name: `--config ${input.configFile.path}:`, layer: input.configFile.layer }] : []),
    { name: "", layer: input.flags },
    { name: "", layer: input.extra },
  ];
  let config = stored;
  for (const g of given) {
    const next = resolveGiven(stored, g.layer, g.name || "(options)");
    for (const path of leafPaths(g.layer, stored as unknown as Record<string, unknown>)) {
      const was = valueAt(stored, path),
        now = valueAt(next, path);
      if (canonicalJson(was) === canonicalJson(now)) continue;
      const spec = input.specs.find((s) => s.path === path);
      if (RESUME_MUTABLE_FIELDS.has(path)) {
        config = setAt(config, path, now);
        continue;
      }
      const what = g.name ? `${g.name} ${path}` : spec ? flagName(spec.flag) : path;
      throw new InputError(
        `${what}: the run in ${out} was made with ${shown(was, spec)}, given ${shown(now, spec)}; --resume completes a run as it was started (drop the option, or choose another --out for a new run)`,
        { file, field: path },
      );
    }
  }
  // an offline run has no cache to disagree with
  if (input.cache !== undefined && modelReasoners(stored).length > 0) {
    const was = stored.llm.cachePath,
      now = input.cache;
    if ((was === null ? null : resolve(was)) !== (now === null ? null : resolve(now)))
      throw new InputError(
        `${input.cache === null ? "--no-cache" : "--cache"}: the run in ${out} was made with ${was === null ? "no response cache" : `the response cache ${was}`}, given ${now === null ? "none" : now}; --resume completes a run as it was started (drop the option)`,
        { file, field: "llm.cachePath" },
      );
  }
  return { config, out };
}

/** The stored configuration with one layer of given values over it; a value the schema refuses names where it came from. */
function resolveGiven(stored: RunConfig, layer: Record<string, unknown>, where: string): RunConfig {
  try {
    return resolveRunConfig(stored as unknown as Record<string, unknown>, layer);
  } catch (e) {
    if (e instanceof InputError) throw e;
    const issue = (e as { issues?: Array<{ path: PropertyKey[]; message: string }> }).issues?.[0];
    if (!issue) throw e;
    throw new InputError(`${where} ${issue.path.map(String).join(".")}: ${issue.message}`, { field: issue.path.map(String).join(".") });
  }
}

/** Dotted paths of a layer's values: nested option sets (llm, vggt) by their own keys. */
function leafPaths(layer: Record<string, unknown>, stored: Record<string, unknown>, prefix = ""): string[] {
  return Object.entries(layer).flatMap(([k, v]) => {
    if (v === undefined) return [];
    const s = stored[k];
    const nested = v && typeof v === "object" && !Array.isArray(v) && s && typeof s === "object" && !Array.isArray(s);
    return nested ? leafPaths(v as Record<string, unknown>, s as Record<string, unknown>, `${prefix}${k}.`) : [`${prefix}${k}`];
  });
}

function valueAt(o: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), o);
}

function setAt(config: RunConfig, path: string, value: unknown): RunConfig {
  const [head, tail] = path.split(".") as [string, string | undefined];
  const c = config as unknown as Record<string, unknown>;
  return (tail === undefined ? { ...c, [head]: value } : { ...c, [head]: { ...(c[head] as object), [tail]: value } }) as unknown as RunConfig;
}

/** A value as its flag writes it: lists comma-separated, scaled fields in the flag's unit, long text cut. */
function shown(v: unknown, spec: FlagSpec | undefined): string {
  if (v === null || v === undefined) return "none";
  if (typeof v === "number" && spec?.scale) return String(v / spec.scale);
  if (typeof v === "boolean" && spec?.kind === "onoff") return v ? "on" : "off";
  if (Array.isArray(v)) return v.join(",");
  if (typeof v === "string")
    return v.length > SHOWN_TEXT_CHARS ? `${JSON.stringify(v.slice(0, SHOWN_TEXT_CHARS))}... (${v.length} characters)` : JSON.stringify(v);
  return JSON.stringify(v);
}
