/**
 * Which object an agent's reference names (issue 46): `#<instance id>` (ground-truth trajectories), a node of the
 * agent's graph (the object at the node's place), the object's name ("the red mug #2"), colour and category ("red
 * mug"), or its category ("mug"), among the objects it is given (the hands give those in view). One that fits
 * several objects is narrowed to those the current view shows; one that still fits several fails and names them.
 */
import type { TaskObject } from "../../../core/task/schema.js";
import type { ObjectRef } from "../../env/types.js";
import { quatToMat } from "../../../core/math/quat.js";
import type { Vec3 } from "../../../core/math/vec.js";

/**
 * A graph node names the object whose box, grown by this much, holds the node's centre (m): a reconstruction's
 * node is off by centimetres (the noisy source's calibrated error), a hallucinated one by more.
 */
const NODE_REFERENCE_TOLERANCE_M = 0.15;

const words = (s: string) =>
  s
    .toLowerCase()
    .replace(/_/g, " ")
    .replace(/^(the|a|an)\s+/, "")
    .replace(/\s+/g, " ")
    .trim();

/** How far `p` is outside an object's box (0 inside). */
export function boxDistance(o: TaskObject, p: Vec3): number {
  const R = quatToMat(o.orientation);
  const d = [p[0] - o.position[0], p[1] - o.position[1], p[2] - o.position[2]];
  let sq = 0;
  for (let k = 0; k < 3; k++) {
    const local = R[0][k]! * d[0]! + R[1][k]! * d[1]! + R[2][k]! * d[2]!;
    const out = Math.max(0, Math.abs(local) - o.extent[k]! / 2);
    sq += out * out;
  }
  return Math.sqrt(sq);
}

/** The texts that name an object: its name, colour and category, category. */
function namesOf(o: TaskObject): string[] {
  const cat = words(o.category);
  return [words(o.name), ...(o.color ? [`${words(o.color)} ${cat}`] : []), cat];
}

export type Resolved = { id: number } | { error: string };

/** The object a reference names among `objects` (the structure excluded), `visible` the current view's pixel counts per id. */
export function resolveReference(ref: ObjectRef, objects: readonly TaskObject[], visible: ReadonlyMap<number, number>): Resolved {
  const idForm = /^#(\d+)$/.exec(ref.text.trim());
  if (idForm) {
    const id = Number(idForm[1]);
    return objects.some((o) => o.id === id) ? { id } : { error: `no object has instance id ${id}` };
  }
  if (ref.near) {
    const { point, label, node } = ref.near;
    const near = objects
      .map((o) => ({ o, d: boxDistance(o, point) }))
      .filter((c) => c.d <= NODE_REFERENCE_TOLERANCE_M)
      .sort((a, b) => Number(words(b.o.category) === words(label)) - Number(words(a.o.category) === words(label)) || a.d - b.d);
    if (!near.length) return { error: `nothing in view is where node ${node} (${label}) is` };
    // a node names an object of its label there; one of another label would be the wrong object (the peach in the box)
    const same = near.filter((c) => words(c.o.category) === words(label));
    if (!same.length) return { error: `nothing in view labelled ${words(label)} is where node ${node} is` };
    return { id: same[0]!.o.id };
  }
  const text = words(ref.text);
  const exact = objects.filter((o) => words(o.name) === text);
  if (exact.length === 1) return { id: exact[0]!.id };
  const fits = exact.length ? exact : objects.filter((o) => namesOf(o).includes(text));
  if (!fits.length) return { error: `nothing in view is called "${ref.text}"` };
  if (fits.length === 1) return { id: fits[0]!.id };
  const seen = fits.filter((o) => (visible.get(o.id) ?? 0) > 0);
  if (seen.length === 1) return { id: seen[0]!.id };
  const names = (seen.length ? seen : fits).map((o) => words(o.name));
  return { error: `"${ref.text}" could be ${names.length} objects (${names.join(", ")}): name one of them` };
}
