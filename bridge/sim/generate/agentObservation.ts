/**
 * Agent Observation (ESI-Bench's multi-agent task, Temporal Understanding; its generator
 * src/dataset_generation/task_multi_agent/batch_multi_agent.py, its runner hook src/active_explore/tasks/multiagent.py):
 * a robot walks a planned path past 1-3 objects of one category; a static observer at the path's start, at the
 * robot's height, watches it, turned towards the robot in every frame; how many of those objects did the robot pass
 * within 1.0 m? The task's phases are the observer's frames: the robot at one position of its walk each, every
 * other object where it was.
 *
 * As ESI: start and goal are drawn from free floor at least 2.0 m apart, redrawn up to 20 times until the planned
 * path has at least 10 waypoints; the objects stand on the floor beside the path (ESI's `OnTop` on the floor object,
 * every released record's `placed_on` is "floor"), object i of n at the waypoint (i+1)/(n+1) of the way along,
 * offset sideways by the robot's half-width plus 0.15 m, kept 0.2 m clear of furniture and of each other; the
 * options are 0, 1, 2 and 3. Ours: the count is the planned answer slot (answerPlan.ts), so a count below the
 * objects placed puts the others where the robot never comes within 1.0 m (ESI's 11 of 133 such records are
 * placements that failed); 0-2 objects of other categories stand beside the path too.
 */
import type { AgentPose } from "../../../core/math/camera.js";
import type { Rng } from "../../../core/math/rng.js";
import { quatFromYaw } from "../../../core/math/quat.js";
import { polylineDistance } from "../../../core/math/polyline.js";
import type { TaskObject } from "../../../core/task/schema.js";
import { buildModel, categoryDef, ROBOT_CATEGORY } from "../../../core/objects/library.js";
import { BODY_CLEARANCE_M, isFree, lookAt, worldOf, type World } from "../agent.js";
import { buildScene } from "../scene.js";
import { planPath } from "./planner.js";
import { assignNames, defaultLighting, displayName, makeRoom, require, round4, SceneBuilder, type Room } from "./common.js";
import type { Draft, DraftPhase } from "./draft.js";
import { visibleCounts, VISIBLE_MIN_PX } from "./visibility.js";
import type { GeneratorContext } from "./options.js";
import type { AnswerPlan } from "./answerPlan.js";

/** ESI `PROXIMITY_THRESH`: an object is passed when the robot comes within this distance (m) of it. */
const PASS_DISTANCE_M = 1.0;
/** ESI `NUM_OBJECTS_MIN`, `NUM_OBJECTS_MAX`: objects of the asked category. */
const HIDDEN_COUNT: readonly [number, number] = [1, 3];
/** ESI `MIN_PATH_WAYPOINTS`: the planned path's least waypoint count (ours: the 0.25 m lattice's points). */
const MIN_PATH_WAYPOINTS = 10;
/** ESI `MAX_PAIR_ATTEMPTS`: start/goal draws before the scene is given up. */
const MAX_PAIR_ATTEMPTS = 20;
/** ESI `select_valid_start_goal`'s `min_sep`: start and goal at least this far apart (m). */
const START_GOAL_MIN_SEPARATION_M = 2.0;
/** ESI `N_TRAV_CANDIDATES`: free floor points drawn as start/goal candidates. */
const START_GOAL_CANDIDATES = 200;
/** ESI `place_objects_along_path`: the sideways offset is the robot's half-width plus this (m). */
const SIDE_MARGIN_M = 0.15;
/** ESI `OBJ_MARGIN`: an object's box keeps this clearance (m) from furniture and the other objects. */
const OBJECT_MARGIN_M = 0.2;
/**
 * The observer renders a frame every 50 of ESI's controller steps (`render_every_n_steps`); the released records
 * (133 Agent Observation runs) show the robot 0.385 m further along its walk between consecutive frames (median;
 * p10 0.33, p90 0.45), the first frame at the start. Ours: a frame every this many metres of the path.
 */
const OBSERVER_FRAME_SPACING_M = 0.385;
/**
 * The observer's height: ESI's code declares `OBSERVER_HEIGHT = 5.0` but never uses it; the camera sits at the
 * robot's box top (`robot_bbox_top_z`, 1.19 m in 108 of 133 released records), so ours is our robot's height.
 */
const observerHeight = () => buildModel(`${ROBOT_CATEGORY}/0`).extent[2];
/** ESI's observer looks at the robot's box bottom plus this (m) (`robot_look_z`). */
const OBSERVER_AIM_ABOVE_FLOOR_M = 0.05;
/**
 * ESI's observer stands at the robot's start position; ours stands just behind it (the robot's half-width plus the
 * agent's body clearance and this much), since the agent's body cannot share the floor with the robot's.
 */
const OBSERVER_BEHIND_MARGIN_M = 0.05;
/** Ours: the robot keeps this much more than its half-width (m) from furniture and walls on its path. */
const ROBOT_CLEARANCE_M = 0.05;
/** Ours: an object the robot does not pass stands at least this far (m) from its path, well beyond PASS_DISTANCE_M. */
const UNPASSED_MIN_DISTANCE_M = 1.3;
/** Ours: objects of other categories beside the path (the question counts one category). */
const DISTRACTOR_COUNT: readonly [number, number] = [0, 2];
/** ESI's options: 0, 1, 2, 3 (`choices`, every released record). */
const COUNT_OPTIONS = ["0", "1", "2", "3"];
/**
 * The asked categories: ESI's GPT-4o picks one "medium-sized, easy to spot" category (its examples: apple, bottle,
 * mug, shoe, ball, vase, book, flower pot; the released records' most common: apple, vase, mug, soccer ball, bottles,
 * balls); ours, the library's of those.
 */
const HIDDEN_CATEGORIES = ["apple", "vase", "mug", "soccer_ball", "bottle", "basketball", "pumpkin", "bucket", "shoe", "potted_plant", "teddy_bear", "book"];
/** Furniture along the walls (ESI's rooms are furnished BEHAVIOR rooms). */
const WALL_FURNITURE = ["cabinet", "bookshelf", "sofa", "armchair", "wardrobe", "counter"];
const WALL_FURNITURE_COUNT: readonly [number, number] = [2, 4];
/** Ours: a table in the room's middle in this share of scenes, so that paths bend around it. */
const TABLE_SHARE = 0.5;
/** Lattice steps a path may take (0.25 m each): more than any path across a 7 x 6 m room. */
const MAX_PATH_STEPS = 120;
/** The height (m) of the planning lattice's camera: any height the agent's limits allow, the robot's base is on the floor. */
const PLANNING_HEIGHT_M = 1.0;

type XY = [number, number];

/** The free space of the robot's base: the agent's world with every footprint and wall grown to the robot's clearance. */
function robotWorld(room: Room, objects: readonly TaskObject[], robotHalf: number): World {
  const grow = Math.max(0, robotHalf + ROBOT_CLEARANCE_M - BODY_CLEARANCE_M);
  return worldOf({
    room: { ...room, size: [room.size[0] - 2 * grow, room.size[1] - 2 * grow] },
    objects: objects.map((o) => ({ ...o, extent: [o.extent[0] + 2 * grow, o.extent[1] + 2 * grow, o.extent[2]] })),
  });
}

/** ESI's `select_valid_start_goal`: free start/goal pairs at least 2.0 m apart, redrawn until a path of 10+ waypoints. */
function plannedWalk(rng: Rng, room: Room, world: World): XY[] {
  const candidates: XY[] = [];
  const [hx, hy] = [room.size[0] / 2, room.size[1] / 2];
  for (let i = 0; i < START_GOAL_CANDIDATES * 50 && candidates.length < START_GOAL_CANDIDATES; i++) {
    const p: XY = [rng.uniform(-hx, hx), rng.uniform(-hy, hy)];
    if (isFree(world, [p[0], p[1], PLANNING_HEIGHT_M])) candidates.push(p);
  }
  require(candidates.length >= 2, "no free floor for the robot");
  for (let attempt = 0; attempt < MAX_PAIR_ATTEMPTS; attempt++) {
    const order = rng.shuffle(candidates.map((_, i) => i));
    let pair: [XY, XY] | null = null;
    for (const i of order) {
      const j = order.find(
        (k) => k !== i && Math.hypot(candidates[k]![0] - candidates[i]![0], candidates[k]![1] - candidates[i]![1]) >= START_GOAL_MIN_SEPARATION_M,
      );
      if (j !== undefined) {
        pair = [candidates[i]!, candidates[j]!];
        break;
      }
    }
    if (!pair) continue;
    const start: AgentPose = { position: [pair[0][0], pair[0][1], PLANNING_HEIGHT_M], yaw: 0, pitch: 0 };
    const path = planPath(world, start, { position: [pair[1][0], pair[1][1], PLANNING_HEIGHT_M], yaw: 0, pitch: 0 }, MAX_PATH_STEPS);
    if (!path) continue;
    const waypoints: XY[] = [start, ...path.poses].map((p) => [round4(p.position[0]), round4(p.position[1])]);
    if (waypoints.length >= MIN_PATH_WAYPOINTS) return waypoints;
  }
  return require(false, `no start/goal pair with a path of ${MIN_PATH_WAYPOINTS}+ waypoints in ${MAX_PAIR_ATTEMPTS} draws`) as never;
}

/** Positions and headings every `spacing` metres along a polyline, from its start (ESI's observer frames). */
function framesAlong(path: readonly XY[], spacing: number): Array<{ at: XY; yaw: number }> {
  const out: Array<{ at: XY; yaw: number }> = [];
  let next = 0,
    walked = 0;
  for (let i = 0; i + 1 < path.length; i++) {
    const [ax, ay] = path[i]!,
      [bx, by] = path[i + 1]!;
    const L = Math.hypot(bx - ax, by - ay);
    const yaw = Math.atan2(by - ay, bx - ax);
    while (next <= walked + L + 1e-9) {
      const t = L > 0 ? (next - walked) / L : 0;
      out.push({ at: [ax + t * (bx - ax), ay + t * (by - ay)], yaw });
      next += spacing;
    }
    walked += L;
  }
  return out;
}

/**
 * ESI's `place_objects_along_path`: beside the waypoint nearest `fraction` of the way (then the next nearest), on
 * the left, else the right, `offset` m off the path; clear of furniture and of the other objects by OBJECT_MARGIN_M
 * and no closer than `offset` to any stretch of the path (the robot never brushes it).
 */
function besidePath(b: SceneBuilder, category: string, path: readonly XY[], fraction: number, offset: number, role: string): TaskObject {
  const model = b.rng.pick(categoryDef(category).models).id;
  const e = SceneBuilder.scaledExtent(model, 1);
  const base = Math.floor(fraction * (path.length - 1));
  const order = path.map((_, i) => i).sort((i, j) => Math.abs(i - base) - Math.abs(j - base));
  for (const i of order) {
    const prev = path[Math.max(0, i - 1)]!,
      next = path[Math.min(path.length - 1, i + 1)]!;
    const tx = next[0] - prev[0],
      ty = next[1] - prev[1],
      tl = Math.hypot(tx, ty) || 1;
    for (const side of [1, -1]) {
      const x = path[i]![0] + (side * -ty * offset) / tl,
        y = path[i]![1] + (side * tx * offset) / tl;
      if (polylineDistance([x, y], path) < offset - 1e-6) continue;
      if (!b.isClear({ centre: [x, y, e[2] / 2], extent: e, yaw: 0 }, OBJECT_MARGIN_M)) continue;
      return b.add(category, { model, x, y, role });
    }
  }
  return require(false, `no spot beside the path for a ${category}`) as never;
}

/** An object of the asked category where the robot never comes within UNPASSED_MIN_DISTANCE_M. */
function awayFromPath(b: SceneBuilder, category: string, path: readonly XY[]): TaskObject {
  const model = b.rng.pick(categoryDef(category).models).id;
  const e = SceneBuilder.scaledExtent(model, 1);
  const spot = b.findFloorSpot([e[0] / 2, e[1] / 2], OBJECT_MARGIN_M, 0, (x, y) => polylineDistance([x, y], path) >= UNPASSED_MIN_DISTANCE_M);
  require(spot, `no spot ${UNPASSED_MIN_DISTANCE_M} m from the path for a ${category}`);
  return b.add(category, { model, x: spot[0], y: spot[1], role: "unpassed" });
}

/** The robot moved to a frame's position and heading: the same object (its id), elsewhere. */
function robotAt(robot: TaskObject, at: XY, yaw: number): TaskObject {
  const q = quatFromYaw(yaw);
  return { ...robot, position: [round4(at[0]), round4(at[1]), robot.position[2]], orientation: { x: 0, y: 0, z: round4(q.z), w: round4(q.w) } };
}

/** Objects of `category` within PASS_DISTANCE_M of the path: the answer, from the placed geometry. */
function passedBy(objects: readonly TaskObject[], category: string, path: readonly XY[]): TaskObject[] {
  return objects.filter((o) => o.category === category && polylineDistance(o.position, path) < PASS_DISTANCE_M);
}

export function agentObservation(rng: Rng, ctx: GeneratorContext, plan: AnswerPlan): Draft {
  const room = makeRoom(rng, "living_room");
  const b = new SceneBuilder(rng, room);
  b.addWallFurniture(rng.int(...WALL_FURNITURE_COUNT), WALL_FURNITURE);
  if (rng.next() < TABLE_SHARE) {
    const e = SceneBuilder.scaledExtent("table/0", 1);
    const spot = b.findFloorSpot([e[0] / 2 + 0.6, e[1] / 2 + 0.6], 0.1, 0);
    if (spot) b.add("table", { model: "table/0", x: spot[0], y: spot[1], role: "furniture" });
  }
  const robotHalf = buildModel(`${ROBOT_CATEGORY}/0`).extent[0] / 2;
  const path = plannedWalk(rng, room, robotWorld(room, b.objects, robotHalf));
  const category = rng.pick(HIDDEN_CATEGORIES);
  const count = plan.slot;
  const total = rng.int(Math.max(HIDDEN_COUNT[0], count), HIDDEN_COUNT[1]);
  const offset = robotHalf + SIDE_MARGIN_M;
  const passed = Array.from({ length: count }, (_, i) => besidePath(b, category, path, (i + 1) / (count + 1), offset, "passed"));
  const unpassed = Array.from({ length: total - count }, () => awayFromPath(b, category, path));
  const others = HIDDEN_CATEGORIES.filter((c) => c !== category);
  const distractors = Array.from({ length: rng.int(...DISTRACTOR_COUNT) }, () =>
    besidePath(b, rng.pick(others), path, rng.uniform(0.15, 0.85), offset, "distractor"),
  );
  const frames = framesAlong(path, OBSERVER_FRAME_SPACING_M);
  const robot = b.add(ROBOT_CATEGORY, { x: frames[0]!.at[0], y: frames[0]!.at[1], yaw: frames[0]!.yaw, role: "robot" });
  // the robot's path must be its own: no object stands where its base passes
  const blocked = b.objects.filter(
    (o) => o !== robot && o.role !== "furniture" && polylineDistance(o.position, path) < robotHalf + Math.max(o.extent[0], o.extent[1]) / 2,
  );
  require(blocked.length === 0, "an object stands on the robot's path");
  assignNames(b.objects);
  const lighting = defaultLighting(rng);
  const height = observerHeight();
  const back = robotHalf + BODY_CLEARANCE_M + OBSERVER_BEHIND_MARGIN_M;
  const eye: [number, number, number] = [
    round4(path[0]![0] - back * Math.cos(frames[0]!.yaw)),
    round4(path[0]![1] - back * Math.sin(frames[0]!.yaw)),
    round4(height),
  ];
  const phases: DraftPhase[] = frames.map((f, k) => {
    const objects = k === 0 ? b.objects : b.objects.map((o) => (o === robot ? robotAt(robot, f.at, f.yaw) : o));
    const { yaw, pitch } = lookAt(eye, [f.at[0], f.at[1], OBSERVER_AIM_ABOVE_FLOOR_M]);
    return { label: `frame ${k + 1}`, objects, agent: { position: eye, yaw: round4(yaw), pitch: round4(pitch) } };
  });
  // every frame shows the robot (ESI's observer always faces it; its records see the robot in 1549 of 1593 frames)
  phases.forEach((ph, k) => {
    const seen = visibleCounts(buildScene({ room, objects: ph.objects, lighting }), ctx.camera, ph.agent).get(robot.id) ?? 0;
    require(seen >= VISIBLE_MIN_PX, `frame ${k + 1} does not show the robot`);
  });
  const hidden = [...passed, ...unpassed];
  const answer = String(count);
  return {
    roomType: room.type,
    room,
    objects: b.objects,
    lighting,
    agent: phases[0]!.agent,
    question: `How many ${displayName(category)} objects did the robot pass within ${PASS_DISTANCE_M.toFixed(1)} m during its walk? Answer 0, 1, 2, or 3.`,
    answer,
    answerFormat: "integer",
    options: COUNT_OPTIONS,
    relevant: [robot.id, ...hidden.map((o) => o.id)],
    metadata: {
      object_category: category,
      proximity_m: PASS_DISTANCE_M,
      path_waypoints: path,
      observer_position: eye,
      frame_spacing_m: OBSERVER_FRAME_SPACING_M,
      robot_id: robot.id,
      passed_ids: passed.map((o) => o.id),
      unpassed_ids: unpassed.map((o) => o.id),
      distractor_ids: distractors.map((o) => o.id),
      dist_to_path: Object.fromEntries(hidden.map((o) => [o.id, round4(polylineDistance(o.position, path))])),
    },
    derive: (objects) => String(passedBy(objects, category, path).length),
    checkInitialView: () => null,
    gtGoals: [],
    gtKeyPoses: [],
    phases,
  };
}
