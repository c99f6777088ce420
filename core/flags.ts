/** Parsers for command-line values, raising input errors that name the flag and the expected form. */
import { Option, type Command } from "commander";
import { readFileSync, statSync } from "node:fs";
import * as z from "zod";
import { InputError } from "./errors.js";

export function intOption(flag: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^-?\d+$/.test(v.trim()) || n < min || n > max) throw new InputError(`${flag}: expected an integer in [${min}, ${max}], got "${v}"`);
    return n;
  };
}

function numberOption(flag: string, min: number, max: number) {
  return (v: string): number => {
    const n = Number(v);
    if (v.trim() === "" || !Number.isFinite(n) || n < min || n > max) throw new InputError(`${flag}: expected a number in [${min}, ${max}], got "${v}"`);
    return n;
  };
}

export function choiceOption<T extends string>(flag: string, choices: readonly T[]) {
  return (v: string): T => {
    if (!(choices as readonly string[]).includes(v)) throw new InputError(`${flag}: expected one of ${choices.join(", ")}, got "${v}"`);
    return v as T;
  };
}

/** The text of a file a flag names; a missing, unreadable or empty file is an input error naming the flag and the file. */
function fileText(flag: string, file: string): string {
  let text: string;
  try {
    if (statSync(file).isDirectory()) throw new InputError(`${flag}: ${file}: is a directory, expected a text file`, { file });
    text = readFileSync(file, "utf8");
  } catch (e) {
    if (e instanceof InputError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(
      `${flag}: ${file}: ${code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : `cannot read it (${(e as Error).message})`}`,
      { file },
    );
  }
  if (text.trim() === "") throw new InputError(`${flag}: ${file}: is empty, expected the text`, { file });
  return text;
}

/** A comma-separated list of choices, e.g. "gt,noisy". */
export function listOption<T extends string>(flag: string, choices: readonly T[]) {
  return (v: string): T[] => {
    const items = v
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (items.length === 0) throw new InputError(`${flag}: expected a comma-separated list of ${choices.join(", ")}`);
    for (const i of items) if (!(choices as readonly string[]).includes(i)) throw new InputError(`${flag}: "${i}" is not one of ${choices.join(", ")}`);
    return [...new Set(items)] as T[];
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Options derived from a zod schema: one declaration (the option set's schema: type, bounds, choices, default,
// description) gives every front-end its flags. A FlagSpec only names the flag of a field.

export interface FlagSpec {
  /** the field's path in the option set, dotted for nested objects ("vggt.device") */
  path: string;
  /** commander's flag text, e.g. "--noise-level <x>" */
  flag: string;
  /** "onoff": a boolean field written `on|off` on the command line; "file": a text field given as the path of a file holding it */
  kind?: "onoff" | "file";
  /** the flag is in units of `scale` field units (e.g. seconds for a milliseconds field: 1000) */
  scale?: number;
  /** help text, when the field's own description does not read well as help */
  help?: string;
  /** how the default reads in the help, when its value is long (e.g. "all") */
  shownDefault?: string;
}

/** The commander attribute a flag's value lands in ("--noise-level <x>" -> noiseLevel). */
export function flagAttribute(flag: string): string {
  const long = flag
    .split(/[ ,]+/)
    .find((p) => p.startsWith("--"))!
    .slice(2);
  return long.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The flag's name without its value placeholder ("--noise-level"). */
export const flagName = (flag: string): string => flag.split(/[ ,]+/).find((p) => p.startsWith("--"))!;

/** The field schema at a dotted path of an object schema. */
function fieldAt(schema: z.ZodObject, path: string): z.ZodType {
  let s: z.ZodType = schema;
  for (const key of path.split(".")) {
    s = unwrapped(s);
    if (!(s instanceof z.ZodObject)) throw new Error(`flags: ${path} does not name an object field`);
    const next = s.shape[key] as z.ZodType | undefined;
    if (!next) throw new Error(`flags: no field ${path}`);
    s = next;
  }
  return s;
}

/** The schema under defaults, optionals and nullables, with the default if there is one. */
function unwrapped(s: z.ZodType): z.ZodType {
  for (;;) {
    if (s instanceof z.ZodDefault || s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
    // a preprocess (a transform in front) parses into its output schema; any other pipe is read by its input
    else if (s instanceof z.ZodPipe) s = (s.in instanceof z.ZodTransform ? s.out : s.in) as z.ZodType;
    else return s;
  }
}

function defaultOf(s: z.ZodType): unknown {
  for (;;) {
    if (s instanceof z.ZodDefault) return s.def.defaultValue;
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
    else return undefined;
  }
}

/** A parser of the flag's text into the field's value, checking what the schema checks and naming the flag. */
function parserFor(spec: FlagSpec, field: z.ZodType): ((v: string) => unknown) | undefined {
  const name = flagName(spec.flag);
  const inner = unwrapped(field);
  if (spec.kind === "onoff") {
    const p = choiceOption(name, ["on", "off"] as const);
    return (v) => p(v) === "on";
  }
  if (spec.kind === "file") return (v) => fileText(name, v);
  if (inner instanceof z.ZodEnum) return choiceOption(name, inner.options as string[]);
  if (inner instanceof z.ZodArray && unwrapped(inner.element as z.ZodType) instanceof z.ZodEnum)
    return listOption(name, (unwrapped(inner.element as z.ZodType) as z.ZodEnum).options as string[]);
  if (inner instanceof z.ZodNumber) {
    const scale = spec.scale ?? 1;
    const lo = (inner.minValue ?? -Number.MAX_VALUE) / scale,
      hi = (inner.maxValue ?? Number.MAX_VALUE) / scale;
    const p =
      inner.isInt && scale === 1 ? intOption(name, Math.max(lo, Number.MIN_SAFE_INTEGER), Math.min(hi, Number.MAX_SAFE_INTEGER)) : numberOption(name, lo, hi);
    return (v) => {
      const n = p(v);
      return scale === 1 ? n : Math.round(n * scale);
    };
  }
  return undefined;
}

function shownDefault(spec: FlagSpec, value: unknown): string {
  if (spec.shownDefault) return spec.shownDefault;
  if (spec.kind === "onoff") return value ? "on" : "off";
  if (typeof value === "number" && spec.scale) return String(value / spec.scale);
  return Array.isArray(value) ? value.join(",") : String(value);
}

/**
 * Adds one commander option per spec, with help, choices and bounds from the field's schema. The default
 * shown and applied is the field's value in `defaults` (e.g. a run's default configuration), else the
 * schema's own default; a field without either has none.
 */
export function addSchemaFlags(cmd: Command, schema: z.ZodObject, specs: readonly FlagSpec[], defaults?: Record<string, unknown>): Command {
  for (const spec of specs) {
    const field = fieldAt(schema, spec.path);
    const option = new Option(spec.flag, spec.help ?? field.description ?? unwrapped(field).description ?? "");
    const parse = parserFor(spec, field);
    if (parse) option.argParser(parse);
    const value = defaults ? valueAt(defaults, spec.path) : defaultOf(field);
    if (value !== undefined && value !== null) option.default(value, shownDefault(spec, value));
    cmd.addOption(option);
  }
  return cmd;
}

function valueAt(o: Record<string, unknown>, path: string): unknown {
  let v: unknown = o;
  for (const k of path.split(".")) v = v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

function setAt(o: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let t = o;
  for (const k of keys.slice(0, -1)) t = (t[k] ??= {}) as Record<string, unknown>;
  t[keys.at(-1)!] = value;
}

/**
 * The values of the flags as a (nested) partial option set. `onlyGiven`: only flags typed on the command
 * line (for layering over a config file), else every flag that has a value (its default included).
 */
export function schemaFlagValues(cmd: Command, specs: readonly FlagSpec[], onlyGiven = false): Record<string, unknown> {
  const o = cmd.opts() as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const spec of specs) {
    const attr = flagAttribute(spec.flag);
    if (onlyGiven && cmd.getOptionValueSource(attr) !== "cli") continue;
    if (o[attr] === undefined) continue;
    setAt(out, spec.path, o[attr]);
  }
  return out;
}

/** The flag that sets a field, for messages ("vggt.device" -> "--device"), or the field itself. */
export function flagOfField(specs: readonly FlagSpec[], path: string): string {
  const s = specs.find((x) => x.path === path);
  return s ? flagName(s.flag) : path;
}

function merged(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] =
      v && typeof v === "object" && !Array.isArray(v) && b && typeof b === "object" && !Array.isArray(b)
        ? merged(b as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

/**
 * The option set given by the flags (over `base`), validated by its schema; a failure names the flag
 * ("--conf-threshold: ...") or, for a field without one, the field.
 */
export function parseSchemaFlags<S extends z.ZodObject>(cmd: Command, schema: S, specs: readonly FlagSpec[], base: Record<string, unknown> = {}): z.infer<S> {
  const r = schema.safeParse(merged(base, schemaFlagValues(cmd, specs)));
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const path = issue.path.map(String).join(".");
  throw new InputError(`${flagOfField(specs, path) || "(options)"}: ${issue.message}`, { field: path });
}

/** One flag's value checked by a schema; a failure names the flag. */
export function parseFlagValue<T>(schema: z.ZodType<T>, value: unknown, flag: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw new InputError(`${flag}: ${r.error.issues[0]!.message}, got ${JSON.stringify(value)}`);
}
