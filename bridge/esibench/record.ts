/**
 * One released ESI-Bench question record (dataset/json_clean/..., ESI-Bench's released records): twelve
 * top-level string fields, three of which hold JSON text (options_json, image_paths_json, metadata_json).
 * Parsing names the file and the field of every problem, so a bad record can be refused with a reason
 * while the others import.
 */
import * as z from "zod";

/** A record that cannot be imported: the file, the field at fault and what was expected there. */
export class RecordRefusal extends Error {
  constructor(
    readonly file: string,
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${file}: ${field}: ${reason}`);
    this.name = "RecordRefusal";
  }
}

export const ESI_STRING_FIELDS = [
  "id",
  "big_task",
  "small_task",
  "runner_task",
  "scene",
  "room",
  "question",
  "answer",
  "answer_type",
  "options_json",
  "image_paths_json",
  "metadata_json",
] as const;

/** The released record: every field a string (the three *_json fields are JSON text). */
const EsiRawRecordSchema = z.object(
  Object.fromEntries(ESI_STRING_FIELDS.map((f) => [f, z.string()])) as Record<(typeof ESI_STRING_FIELDS)[number], z.ZodString>,
);
type EsiRawRecord = z.infer<typeof EsiRawRecordSchema>;

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

export interface EsiRecord {
  /** Path relative to the dataset's json_clean directory (how ESI's index files name records). */
  rel: string;
  /** Absolute path of the file read. */
  file: string;
  raw: EsiRawRecord;
  options: Json;
  imagePaths: Json;
  metadata: JsonObject;
}

function parseJsonField(file: string, field: string, text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch (e) {
    throw new RecordRefusal(file, field, `not JSON text (${(e as Error).message})`);
  }
}

/** Parses a record file's text; throws RecordRefusal naming the field. */
export function parseEsiRecord(text: string, file: string, rel: string): EsiRecord {
  let top: unknown;
  try {
    top = JSON.parse(text);
  } catch (e) {
    throw new RecordRefusal(file, "(file)", `not valid JSON, e.g. truncated (${(e as Error).message})`);
  }
  if (!top || typeof top !== "object" || Array.isArray(top))
    throw new RecordRefusal(file, "(file)", "expected a JSON object with ESI-Bench's 12 string fields");
  for (const f of ESI_STRING_FIELDS) {
    const v = (top as Record<string, unknown>)[f];
    if (v === undefined) throw new RecordRefusal(file, f, "missing (every released record has this string field)");
    if (typeof v !== "string") throw new RecordRefusal(file, f, `expected a string, got ${Array.isArray(v) ? "an array" : typeof v}`);
  }
  const raw = EsiRawRecordSchema.parse(top);
  if (!raw.id.trim()) throw new RecordRefusal(file, "id", "empty");
  const options = parseJsonField(file, "options_json", raw.options_json);
  const imagePaths = parseJsonField(file, "image_paths_json", raw.image_paths_json);
  const metadata = parseJsonField(file, "metadata_json", raw.metadata_json);
  if (!metadata || typeof metadata !== "object" || Array.isArray(metadata)) throw new RecordRefusal(file, "metadata_json", "expected a JSON object");
  return { rel, file, raw, options, imagePaths, metadata };
}

// ---------------------------------------------------------------------------------------------------------
// reading metadata with errors that name the field

/** A path inside metadata_json, for messages: metadata_json.objects[obj1].position. */
export class Field {
  constructor(
    readonly record: EsiRecord,
    readonly path: string,
    readonly value: Json | undefined,
  ) {}

  static root(r: EsiRecord): Field {
    return new Field(r, "metadata_json", r.metadata);
  }

  refuse(reason: string): never {
    throw new RecordRefusal(this.record.file, this.path, reason);
  }

  get exists(): boolean {
    return this.value !== undefined && this.value !== null;
  }

  /** A child by key (objects) or index (arrays). */
  at(key: string | number): Field {
    const v = this.value;
    let child: Json | undefined;
    if (typeof key === "number") child = Array.isArray(v) ? v[key] : undefined;
    else child = v && typeof v === "object" && !Array.isArray(v) ? v[key] : undefined;
    return new Field(this.record, typeof key === "number" ? `${this.path}[${key}]` : `${this.path}.${key}`, child);
  }

  /** A path of keys: f.get("question_data", "render", "image"). */
  get(...keys: Array<string | number>): Field {
    return keys.reduce<Field>((f, k) => f.at(k), this);
  }

  object(): JsonObject {
    const v = this.value;
    if (!v || typeof v !== "object" || Array.isArray(v)) this.refuse(this.value === undefined ? "missing (expected an object)" : "expected an object");
    return v as JsonObject;
  }

  list(): Field[] {
    if (!Array.isArray(this.value)) this.refuse(this.value === undefined ? "missing (expected a list)" : "expected a list");
    return (this.value as Json[]).map((_, i) => this.at(i));
  }

  /** The list, or [] when absent (the exporter prunes empty lists). */
  listOrEmpty(): Field[] {
    return this.exists ? this.list() : [];
  }

  str(): string {
    if (typeof this.value !== "string") this.refuse(this.value === undefined ? "missing (expected a string)" : "expected a string");
    return this.value as string;
  }

  strOr(dflt: string): string {
    return typeof this.value === "string" ? this.value : dflt;
  }

  num(): number {
    if (typeof this.value !== "number" || !Number.isFinite(this.value))
      this.refuse(this.value === undefined ? "missing (expected a number)" : "expected a finite number");
    return this.value as number;
  }

  numOr(dflt: number | null): number | null {
    return typeof this.value === "number" && Number.isFinite(this.value) ? this.value : dflt;
  }

  bool(): boolean {
    if (typeof this.value !== "boolean") this.refuse("expected true or false");
    return this.value as boolean;
  }

  /** A numeric vector of length n. */
  vec(n: number): number[] {
    const v = this.value;
    if (!Array.isArray(v) || v.length !== n || !v.every((x) => typeof x === "number" && Number.isFinite(x)))
      this.refuse(v === undefined ? `missing (expected ${n} numbers)` : `expected ${n} finite numbers`);
    return v as number[];
  }

  vec3(): [number, number, number] {
    return this.vec(3) as [number, number, number];
  }

  /**
   * The exporter's keyed lists (`[{"_key": "0.png", ...}, ...]`, as the released records store them) as entries by key; a dict
   * keyed by name (a few generators export those unchanged) is read the same way.
   */
  keyed(): Array<{ key: string; field: Field }> {
    const v = this.value;
    if (Array.isArray(v)) {
      return this.list().map((f) => {
        const k = f.at("_key");
        if (typeof k.value !== "string") f.refuse("keyed-list entry without a string _key");
        // named by its key, as the generator named it: metadata_json.objects[obj1]
        return { key: k.value as string, field: new Field(this.record, `${this.path}[${k.value}]`, f.value) };
      });
    }
    if (v && typeof v === "object") return Object.keys(v).map((k) => ({ key: k, field: this.at(k) }));
    this.refuse(v === undefined ? "missing (expected a keyed list)" : "expected a keyed list");
  }

  /** One entry of a keyed list. */
  entry(key: string): Field {
    const e = this.keyed().find((x) => x.key === key);
    if (!e) this.refuse(`no entry with _key "${key}"`);
    return new Field(this.record, `${this.path}[${key}]`, e.field.value);
  }

  hasEntry(key: string): boolean {
    return this.exists && this.keyed().some((x) => x.key === key);
  }
}

/**
 * A flag family (`[{"_key": "exist_near_3", "_indices": [3], "value": true}, ...]`): value per index tuple,
 * read from `_indices` (never from list positions, which the exporter sorted as strings).
 */
export function flagFamily(f: Field): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const { field } of f.keyed()) {
    const idx = field.at("_indices");
    const value = field.at("value");
    if (!Array.isArray(idx.value) || !idx.value.every((x) => Number.isInteger(x))) idx.refuse("expected a list of integers (the flag's view / object indices)");
    if (typeof value.value !== "boolean") value.refuse("expected true or false");
    out.set((idx.value as number[]).join(","), value.value as boolean);
  }
  return out;
}
