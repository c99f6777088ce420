/**
 * Box geometry shared by the exports (Node) and the page (browser): plain functions, no imports, so the
 * browser bundle includes this file as is.
 */

/** The 12 edges of a gravity-aligned yaw box (centre, full extents, yaw in rad; Z up) as 24 endpoints x, y, z. */
export function boxEdges(centre: readonly number[], extent: readonly number[], yaw: number): number[] {
  const c = Math.cos(yaw),
    s = Math.sin(yaw);
  const hx = extent[0]! / 2,
    hy = extent[1]! / 2,
    hz = extent[2]! / 2;
  const corner = (i: number): number[] => {
    const lx = i & 1 ? hx : -hx,
      ly = i & 2 ? hy : -hy,
      lz = i & 4 ? hz : -hz;
    return [centre[0]! + c * lx - s * ly, centre[1]! + s * lx + c * ly, centre[2]! + lz];
  };
  // corner index bits: x, y, z; an edge joins corners differing in one bit
  const pairs = [0, 1, 2, 3, 4, 5, 6, 7, 0, 2, 1, 3, 4, 6, 5, 7, 0, 4, 1, 5, 2, 6, 3, 7];
  return pairs.flatMap((k) => corner(k));
}

/**
 * A mirror's rectangle (a graph's `mirrors[]` entry) as its 4 edges, and a tick along its normal from the centre
 * (a tenth of its width, at least 5 cm) showing the side it reflects: 10 endpoints x, y, z.
 */
export function mirrorEdges(m: {
  centre: readonly number[];
  normal: readonly number[];
  u: readonly number[];
  v: readonly number[];
  half_width_m: number;
  half_height_m: number;
}): number[] {
  const at = (a: number, b: number): number[] => [0, 1, 2].map((k) => m.centre[k]! + a * m.u[k]! + b * m.v[k]!);
  const w = m.half_width_m,
    h = m.half_height_m;
  const tick = Math.max(0.05, w / 5);
  return [
    ...at(-w, -h),
    ...at(w, -h),
    ...at(w, -h),
    ...at(w, h),
    ...at(w, h),
    ...at(-w, h),
    ...at(-w, h),
    ...at(-w, -h),
    ...m.centre.slice(0, 3),
    ...[0, 1, 2].map((k) => m.centre[k]! + tick * m.normal[k]!),
  ];
}

/** One segment per mirror ghost of a diagnosis, from its node's box centre to the true object it reflects: 6 numbers each. */
export function ghostLinks(
  nodes: ReadonlyArray<{ id: string; box: { centre: readonly number[] } }>,
  diagnosis: ReadonlyArray<{ node: string; status: string; mirrors_object?: number }>,
  truth: ReadonlyArray<{ id: number; centre: readonly number[] }>,
): number[] {
  const out: number[] = [];
  for (const d of diagnosis) {
    if (d.status !== "mirror_ghost" || d.mirrors_object === undefined) continue;
    const n = nodes.find((x) => x.id === d.node),
      o = truth.find((x) => x.id === d.mirrors_object);
    if (n && o) out.push(...n.box.centre.slice(0, 3), ...o.centre.slice(0, 3));
  }
  return out;
}
