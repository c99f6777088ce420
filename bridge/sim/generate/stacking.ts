/**
 * Physical Dynamics (the ESI-Bench paper, Appendix Q.5; ESI-Bench's released generator batch_stack.py): Stacking &
 * Stability. Two or three rigid, stackable objects stand side by side on the floor; the question asks in what order
 * to stack them so the stack stays up. The answer comes from simulation (physics/), as ESI's: every permutation is
 * stacked on the floor (bottom first), the whole stack settles for ESI's 60 steps, and an order is stable when each
 * upper object's AABB bottom is more than 2 cm above the lower one's, their XY footprints overlap with IoU >= 0.1, and
 * every object stays upright (its up axis . +Z >= 0.9). The answer is every stable order, bottom to top (ESI's
 * answer: a list of accepted orders; esi3d's `any_ordering`).
 *
 * What each arm can know: shapes and sizes are geometry (each node's box shows its footprint and height); where
 * each object lands on the one below (PLACEMENT below) and the masses are not in any view.
 */
import type { Vec3 } from "../../../core/math/vec.js";
import type { Rng } from "../../../core/math/rng.js";
import { quatToMat } from "../../../core/math/quat.js";
import type { AnswerSpec, TaskObject } from "../../../core/task/schema.js";
import { buildModel, categoryDef } from "../../../core/objects/library.js";
import { assignNames, defaultLighting, makeRoom, require, round4, SceneBuilder } from "./common.js";
import { initialView } from "./initialView.js";
import type { Draft, Generator } from "./draft.js";
import { orbitPoses } from "./gtTrajectory.js";
import { isVisible } from "./visibility.js";
import { PhysicsWorld } from "../physics/world.js";
import { addFloor, AT_REST_SPEED_M_S, settle } from "../physics/settle.js";
import { bodyOf } from "../physics/bodies.js";
import { DROP_CLEARANCE_M, PHYSICS_STEPS_PER_ESI_STEP, SETTLE_STEPS } from "../physics/params.js";
import { STACK_MIN_RISE_M, STACK_MIN_XY_IOU, UPRIGHT_MIN_DOT } from "../../../core/task/rules.js";

/**
 * The library's categories that pass ESI's selection prompt (batch_stack.py gpt_select_stackable): solid (not soft,
 * flexible or liquid), flat-bottomed, table-top or hand-held, plausibly stacked on one another; its examples are
 * book, box, can, mug, bowl, plate, container, tray, jar. Left out: fruit, balls, eggs and nuts (round, no flat
 * base), the teddy bear and the shoe (soft), toy cars and trucks (wheels), glasses, goblets and vases (fragile,
 * thin), bottles, kettles, pitchers, lamps, clocks and potted plants (no flat top or no stable base), open box
 * containers and buckets (large, open), and furniture.
 */
export const STACKABLE_CATEGORIES = ["book", "cardboard_box", "toy_block", "dice", "can", "mug", "cup", "bowl", "jar", "pot", "candle"] as const;
/** Objects per task: ESI's `--n_objects` choices 2 or 3 (its released records all have 3); the plan's form picks. */
const STACK_OBJECT_COUNTS: readonly number[] = [3, 2];
/** ESI's SETTLE_STEPS: steps the whole stack settles before the checks. */
const STACK_SETTLE_STEPS = SETTLE_STEPS;
// is_on_top and upright (core/task/rules.ts): the upper AABB's bottom more than STACK_MIN_RISE_M above the lower
// one's (strict, ESI's `+ 0.02` as its code compares it), XY IoU at least STACK_MIN_XY_IOU, up . +Z at least
// UPRIGHT_MIN_DOT (>=, as its code)
const ON_TOP_MIN_DZ_M = STACK_MIN_RISE_M;
const ON_TOP_MIN_XY_IOU = STACK_MIN_XY_IOU;
/**
 * PLACEMENT. ESI puts each upper object on the one below with OmniGibson's `sample_kinematics("onTop")`, which
 * samples a spot on the lower object's top surface, and squares its orientation. Ours [I]: the upper object's box
 * centre over a point drawn uniformly in the lower object's top AABB (this fraction of its half-extents on each
 * axis, 1 = anywhere over the top), DROP_CLEARANCE_M above it. scripts/stacking-placement.mjs 40 (40 random
 * 3-object sets, 0..6 stable orders): spread 1 gives 18/13/7/1/1/0/0 sets, spread 0.5 5/7/7/4/8/5/4, centred (0)
 * 0/0/0/1/2/6/31; ESI's 89 released records have 1/2/3 stable orders in 34/36/19 and none with 0 (discarded) or
 * more than 3. Centred placement leaves nearly every order standing, which no released record shows; spread 1 is
 * the closest of the three without tuning (a set with no stable order is drawn again, as ESI discards it).
 */
const PLACEMENT_SPREAD = 1;
/** Gap between neighbours in the initial row on the floor (m): ESI's CLUSTER_GAP. */
const CLUSTER_GAP_M = 0.08;
/** ESI's final settle of the initial row (place_cluster_on_floor): 30 steps. */
const ROW_SETTLE_STEPS = 30;
/**
 * Initial camera: ESI's released records' initial side views stand 0.05 m above the floor, level (their
 * `initial_cam_poses`; batch_stack.py's code says CAM_HEIGHT 0.6, the records are what the paper ran), at the row's
 * half-diagonal plus CAM_RADIUS_PAD 0.45 m from its centre (render_initial_views).
 */
const CAMERA_HEIGHT_M = 0.05;
const CAMERA_RADIUS_PAD_M = 0.45;
/** Heights of the ground-truth trajectory's candidate views (m): ours, the suite's usual eye heights. */
const GT_VIEW_HEIGHTS_M = [0.6, 0.9];
/** Each object at least this visible in the initial view: ESI's runner starts from a view whose flags show all three. */
const INITIAL_MIN_VISIBLE = 0.5;

/** One stacking attempt: the order (bottom first), where each upper object was put, what the checks found. */
interface StackTrial {
  /** Item names, bottom to top. */
  order: string[];
  /** XY offset (m) of each object's box centre from the one below it, as placed; [0, 0] for the bottom one. */
  offsets: Array<[number, number]>;
  stable: boolean;
  /** Per consecutive pair (upper on lower): the AABB bottoms' height difference (m) and the XY IoU. */
  onTop: Array<{ dz: number; iou: number }>;
  /** Per object, bottom first: its up axis . +Z. */
  upright: number[];
  /** Fastest object at the end (m/s). */
  maxSpeed: number;
  snapshotHash: string;
}

type Box = { min: Vec3; max: Vec3 };

/** IoU of two boxes' XY rectangles (ESI's xy_iou). */
function xyIou(a: Box, b: Box): number {
  const w = Math.max(0, Math.min(a.max[0], b.max[0]) - Math.max(a.min[0], b.min[0]));
  const h = Math.max(0, Math.min(a.max[1], b.max[1]) - Math.max(a.min[1], b.min[1]));
  const inter = w * h;
  const areaA = (a.max[0] - a.min[0]) * (a.max[1] - a.min[1]);
  const areaB = (b.max[0] - b.min[0]) * (b.max[1] - b.min[1]);
  const union = areaA + areaB - inter;
  return union > 0 ? inter / union : 0;
}

/** ESI's is_on_top and tilt checks on a settled stack: every pair on top, every object upright. */
const stackHolds = (onTop: ReadonlyArray<{ dz: number; iou: number }>, upright: readonly number[]): boolean =>
  onTop.every((p) => p.dz > ON_TOP_MIN_DZ_M && p.iou >= ON_TOP_MIN_XY_IOU) && upright.every((d) => d >= UPRIGHT_MIN_DOT);

/**
 * The hidden experiment for one order: the objects (bottom first) stacked at the room's centre, each upper one at
 * its offset over the one below and DROP_CLEARANCE_M above its top, all squared (identity orientation, as ESI's
 * SQUARE_ORI), then STACK_SETTLE_STEPS ESI steps. Round flat tops carry a lid (physics/bodies.ts `cap`).
 */
export function runStack(
  roomSize: readonly [number, number],
  stack: readonly TaskObject[],
  offsets: ReadonlyArray<readonly [number, number]>,
): Omit<StackTrial, "order" | "offsets"> {
  const world = new PhysicsWorld();
  try {
    addFloor(world, roomSize);
    let x = 0;
    let y = 0;
    let top = 0;
    stack.forEach((o, k) => {
      const lift = k === 0 ? 0 : DROP_CLEARANCE_M;
      x += offsets[k]![0];
      y += offsets[k]![1];
      world.addBody(bodyOf({ ...o, position: [x, y, top + lift + o.extent[2] / 2], orientation: { x: 0, y: 0, z: 0, w: 1 } }, { cap: true }));
      top += lift + o.extent[2];
    });
    world.step(STACK_SETTLE_STEPS * PHYSICS_STEPS_PER_ESI_STEP);
    const boxes = stack.map((o) => world.aabb(o.id));
    const onTop = stack.slice(1).map((_, k) => ({ dz: boxes[k + 1]!.min[2] - boxes[k]!.min[2], iou: xyIou(boxes[k + 1]!, boxes[k]!) }));
    // the body's up axis in the world is its rotation's third column; its Z component is R[2][2]
    const upright = stack.map((o) => quatToMat(world.pose(o.id).orientation)[2][2]);
    const maxSpeed = Math.max(...stack.map((o) => world.speed(o.id)));
    return { stable: stackHolds(onTop, upright), onTop, upright, maxSpeed, snapshotHash: world.snapshotHash() };
  } finally {
    world.free();
  }
}

/** Every permutation of 0..n-1 in lexicographic order (ESI's itertools.permutations order). */
export function permutations(n: number): number[][] {
  if (n === 0) return [[]];
  return Array.from({ length: n }, (_, first) => permutations(n - 1).map((rest) => [first, ...rest.map((r) => (r >= first ? r + 1 : r))])).flat();
}

/** The offsets of each permutation's upper objects (PLACEMENT), drawn in permutation order. */
function drawOffsets(rng: Rng, objects: readonly TaskObject[], orders: readonly number[][]): Array<Array<[number, number]>> {
  return orders.map((order) =>
    order.map((_, k) => {
      if (k === 0) return [0, 0];
      const lower = objects[order[k - 1]!]!;
      return [round4(rng.uniform(-1, 1) * PLACEMENT_SPREAD * (lower.extent[0] / 2)), round4(rng.uniform(-1, 1) * PLACEMENT_SPREAD * (lower.extent[1] / 2))];
    }),
  );
}

/** All trials of a task: each permutation of `objects` (question order) stacked with its offsets. */
function runTrials(
  roomSize: readonly [number, number],
  objects: readonly TaskObject[],
  items: readonly string[],
  offsets: ReadonlyArray<ReadonlyArray<readonly [number, number]>>,
): StackTrial[] {
  return permutations(objects.length).map((order, t) => ({
    order: order.map((i) => items[i]!),
    offsets: offsets[t]!.map(([x, y]) => [x, y] as [number, number]),
    ...runStack(
      roomSize,
      order.map((i) => objects[i]!),
      offsets[t]!,
    ),
  }));
}

/** The largest XY side of a model's box (ESI's inventory footprint: max of the bbox's x and y). */
const naturalFootprint = (model: string): number => {
  const e = buildModel(model).extent;
  return Math.max(e[0], e[1]);
};

export const stackingStability: Generator = (rng, _ctx, plan): Draft => {
  const room = makeRoom(rng, "utility_room");
  const b = new SceneBuilder(rng, room);
  b.addWallFurniture(rng.int(1, 2), ["cabinet", "bookshelf"]);
  const n = STACK_OBJECT_COUNTS[plan.form]!;
  const categories = rng.sample(STACKABLE_CATEGORIES, n);
  const models = categories.map((c) => rng.pick(categoryDef(c).models).id);
  // ESI's compute_unified_scale: every object scaled uniformly so its largest XY side is the set's largest
  const natural = models.map(naturalFootprint);
  const target = Math.max(...natural);
  const scales = natural.map((f) => round4(target / f));
  const extents = models.map((m, i) => SceneBuilder.scaledExtent(m, scales[i]!));

  // the initial row along X, CLUSTER_GAP_M apart, on free floor
  const rowLength = extents.reduce((s, e) => s + e[0], 0) + CLUSTER_GAP_M * (n - 1);
  const rowDepth = Math.max(...extents.map((e) => e[1]));
  const spot = b.findFloorSpot([rowLength / 2 + 0.1, rowDepth / 2 + 0.1], 0.1, 0);
  require(spot, "no floor room for the row");
  let x = spot[0] - rowLength / 2;
  const placed = categories.map((c, i) => {
    const o = b.add(c, { model: models[i]!, scale: scales[i]!, x: x + extents[i]![0] / 2, y: spot[1], role: "target" });
    x += extents[i]![0] + CLUSTER_GAP_M;
    return o;
  });
  const row = settle({
    roomSize: room.size,
    objects: placed,
    dropped: new Set(placed.map((o) => o.id)),
    steps: ROW_SETTLE_STEPS * PHYSICS_STEPS_PER_ESI_STEP,
  });
  require(row.problems.length === 0, `initial row: ${row.problems.join("; ")}`);
  placed.forEach((o, i) => {
    o.position = row.objects[i]!.position;
    o.orientation = row.objects[i]!.orientation;
  });
  assignNames(b.objects);

  // ESI's items are the categories; its options list them alphabetically, its question in the draw order
  const items = [...categories];
  const orders = permutations(n);
  const offsets = drawOffsets(rng, placed, orders);
  const trials = runTrials(room.size, placed, items, offsets);
  const accepted = trials.filter((t) => t.stable).map((t) => t.order);
  require(accepted.length > 0, "no order stays stacked");
  // a stable order must be at rest, not a stack caught mid-fall at the 60th step
  const moving = trials.find((t) => t.stable && t.maxSpeed > AT_REST_SPEED_M_S);
  require(!moving, `order ${moving?.order.join(" > ")} passes the checks still moving at ${moving?.maxSpeed.toFixed(4)} m/s`);
  const spec: AnswerSpec = { kind: "any_ordering", items: [...items].sort(), accepted };
  const answer = JSON.stringify(accepted[0]);

  const minX = Math.min(...placed.map((o) => o.position[0] - o.extent[0] / 2));
  const maxX = Math.max(...placed.map((o) => o.position[0] + o.extent[0] / 2));
  const centre: Vec3 = [(minX + maxX) / 2, spot[1], Math.max(...placed.map((o) => o.extent[2])) / 2];
  const radius = Math.hypot((maxX - minX) / 2, rowDepth / 2) + CAMERA_RADIUS_PAD_M;
  // ESI's side views at 0/90/180/270 deg; across the row (90 or 270) shows every object; level, as ESI's
  const side = rng.pick([1, -1]);
  const initial = initialView(b, [centre[0], centre[1] + side * radius, CAMERA_HEIGHT_M], [centre[0], centre[1], CAMERA_HEIGHT_M]);
  const ids = placed.map((o) => o.id);
  return {
    roomType: "utility_room",
    room,
    objects: b.objects,
    lighting: defaultLighting(rng),
    ...initial,
    // ESI's template
    question: `How should you stack ${items.join(", ")} to maximize stability?`,
    answer,
    answerFormat: "any_ordering",
    answerSpec: spec,
    options: spec.items,
    relevant: ids,
    metadata: {
      object_count: n,
      object_categories: items,
      natural_xy_extent_m: natural.map(round4),
      unified_xy_extent_m: round4(target),
      object_scales: scales,
      settle_steps: STACK_SETTLE_STEPS,
      physics_steps_per_step: PHYSICS_STEPS_PER_ESI_STEP,
      physics_step_s: 1 / 240,
      drop_clearance_m: DROP_CLEARANCE_M,
      on_top_min_dz_m: ON_TOP_MIN_DZ_M,
      on_top_min_xy_iou: ON_TOP_MIN_XY_IOU,
      upright_min_dot: UPRIGHT_MIN_DOT,
      placement_spread: PLACEMENT_SPREAD,
      trials: trials.map((t) => ({
        order: t.order,
        offsets_m: t.offsets,
        stable: t.stable,
        on_top: t.onTop.map((p) => ({ dz_m: round4(p.dz), xy_iou: round4(p.iou) })),
        upright_dot: t.upright.map(round4),
        max_speed_m_s: round4(t.maxSpeed),
        snapshot_sha256: t.snapshotHash,
      })),
      stable_orders: accepted,
    },
    // the answer re-derived by stacking the recorded objects again with the recorded offsets
    derive: (objects) => {
      const now = ids.map((id) => objects.find((o) => o.id === id)!);
      const again = runTrials(room.size, now, items, offsets).filter((t) => t.stable);
      return again.length ? JSON.stringify(again[0]!.order) : "(no stable order)";
    },
    checkInitialView: (p) => {
      for (const o of placed) if (p.fraction(o.id) < INITIAL_MIN_VISIBLE) return `${o.name} is ${(p.fraction(o.id) * 100).toFixed(0)} % visible`;
      return null;
    },
    gtGoals: [(v) => ids.every((id) => isVisible(v, id))],
    gtKeyPoses: orbitPoses(centre, [radius, radius + 0.3], GT_VIEW_HEIGHTS_M, 12),
  };
};
