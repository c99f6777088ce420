/**
 * Action Sequencing (the ESI-Bench paper, Appendix Q.11; ESI-Bench's released generator batch_action.py and its
 * runner hook tasks/action.py): Action Order Inference. A placement hierarchy of 2 or 3 roles stands in a row on the
 * floor: a fixed object B in the centre, two candidate bases A (B goes on top of one of them) on either side and, with
 * 3 roles, two candidate tops C (one goes on top of B) between them. Per role one candidate fits and one just fails,
 * by ESI's scale ratios of B's footprint. The question asks which A (and which C) to use, each named by where it lies
 * from B in the initial image (left, right, above, below: ESI's `spatial_relation_in_view`); the answer is ESI's
 * relation string, one per role (`{"A": …, "C": …}`, the format ESI's records and the importer give: `parts`).
 *
 * The label is a placement outcome, as ESI's: each candidate is placed on its target in the physics engine (B
 * dropped on the centre of each A's top; each C dropped on the centre of B, B resting on the A that fits), the world
 * settles for ESI's SETTLE_STEPS, and a candidate fits when it rests on its target and its AABB's X and Y spans are
 * within the target's (ESI's `check_on_top`). Exactly one candidate of each role must fit, else the draw is redone.
 *
 * What each arm can know: every object's box (extent, position) is geometry; the fit is a size comparison of
 * candidate and target spans at the precision the ratios leave (a candidate 0.88-0.93 of B's side fails).
 */
import type { Vec3 } from "../../../core/math/vec.js";
import type { AgentPose } from "../../../core/math/camera.js";
import type { AnswerSpec, TaskObject } from "../../../core/task/schema.js";
import { buildModel, categoryDef } from "../../../core/objects/library.js";
import { footprintFitMargin, viewRelation, type ViewRelation } from "../../../core/task/rules.js";
import { assignNames, defaultLighting, displayName, makeRoom, require, Resample, round4, SceneBuilder } from "./common.js";
import { initialView } from "./initialView.js";
import type { Draft, Generator } from "./draft.js";
import { withAnswerAt } from "./answerPlan.js";
import { orbitPoses } from "./gtTrajectory.js";
import { isVisible } from "./visibility.js";
import { PhysicsWorld } from "../physics/world.js";
import { addFloor } from "../physics/settle.js";
import { bodyOf } from "../physics/bodies.js";
import { DROP_CLEARANCE_M, PHYSICS_STEPS_PER_ESI_STEP, SETTLE_STEPS } from "../physics/params.js";

/**
 * The library's categories for ESI's roles (its GPT prompt, batch_action.py gpt_pick_hierarchy): obj_A a flat wide
 * base (plate, tray, cutting board, baking sheet, platter: the library's flat book and box), obj_fixed a medium
 * object with a top (bowl, pot, box, basket, crate), obj_C a small one (apple, orange, lemon, egg, small ball). Left
 * out of C: the egg (it stands on its tip and rolls off a top) and the lemon and lime (their long axis sets their
 * footprint's min side apart from the max one more than ESI's round foods do).
 */
const BASE_CATEGORIES = ["book", "cardboard_box"] as const;
const FIXED_CATEGORIES = ["bowl", "pot", "cardboard_box"] as const;
const TOP_CATEGORIES = ["apple", "orange", "peach", "tomato", "tennis_ball"] as const;
/** Roles per task: ESI's `--n_objects` choices 3 or 2 (its released records all have 3); the plan's form picks. */
const ROLE_COUNTS: readonly number[] = [3, 2];

/**
 * ESI's scale ratios (batch_action.py A_CORRECT_RATIO, A_WRONG_RATIO_SM, C_CORRECT_RATIO, C_WRONG_RATIO_LG): a
 * candidate's smaller footprint side over B's smaller side. ESI also draws, half of the time, an A "too large"
 * (1.25-1.35 of A_correct) and a C "too small" (0.65-0.75 of C_correct); by its own check_on_top both of those fit
 * (39 of 77 and 45 of 77 released records), so the label would not be a placement outcome. Only the failing modes
 * are drawn here.
 */
const A_CORRECT_RATIO: readonly [number, number] = [1.3, 1.5];
const A_WRONG_RATIO: readonly [number, number] = [0.88, 0.93];
const C_CORRECT_RATIO: readonly [number, number] = [0.55, 0.7];
const C_WRONG_RATIO: readonly [number, number] = [1.1, 1.3];
/** B's scale: ESI's GLOBAL_SCALE 0.5 shrinks BEHAVIOR-1K's models to table-top size; the library's are that already. */
const FIXED_SCALE = 1;
/** Gap between neighbours' boxes along the row (m): ESI's ROW_GAP (its records: median 0.200 m). */
const ROW_GAP_M = 0.2;
/** The row keeps this far from furniture (m): ours, room for the agent to pass. */
const ROW_CLEARANCE_M = 0.1;
/**
 * ESI's orbital camera (render_orbital; its records' orbital_geometry): radius = the objects' XY half-diagonal +
 * ORBIT_RADIUS_PAD 0.5 m; height = their mid height + 0.6 x radius + ORBIT_HEIGHT_PAD 0.6 m; aimed at the row's
 * midpoint at the mid height.
 */
const ORBIT_RADIUS_PAD_M = 0.5;
const ORBIT_HEIGHT_PAD_M = 0.6;
const ORBIT_HEIGHT_PER_RADIUS = 0.6;
/** ESI's 4 orbital azimuths, tried in its runner's order (tasks/action.py pick_best_view: 0, 2, 1, 3). */
const ORBIT_ORDER = [0, 2, 1, 3];
const ORBIT_VIEWS = 4;
/** Each object at least this visible in the initial view: ESI's runner starts where every object's exist flag is set. */
const INITIAL_MIN_VISIBLE = 0.5;
/** ESI's SETTLE_STEPS: steps a placement settles before check_on_top. */
const PLACE_SETTLE_STEPS = SETTLE_STEPS;
/** Relation parts' keys, as ESI's records key them (answer_A, answer_C; options_json {"A", "C"}). */
const BASE_PART = "A";
const TOP_PART = "C";

const IDENTITY = { x: 0, y: 0, z: 0, w: 1 };

/** One placement experiment: where the upper object ended and what ESI's check found. */
interface PlacementOutcome {
  fits: boolean;
  /** it touches its target after settling */
  rests: boolean;
  upperSpan: [number, number];
  lowerSpan: [number, number];
  /** footprintFitMargin of the spans (m) */
  margin: number;
  position: Vec3;
  orientation: TaskObject["orientation"];
}

const spanOf = (b: { min: Vec3; max: Vec3 }): [number, number] => [b.max[0] - b.min[0], b.max[1] - b.min[1]];

/**
 * Drops `upper`, squared (ESI's SQUARE_ORI), on the centre of `lower`'s top, DROP_CLEARANCE_M above it (the hands'
 * put_on), with `fixed` (lower among them) as fixed bodies, settles ESI's steps and applies check_on_top.
 */
function placeOn(roomSize: readonly [number, number], fixed: readonly TaskObject[], lower: TaskObject, upper: TaskObject): PlacementOutcome {
  const world = new PhysicsWorld();
  try {
    addFloor(world, roomSize);
    for (const o of fixed) world.addBody(bodyOf(o, { fixed: true }));
    const top = world.aabb(lower.id).max[2];
    world.addBody(bodyOf({ ...upper, position: [lower.position[0], lower.position[1], top + DROP_CLEARANCE_M + upper.extent[2] / 2], orientation: IDENTITY }));
    world.step(PLACE_SETTLE_STEPS * PHYSICS_STEPS_PER_ESI_STEP);
    const upperSpan = spanOf(world.aabb(upper.id));
    const lowerSpan = spanOf(world.aabb(lower.id));
    const rests = world.contacts(upper.id).includes(lower.id);
    const margin = footprintFitMargin(upperSpan, lowerSpan);
    const { position, orientation } = world.pose(upper.id);
    return { fits: rests && margin >= 0, rests, upperSpan, lowerSpan, margin, position, orientation };
  } finally {
    world.free();
  }
}

/** The roles' objects of a task, by id. */
interface Roles {
  fixed: number;
  bases: [number, number];
  tops: [number, number] | null;
}

/** Every role's experiments on the objects as placed: B on each A; each C on B resting on the A that fits (if one does). */
function runExperiments(roomSize: readonly [number, number], objects: readonly TaskObject[], roles: Roles) {
  const get = (id: number) => objects.find((o) => o.id === id)!;
  const b = get(roles.fixed);
  const bases = roles.bases.map((id) => placeOn(roomSize, [get(id)], get(id), b));
  const base = bases.findIndex((o) => o.fits);
  const tops =
    roles.tops && base >= 0 && bases.filter((o) => o.fits).length === 1
      ? roles.tops.map((id) => {
          const a = get(roles.bases[base]!);
          const bOnA = { ...b, position: bases[base]!.position, orientation: bases[base]!.orientation };
          return placeOn(roomSize, [a, bOnA], bOnA, get(id));
        })
      : null;
  return { bases, tops };
}

/** The one candidate that fits, or null when none or both do. */
const onlyFit = (outcomes: readonly PlacementOutcome[] | null): number | null => {
  if (!outcomes) return null;
  const fit = outcomes.flatMap((o, i) => (o.fits ? [i] : []));
  return fit.length === 1 ? fit[0]! : null;
};

/** Where each object lies from B in the view of `pose` (ESI's rule). */
const relationFrom = (pose: AgentPose, b: TaskObject, o: TaskObject): ViewRelation =>
  viewRelation([o.position[0] - b.position[0], o.position[1] - b.position[1], o.position[2] - b.position[2]], pose.yaw, pose.pitch);

/** The answer's parts from the experiments: each role's fitting candidate's relation, or why there is none. */
function derivedParts(roomSize: readonly [number, number], objects: readonly TaskObject[], roles: Roles, pose: AgentPose): Record<string, string> | string {
  const get = (id: number) => objects.find((o) => o.id === id)!;
  const b = get(roles.fixed);
  const ex = runExperiments(roomSize, objects, roles);
  const base = onlyFit(ex.bases);
  if (base === null) return `${ex.bases.filter((o) => o.fits).length} of the bases fit`;
  const parts: Record<string, string> = { [BASE_PART]: relationFrom(pose, b, get(roles.bases[base]!)) };
  if (roles.tops) {
    const top = onlyFit(ex.tops);
    if (top === null) return `${ex.tops?.filter((o) => o.fits).length ?? 0} of the tops fit`;
    parts[TOP_PART] = relationFrom(pose, b, get(roles.tops[top]!));
  }
  return parts;
}

/** A model's smaller footprint side at unit scale (ESI's `min(bbox x, bbox y)`). */
const minSide = (model: string): number => {
  const e = buildModel(model).extent;
  return Math.min(e[0], e[1]);
};

export const actionOrderInference: Generator = (rng, _ctx, plan): Draft => {
  const room = makeRoom(rng, "kitchen");
  const sb = new SceneBuilder(rng, room);
  sb.addWallFurniture(rng.int(1, 2), ["counter", "cabinet"]);
  const roleCount = ROLE_COUNTS[plan.form]!;
  const baseCat = rng.pick(BASE_CATEGORIES);
  const fixedCat = rng.pick(FIXED_CATEGORIES.filter((c) => c !== baseCat));
  const topCat = roleCount === 3 ? rng.pick(TOP_CATEGORIES) : null;
  const modelOf = (c: string) => rng.pick(categoryDef(c).models);
  const fixedModel = modelOf(fixedCat);
  const baseModel = modelOf(baseCat);
  const topModel = topCat ? modelOf(topCat) : null;
  // ESI's scales: every ratio is of B's smaller side; the two candidates of a role share one model and one look
  const fixedSide = minSide(fixedModel.id) * FIXED_SCALE;
  const ratios = {
    baseCorrect: rng.uniform(...A_CORRECT_RATIO),
    baseWrong: rng.uniform(...A_WRONG_RATIO),
    topCorrect: topModel ? rng.uniform(...C_CORRECT_RATIO) : null,
    topWrong: topModel ? rng.uniform(...C_WRONG_RATIO) : null,
  };
  const scaleFor = (model: string, ratio: number) => round4((fixedSide * ratio) / minSide(model));
  const baseColor = rng.pick(baseModel.palette);
  const topColor = topModel ? rng.pick(topModel.palette) : "";

  // ESI's row: A_left, C_left, B, C_right, A_right (2 roles: A_left, B, A_right); which candidate goes left is a coin
  type Slot = { category: string; model: string; scale: number; color: string; role: string; kind: string };
  const baseSlots: Slot[] = [
    { category: baseCat, model: baseModel.id, scale: scaleFor(baseModel.id, ratios.baseCorrect), color: baseColor, role: "target", kind: "A_correct" },
    { category: baseCat, model: baseModel.id, scale: scaleFor(baseModel.id, ratios.baseWrong), color: baseColor, role: "target", kind: "A_wrong" },
  ];
  const topSlots: Slot[] = topModel
    ? [
        { category: topCat!, model: topModel.id, scale: scaleFor(topModel.id, ratios.topCorrect!), color: topColor, role: "target", kind: "C_correct" },
        { category: topCat!, model: topModel.id, scale: scaleFor(topModel.id, ratios.topWrong!), color: topColor, role: "target", kind: "C_wrong" },
      ]
    : [];
  const fixedSlot: Slot = { category: fixedCat, model: fixedModel.id, scale: FIXED_SCALE, color: rng.pick(fixedModel.palette), role: "reference", kind: "B" };
  const [aLeft, aRight] = rng.bool() ? baseSlots : [baseSlots[1]!, baseSlots[0]!];
  const [cLeft, cRight] = topSlots.length ? (rng.bool() ? topSlots : [topSlots[1]!, topSlots[0]!]) : [undefined, undefined];
  const row = [aLeft!, ...(cLeft ? [cLeft] : []), fixedSlot, ...(cRight ? [cRight] : []), aRight!];

  // a random row angle (ESI: uniform over the circle); objects stay squared to the world (SQUARE_ORI)
  const angle = rng.uniform(0, 2 * Math.PI);
  const axis: [number, number] = [Math.cos(angle), Math.sin(angle)];
  const extents = row.map((s) => SceneBuilder.scaledExtent(s.model, s.scale));
  const along = extents.map((e) => Math.abs((e[0] / 2) * axis[0]) + Math.abs((e[1] / 2) * axis[1]));
  const across = extents.map((e) => Math.abs((e[0] / 2) * axis[1]) + Math.abs((e[1] / 2) * axis[0]));
  const span = along.reduce((s, h) => s + 2 * h, 0) + ROW_GAP_M * (row.length - 1);
  const spot = sb.findFloorSpot([span / 2, Math.max(...across)], ROW_CLEARANCE_M, angle);
  require(spot, "no floor room for the row");
  let cursor = -span / 2;
  const placed = row.map((s, i) => {
    const t = cursor + along[i]!;
    cursor += 2 * along[i]! + ROW_GAP_M;
    return sb.add(s.category, { model: s.model, scale: s.scale, color: s.color, x: spot[0] + t * axis[0], y: spot[1] + t * axis[1], role: s.role });
  });
  assignNames(sb.objects);
  const byKind = (kind: string) => placed[row.findIndex((s) => s.kind === kind)]!;
  const roles: Roles = {
    fixed: byKind("B").id,
    bases: [byKind("A_correct").id, byKind("A_wrong").id],
    tops: topSlots.length ? [byKind("C_correct").id, byKind("C_wrong").id] : null,
  };

  // ESI's orbit around the row's midpoint (the first and last centres' mean)
  const first = placed[0]!,
    last = placed[placed.length - 1]!;
  const centre: Vec3 = [(first.position[0] + last.position[0]) / 2, (first.position[1] + last.position[1]) / 2, 0];
  const lo = [0, 1, 2].map((k) => Math.min(...placed.map((o) => o.position[k]! - o.extent[k]! / 2)));
  const hi = [0, 1, 2].map((k) => Math.max(...placed.map((o) => o.position[k]! + o.extent[k]! / 2)));
  const halfDiag = Math.hypot((hi[0]! - lo[0]!) / 2, (hi[1]! - lo[1]!) / 2);
  const radius = halfDiag + ORBIT_RADIUS_PAD_M;
  centre[2] = (lo[2]! + hi[2]!) / 2;
  const height = centre[2] + ORBIT_HEIGHT_PER_RADIUS * radius + ORBIT_HEIGHT_PAD_M;
  let initial: ReturnType<typeof initialView> | null = null;
  let orbitIndex = -1;
  for (const k of ORBIT_ORDER) {
    const a = (2 * Math.PI * k) / ORBIT_VIEWS;
    try {
      initial = initialView(sb, [centre[0] + radius * Math.cos(a), centre[1] + radius * Math.sin(a), height], centre);
      orbitIndex = k;
      break;
    } catch (e) {
      // blocked (a wall, furniture): the runner's next azimuth
      if (!(e instanceof Resample)) throw e;
    }
  }
  require(initial, "every orbital view is blocked");
  const pose = initial.agent;

  const parts = derivedParts(room.size, sb.objects, roles, pose);
  require(typeof parts !== "string", `placement outcomes: ${parts}`);
  const ex = runExperiments(room.size, sb.objects, roles);
  const fixed = byKind("B");
  const rel = (kind: string) => relationFrom(pose, fixed, byKind(kind));
  // the right candidate by construction is the one the placements found
  require(parts[BASE_PART] === rel("A_correct"), "the base that fits is not the one drawn to fit");
  require(rel("A_correct") !== rel("A_wrong"), "both bases lie on one side of B in the view");
  const baseOptions: string[] = withAnswerAt<string>(plan.slot, rel("A_correct"), [rel("A_wrong")]);
  const spec: AnswerSpec = { kind: "parts", parts: [{ key: BASE_PART, options: baseOptions, answer: rel("A_correct") }] };
  let topOptions: string[] = [];
  if (topCat) {
    require(parts[TOP_PART] === rel("C_correct"), "the top that fits is not the one drawn to fit");
    require(rel("C_correct") !== rel("C_wrong"), "both tops lie on one side of B in the view");
    topOptions = rng.shuffle([rel("C_correct"), rel("C_wrong")]);
    // one relation vocabulary per question: the options are the base's pair
    require(topOptions.every((o) => baseOptions.includes(o)), "the tops' relations are not the bases' pair");
    spec.parts.push({ key: TOP_PART, options: topOptions, answer: rel("C_correct") });
  }
  const answer = JSON.stringify(Object.fromEntries(spec.parts.map((p) => [p.key, p.answer])));

  const [a, bName, c] = [displayName(baseCat), displayName(fixedCat), topCat ? displayName(topCat) : ""];
  // ESI's templates (batch_action.py qa_per_view), the candidates' relations in the options' order
  const question = topCat
    ? `Which ${a} should go under the ${bName} as its base, and which ${c} should go on top of the ${bName}? ` +
      `The ${a} to the ${baseOptions[0]} or ${baseOptions[1]} of the ${bName}? The ${c} to the ${topOptions[0]} or ${topOptions[1]} of the ${bName}?`
    : `Which ${a} should you place under the ${bName} as its base — the one to the ${baseOptions[0]} or the one to the ${baseOptions[1]} of the ${bName}?`;
  const ids = placed.map((o) => o.id);
  const outcome = (o: PlacementOutcome) => ({
    fits: o.fits,
    rests: o.rests,
    upper_span_m: o.upperSpan.map(round4),
    lower_span_m: o.lowerSpan.map(round4),
    margin_m: round4(o.margin),
  });
  return {
    roomType: "kitchen",
    room,
    objects: sb.objects,
    lighting: defaultLighting(rng),
    ...initial,
    question,
    answer,
    answerFormat: "parts",
    answerSpec: spec,
    options: baseOptions,
    relevant: ids,
    metadata: {
      role_count: roleCount,
      hierarchy: { base: baseCat, fixed: fixedCat, top: topCat, relation_base: "on_top_of", relation_top: topCat ? "on_top_of" : null },
      roles: Object.fromEntries(row.map((s, i) => [s.kind, placed[i]!.id])),
      ratios: Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, v === null ? null : round4(v)])),
      fixed_min_side_m: round4(fixedSide),
      row_order: row.map((s) => s.kind),
      row_angle_rad: round4(angle),
      row_gap_m: ROW_GAP_M,
      orbit: { index: orbitIndex, radius_m: round4(radius), height_m: round4(height), centre_z_m: round4(centre[2]) },
      relations: Object.fromEntries(row.filter((s) => s.kind !== "B").map((s) => [s.kind, rel(s.kind)])),
      placements: {
        base_on: ex.bases.map(outcome),
        top_on: ex.tops?.map(outcome) ?? null,
      },
      // the hands watch a placement as long as the experiment did (physics/taskWorld.ts)
      settle_steps: PLACE_SETTLE_STEPS,
      physics_steps_per_step: PHYSICS_STEPS_PER_ESI_STEP,
    },
    derive: (objects) => {
      const p = derivedParts(room.size, objects, roles, pose);
      return typeof p === "string" ? `(${p})` : JSON.stringify(p);
    },
    checkInitialView: (p) => {
      for (const o of placed) if (p.fraction(o.id) < INITIAL_MIN_VISIBLE) return `${o.name} is ${(p.fraction(o.id) * 100).toFixed(0)} % visible`;
      return null;
    },
    gtGoals: [(v) => ids.every((id) => isVisible(v, id))],
    gtKeyPoses: orbitPoses(centre, [radius], [height], 12),
  };
};
