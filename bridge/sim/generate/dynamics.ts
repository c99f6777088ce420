/**
 * Physical Dynamics (the ESI-Bench paper, Appendix Q.4; ESI-Bench's released generator batch_slope.py):
 * Inclined Plane. A tilted board stands on the floor with an object on the floor beside it; the question asks
 * whether the object would stay put if placed on the board. The answer comes from a simulation (physics/),
 * run as ESI runs it: the object dropped just above the board's centre, a few steps to land, then 30 steps;
 * it *slides* if its XY moved more than 3 cm, *falls* if its bottom ends within 5 cm of the floor, else it is
 * *stable*, and only *stable* answers yes.
 *
 * What each arm can know: the board's tilt is geometry (its points show it); the friction coefficients and the
 * object's mass are not in any view, so no reasoner can read them (they stay in the label metadata, as ESI's do).
 */
import type { Vec3 } from "../../../core/math/vec.js";
import type { TaskObject } from "../../../core/task/schema.js";
import { buildModel, categoryDef } from "../../../core/objects/library.js";
import { assignNames, defaultLighting, makeRoom, plannedYes, require, round4, SceneBuilder } from "./common.js";
import { initialView } from "./initialView.js";
import type { Draft, Generator } from "./draft.js";
import { orbitPoses } from "./gtTrajectory.js";
import { isVisible } from "./visibility.js";
import { PhysicsWorld } from "../physics/world.js";
import { addFloor, settle } from "../physics/settle.js";
import { bodyOf } from "../physics/bodies.js";
import { axisRotation, exactSinCos } from "../physics/rotation.js";
import { DROP_CLEARANCE_M, PHYSICS_STEPS_PER_ESI_STEP, type Material } from "../physics/params.js";
import { SLOPE_STATIC_FRICTION_RANGE, SLOPE_TILT_RANGE_DEG } from "../../../core/task/rules.js";

/** The board's half-length along its tilt (m): ESI's SLOPE_BASE_HALF_X 0.20, drawn U[0.20, 1.5 x 0.20]. */
export const SLOPE_HALF_X_M: readonly [number, number] = [0.2, 0.3];
/** The board's half-width and half-thickness (m): ESI's SLOPE_HALF_Y 0.15, SLOPE_HALF_Z 0.01. */
export const SLOPE_HALF_Y_M = 0.15;
export const SLOPE_HALF_Z_M = 0.01;
/** Tilt from horizontal (degrees): ESI's U[10, 45], about the board's Y axis, so its +X end is the low one. */
export const SLOPE_TILT_DEG = SLOPE_TILT_RANGE_DEG;
/** Static friction U[0.3, 3.0]; dynamic U[0.3, static]: ESI's draws, one material on both the board and the object. */
export const STATIC_FRICTION = SLOPE_STATIC_FRICTION_RANGE;
export const DYNAMIC_FRICTION_MIN = 0.3;
/** Restitution of that material: ESI's `apply_friction` 0.1. */
export const SLOPE_RESTITUTION = 0.1;
/** ESI's NUM_STEPS: steps simulated after the object has landed on the board. */
const SLOPE_STEPS = 30;
/** ESI's steps between placing the object on the board and reading its start position. */
const LANDING_STEPS = 5;
/** Physics steps per ESI step (physics/params.ts). */
const PHYSICS_STEPS_PER_STEP = PHYSICS_STEPS_PER_ESI_STEP;
/**
 * How the object is put on the board (PLACEMENT). ESI sets it upright (identity orientation) 0.05 m above the board's
 * box centre. Done so here (the 0.05 m read as the object's bottom), 8 of 120 draws of ESI's parameters ended
 * *stable* (scripts/slope-outcomes.mjs 120), where 26 of ESI's 61 released records do: an upright object meets the
 * tilted board on one edge and swings over. Ours [I]: the object rests on the board as one puts a thing down, its
 * up along the board's normal, centred over the top face and DROP_CLEARANCE_M above it (physics/params.ts, the
 * clearance of every settled object); 27 of the same 120 draws end *stable*.
 */
/** *slides*: XY displacement over the 30 steps above this (m): ESI's SLIDE_THRESH. */
const SLIDE_THRESHOLD_M = 0.03;
/** *falls*: the object's bottom ends less than this above the floor (m): ESI's FALL_THRESH, compared as its code does. */
const FALL_THRESHOLD_M = 0.05;
/** Gap between the board's front face (+Y) and the object on the floor in the initial scene (m): ESI's 0.02. */
const FLOOR_GAP_M = 0.02;
/** ESI lets the object settle on the floor for 20 steps before the first views. */
const FLOOR_SETTLE_STEPS = 20;
/** Initial camera: 0.6 m from the look point, 0.4 m high, looking at 0.1 m above the floor (ESI's floor views). */
const CAMERA_RADIUS_M = 0.6;
const CAMERA_HEIGHT_M = 0.4;
const LOOK_HEIGHT_M = 0.1;
/** The board's colour: the palette's nearest to ESI's rgba (0.6, 0.55, 0.45). */
const SLOPE_COLOR = "grey";

/** The objects ESI puts on the board (slope_objects.json) that the library has. */
export const SLOPE_OBJECTS = [
  "apple",
  "orange",
  "tennis_ball",
  "soccer_ball",
  "basketball",
  "egg",
  "lemon",
  "lime",
  "peach",
  "tomato",
  "pear",
  "can",
  "bottle",
  "vase",
  "jar",
  "mug",
  "cup",
  "bowl",
  "pot",
  "dice",
] as const;

type SlopeOutcome = "stable" | "slides" | "falls";

export interface SlopeRun {
  outcome: SlopeOutcome;
  /** XY displacement over ESI's 30 steps (m). */
  slideM: number;
  /** The object's lowest point at the end (m above the floor). */
  finalBottomM: number;
  snapshotHash: string;
}

/** sin and cos of a board's tilt about Y, read from its quaternion (0, sin(t/2), 0, cos(t/2)) with + - * only. */
function tiltOf(slope: TaskObject): { sin: number; cos: number } {
  const { x, y, z, w } = slope.orientation;
  if (x !== 0 || z !== 0) throw new Error(`${slope.name}: a board tilts about Y only`);
  return { sin: 2 * y * w, cos: w * w - y * y };
}

/**
 * The hidden experiment: the object put down on the board's centre (PLACEMENT above), LANDING_STEPS to land, then
 * SLOPE_STEPS; the board and the object share `material`, the floor has the default one.
 */
export function runOnSlope(roomSize: readonly [number, number], slope: TaskObject, object: TaskObject, material: Material): SlopeRun {
  const world = new PhysicsWorld();
  try {
    addFloor(world, roomSize);
    world.addBody(bodyOf(slope, { kind: "box", fixed: true, material }));
    // the board's top face centre, and its normal (0, 0, 1) turned by the tilt: (sin, 0, cos)
    const { sin, cos } = tiltOf(slope);
    const lift = slope.extent[2] / 2 + DROP_CLEARANCE_M + object.extent[2] / 2;
    const start: Vec3 = [slope.position[0] + lift * sin, slope.position[1], slope.position[2] + lift * cos];
    world.addBody(bodyOf({ ...object, position: start, orientation: slope.orientation }, { material }));
    world.step(LANDING_STEPS * PHYSICS_STEPS_PER_STEP);
    const before = world.pose(object.id).position;
    world.step(SLOPE_STEPS * PHYSICS_STEPS_PER_STEP);
    const after = world.pose(object.id).position;
    const slideM = Math.sqrt((after[0] - before[0]) ** 2 + (after[1] - before[1]) ** 2);
    const finalBottomM = world.aabb(object.id).min[2];
    // ESI's order: a fallen object has slid too, and counts as fallen
    const outcome: SlopeOutcome = finalBottomM < FALL_THRESHOLD_M ? "falls" : slideM > SLIDE_THRESHOLD_M ? "slides" : "stable";
    return { outcome, slideM, finalBottomM, snapshotHash: world.snapshotHash() };
  } finally {
    world.free();
  }
}

const byId = (objects: readonly TaskObject[], id: number): TaskObject => {
  const o = objects.find((x) => x.id === id);
  if (!o) throw new Error(`object ${id} is missing`);
  return o;
};

export const inclinedPlane: Generator = (rng, _ctx, plan): Draft => {
  const room = makeRoom(rng, "storage_room");
  const b = new SceneBuilder(rng, room);
  b.addWallFurniture(rng.int(1, 2), ["cabinet", "bookshelf"]);
  // ESI's draws, in its order
  const halfX = round4(rng.uniform(...SLOPE_HALF_X_M));
  const tiltDeg = round4(rng.uniform(...SLOPE_TILT_DEG));
  const staticFriction = round4(rng.uniform(...STATIC_FRICTION));
  const dynamicFriction = round4(rng.uniform(DYNAMIC_FRICTION_MIN, staticFriction));
  const material: Material = { staticFriction, dynamicFriction, restitution: SLOPE_RESTITUTION };
  const category = rng.pick(SLOPE_OBJECTS);
  const model = rng.pick(categoryDef(category).models).id;
  const objectExtent = buildModel(model).extent;

  // the board along the room's X axis with the object on its +Y side: one free floor region for both
  const regionHalfY = SLOPE_HALF_Y_M + (FLOOR_GAP_M + objectExtent[1]) / 2 + 0.05;
  const spot = b.findFloorSpot([halfX + 0.1, regionHalfY + 0.1], 0.1, 0);
  require(spot, "no floor room for the slope");
  const slopeY = round4(spot[1] - regionHalfY + 0.05 + SLOPE_HALF_Y_M);
  // the low end's lower edge touches the floor (ESI: floor_z + half_x sin + half_z cos)
  const tilt = (tiltDeg * Math.PI) / 180;
  const { sin, cos } = exactSinCos(tilt);
  const slope = b.addBox("slope", {
    extent: [2 * halfX, 2 * SLOPE_HALF_Y_M, 2 * SLOPE_HALF_Z_M],
    position: [round4(spot[0]), slopeY, halfX * sin + SLOPE_HALF_Z_M * cos],
    orientation: axisRotation("y", tilt),
    color: SLOPE_COLOR,
    role: "support",
    support: "floor",
  });
  const placed = b.add(category, {
    model,
    x: slope.position[0],
    y: slopeY + SLOPE_HALF_Y_M + FLOOR_GAP_M + objectExtent[1] / 2,
    role: "target",
  });
  // the object on the floor settles as ESI's does before the first views
  const floorPhase = settle({
    roomSize: room.size,
    objects: [slope, placed],
    dropped: new Set([placed.id]),
    steps: FLOOR_SETTLE_STEPS * PHYSICS_STEPS_PER_STEP,
  });
  require(floorPhase.problems.length === 0, `object on the floor: ${floorPhase.problems.join("; ")}`);
  const settled = floorPhase.objects[1]!;
  placed.position = settled.position;
  placed.orientation = settled.orientation;
  assignNames(b.objects);

  const run = runOnSlope(room.size, slope, placed, material);
  const answer = run.outcome === "stable" ? "yes" : "no";
  require((answer === "yes") === plannedYes(plan), `outcome ${run.outcome}, planned ${plannedYes(plan) ? "stable" : "moving"}`);

  // ESI's floor views: four around the point between the board and the object; the initial view is one of them
  const look: Vec3 = [slope.position[0], (slopeY + SLOPE_HALF_Y_M + placed.position[1]) / 2, LOOK_HEIGHT_M];
  const azimuth = rng.int(0, 3);
  const [dx, dy] = (
    [
      [1, 0],
      [0, 1],
      [-1, 0],
      [0, -1],
    ] as const
  )[azimuth]!;
  const initial = initialView(b, [look[0] + dx * CAMERA_RADIUS_M, look[1] + dy * CAMERA_RADIUS_M, CAMERA_HEIGHT_M], look);
  const ids = [slope.id, placed.id];
  return {
    roomType: "storage_room",
    room,
    objects: b.objects,
    lighting: defaultLighting(rng),
    ...initial,
    // ESI's template
    question: `Do you think ${placed.name} will stay stable (not slide) when placed on the slope?`,
    answer,
    answerFormat: "yes_no",
    options: ["yes", "no"],
    relevant: ids,
    metadata: {
      slope_tilt_deg: tiltDeg,
      slope_half_extents_m: [halfX, SLOPE_HALF_Y_M, SLOPE_HALF_Z_M],
      static_friction: staticFriction,
      dynamic_friction: dynamicFriction,
      restitution: SLOPE_RESTITUTION,
      physics_step_s: 1 / 240,
      landing_steps: LANDING_STEPS,
      steps: SLOPE_STEPS,
      physics_steps_per_step: PHYSICS_STEPS_PER_STEP,
      slide_threshold_m: SLIDE_THRESHOLD_M,
      fall_threshold_m: FALL_THRESHOLD_M,
      outcome: run.outcome,
      slide_distance_m: round4(run.slideM),
      final_bottom_z_m: round4(run.finalBottomM),
      snapshot_sha256: run.snapshotHash,
    },
    // the answer re-derived by running the experiment again on the recorded board and object
    derive: (objects) => (runOnSlope(room.size, byId(objects, slope.id), byId(objects, placed.id), material).outcome === "stable" ? "yes" : "no"),
    checkInitialView: (p) => {
      if (p.fraction(placed.id) < 0.5) return `the object is ${(p.fraction(placed.id) * 100).toFixed(0)} % visible`;
      if (p.fraction(slope.id) < 0.3) return `the slope is ${(p.fraction(slope.id) * 100).toFixed(0)} % visible`;
      return null;
    },
    // a view that shows both, from the board's side (its tilt shows in profile)
    gtGoals: [(v) => ids.every((id) => isVisible(v, id)) && Math.abs(Math.sin(v.pose.yaw)) > 0.7],
    gtKeyPoses: orbitPoses([slope.position[0], slopeY, LOOK_HEIGHT_M], [0.8, 1.1], [0.6, 0.9], 12),
  };
};
