/**
 * Identifiers and paths. Every id that reaches the file system is checked against a strict format first,
 * and every path built from one is checked to stay inside its folder, so no request can name a file
 * outside the data directory (`..`, `/`, `%2F`, NUL, absolute paths all fail the format).
 */
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { isSafeSegment, isWithin, SAFE_SEGMENT_RULE } from "../../../core/paths.js";
import { HttpError } from "./errors.js";

/** Server-made ids: a kind letter, a dash, 24 lowercase hex digits (96 random or hashed bits). */
const ID_KINDS = { session: "s", bundle: "b", graph: "g", run: "r" } as const;
export type IdKind = keyof typeof ID_KINDS;
const ID_HEX_DIGITS = 24;

const ID_PATTERNS: Record<IdKind, RegExp> = {
  session: /^s-[0-9a-f]{24}$/,
  bundle: /^b-[0-9a-f]{24}$/,
  graph: /^g-[0-9a-f]{24}$/,
  run: /^r-[0-9a-f]{24}$/,
};

export function newId(kind: IdKind): string {
  return `${ID_KINDS[kind]}-${randomBytes(ID_HEX_DIGITS / 2).toString("hex")}`;
}

/** The id with the same random part and another kind (a session's bundle). */
export function sameId(id: string, kind: IdKind): string {
  return `${ID_KINDS[kind]}-${id.slice(2)}`;
}

/** An id made from a hash (graph ids: the same bundle and options give the same graph). */
export function hashedId(kind: IdKind, hexDigest: string): string {
  return `${ID_KINDS[kind]}-${hexDigest.slice(0, ID_HEX_DIGITS)}`;
}

/** Throws a 400 naming `field` unless `value` is an id of `kind`. */
export function checkId(kind: IdKind, value: unknown, field: string): string {
  if (typeof value !== "string" || !ID_PATTERNS[kind].test(value))
    throw new HttpError(
      400,
      "invalid_id",
      `${field}: expected a ${kind} id (${ID_KINDS[kind]}- followed by ${ID_HEX_DIGITS} hex digits), got ${describe(value)}`,
      field,
    );
  return value;
}

export function checkTaskId(value: unknown, field: string): string {
  if (!isSafeSegment(value)) throw new HttpError(400, "invalid_id", `${field}: expected a task id (${SAFE_SEGMENT_RULE}), got ${describe(value)}`, field);
  return value;
}

/** Joins `parts` under `root` and verifies the result is still inside it (defence in depth after the id checks). */
export function inside(root: string, ...parts: string[]): string {
  const p = resolve(root, ...parts);
  if (!isWithin(root, p)) throw new HttpError(400, "invalid_id", `path leaves the data directory`);
  return p;
}

function describe(v: unknown): string {
  if (typeof v !== "string") return typeof v;
  const shown = v.length > 40 ? `${v.slice(0, 40)}...` : v;
  return JSON.stringify(shown);
}
