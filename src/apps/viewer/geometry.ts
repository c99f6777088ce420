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
