/**
 * The region layer of the scene graph (HOV-SG's floor -> room -> object
 * hierarchy): rooms segmented from the walls and free space the views show, doorways as
 * edges between rooms, the pairs of rooms the views show apart, objects assigned to the room holding their
 * centre, rooms named from the signature furniture seen in them (core/task/layout.ts ROOM_SIGNATURES).
 *
 * The layer holds what the views support and no more, so that one view or a few give a partial plan: the wall
 * lines seen cut the plane into cells (scenegraph/regionGrid.ts); between two neighbouring cells a line stretch
 * the views see through with little wall is no wall (one room); a gap seen open in a wall stretch is a doorway; a
 * stretch seen as wall with no unseen gap wide enough for a doorway is a wall seen closed; anything else is
 * unknown. Two rooms are `separated` when no doorway can join them: a wall seen closed is all that lies between
 * them, or no unseen space (a stretch not seen, a cell no room holds, the plan's unseen edge) lets their walls
 * meet. A room is `enclosed` when none of its boundary opens on unseen space: no room the layer does not hold
 * is its neighbour. Readers (src/reason/regionPrograms.ts) take a pair of rooms as joined (a doorway), not
 * joined (separated) or unknown (neither). */
import type { PointCloud } from "../reconstruct/pointcloud.js";
import type { Task } from "../core/task/schema.js";
import { doorwayEdges, roomTypeOf } from "../core/task/layout.js";
import type { GraphNode, RegionLayer } from "./types.js";
import { CLOSED, MIN_LINE_BAND_M, OPEN, REGION_CELL_M, StructurePoints, type PlanGrid, type WallLine } from "./regionGrid.js";

export { StructurePoints } from "./regionGrid.js";

/** A line stretch between two cells is a wall when this share of it shows wall points (ours); below it the cells are one room... */
const WALL_PRESENT_FRACTION = 0.3;
/** ...when at least this share of it is seen open (ours). */
const OPEN_LINE_FRACTION = 0.5;
/** A gap narrower than this is no doorway (m): doors are 0.7 m and wider (ours; the simulator's are 1.0). */
const MIN_DOOR_WIDTH_M = 0.6;
/**
 * However smeared a wall, a doorway's gap shows at least this much open (m): below it, a hole in a noisy wall.
 * Ours: two cells, the least a ray-crossed run is told from one stray ray.
 */
const MIN_DOOR_OPEN_M = 0.2;
/** A doorway's gap (no wall seen across it) is seen open along at least this share of it, the rest unseen (ours). */
const DOOR_OPEN_SHARE = 0.5;
/**
 * A region is a room when the views show at least this much of its floor (m^2), or a doorway into it: half of a
 * small room's 1 m^2 wash room would do; less is noise beyond a wall (ours).
 */
const ROOM_MIN_FLOOR_M2 = 0.5;
/**
 * A wall line whose band is wider than this (m) is smeared: a crisp wall's band is MIN_LINE_BAND_M (0.2-0.3 m at
 * 0.1 m cells, both faces), the noisy source's walls 0.5-0.6 m. A room no furniture names behind such a line may be
 * a piece of a neighbouring room the line cut off, so it parts no two rooms (ours).
 */
const SMEARED_LINE_BAND_M = 0.35;
/** A node whose centre lies in no room belongs to the nearest room within this distance (m): furniture pushed into a wall's band by noise. Ours. */
const NODE_ROOM_MAX_M = 0.5;

const r3 = (x: number) => Math.round(x * 1000) / 1000;

interface Rect {
  min: [number, number];
  max: [number, number];
}
const rectDistance = (r: Rect, x: number, y: number) => Math.hypot(Math.max(r.min[0] - x, 0, x - r.max[0]), Math.max(r.min[1] - y, 0, y - r.max[1]));

/** Objects in each room: nodes whose centroid lies in the room's rectangles, else in the nearest within NODE_ROOM_MAX_M. */
function assign(rooms: ReadonlyArray<{ rects: readonly Rect[] }>, nodes: readonly GraphNode[]): string[][] {
  const out = rooms.map(() => [] as string[]);
  for (const n of nodes) {
    const [x, y] = n.centroid;
    let best = -1,
      bestD = NODE_ROOM_MAX_M;
    rooms.forEach((r, k) => {
      const d = Math.min(...r.rects.map((q) => rectDistance(q, x, y)));
      if (d < bestD || (d === 0 && bestD === 0 && best < 0)) (best = k), (bestD = d);
    });
    if (best >= 0) out[best]!.push(n.id);
  }
  return out;
}

/**
 * Names rooms '<type>_<k>' from their nodes' labels, the signature furniture with the most points naming each: of
 * several rooms with the same type, the one whose furniture has the most points is k = 0 (a duplicated or
 * hallucinated piece names a second room, not the first); rooms no furniture names are 'room_<k>', by y, then x.
 */
function nameRooms(rooms: ReadonlyArray<Rect & { objects: string[] }>, nodes: readonly GraphNode[]): RegionLayer["rooms"] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  // each signature label votes with its nodes' points: a phantom or a fragment (a few points) names no room over
  // the furniture it sits beside
  const votes = rooms.map((r) => {
    const v = new Map<string, number>();
    for (const id of r.objects) {
      const n = byId.get(id);
      const t = n ? roomTypeOf([n.label]) : null;
      if (t) v.set(t, (v.get(t) ?? 0) + n!.point_count);
    }
    return [...v.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  });
  const types = votes.map((v) => v[0]?.[0] ?? null);
  const support = votes.map((v) => v[0]?.[1] ?? 0);
  const order = rooms.map((_, i) => i).sort((a, b) => support[b]! - support[a]! || rooms[a]!.min[1] - rooms[b]!.min[1] || rooms[a]!.min[0] - rooms[b]!.min[0]);
  const unnamed = rooms
    .map((_, i) => i)
    .filter((i) => !types[i])
    .sort((a, b) => rooms[a]!.min[1] - rooms[b]!.min[1] || rooms[a]!.min[0] - rooms[b]!.min[0]);
  const ids: string[] = new Array(rooms.length);
  const used = new Map<string, number>();
  for (const i of order) {
    const t = types[i];
    if (!t) continue;
    ids[i] = `${t}_${used.get(t) ?? 0}`;
    used.set(t, (used.get(t) ?? 0) + 1);
  }
  unnamed.forEach((i, k) => (ids[i] = `room_${k}`));
  return rooms.map((r, i) => ({
    id: ids[i]!,
    type: types[i] ?? "unknown",
    min: [r3(r.min[0]), r3(r.min[1])],
    max: [r3(r.max[0]), r3(r.max[1])],
    objects: r.objects,
    enclosed: false,
  }));
}

/** The region layer of a task's true layout (the ground-truth graph's): every doorway and separation known. Undefined for a single room. */
export function truthRegions(task: Pick<Task, "room">, nodes: readonly GraphNode[]): RegionLayer | undefined {
  const layout = task.room.layout;
  if (!layout) return undefined;
  const objects = assign(
    layout.rooms.map((r) => ({ rects: [{ min: [...r.min], max: [...r.max] } as Rect] })),
    nodes,
  );
  const doors = doorwayEdges(layout);
  const joined = (a: string, b: string) => doors.some((d) => d.rooms.includes(a) && d.rooms.includes(b));
  const separations: NonNullable<RegionLayer["separations"]> = [];
  layout.rooms.forEach((a, i) =>
    layout.rooms.slice(i + 1).forEach((b) => {
      if (joined(a.id, b.id)) return;
      // rooms that share a stretch of wall as long as a doorway are parted by a wall, others by the plan
      const along = (k: 0 | 1) => Math.min(a.max[k], b.max[k]) - Math.max(a.min[k], b.min[k]);
      const touch = (k: 0 | 1) => Math.abs(a.max[k] - b.min[k]) < 1e-6 || Math.abs(b.max[k] - a.min[k]) < 1e-6;
      const shared = touch(0) ? along(1) : touch(1) ? along(0) : 0;
      separations.push({ rooms: [a.id, b.id], by: shared >= MIN_DOOR_WIDTH_M ? "wall" : "no_shared_wall" });
    }),
  );
  return {
    rooms: layout.rooms.map((r, k) => ({ id: r.id, type: r.type, min: r.min, max: r.max, objects: objects[k]!, enclosed: true })),
    doorways: doors.map((d) => ({ rooms: d.rooms, centre: d.centre, width_m: d.width_m })),
    separations,
  };
}

/**
 * Rooms, doorways and separations segmented from the cloud's structure points and depth rays, objects assigned by
 * centroid. The floor and wall points are the masks' (the cloud's labels), or, without masks (`--masks none`),
 * `structure`: per point 0 object, 1 floor, 2 wall as segmentStructure finds them in the geometry alone. Null
 * when the cloud shows no floor or wall at all.
 */
export function segmentRegions(cloud: PointCloud, nodes: readonly GraphNode[], floorZ = 0, structure?: Uint8Array): RegionLayer | null {
  const points = new StructurePoints();
  points.add(cloud, floorZ, structure);
  return regionsOfStructure(points, nodes);
}

/** What the views show of one line stretch between two cells (or a cell and the unseen beyond the plan). */
type StretchKind = "none" | "door" | "wall" | "unknown";
interface Stretch {
  kind: StretchKind;
  /** On a line smeared wider than SMEARED_LINE_BAND_M: it may be no wall at all. */
  smeared: boolean;
  /** Doorway gaps: centre (world) and width (m). */
  gaps: Array<{ centre: [number, number]; width: number }>;
  length: number;
}

/**
 * Reads positions from..to (cells) of a line's states: no wall (the views see through it, with little wall),
 * doorway gaps (runs without wall, seen open along DOOR_OPEN_SHARE of them), a wall seen closed (no run without
 * wall wide enough for a doorway) or unknown. A smeared wall (a band wider than a crisp wall's, MIN_LINE_BAND_M)
 * spreads its jambs into a doorway by about the extra width on each side, so the open run a doorway leaves is
 * narrower by twice that (never below MIN_DOOR_OPEN_M), and a wall is seen closed only where even a doorway
 * narrowed so would have shown: a wall smeared by half a doorway or more is never seen closed.
 */
function readStretch(g: PlanGrid, line: WallLine, states: Uint8Array | null, from: number, to: number): Stretch {
  const lo = Math.max(0, Math.ceil(from)),
    hi = Math.min(Math.floor(to), g.size(line.axis === 0 ? 1 : 0) - 1);
  const length = Math.max(0, hi - lo + 1) * REGION_CELL_M;
  const smeared = line.band * REGION_CELL_M > SMEARED_LINE_BAND_M;
  if (!states || hi < lo) return { kind: "unknown", gaps: [], length, smeared };
  let closed = 0,
    open = 0;
  for (let b = lo; b <= hi; b++) states[b] === CLOSED ? closed++ : states[b] === OPEN ? open++ : 0;
  const total = hi - lo + 1;
  if (closed / total < WALL_PRESENT_FRACTION && open / total >= OPEN_LINE_FRACTION) return { kind: "none", gaps: [], length, smeared };
  const gaps: Stretch["gaps"] = [];
  const smear = Math.max(0, line.band * REGION_CELL_M - MIN_LINE_BAND_M);
  const doorOpen = Math.max(MIN_DOOR_OPEN_M, MIN_DOOR_WIDTH_M - 2 * smear);
  let widestUnclosed = 0;
  for (let b = lo; b <= hi; ) {
    if (states[b] === CLOSED) {
      b++;
      continue;
    }
    let e = b,
      first = -1,
      last = -1,
      opens = 0;
    for (; e <= hi && states[e] !== CLOSED; e++) if (states[e] === OPEN) (first = first < 0 ? e : first), (last = e), opens++;
    widestUnclosed = Math.max(widestUnclosed, (e - b) * REGION_CELL_M);
    const width = (last - first + 1) * REGION_CELL_M;
    if (first >= 0 && width >= doorOpen - 1e-9 && opens >= DOOR_OPEN_SHARE * (e - b)) {
      const mid = (first + last + 1) / 2,
        across = g.world(line.axis, line.at + 0.5);
      const centre: [number, number] = line.axis === 0 ? [across, g.world(1, mid)] : [g.world(0, mid), across];
      gaps.push({ centre, width });
    }
    b = e;
  }
  if (gaps.length) return { kind: "door", gaps, length, smeared };
  return { kind: widestUnclosed < MIN_DOOR_WIDTH_M - 2 * smear ? "wall" : "unknown", gaps: [], length, smeared };
}

/** The lines of one axis with the seen extent's edges added where no wall line closes it (nothing is known beyond). */
function linesWithEnds(g: PlanGrid, axis: 0 | 1): WallLine[] {
  const n = g.size(axis);
  const out = g.wallLines(axis);
  const edge = (at: number): WallLine => ({ axis, at, band: 0, seen: false });
  if (!out.length || out[0]!.at > out[0]!.band) out.unshift(edge(0));
  if (out.at(-1)!.at < n - 1 - out.at(-1)!.band) out.push(edge(n - 1));
  return out;
}

/** A side of a plan cell: the stretch of line between cell `a` and cell `b`, either of them beyond the plan (negative). */
interface Side {
  a: number;
  b: number;
  s: Stretch;
}

/**
 * The plan's cells (between consecutive lines, the seen extent's edges included) and every cell side. A side on
 * the plan's edge faces the unseen space straight out of it, numbered per edge (0 left, 1 right, 2 bottom, 3 top)
 * and place along it: beyond(edge, k), negative.
 */
function planCells(g: PlanGrid) {
  const X = linesWithEnds(g, 0),
    Y = linesWithEnds(g, 1);
  const states = new Map<WallLine, Uint8Array | null>([...X, ...Y].map((l) => [l, l.seen ? g.lineStates(l) : null]));
  const cols = X.length - 1,
    rows = Y.length - 1;
  const cellOf = (i: number, j: number) => j * cols + i;
  const EDGE = cols + rows + 1;
  const beyond = (edge: number, k: number) => -1 - (edge * EDGE + k);
  const sides: Side[] = [];
  for (let j = 0; j < rows; j++)
    for (let i = 0; i <= cols; i++)
      sides.push({
        a: i > 0 ? cellOf(i - 1, j) : beyond(0, j),
        b: i < cols ? cellOf(i, j) : beyond(1, j),
        s: readStretch(g, X[i]!, states.get(X[i]!)!, Y[j]!.at, Y[j + 1]!.at),
      });
  for (let j = 0; j <= rows; j++)
    for (let i = 0; i < cols; i++)
      sides.push({
        a: j > 0 ? cellOf(i, j - 1) : beyond(2, i),
        b: j < rows ? cellOf(i, j) : beyond(3, i),
        s: readStretch(g, Y[j]!, states.get(Y[j]!)!, X[i]!.at, X[i + 1]!.at),
      });
  const cellRect = (c: number): Rect => {
    const i = c % cols,
      j = Math.floor(c / cols);
    return { min: [g.world(0, X[i]!.at), g.world(1, Y[j]!.at)], max: [g.world(0, X[i + 1]!.at + 1), g.world(1, Y[j + 1]!.at + 1)] };
  };
  const floorCells = (c: number) => {
    const i = c % cols,
      j = Math.floor(c / cols);
    let n = 0;
    for (let y = Math.ceil(Y[j]!.at); y <= Y[j + 1]!.at; y++) for (let x = Math.ceil(X[i]!.at); x <= X[i + 1]!.at; x++) if (g.floorAt(x, y)) n++;
    return n;
  };
  return { cells: cols * rows, cols, rows, sides, beyond, cellRect, floorCells };
}

/**
 * Regions of cells joined across stretches with no wall; the rooms among them: those with ROOM_MIN_FLOOR_M2 of
 * seen floor, and those a doorway from one of them opens into. Per cell, its room's index (or -1).
 */
function roomCells(plan: ReturnType<typeof planCells>): { roomOf: Int32Array; cells: number[][] } {
  const parent = Array.from({ length: plan.cells }, (_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  for (const { a, b, s } of plan.sides) if (a >= 0 && b >= 0 && s.kind === "none") parent[find(a)] = find(b);
  const groups = new Map<number, number[]>();
  for (let c = 0; c < plan.cells; c++) {
    const r = find(c);
    if (!groups.has(r)) groups.set(r, []);
    groups.get(r)!.push(c);
  }
  const minFloor = ROOM_MIN_FLOOR_M2 / (REGION_CELL_M * REGION_CELL_M);
  const isRoom = new Set([...groups.keys()].filter((r) => groups.get(r)!.reduce((s, c) => s + plan.floorCells(c), 0) >= minFloor));
  for (const { a, b, s } of plan.sides) {
    if (s.kind !== "door" || a < 0 || b < 0) continue;
    if (isRoom.has(find(a)) !== isRoom.has(find(b))) isRoom.add(find(a)), isRoom.add(find(b));
  }
  const roots = [...groups.keys()].filter((r) => isRoom.has(r));
  const roomOf = new Int32Array(plan.cells).fill(-1);
  roots.forEach((r, k) => groups.get(r)!.forEach((c) => (roomOf[c] = k)));
  // a cell no room holds keeps its region's identity, as unseen space: plan.cells + its region's root
  for (let c = 0; c < plan.cells; c++) if (roomOf[c]! < 0) roomOf[c] = plan.cells + find(c);
  return { roomOf, cells: roots.map((r) => groups.get(r)!) };
}

/**
 * Doorways between rooms, the pairs apart and each room's enclosure. A stretch not seen as wall links its two
 * sides: rooms, unseen space (a cell no room holds, or beyond the plan's edge) through which rooms may meet, or a
 * room no furniture names behind a smeared line (a noisy cloud's smeared wall puts lines in rooms: it may be a
 * piece of a neighbour). Two rooms no such route joins are apart: by a wall when they share one, else by the plan.
 */
function topology(plan: ReturnType<typeof planCells>, roomOf: Int32Array, rooms: RegionLayer["rooms"]): Pick<RegionLayer, "doorways" | "separations"> {
  const R = rooms.length;
  const isRoom = (n: number) => n >= 0 && n < R;
  const nodeOf = (c: number): number => (c < 0 ? c : roomOf[c]! < plan.cells ? roomOf[c]! : R + roomOf[c]!);
  const links = new Map<number, Set<number>>();
  const link = (a: number, b: number) => {
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      if (!links.has(x)) links.set(x, new Set());
      links.get(x)!.add(y);
    }
  };
  const doorways: RegionLayer["doorways"] = [];
  const shareWall = new Set<string>(),
    smeared = new Set<number>();
  const pairKey = (a: number, b: number) => `${Math.min(a, b)}:${Math.max(a, b)}`;
  for (const { a, b, s } of plan.sides) {
    const [na, nb] = [nodeOf(a), nodeOf(b)];
    if (na === nb) continue;
    if (s.smeared) for (const n of [na, nb]) if (isRoom(n)) smeared.add(n);
    if (s.kind === "wall") {
      if (isRoom(na) && isRoom(nb)) shareWall.add(pairKey(na, nb));
      continue;
    }
    link(na, nb);
    if (isRoom(na) && isRoom(nb))
      for (const gap of s.gaps)
        doorways.push({ rooms: [rooms[na]!.id, rooms[nb]!.id], centre: [r3(gap.centre[0]), r3(gap.centre[1])], width_m: r3(gap.width) });
  }
  // beyond the plan, the unseen space along one edge is one stretch: rooms that open on it side by side may meet
  // there (rooms do not wrap round the plan's corners)
  for (let edge = 0; edge < 4; edge++) for (let k = 0; k + 1 < (edge < 2 ? plan.rows : plan.cols); k++) link(plan.beyond(edge, k), plan.beyond(edge, k + 1));
  const separations: NonNullable<RegionLayer["separations"]> = [];
  rooms.forEach((room, k) => {
    const reach = new Set<number>(),
      seen = new Set<number>([k]);
    const queue = [k];
    while (queue.length)
      for (const n of links.get(queue.shift()!) ?? []) {
        if (seen.has(n)) continue;
        seen.add(n);
        if (isRoom(n)) reach.add(n);
        if (!isRoom(n) || (rooms[n]!.type === "unknown" && smeared.has(n))) queue.push(n);
      }
    room.enclosed = ![...(links.get(k) ?? [])].some((n) => !isRoom(n));
    for (let other = k + 1; other < R; other++)
      if (!reach.has(other)) separations.push({ rooms: [room.id, rooms[other]!.id], by: shareWall.has(pairKey(k, other)) ? "wall" : "no_shared_wall" });
  });
  return { doorways, separations };
}

/** The region layer from floor and wall points and rays gathered so far (the active memory's, view by view). */
export function regionsOfStructure(points: StructurePoints, nodes: readonly GraphNode[]): RegionLayer | null {
  const g = points.grid();
  if (!g) return null;
  const plan = planCells(g);
  const { roomOf, cells } = roomCells(plan);
  const shapes = cells.map((cs) => {
    const rects = cs.map(plan.cellRect);
    return {
      rects,
      min: [Math.min(...rects.map((x) => x.min[0])), Math.min(...rects.map((x) => x.min[1]))] as [number, number],
      max: [Math.max(...rects.map((x) => x.max[0])), Math.max(...rects.map((x) => x.max[1]))] as [number, number],
    };
  });
  const objects = assign(shapes, nodes);
  const rooms = nameRooms(
    shapes.map((s, k) => ({ min: s.min, max: s.max, objects: objects[k]! })),
    nodes,
  );
  return { rooms, ...topology(plan, roomOf, rooms) };
}
