/**
 * Interiors of open containers at any size: the category's wall model (its `interior` spec, interior.ts) as
 * fractions of the model's box, which hold at any per-axis scale because the walls scale with the mesh.
 * The generator applies them to a placed object's extent (exact: the rendered walls are these), and the
 * scene graph applies the same fractions to a node's measured box and label (an estimate: a wrong box or a
 * wrong label gives a wrong interior, as a wall model read off the wrong category would).
 */
import type { Vec3 } from "../math/vec.js";
import { buildModel, LIBRARY } from "./library.js";
import { specInterior } from "./interior.js";

export interface InteriorFractions {
  /** clear width and depth (the same fraction for both horizontal axes, the smaller where they differ, so an estimate does not depend on which box axis is which) */
  horizontal: number;
  /** clear height: from the inner bottom to the rim */
  vertical: number;
  /** interior volume over the box volume */
  volume: number;
}

export interface Interior {
  extent: Vec3;
  volume_m3: number;
}

const cache = new Map<string, InteriorFractions | null>();

/** The wall model of a category, or null when it is not an open container. */
export function interiorFractions(category: string): InteriorFractions | null {
  if (cache.has(category)) return cache.get(category)!;
  const def = LIBRARY.get(category);
  const spec = def?.flags.interior;
  let out: InteriorFractions | null = null;
  if (def && spec) {
    const e = buildModel(def.models[0]!.id).extent;
    const i = specInterior(spec);
    out = { horizontal: Math.min(i.extent[0] / e[0], i.extent[1] / e[1]), vertical: i.extent[2] / e[2], volume: i.volume / (e[0] * e[1] * e[2]) };
  }
  cache.set(category, out);
  return out;
}

/** The interior of an object of `category` whose box has full size `extent` (m), or null for a category that is no open container. */
export function interiorOf(category: string, extent: readonly number[]): Interior | null {
  const f = interiorFractions(category);
  if (!f) return null;
  const [x, y, z] = extent as [number, number, number];
  return { extent: [x * f.horizontal, y * f.horizontal, z * f.vertical], volume_m3: x * y * z * f.volume };
}
