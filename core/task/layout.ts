/**
 * Geometry and topology of a multi-room layout (schema.ts LayoutSchema), shared by the simulator (walls
 * to render and to stop the agent), the generators (answers), the ground-truth graph and the reasoners
 * (room paths over doorway edges). Pure functions, no simulator state.
 */
import type { Layout } from "./schema.js";

export type Vec2 = [number, number];
export type LayoutRoom = Layout["rooms"][number];
export type LayoutWall = Layout["walls"][number];

/**
 * The signature furniture of each room type: how the generator furnishes rooms and how a graph of seen
 * objects names them (HOV-SG names regions from what is in them). Ours.
 */
export const ROOM_SIGNATURES: Readonly<Record<string, string>> = {
  kitchen: "counter",
  living_room: "sofa",
  bedroom: "wardrobe",
  dining_room: "table",
  private_office: "bookshelf",
  storage_room: "cabinet",
};
const SIGNATURE_ROOM = new Map(Object.entries(ROOM_SIGNATURES).map(([room, cat]) => [cat, room]));

/** The room type a set of object labels names (the most frequent signature), or null when none is a signature. */
export function roomTypeOf(labels: readonly string[]): string | null {
  const votes = new Map<string, number>();
  for (const l of labels) {
    const t = SIGNATURE_ROOM.get(l);
    if (t) votes.set(t, (votes.get(t) ?? 0) + 1);
  }
  return [...votes.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? null;
}

/** A doorway as a graph edge: the two rooms it joins and where it is. */
export interface DoorwayEdge {
  rooms: [string, string];
  centre: Vec2;
  width_m: number;
}

/** Unit direction and length of a wall. */
export function wallAxis(w: Pick<LayoutWall, "from" | "to">): { dir: Vec2; length: number } {
  const dx = w.to[0] - w.from[0],
    dy = w.to[1] - w.from[1];
  const length = Math.hypot(dx, dy) || 1;
  return { dir: [dx / length, dy / length], length };
}

/** The solid stretches of a wall between its doorways, as [start, end] offsets from `from` (m). */
export function solidIntervals(w: LayoutWall): Array<[number, number]> {
  const { length } = wallAxis(w);
  const gaps = w.doors.map((d) => [d.offset_m - d.width_m / 2, d.offset_m + d.width_m / 2] as [number, number]).sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  let t = 0;
  for (const [a, b] of gaps) {
    if (a > t) out.push([t, Math.min(a, length)]);
    t = Math.max(t, b);
  }
  if (t < length) out.push([t, length]);
  return out;
}

/** A point along a wall. */
export function wallPoint(w: Pick<LayoutWall, "from" | "to">, offset: number): Vec2 {
  const { dir } = wallAxis(w);
  return [w.from[0] + dir[0] * offset, w.from[1] + dir[1] * offset];
}

export function doorwayEdges(layout: Layout): DoorwayEdge[] {
  return layout.walls.flatMap((w) =>
    w.doors.map((d) => ({ rooms: [d.rooms[0], d.rooms[1]] as [string, string], centre: wallPoint(w, d.offset_m), width_m: d.width_m })),
  );
}

/** The room whose floor rectangle holds (x, y), or null (on a wall line: the first listed). */
export function roomAt(rooms: ReadonlyArray<Pick<LayoutRoom, "id" | "min" | "max">>, x: number, y: number): string | null {
  for (const r of rooms) if (x >= r.min[0] && x <= r.max[0] && y >= r.min[1] && y <= r.max[1]) return r.id;
  return null;
}

/** Rooms joined by a doorway, per room. */
export function roomAdjacency(
  rooms: readonly string[],
  edges: ReadonlyArray<{ rooms: readonly [string, string] | readonly string[] }>,
): Map<string, Set<string>> {
  const adj = new Map<string, Set<string>>(rooms.map((r) => [r, new Set<string>()]));
  for (const e of edges) {
    const [a, b] = e.rooms as [string, string];
    if (!adj.has(a)) adj.set(a, new Set());
    if (!adj.has(b)) adj.set(b, new Set());
    adj.get(a)!.add(b);
    adj.get(b)!.add(a);
  }
  return adj;
}

/** Every shortest room sequence from `a` to `b` through doorways (empty when unreachable), in a stable order. */
export function shortestRoomPaths(adj: ReadonlyMap<string, ReadonlySet<string>>, a: string, b: string): string[][] {
  if (!adj.has(a) || !adj.has(b)) return [];
  const dist = new Map<string, number>([[a, 0]]);
  let frontier = [a];
  while (frontier.length && !dist.has(b)) {
    const next: string[] = [];
    for (const r of frontier)
      for (const n of [...adj.get(r)!].sort())
        if (!dist.has(n)) {
          dist.set(n, dist.get(r)! + 1);
          next.push(n);
        }
    frontier = next;
  }
  if (!dist.has(b)) return [];
  // walk back from b over neighbours one step closer to a
  const back = (r: string): string[][] =>
    r === a
      ? [[a]]
      : [...adj.get(r)!]
          .sort()
          .filter((n) => dist.get(n) === dist.get(r)! - 1)
          .flatMap((n) => back(n).map((p) => [...p, r]));
  return back(b);
}

/** ESI's wording of one step of the region-sequence navigation question, and of its blank (Wainscott_0_garden q_006). */
export const NAV_STEP = "Choose the next region to explore.";
export const NAV_BLANK = "[please fill in]";
/**
 * Ours: a step the built-in navigation question leaves unwritten. Written steps let the text rule options out (a
 * shortest path visits no room twice), so a question-only reader found the blank among the unwritten rooms.
 */
export const NAV_HIDDEN = "[not given]";

/** "kitchen_0" -> "kitchen": a room id's type (ESI's ids are the type and an index). */
export const roomTypeOfId = (id: string): string => id.replace(/_\d+$/, "");

/** "kitchen_0" -> "kitchen 0": how ESI's navigation questions write room names. */
export const spokenRoom = (id: string): string => id.replace(/_/g, " ");
