/** The view number of an ESI-Bench view's image name, which the records' flags and the runner index by. */

/**
 * The view number a name carries: "10.png" -> 10 (at most three digits: names like "<seed>.png" carry a
 * seed, not a view number), "view_03_az056.png" -> 3; anything else has none ("0_1.png", the orbit shifts
 * of the triangle front view, or "initial_side_az090.png").
 */
export function viewNumberOf(name: string): number | null {
  const a = /^(\d{1,3})\.png$/.exec(name);
  if (a) return Number(a[1]);
  const b = /^view_(\d{1,3})_/.exec(name);
  if (b) return Number(b[1]);
  return null;
}
