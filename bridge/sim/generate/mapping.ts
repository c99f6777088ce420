/**
 * Cognitive Mapping (ESI-Bench's released generator scripts, ESI's `cognitivemap` runner): Connectivity, Traversable
 * Passage, Regional Boundary and Long-Term Navigation, in a 2 x 2 apartment of the built-in simulator.
 * Question templates and answer forms follow ESI's records (ESI-Bench's released sample, Cognitive Mapping):
 * - Connectivity (q_001/q_003): "Are A and B adjacent, with a direct connection between them?" Yes/No;
 * - Traversable Passage (q_000/q_004): "On the shortest path from A to B, which intermediate room do you
 *   pass through among these options: ...?", the options mixing the answer with the two endpoints;
 * - Regional Boundary (q_005/q_028): "Which room does X belong to among these options: ...?" and "Are X
 *   and Y in the same region?";
 * - Long-Term Navigation (Wainscott_0_garden q_006): the region-sequence form, "At each step, choose the
 *   next region you should explore", here with one blank per task (ESI's records have 1-3), so that the
 *   answer is one of the options (a `choice` task; ESI's turn-direction form needs headings, left out).
 * Every room type has a signature piece of furniture, which is how a graph of seen objects can name rooms
 * (HOV-SG names regions from the objects and views in them).
 */
import type { Vec3 } from "../../../core/math/vec.js";
import { rad } from "../../../core/math/vec.js";
import type { AgentPose } from "../../../core/math/camera.js";
import type { Rng } from "../../../core/math/rng.js";
import type { CameraSpec, Layout, TaskObject } from "../../../core/task/schema.js";
import { categoryDef } from "../../../core/objects/library.js";
import { objectBox } from "../../../core/objects/geometry.js";
import { footprintsOverlap, type YawBox } from "../../../core/geometry.js";
import {
  doorwayEdges,
  NAV_BLANK,
  NAV_HIDDEN,
  NAV_STEP,
  ROOM_SIGNATURES,
  roomAdjacency,
  roomAt,
  shortestRoomPaths,
  spokenRoom,
  type DoorwayEdge,
} from "../../../core/task/layout.js";
import { defaultLighting, plannedYes, require, round4, ROOM_HEIGHT_M, SceneBuilder, type Room } from "./common.js";
import { withAnswerAt } from "./answerPlan.js";
import type { Draft, Generator } from "./draft.js";
import type { ViewGoal } from "./gtTrajectory.js";
import { isVisible, VISIBLE_MIN_PX, type ViewVisibility } from "./visibility.js";
import { isFree, lookAt, wallStretches, worldOf, type WallStretch } from "../agent.js";
import { INTERIOR_WALL_IDS } from "../../../core/task/instanceIds.js";

/**
 * Floor objects per room in Regional Boundary apartments (ours): two, so that a "same region" pair can be two
 * floor objects of one room; with one, such a pair was always "No" and furniture in the pair meant "Yes".
 */
const REGION_ITEMS_PER_ROOM = 2;
/** Rooms offered by "Which room does X belong to" (ESI's records offer 2 or 3; ours always 3, one option count per form). */
const REGION_ROOM_OPTIONS = 3;
/**
 * Floor objects of the apartments, whose room Regional Boundary asks about (each category once per apartment;
 * ours). No armchair: two per room often left it no place, and it reads as a sofa, the living room's
 * signature furniture.
 */
const REGION_OBJECTS = ["lamp", "potted_plant", "stool", "bucket", "cardboard_box", "basketball", "teddy_bear", "vase"];
/** Room cell sizes (m): small rooms, so that a 29-action trajectory can cross the apartment. Ours. */
const CELL_SIZE_M: [number, number] = [2.6, 3.1];
/** Doorway width (m): BEHAVIOR-1K doors are about 0.9 m; 1.0 leaves the agent's lattice room to pass (ours). */
const DOOR_WIDTH_M = 1.0;
/** A doorway's centre keeps this distance from the ends of its wall (m, ours). */
const DOOR_END_MARGIN_M = 0.3;
/** Camera height of ESI's cognitive-map views (ESI-Bench's released generator scripts: z 1.35 m). */
const MAPPING_CAMERA_HEIGHT_M = 1.35;
/** Camera pitch of the apartment views: ESI aims at z 1.0 a few metres away; 15 deg down (one pitch step) shows the floor. */
const MAPPING_CAMERA_PITCH_RAD = rad(-15);
/** A doorway counts as seen from a view within this distance (m, ours) with its centre inside the image. */
const DOOR_SEEN_MAX_M = 4;
/** Pixels (at the visibility scale) of a door-less wall a view must show for it to count as seen (ours). */
const WALL_SEEN_MIN_PX = 150;
/** Objects keep this clearance from a doorway's centre (m, ours): the passage stays free. */
const DOOR_CLEARANCE_M = 0.9;

interface Apartment {
  room: Room & { layout: Layout };
  builder: SceneBuilder;
  /** Signature furniture per room id. */
  signature: Map<string, TaskObject>;
  /** The floor objects per room id (one, or two for Regional Boundary). */
  items: Map<string, TaskObject[]>;
  doors: DoorwayEdge[];
  adjacency: Map<string, Set<string>>;
  /** Pairs of rooms that share a wall (with or without a doorway). */
  neighbours: Array<[string, string]>;
}

const roomCentre = (r: Layout["rooms"][number]): [number, number] => [(r.min[0] + r.max[0]) / 2, (r.min[1] + r.max[1]) / 2];

/**
 * A 2 x 2 apartment: four rooms of distinct types, the four interior walls between them, doorways in three
 * of the four (a spanning tree, so shortest paths are unique), a signature piece of furniture against an
 * outer wall of each room and `itemsPerRoom` floor objects per room (distinct categories apartment-wide).
 */
function buildApartment(rng: Rng, itemsPerRoom: 1 | 2 = 1): Apartment {
  const w = [round4(rng.uniform(...CELL_SIZE_M)), round4(rng.uniform(...CELL_SIZE_M))];
  const h = [round4(rng.uniform(...CELL_SIZE_M)), round4(rng.uniform(...CELL_SIZE_M))];
  const sx = w[0]! + w[1]!,
    sy = h[0]! + h[1]!;
  const xs = [-sx / 2, -sx / 2 + w[0]!, sx / 2],
    ys = [-sy / 2, -sy / 2 + h[0]!, sy / 2];
  const types = rng.shuffle(Object.keys(ROOM_SIGNATURES)).slice(0, 4);
  const cell = (i: number, j: number) => `${types[j * 2 + i]}_0`;
  const rooms: Layout["rooms"] = [];
  for (let j = 0; j < 2; j++)
    for (let i = 0; i < 2; i++)
      rooms.push({ id: cell(i, j), type: types[j * 2 + i]!, min: [round4(xs[i]!), round4(ys[j]!)], max: [round4(xs[i + 1]!), round4(ys[j + 1]!)] });
  // interior walls: x = xs[1] between (0,j) and (1,j); y = ys[1] between (i,0) and (i,1)
  const walls: Layout["walls"] = [];
  const shared: Array<[string, string]> = [];
  for (let j = 0; j < 2; j++) {
    walls.push({ id: INTERIOR_WALL_IDS[walls.length]!, from: [round4(xs[1]!), round4(ys[j]!)], to: [round4(xs[1]!), round4(ys[j + 1]!)], doors: [] });
    shared.push([cell(0, j), cell(1, j)]);
  }
  for (let i = 0; i < 2; i++) {
    walls.push({ id: INTERIOR_WALL_IDS[walls.length]!, from: [round4(xs[i]!), round4(ys[1]!)], to: [round4(xs[i + 1]!), round4(ys[1]!)], doors: [] });
    shared.push([cell(i, 0), cell(i, 1)]);
  }
  const closed = rng.int(0, 3);
  walls.forEach((wall, k) => {
    if (k === closed) return;
    const len = Math.hypot(wall.to[0] - wall.from[0], wall.to[1] - wall.from[1]);
    const lo = DOOR_END_MARGIN_M + DOOR_WIDTH_M / 2,
      hi = len - DOOR_END_MARGIN_M - DOOR_WIDTH_M / 2;
    wall.doors.push({ offset_m: round4(rng.uniform(lo, hi)), width_m: DOOR_WIDTH_M, rooms: shared[k]! });
  });
  const layout: Layout = { rooms, walls };
  const room = { id: "apartment_0", type: "apartment", size: [round4(sx), round4(sy)] as [number, number], height: ROOM_HEIGHT_M, layout };
  const builder = new SceneBuilder(rng, room);
  const doors = doorwayEdges(layout);
  const signature = new Map<string, TaskObject>();
  const items = new Map<string, TaskObject[]>();
  const itemCats = rng.shuffle(REGION_OBJECTS).slice(0, 4 * itemsPerRoom);
  rooms.forEach((r, k) => {
    signature.set(r.id, placeSignature(builder, r, doors));
    items.set(
      r.id,
      itemCats.slice(k * itemsPerRoom, (k + 1) * itemsPerRoom).map((c) => placeItem(builder, r, doors, c)),
    );
  });
  return {
    room,
    builder,
    signature,
    items,
    doors,
    adjacency: roomAdjacency(
      rooms.map((r) => r.id),
      doors,
    ),
    neighbours: shared,
  };
}

function clearOfDoors(x: number, y: number, doors: readonly DoorwayEdge[], margin: number): boolean {
  return doors.every((d) => Math.hypot(x - d.centre[0], y - d.centre[1]) > DOOR_CLEARANCE_M + margin);
}

/** Signature furniture with its back to one of the room's outer walls. */
function placeSignature(b: SceneBuilder, r: Layout["rooms"][number], doors: readonly DoorwayEdge[]): TaskObject {
  const category = ROOM_SIGNATURES[r.type]!;
  const model = b.rng.pick(categoryDef(category).models).id;
  const e = SceneBuilder.scaledExtent(model, 1);
  const [hx, hy] = [b.room.size[0] / 2, b.room.size[1] / 2];
  // outer walls of this room: 0 = +y, 1 = -x, 2 = -y, 3 = +x (furniture faces -y at yaw 0)
  const tol = 1e-3;
  const outer = [r.max[1] >= hy - tol ? 0 : -1, r.min[0] <= -hx + tol ? 1 : -1, r.min[1] <= -hy + tol ? 2 : -1, r.max[0] >= hx - tol ? 3 : -1].filter(
    (k) => k >= 0,
  );
  const gap = 0.02;
  for (let t = 0; t < 40; t++) {
    const wall = b.rng.pick(outer);
    const yaw = [0, Math.PI / 2, Math.PI, -Math.PI / 2][wall]!;
    const along = b.rng.uniform(0.15, 0.85);
    let x: number, y: number;
    if (wall === 0) [x, y] = [r.min[0] + along * (r.max[0] - r.min[0]), r.max[1] - e[1] / 2 - gap];
    else if (wall === 1) [x, y] = [r.min[0] + e[1] / 2 + gap, r.min[1] + along * (r.max[1] - r.min[1])];
    else if (wall === 2) [x, y] = [r.min[0] + along * (r.max[0] - r.min[0]), r.min[1] + e[1] / 2 + gap];
    else [x, y] = [r.max[0] - e[1] / 2 - gap, r.min[1] + along * (r.max[1] - r.min[1])];
    const box: YawBox = { centre: [x, y, e[2] / 2], extent: e, yaw };
    if (!insideRoom(box, r, gap / 2) || !clearOfDoors(x, y, doors, Math.max(e[0], e[1]) / 2)) continue;
    if (b.objects.some((o) => footprintsOverlap(box, objectBox(o), 0.1))) continue;
    return b.add(category, { model, x, y, yaw, role: "reference" });
  }
  require(false, `no place for the ${category} of ${r.id}`);
}

function insideRoom(box: YawBox, r: Layout["rooms"][number], margin: number): boolean {
  const c = Math.abs(Math.cos(box.yaw)),
    s = Math.abs(Math.sin(box.yaw));
  const hx = (c * box.extent[0] + s * box.extent[1]) / 2,
    hy = (s * box.extent[0] + c * box.extent[1]) / 2;
  return (
    box.centre[0] - hx >= r.min[0] + margin &&
    box.centre[0] + hx <= r.max[0] - margin &&
    box.centre[1] - hy >= r.min[1] + margin &&
    box.centre[1] + hy <= r.max[1] - margin
  );
}

/** Random draws for a floor object's place before the apartment is drawn again (ours: two objects per room need more). */
const ITEM_PLACEMENT_TRIES = 200;

/** A floor object somewhere in the room, clear of walls, doorways and furniture. */
function placeItem(b: SceneBuilder, r: Layout["rooms"][number], doors: readonly DoorwayEdge[], category: string): TaskObject {
  const model = b.rng.pick(categoryDef(category).models).id;
  const e = SceneBuilder.scaledExtent(model, 1);
  for (let t = 0; t < ITEM_PLACEMENT_TRIES; t++) {
    const x = b.rng.uniform(r.min[0], r.max[0]),
      y = b.rng.uniform(r.min[1], r.max[1]);
    const yaw = b.rng.uniform(-Math.PI, Math.PI);
    const box: YawBox = { centre: [x, y, e[2] / 2], extent: e, yaw };
    if (!insideRoom(box, r, 0.35) || !clearOfDoors(x, y, doors, 0.2)) continue;
    if (b.objects.some((o) => footprintsOverlap(box, objectBox(o), 0.3))) continue;
    return b.add(category, { model, x, y, yaw, role: "target" });
  }
  require(false, `no place for the ${category} in ${r.id}`);
}

/** Do segments p-q and a-b cross (proper intersection)? */
function crosses(p: [number, number], q: [number, number], s: WallStretch): boolean {
  const o = (a: [number, number], b: [number, number], c: [number, number]) => (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
  const d1 = o(s.a, s.b, p),
    d2 = o(s.a, s.b, q),
    d3 = o(p, q, s.a),
    d4 = o(p, q, s.b);
  return d1 * d2 < 0 && d3 * d4 < 0;
}

/** A view sees a doorway: its centre (at knee height) lies in the image, near enough, with no wall between. */
function doorSeen(camera: CameraSpec, walls: readonly WallStretch[], door: DoorwayEdge): ViewGoal {
  const halfH = rad(camera.hfov_deg) / 2;
  const halfV = Math.atan(Math.tan(halfH) * (camera.height / camera.width));
  return (v: ViewVisibility) => {
    const p = v.pose.position;
    const dx = door.centre[0] - p[0],
      dy = door.centre[1] - p[1];
    const dist = Math.hypot(dx, dy);
    if (dist > DOOR_SEEN_MAX_M || dist < 0.3) return false;
    const dYaw = Math.atan2(Math.sin(Math.atan2(dy, dx) - v.pose.yaw), Math.cos(Math.atan2(dy, dx) - v.pose.yaw));
    const dPitch = Math.atan2(0.5 - p[2], dist) - v.pose.pitch;
    if (Math.abs(dYaw) > halfH * 0.9 || Math.abs(dPitch) > halfV * 0.9) return false;
    return walls.every((s) => !crosses([p[0], p[1]], door.centre, s));
  };
}

/** Key poses: every room's centre and both sides of every doorway, at ESI's camera height, 8 headings each. */
function keyPoses(a: Apartment): AgentPose[] {
  const world = worldOf({ room: a.room, objects: a.builder.objects });
  const spots: Array<[number, number]> = a.room.layout.rooms.map(roomCentre);
  for (const d of a.doors)
    for (const r of d.rooms) {
      const c = roomCentre(a.room.layout.rooms.find((x) => x.id === r)!);
      const dx = c[0] - d.centre[0],
        dy = c[1] - d.centre[1],
        l = Math.hypot(dx, dy);
      spots.push([d.centre[0] + (dx / l) * 0.6, d.centre[1] + (dy / l) * 0.6]);
    }
  const out: AgentPose[] = [];
  for (const [x, y] of spots)
    for (let k = 0; k < 8; k++) {
      const p: Vec3 = [round4(x), round4(y), MAPPING_CAMERA_HEIGHT_M];
      if (isFree(world, p)) out.push({ position: p, yaw: round4((k * Math.PI) / 4 - Math.PI), pitch: MAPPING_CAMERA_PITCH_RAD });
    }
  return out;
}

/** The initial pose: in `from`, near its centre, looking at `target` (a point on the way). */
function initialPose(a: Apartment, from: string, target: [number, number]): AgentPose {
  const world = worldOf({ room: a.room, objects: a.builder.objects });
  const r = a.room.layout.rooms.find((x) => x.id === from)!;
  const rng = a.builder.rng;
  for (let t = 0; t < 30; t++) {
    const c = roomCentre(r);
    const p: Vec3 = [round4(c[0] + rng.uniform(-0.4, 0.4)), round4(c[1] + rng.uniform(-0.4, 0.4)), MAPPING_CAMERA_HEIGHT_M];
    if (!isFree(world, p)) continue;
    const { yaw } = lookAt(p, [target[0], target[1], p[2]]);
    return { position: p, yaw: round4(yaw), pitch: MAPPING_CAMERA_PITCH_RAD };
  }
  require(false, `no free initial pose in ${from}`);
}

const visibleGoal =
  (id: number): ViewGoal =>
  (v) =>
    isVisible(v, id);
/** A view shows a wall well enough to tell it has no doorway. */
const wallGoal =
  (id: number): ViewGoal =>
  (v) =>
    (v.counts.get(id) ?? 0) >= WALL_SEEN_MIN_PX;

interface MappingQuestion {
  question: string;
  answer: string;
  answerFormat: Draft["answerFormat"];
  options: string[];
  relevant: TaskObject[];
  /** Rooms the graph must be able to name (their signatures are goals of the trajectory). */
  rooms: string[];
  doors: DoorwayEdge[];
  walls: number[];
  start: string;
  lookTarget: [number, number];
  derive(objects: readonly TaskObject[]): string;
  metadata: Record<string, unknown>;
}

function draftOf(a: Apartment, camera: CameraSpec, q: MappingQuestion): Draft {
  const walls = wallStretches(a.room);
  const agent = initialPose(a, q.start, q.lookTarget);
  const goals: ViewGoal[] = [
    ...q.relevant.map((o) => visibleGoal(o.id)),
    ...q.rooms.map((r) => visibleGoal(a.signature.get(r)!.id)),
    ...q.doors.map((d) => doorSeen(camera, walls, d)),
    ...q.walls.map(wallGoal),
  ];
  return {
    roomType: "apartment",
    room: a.room,
    objects: a.builder.objects,
    lighting: defaultLighting(a.builder.rng),
    agent,
    question: q.question,
    answer: q.answer,
    answerFormat: q.answerFormat,
    options: q.options,
    relevant: [...new Set([...q.relevant, ...q.rooms.map((r) => a.signature.get(r)!)].map((o) => o.id))],
    metadata: { ...q.metadata, layout_rooms: a.room.layout.rooms.map((r) => r.id), doorways: a.doors.map((d) => d.rooms.join("--")) },
    derive: q.derive,
    // ESI's initial view stands in the start room and looks along its longest free ray; ours looks on the way
    // (a doorway or the asked-about object) and must show some object of the apartment
    checkInitialView: (probe) => (a.builder.objects.some((o) => (probe.counts.get(o.id) ?? 0) >= VISIBLE_MIN_PX) ? null : "the initial view shows no object"),
    gtGoals: goals,
    gtKeyPoses: keyPoses(a),
  };
}

const doorBetween = (a: Apartment, x: string, y: string) => a.doors.find((d) => d.rooms.includes(x) && d.rooms.includes(y)) ?? null;
const wallBetween = (a: Apartment, x: string, y: string) =>
  a.room.layout.walls.find((w) => a.neighbours[a.room.layout.walls.indexOf(w)]!.includes(x) && a.neighbours[a.room.layout.walls.indexOf(w)]!.includes(y)) ??
  null;
const roomIds = (a: Apartment) => a.room.layout.rooms.map((r) => r.id);

/** The room path's doorways, in order. */
const pathDoors = (a: Apartment, path: readonly string[]) => path.slice(1).map((r, i) => doorBetween(a, path[i]!, r)!);

/** Connectivity: yes when a doorway joins the two rooms; no for rooms behind a door-less wall or diagonal. */
export const connectivity: Generator = (rng, { camera }, plan): Draft => {
  const a = buildApartment(rng);
  const ids = roomIds(a);
  const yes = plannedYes(plan);
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < ids.length; i++)
    for (let j = i + 1; j < ids.length; j++) if ((doorBetween(a, ids[i]!, ids[j]!) !== null) === yes) pairs.push([ids[i]!, ids[j]!]);
  const [x, y] = rng.shuffle(rng.pick(pairs));
  const door = doorBetween(a, x, y);
  const wall = door ? null : wallBetween(a, x, y);
  const yc = a.room.layout.rooms.find((r) => r.id === y)!;
  const layout = a.room.layout;
  return draftOf(a, camera, {
    question: `Are ${x} and ${y} adjacent, with a direct connection between them?`,
    answer: yes ? "Yes" : "No",
    answerFormat: "yes_no",
    options: ["Yes", "No"],
    relevant: [],
    rooms: [x, y],
    doors: door ? [door] : [],
    walls: wall ? [wall.id] : [],
    start: x,
    lookTarget: door ? door.centre : roomCentre(yc),
    derive: () => (doorwayEdges(layout).some((d) => d.rooms.includes(x) && d.rooms.includes(y)) ? "Yes" : "No"),
    metadata: { case_type: "pair_connectivity", source_region: x, target_region: y, directly_adjacent: yes, shares_wall: wall !== null || door !== null },
  });
};

/**
 * Traversable Passage: the intermediate room on the unique shortest path between two rooms two doorways apart.
 * ESI's options repeat the path's endpoints, which the question names: a question-only reader drops them and
 * was right 63 % of the time at 30 tasks (chance 26 %). Ours offer only rooms the text does not name: the
 * intermediate room and the room off the path. The doorways form a spanning tree of the 2 x 2 rooms, a chain of
 * four, so a pair three doorways apart has two intermediate rooms and no room off its path: such pairs are
 * left out, since either of their intermediates would be right.
 */
export const traversablePassage: Generator = (rng, { camera }, plan): Draft => {
  const a = buildApartment(rng);
  const ids = roomIds(a);
  const twoApart: Array<[string, string, string[]]> = [];
  for (const x of ids)
    for (const y of ids)
      if (x !== y) {
        const paths = shortestRoomPaths(a.adjacency, x, y);
        if (paths.length === 1 && paths[0]!.length === 3) twoApart.push([x, y, paths[0]!]);
      }
  require(twoApart.length > 0, "no room pair two doorways apart");
  const [x, y, path] = rng.pick(twoApart);
  const answer = path[1]!;
  const options = withAnswerAt(
    plan.slot,
    answer,
    ids.filter((r) => !path.includes(r)),
  );
  const layout = a.room.layout;
  return draftOf(a, camera, {
    question: `On the shortest path from ${x} to ${y}, which intermediate room do you pass through among these options: ${options.join(", ")}?`,
    answer,
    answerFormat: "choice",
    options,
    relevant: [],
    rooms: path,
    doors: pathDoors(a, path),
    walls: [],
    start: x,
    lookTarget: pathDoors(a, path)[0]!.centre,
    derive: () => {
      const p =
        shortestRoomPaths(
          roomAdjacency(
            layout.rooms.map((r) => r.id),
            doorwayEdges(layout),
          ),
          x,
          y,
        )[0] ?? [];
      return options.find((o) => p.slice(1, -1).includes(o)) ?? "";
    },
    metadata: { case_type: "shortest_path_via_region", source_region: x, target_region: y, region_path: path },
  });
};

/** Regional Boundary: which room an object belongs to, or whether two objects share a room. */
export const regionalBoundary: Generator = (rng, { camera }, plan): Draft => {
  const a = buildApartment(rng, REGION_ITEMS_PER_ROOM);
  const ids = roomIds(a);
  const layout = a.room.layout;
  const roomOf = (o: TaskObject) => roomAt(layout.rooms, o.position[0], o.position[1]) ?? "";
  const byId = (objects: readonly TaskObject[], id: number) => objects.find((o) => o.id === id)!;
  const home = rng.pick(ids);
  const obj = rng.pick(a.items.get(home)!);
  // the planned form (answerPlan.ts ANSWER_FORMS): 0 asks which of three rooms holds the object, 1 whether two objects share one
  if (plan.form === 0) {
    const options = withAnswerAt(plan.slot, home, rng.shuffle(ids.filter((r) => r !== home)).slice(0, REGION_ROOM_OPTIONS - 1));
    return draftOf(a, camera, {
      question: `Which room does ${obj.category} belong to among these options: ${options.join(", ")}?`,
      answer: home,
      answerFormat: "choice",
      options,
      relevant: [obj],
      rooms: options,
      doors: [],
      walls: [],
      start: home,
      lookTarget: [obj.position[0], obj.position[1]],
      derive: (objects) => roomOf(byId(objects, obj.id)),
      metadata: { case_type: "object_in_region", object_name: obj.category, answer_region: home },
    });
  }
  // same region: the second object is another object of the home room (yes) or an object of another room
  // (no), in both cases the room's signature furniture or one of its floor objects with even odds, so that
  // the kind of object in the pair does not carry the answer
  const same = plannedYes(plan);
  const room = same ? home : rng.pick(ids.filter((r) => r !== home));
  const other = rng.bool() ? a.signature.get(room)! : rng.pick(a.items.get(room)!.filter((o) => o !== obj));
  const [p, q] = rng.shuffle([obj, other]);
  return draftOf(a, camera, {
    question: `Are ${p.category} and ${q.category} in the same region?`,
    answer: same ? "Yes" : "No",
    answerFormat: "yes_no",
    options: ["Yes", "No"],
    relevant: [p, q],
    rooms: [],
    doors: [],
    walls: [],
    start: home,
    lookTarget: [obj.position[0], obj.position[1]],
    derive: (objects) => (roomOf(byId(objects, p.id)) === roomOf(byId(objects, q.id)) ? "Yes" : "No"),
    metadata: { case_type: "objects_same_region", object_regions: [roomOf(p), roomOf(q)] },
  });
};

/**
 * Long-Term Navigation (region form): the room sequence from a start to a goal room, one intermediate step left
 * blank. ESI's records write the other steps; in a four-room apartment every room a written step or an endpoint
 * names is ruled out, which left a question-only reader one or two open options (87 % right at 30 tasks,
 * chance 33 %). Ours write only the goal as the last step, leave the other intermediate step (if any) unwritten,
 * and offer the two rooms the question does not name: a reader must know the layout to order them.
 */
export const longTermNavigation: Generator = (rng, { camera }, plan): Draft => {
  const a = buildApartment(rng);
  const ids = roomIds(a);
  const far: Array<string[]> = [];
  for (const x of ids)
    for (const y of ids)
      if (x !== y) {
        const paths = shortestRoomPaths(a.adjacency, x, y);
        if (paths.length === 1 && paths[0]!.length >= 3) far.push(paths[0]!);
      }
  require(far.length > 0, "no room pair two doorways apart");
  const path = rng.pick(far);
  const steps = path.slice(1);
  // never the last step: the question names the goal
  const blank = rng.int(0, steps.length - 2);
  const answer = steps[blank]!;
  const options = withAnswerAt(
    plan.slot,
    answer,
    ids.filter((r) => r !== answer && r !== path[0] && r !== path.at(-1)),
  );
  const text = steps.map((s, i) => `${i + 1}. ${NAV_STEP} ${i === blank ? NAV_BLANK : i === steps.length - 1 ? s : NAV_HIDDEN}`).join(" ");
  const layout = a.room.layout;
  const [start, goal] = [path[0]!, path.at(-1)!];
  return draftOf(a, camera, {
    question: `You are beginning in the ${spokenRoom(start)}. You want to navigate to the ${spokenRoom(goal)}. At each step, choose the next region you should explore. ${text} You have reached the final destination.`,
    answer,
    answerFormat: "choice",
    options,
    relevant: [],
    rooms: path,
    doors: pathDoors(a, path),
    walls: [],
    start,
    lookTarget: pathDoors(a, path)[0]!.centre,
    derive: () =>
      shortestRoomPaths(
        roomAdjacency(
          layout.rooms.map((r) => r.id),
          doorwayEdges(layout),
        ),
        start,
        goal,
      )[0]?.[blank + 1] ?? "",
    metadata: { case_type: "navigation_regions", region_sequence: path, blank_step: blank + 1 },
  });
};
