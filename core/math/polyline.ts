/** Distances to a walk on the floor: a polyline of XY points (m). */

/** Distance in XY from a point (its first two coordinates) to a polyline; to its only point when it has one. */
export function polylineDistance(p: readonly number[], path: ReadonlyArray<readonly [number, number]>): number {
  if (path.length === 1) return Math.hypot(p[0]! - path[0]![0], p[1]! - path[0]![1]);
  let best = Infinity;
  for (let i = 0; i + 1 < path.length; i++) {
    const [ax, ay] = path[i]!,
      [bx, by] = path[i + 1]!;
    const dx = bx - ax,
      dy = by - ay,
      L2 = dx * dx + dy * dy;
    const t = L2 > 0 ? Math.max(0, Math.min(1, ((p[0]! - ax) * dx + (p[1]! - ay) * dy) / L2)) : 0;
    best = Math.min(best, Math.hypot(p[0]! - (ax + t * dx), p[1]! - (ay + t * dy)));
  }
  return best;
}
