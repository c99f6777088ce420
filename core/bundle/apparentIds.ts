/**
 * The ids a 2D segmenter sees in a view: the instance image, except on a mirror pixel whose reflected ray hits
 * an object, where the RGB shows that object (a box seen in a mirror is detected as a box). The instance image
 * itself records the surface each ray hit first (the mirror), which stays the truth a cloud's points carry.
 * Room structure seen in a mirror keeps the mirror's id: a wall or floor in the glass is no object a detector
 * names, and masks never take structure ids (evidence.ts drops them).
 */
import type { ViewPayload } from "./view.js";

/** One computed image per (ids, reflectedIds, structure ids): views are reused across sources, arms and modes. */
interface Apparent {
  reflected: Uint16Array;
  structure: string;
  ids: Uint16Array;
}
const cache = new WeakMap<Uint16Array, Apparent[]>();

/**
 * The view's apparent ids: on each pixel whose `reflectedIds` names an object (not 0, not one of
 * `structureIds`), that object's id; elsewhere `ids`. A view without reflection images, or whose reflections
 * show no object, returns its own `ids` array (scenes without mirrors read exactly what they read before).
 */
export function apparentIds(view: Pick<ViewPayload, "ids" | "reflectedIds">, structureIds: ReadonlySet<number>): Uint16Array {
  const { ids, reflectedIds: reflected } = view;
  if (!reflected) return ids;
  const structure = [...structureIds].sort((a, b) => a - b).join(",");
  const list = cache.get(ids) ?? cache.set(ids, []).get(ids)!;
  const hit = list.find((e) => e.reflected === reflected && e.structure === structure);
  if (hit) return hit.ids;
  const out = overlayReflections(ids, reflected, structureIds);
  list.push({ reflected, structure, ids: out });
  return out;
}

/** `ids` with each pixel that reflects an object given that object's id; `ids` itself when none does. */
function overlayReflections(ids: Uint16Array, reflected: Uint16Array, structureIds: ReadonlySet<number>): Uint16Array {
  let out: Uint16Array | null = null;
  for (let p = 0; p < ids.length; p++) {
    const r = reflected[p]!;
    if (r === 0 || r === ids[p] || structureIds.has(r)) continue;
    out ??= new Uint16Array(ids);
    out[p] = r;
  }
  return out ?? ids;
}
