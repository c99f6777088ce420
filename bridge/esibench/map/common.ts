/** Helpers the subcategory mappers share: keyed pose lists, flag families, initial-view rules. */
import type { DraftObject } from "../draft.js";
import type { DraftView } from "../views.js";
import { flagByNumber } from "../draft.js";
import { flagFamily, type EsiRecord, type Field } from "../record.js";
import { readView } from "../views.js";

export type Mapper = (r: EsiRecord, md: Field) => import("../draft.js").Draft;

/** Candidate views from a keyed list of poses (`[{"_key": "0.png", position, quaternion_xyzw}, ...]`). */
export function keyedViews(f: Field, kindKey = "type"): DraftView[] {
  return f
    .keyed()
    .map(({ key, field }) =>
      readView(field, key, field.at(kindKey).exists && typeof field.at(kindKey).value === "string" ? (field.at(kindKey).value as string) : undefined),
    );
}

/**
 * Applies a flag family whose `_indices` are [view] (object = `objectKey`) or [objectNumber, view]
 * (object = `${prefix}${objectNumber}`), by view number.
 */
export function applyFlags(views: DraftView[], family: Field, objectKey: string | ((n: number) => string)): void {
  if (!family.exists) return;
  for (const [idx, value] of flagFamily(family)) {
    const parts = idx.split(",").map(Number);
    if (typeof objectKey === "string") flagByNumber(views, parts[parts.length - 1]!, objectKey, value);
    else flagByNumber(views, parts[1]!, objectKey(parts[0]!), value);
  }
}

/** Object entries of a keyed list by key, refusing when a required key is missing. */
export function objectsByKey(f: Field): Map<string, Field> {
  return new Map(f.keyed().map(({ key, field }) => [key, field]));
}

export function need(map: Map<string, Field>, list: Field, key: string): Field {
  const f = map.get(key);
  if (!f) list.refuse(`no object "${key}"`);
  return f;
}

/** True when a view's flags show every one of `keys` (false when any flag is missing or false). */
export const showsAll = (v: DraftView, keys: readonly string[]): boolean => keys.every((k) => v.flags.get(k) === true);

export const keysOf = (objs: DraftObject[]): string[] => objs.map((o) => o.key);

/** The given scalar-ish metadata fields, verbatim, for label_metadata. */
export function meta(md: Field, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (md.at(k).exists) out[k] = md.at(k).value;
  return out;
}
