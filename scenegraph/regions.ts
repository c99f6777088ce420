/**
 * The region layer of the scene graph (HOV-SG's floor -> room -> object hierarchy;
 * reference/scenegraph-anchors.md): rooms segmented from the walls and free space the point cloud shows,
 * doorways as edges between rooms, objects assigned to the room holding their centre, rooms named from
 * the signature furniture seen in them (bridge/task/layout.ts ROOM_SIGNATURES).
 *
 * HOV-SG segments rooms on a 2D map: wall points above a height band give a wall skeleton, free space
 * between walls is grown into regions. Our apartments have axis-aligned walls, so the segmentation is a
 * line partition: wall points (the cloud's points labelled "wall") are binned on a 2D grid, grid columns
 * and rows holding a long run of wall cells are wall lines, and the lines cut the floor into cells. Between
 * two neighbouring cells a line stretch with little wall and seen floor across it is no wall (the cells are one
 * room; an unseen stretch stays a wall); a gap in a
 * wall stretch whose floor was seen is a doorway.
 */
import type { PointCloud } from "../reconstruct/pointcloud.js";
import type { Task } from "../bridge/task/schema.js";
import { doorwayEdges, roomAt, roomTypeOf } from "../bridge/task/layout.js";
import type { GraphNode, RegionLayer } from "./types.js";

/** Grid cell of the 2D map (m): the occupancy grid's voxel (scenegraph/occupancy.ts, 0.1 m as Explore-EQA and 3D-Mem map). */
export const REGION_CELL_M = 0.1;
/** A wall line holds at least this many wall cells along it (m of seen wall). Ours. */
export const MIN_WALL_LINE_M = 0.8;
/** A line stretch between two cells is a wall when this share of it shows wall points (ours); below it the cells are one room. */
export const WALL_PRESENT_FRACTION = 0.3;
/** ...and at least this share of it shows floor seen across the line (ours). */
export const OPEN_LINE_FRACTION = 0.5;
/** A wall gap narrower than this is no doorway (m): doors are 0.7 m and wider (ours; the simulator's are 1.0). */
export const MIN_DOOR_WIDTH_M = 0.6;
/** Wall points this far (cells) from a line count as on it: noisy depth spreads a wall over a few cells. */
const LINE_TOLERANCE_CELLS = 2;
/** Lines closer than this (m) are one wall seen twice (both faces, noise). */
const LINE_MERGE_M = 0.3;
/** Floor points at least this many per cell count as seen free space. */
const FLOOR_MIN_POINTS = 1;

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** Objects in each room: nodes whose centroid lies in the room's cells (or rectangle). */
function assign(rooms: Array<{ contains(x: number, y: number): boolean }>, nodes: readonly GraphNode[]): string[][] {
  const out = rooms.map(() => [] as string[]);
  for (const n of nodes) {
    const k = rooms.findIndex((r) => r.contains(n.centroid[0], n.centroid[1]));
    if (k >= 0) out[k]!.push(n.id);
  }
  return out;
}

/** Names rooms '<type>_<k>' from their nodes' labels, in a stable order (by y, then x). */
function nameRooms(rooms: Array<{ min: [number, number]; max: [number, number]; objects: string[] }>, nodes: readonly GraphNode[]): RegionLayer["rooms"] {
  const label = new Map(nodes.map((n) => [n.id, n.label]));
  const order = rooms.map((_, i) => i).sort((a, b) => rooms[a]!.min[1] - rooms[b]!.min[1] || rooms[a]!.min[0] - rooms[b]!.min[0]);
  const used = new Map<string, number>();
  const out: RegionLayer["rooms"] = new Array(rooms.length);
  let unknown = 0;
  for (const i of order) {
    const r = rooms[i]!;
    const type = roomTypeOf(r.objects.map((id) => label.get(id) ?? ""));
    const k = type ? used.get(type) ?? 0 : unknown++;
    if (type) used.set(type, k + 1);
    out[i] = { id: type ? `${type}_${k}` : `room_${k}`, type: type ?? "unknown", min: [r3(r.min[0]), r3(r.min[1])], max: [r3(r.max[0]), r3(r.max[1])], objects: r.objects };
  }
  return out;
}

/** The region layer of a task's true layout (the ground-truth graph's), or undefined for a single room. */
export function truthRegions(task: Pick<Task, "room">, nodes: readonly GraphNode[]): RegionLayer | undefined {
  const layout = task.room.layout;
  if (!layout) return undefined;
  const objects = assign(layout.rooms.map((r) => ({ contains: (x: number, y: number) => roomAt([r], x, y) !== null })), nodes);
  return {
    rooms: layout.rooms.map((r, k) => ({ id: r.id, type: r.type, min: r.min, max: r.max, objects: objects[k]! })),
    doorways: doorwayEdges(layout).map((d) => ({ rooms: d.rooms, centre: d.centre, width_m: d.width_m })),
  };
}

interface Grid {
  x0: number;
  y0: number;
  nx: number;
  ny: number;
  wall: Uint16Array;
  floor: Uint16Array;
}

/**
 * The floor and wall points a region layer reads, in the order seen: x, y and kind (1 floor, 2 wall). The
 * batch graph takes them from its whole cloud; the active memory appends each new view's (StructurePoints).
 */
export class StructurePoints {
  private xs = new Float64Array(1024);
  private ys = new Float64Array(1024);
  private kinds = new Uint8Array(1024);
  count = 0;

  /** Appends a cloud's floor and wall points (kinds from `structure`, one per point, or from the cloud's labels). */
  add(cloud: PointCloud, floorZ: number, structure?: Uint8Array): void {
    for (let i = 0; i < cloud.count; i++) {
      const c = structure ? STRUCTURE_KINDS[structure[i]!] : cloud.categories.get(cloud.instance[i]!);
      if (c !== "wall" && c !== "floor") continue;
      // a wall point below knee height may be floor seen at the wall's foot: keep walls from 0.3 m up
      if (c === "wall" && cloud.xyz[i * 3 + 2]! - floorZ < 0.3) continue;
      if (this.count === this.xs.length) this.grow();
      this.xs[this.count] = cloud.xyz[i * 3]!;
      this.ys[this.count] = cloud.xyz[i * 3 + 1]!;
      this.kinds[this.count++] = c === "floor" ? 1 : 2;
    }
  }

  private grow(): void {
    const n = this.xs.length * 2;
    const xs = new Float64Array(n), ys = new Float64Array(n), kinds = new Uint8Array(n);
    xs.set(this.xs);
    ys.set(this.ys);
    kinds.set(this.kinds);
    [this.xs, this.ys, this.kinds] = [xs, ys, kinds];
  }

  /** The 2D map: wall and floor point counts per REGION_CELL_M cell over the points' extent, or null without points. */
  grid(): Grid | null {
    let xmin = Infinity, ymin = Infinity, xmax = -Infinity, ymax = -Infinity;
    for (let i = 0; i < this.count; i++) {
      const x = this.xs[i]!, y = this.ys[i]!;
      xmin = Math.min(xmin, x); xmax = Math.max(xmax, x); ymin = Math.min(ymin, y); ymax = Math.max(ymax, y);
    }
    if (!Number.isFinite(xmin)) return null;
    const nx = Math.ceil((xmax - xmin) / REGION_CELL_M) + 1, ny = Math.ceil((ymax - ymin) / REGION_CELL_M) + 1;
    if (nx * ny > 4_000_000) return null;
    const g: Grid = { x0: xmin, y0: ymin, nx, ny, wall: new Uint16Array(nx * ny), floor: new Uint16Array(nx * ny) };
    for (let i = 0; i < this.count; i++) {
      const cx = Math.floor((this.xs[i]! - xmin) / REGION_CELL_M), cy = Math.floor((this.ys[i]! - ymin) / REGION_CELL_M);
      const arr = this.kinds[i] === 1 ? g.floor : g.wall;
      const k = cy * nx + cx;
      if (arr[k]! < 65535) arr[k]!++;
    }
    return g;
  }
}

/** Wall lines along one axis: grid indices (columns for axis 0, rows for axis 1) holding long wall runs, merged. */
function wallLines(g: Grid, axis: 0 | 1): number[] {
  const n = axis === 0 ? g.nx : g.ny, m = axis === 0 ? g.ny : g.nx;
  const counts: number[] = [];
  for (let a = 0; a < n; a++) {
    let c = 0;
    for (let b = 0; b < m; b++) if (g.wall[axis === 0 ? b * g.nx + a : a * g.nx + b]! > 0) c++;
    counts.push(c);
  }
  const min = MIN_WALL_LINE_M / REGION_CELL_M;
  const lines: number[] = [];
  let run: number[] = [];
  const flush = () => {
    if (!run.length) return;
    let w = 0, s = 0;
    for (const a of run) (w += counts[a]!), (s += a * counts[a]!);
    lines.push(s / w);
    run = [];
  };
  for (let a = 0; a < n; a++) {
    if (counts[a]! >= min && (!run.length || a - run.at(-1)! <= LINE_MERGE_M / REGION_CELL_M)) run.push(a);
    else if (counts[a]! >= min) (flush(), run.push(a));
  }
  flush();
  return lines;
}

/** segmentStructure's per-point codes (scenegraph/primitives/structure.ts): 0 object, 1 floor, 2 wall. */
const STRUCTURE_KINDS = [null, "floor", "wall"] as const;

/**
 * Rooms and doorways segmented from the cloud's structure points, objects assigned by centroid. The floor and
 * wall points are the masks' (the cloud's labels), or, without masks (`--masks none`), `structure`: per point
 * 0 object, 1 floor, 2 wall as segmentStructure finds them in the geometry alone. Null when the cloud shows
 * too little structure to cut it into two or more rooms.
 */
export function segmentRegions(cloud: PointCloud, nodes: readonly GraphNode[], floorZ = 0, structure?: Uint8Array): RegionLayer | null {
  const points = new StructurePoints();
  points.add(cloud, floorZ, structure);
  return regionsOfStructure(points, nodes);
}

/** The region layer from floor and wall points gathered so far (the active memory's, view by view). */
export function regionsOfStructure(points: StructurePoints, nodes: readonly GraphNode[]): RegionLayer | null {
  const g = points.grid();
  if (!g) return null;
  const xs = wallLines(g, 0), ys = wallLines(g, 1);
  // the outer boundary: the outermost lines, or the seen floor's extent when a side's wall was never seen
  const withEnds = (lines: number[], n: number) => {
    const out = [...lines];
    if (!out.length || out[0]! > LINE_MERGE_M / REGION_CELL_M) out.unshift(0);
    if (out.at(-1)! < n - 1 - LINE_MERGE_M / REGION_CELL_M) out.push(n - 1);
    return out;
  };
  const X = withEnds(xs, g.nx), Y = withEnds(ys, g.ny);
  const cols = X.length - 1, rows = Y.length - 1;
  if (cols * rows < 2) return null;
  const wallAt = (cx: number, cy: number) => cx >= 0 && cy >= 0 && cx < g.nx && cy < g.ny && g.wall[cy * g.nx + cx]! > 0;
  const floorAt = (cx: number, cy: number) => cx >= 0 && cy >= 0 && cx < g.nx && cy < g.ny && g.floor[cy * g.nx + cx]! >= FLOOR_MIN_POINTS;
  const near = (f: (a: number, b: number) => boolean, a: number, b: number, axis: 0 | 1, tol: number) => {
    for (let d = -tol; d <= tol; d++) if (axis === 0 ? f(a + d, b) : f(b, a + d)) return true;
    return false;
  };
  // union-find over cells: cells across a line stretch without wall are one room
  const parent = Array.from({ length: cols * rows }, (_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  type Gap = { cells: [number, number]; centre: [number, number]; width: number };
  const gaps: Gap[] = [];
  const stretch = (axis: 0 | 1, line: number, from: number, to: number, cellA: number, cellB: number) => {
    const a = Math.round(line);
    let wall = 0, total = 0, openCells = 0, runStart = -1;
    const runs: Array<[number, number]> = [];
    for (let b = Math.ceil(from); b <= Math.floor(to); b++) {
      total++;
      const isWall = near(wallAt, a, b, axis, LINE_TOLERANCE_CELLS);
      if (isWall) wall++;
      const open = !isWall && near(floorAt, a, b, axis, LINE_TOLERANCE_CELLS);
      if (open) openCells++;
      if (open && runStart < 0) runStart = b;
      if (!open && runStart >= 0) (runs.push([runStart, b - 1]), (runStart = -1));
    }
    if (runStart >= 0) runs.push([runStart, Math.floor(to)]);
    // no wall only where the views saw through: an unseen stretch stays a wall (unknown is not open)
    if (total > 0 && wall / total < WALL_PRESENT_FRACTION && openCells / total >= OPEN_LINE_FRACTION) {
      parent[find(cellA)] = find(cellB);
      return;
    }
    for (const [s, e] of runs) {
      const width = (e - s + 1) * REGION_CELL_M;
      if (width < MIN_DOOR_WIDTH_M) continue;
      const mid = (s + e + 1) / 2, along = (a + 0.5) * REGION_CELL_M;
      const centre: [number, number] = axis === 0 ? [g.x0 + along, g.y0 + mid * REGION_CELL_M] : [g.x0 + mid * REGION_CELL_M, g.y0 + along];
      gaps.push({ cells: [cellA, cellB], centre, width });
    }
  };
  for (let i = 1; i < cols; i++) for (let j = 0; j < rows; j++) stretch(0, X[i]!, Y[j]!, Y[j + 1]!, j * cols + i - 1, j * cols + i);
  for (let j = 1; j < rows; j++) for (let i = 0; i < cols; i++) stretch(1, Y[j]!, X[i]!, X[i + 1]!, (j - 1) * cols + i, j * cols + i);
  // rooms: groups of cells; a group with no seen floor is no room the views showed
  const groups = new Map<number, number[]>();
  for (let c = 0; c < cols * rows; c++) groups.set(find(c), [...(groups.get(find(c)) ?? []), c]);
  const cellRect = (c: number) => {
    const i = c % cols, j = Math.floor(c / cols);
    return { min: [g.x0 + X[i]! * REGION_CELL_M, g.y0 + Y[j]! * REGION_CELL_M] as [number, number], max: [g.x0 + (X[i + 1]! + 1) * REGION_CELL_M, g.y0 + (Y[j + 1]! + 1) * REGION_CELL_M] as [number, number] };
  };
  const seenFloor = (c: number) => {
    const i = c % cols, j = Math.floor(c / cols);
    for (let b = Math.ceil(Y[j]!); b <= Y[j + 1]!; b++) for (let a = Math.ceil(X[i]!); a <= X[i + 1]!; a++) if (floorAt(a, b)) return true;
    return false;
  };
  const roots = [...groups.keys()].filter((r) => groups.get(r)!.some(seenFloor));
  if (roots.length < 2) return null;
  const shapes = roots.map((r) => {
    const rects = groups.get(r)!.map(cellRect);
    return {
      min: [Math.min(...rects.map((x) => x.min[0])), Math.min(...rects.map((x) => x.min[1]))] as [number, number],
      max: [Math.max(...rects.map((x) => x.max[0])), Math.max(...rects.map((x) => x.max[1]))] as [number, number],
      contains: (x: number, y: number) => rects.some((q) => x >= q.min[0] && x < q.max[0] && y >= q.min[1] && y < q.max[1]),
    };
  });
  const objects = assign(shapes, nodes);
  const rooms = nameRooms(shapes.map((s, k) => ({ min: s.min, max: s.max, objects: objects[k]! })), nodes);
  const roomOfRoot = new Map(roots.map((r, k) => [r, rooms[k]!.id]));
  const doorways: RegionLayer["doorways"] = [];
  for (const gap of gaps) {
    const a = roomOfRoot.get(find(gap.cells[0])), b = roomOfRoot.get(find(gap.cells[1]));
    if (!a || !b || a === b) continue;
    doorways.push({ rooms: [a, b], centre: [r3(gap.centre[0]), r3(gap.centre[1])], width_m: r3(gap.width) });
  }
  return { rooms, doorways };
}
