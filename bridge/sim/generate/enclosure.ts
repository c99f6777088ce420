/**
 * Structural Enclosure (the ESI-Bench paper, Q.23): closed boxes on the floor or a table, a random subset holding
 * one target each near the centre of the box; count the targets. The pool, the initial view and the four integer
 * options are Counting w Occlusion's (Q.19, counting.ts). The boxes are open-top box containers of the library
 * with a separate `box_lid` object resting on the rim (support = the box), so that every passive view sees the
 * lids and walls only, and opening a box (moving its lid) reveals what is inside.
 */
import type { Vec3 } from "../../../core/math/vec.js";
import type { AgentPose } from "../../../core/math/camera.js";
import { HEIGHT_STEP_M } from "../../../core/task/actions.js";
import type { Rng } from "../../../core/math/rng.js";
import type { TaskObject } from "../../../core/task/schema.js";
import { categoryDef, lidScaleFor, LIBRARY } from "../../../core/objects/library.js";
import { interiorOf } from "../../../core/objects/containers.js";
import { objectBox } from "../../../core/objects/geometry.js";
import { inFootprint, sightClearsRim } from "../../../core/geometry.js";
import { assignNames, defaultLighting, integerOptions, pluralName, require, SceneBuilder } from "./common.js";
import { agentClear, COUNT_CATEGORIES, COUNT_CLEAR_VIEW_PX, countingScene, SECOND_VANTAGE_M, spotInView, type CountingScene } from "./counting.js";
import type { Draft } from "./draft.js";
import { orbitPoses, type ViewGoal } from "./gtTrajectory.js";
import { isVisible, VISIBLE_MIN_PX } from "./visibility.js";
import type { GeneratorContext } from "./options.js";
import type { AnswerPlan } from "./answerPlan.js";

/** Box types that open and close (ESI Q.23: "several box types that can all open and close"): the library's box containers. */
const ENCLOSURE_BOX_CATEGORIES: readonly string[] = [...LIBRARY.values()]
  .filter((c) => c.flags.rigidContainer && c.flags.interior?.shape === "box")
  .map((c) => c.category);
/** The lid's category (library flag `lid`). */
const LID_CATEGORY = "box_lid";
/** Boxes per scene: ESI-Bench's released Structural Enclosure records hold 5 containers each (`source_candidates`: 5). */
const BOX_COUNT = 5;
/**
 * Uniform scale of a box over its library model: ESI's released boxes measure 0.27-0.52 m across and 0.27-0.31 m high
 * (`resolved_objects.containers[].bbox`); ours span 0.4-0.6 m across, 0.25-0.36 m high, so size tells nothing.
 */
export const BOX_SCALE: [number, number] = [1.0, 1.2];
/** A target keeps this clearance (m) from the box's inner walls and from the lid: ours, so it never touches either. */
const TARGET_CLEARANCE_M = 0.02;
/**
 * Share of scenes with a table, on which one box stands: ESI puts a container on a valid support such as a table
 * or on free floor (Q.23); its released sample has all on the floor (`placement_type`), ours exercises both.
 */
const TABLE_SHARE = 0.5;
/** Boxes and the table stand this far (m) from the agent along the view: counting.ts's spots, a bit deeper for 5 boxes. */
export const BOX_DISTANCE_M: [number, number] = [1.6, 3.4];
/** Floor clearance (m) between neighbouring boxes, so each box and lid shows as its own object. Ours. */
export const BOX_GAP_M = 0.15;
/**
 * The ground-truth trajectory opens each box from poses this far (m) from its centre, at the agent's eye height: within
 * the hands' reach of a 0.4-0.6 m box, close enough to see down into it once open. Ours.
 */
export const GT_OPEN_RADII_M = [0.6, 0.85];
/** Eye heights of the opening's key poses: the agent's, and one and two of ESI's 0.25 m `move_up` steps above (a box on a table). */
export const GT_OPEN_HEIGHTS_M = (eye: number) => [eye, eye + HEIGHT_STEP_M, eye + 2 * HEIGHT_STEP_M];
/** Key poses per radius around a box for its opening. */
export const GT_OPEN_AZIMUTHS = 8;
/**
 * After opening a box the trajectory looks into it: the view's axis within this of the box's inner floor (deg). Half
 * the diagonal of a 15 deg yaw and pitch step, plus a margin, so some pose on the lattice meets it.
 */
const LOOK_INTO_DEG = 12;

/**
 * Whether a view looks into an open box: its optical axis within LOOK_INTO_DEG of the inner floor's centre, and the
 * sightline to it passing over the near rim (the eye high enough: a box on a table needs a step up).
 */
export function looksInto(pose: AgentPose, box: TaskObject): boolean {
  const p = innerFloor(box);
  const d = [p[0] - pose.position[0], p[1] - pose.position[1], p[2] - pose.position[2]];
  const axis = [Math.cos(pose.pitch) * Math.cos(pose.yaw), Math.cos(pose.pitch) * Math.sin(pose.yaw), Math.sin(pose.pitch)];
  const cos = (d[0]! * axis[0]! + d[1]! * axis[1]! + d[2]! * axis[2]!) / Math.hypot(d[0]!, d[1]!, d[2]!);
  return (
    cos >= Math.cos((LOOK_INTO_DEG * Math.PI) / 180) &&
    sightClearsRim(pose.position, p, Math.min(box.extent[0], box.extent[1]) / 2, box.position[2] + box.extent[2] / 2)
  );
}

/** The box (container) each target centre lies in: the derivation of the answer from geometry alone. */
function targetsInBoxes(objects: readonly TaskObject[], category: string): TaskObject[] {
  const boxes = objects.filter((o) => ENCLOSURE_BOX_CATEGORIES.includes(o.category)).map(objectBox);
  return objects.filter((o) => {
    if (o.category !== category) return false;
    const [x, y, z] = o.position;
    return boxes.some((b) => inFootprint(b, x, y) && Math.abs(z - b.centre[2]) <= b.extent[2] / 2);
  });
}

/** Count categories whose unrotated box fits every box type's interior at the smallest scale, with clearance. */
export const FITTING_CATEGORIES = COUNT_CATEGORIES.filter((c) => {
  const t = SceneBuilder.scaledExtent(`${c}/0`, 1);
  return ENCLOSURE_BOX_CATEGORIES.every((bc) => {
    const inner = interiorOf(bc, SceneBuilder.scaledExtent(categoryDef(bc).models[0]!.id, BOX_SCALE[0]))!.extent;
    return t[0] + 2 * TARGET_CLEARANCE_M <= inner[0] && t[1] + 2 * TARGET_CLEARANCE_M <= inner[1] && t[2] + TARGET_CLEARANCE_M <= inner[2];
  });
});

/** A table in view (its top's height), or null when the floor in view has no room for one. */
function tableInView(s: CountingScene): { table: TaskObject; top: number } | null {
  const model = s.b.rng.pick(categoryDef("table").models).id;
  const e = SceneBuilder.scaledExtent(model, 1);
  const yaw = s.agent.yaw + Math.PI / 2 + s.b.rng.uniform(-0.3, 0.3);
  const spot = spotInView(s, [e[0] / 2 + 0.1, e[1] / 2 + 0.1], BOX_DISTANCE_M, yaw, 0.3);
  if (!spot) return null;
  const table = s.b.add("table", { model, x: spot[0], y: spot[1], yaw, role: "support" });
  return { table, top: table.position[2] + table.extent[2] / 2 };
}

/**
 * A closed box at (x, y) standing on `bottom` (support: a table's id or the floor), its lid resting on the rim; of a
 * random box category and colour unless `look` fixes them.
 */
export function closedBox(
  b: SceneBuilder,
  x: number,
  y: number,
  bottom: number,
  support: number | "floor",
  look?: { category: string; color: string },
): { box: TaskObject; lid: TaskObject } {
  const category = look?.category ?? b.rng.pick(ENCLOSURE_BOX_CATEGORIES);
  const scale = b.rng.uniform(...BOX_SCALE);
  const yaw = b.rng.uniform(-Math.PI, Math.PI);
  const box = b.add(category, { x, y, bottom, yaw, scale, role: "container", support, ...(look ? { color: look.color } : {}) });
  const top = box.position[2] + box.extent[2] / 2;
  const lid = b.add(LID_CATEGORY, { x, y, bottom: top, yaw, scale: lidScaleFor(box.extent), color: box.color, role: "lid", support: box.id });
  return { box, lid };
}

/** One target near the centre of the box's interior: on its inner bottom, aligned with the box (the way it fits). */
export function targetInside(b: SceneBuilder, box: TaskObject, category: string): TaskObject {
  const inner = interiorOf(box.category, box.extent)!.extent;
  const t = SceneBuilder.scaledExtent(`${category}/0`, 1);
  const boxYaw = objectBox(box).yaw;
  // across the box when only that way fits
  const along = t[0] + 2 * TARGET_CLEARANCE_M <= inner[0] && t[1] + 2 * TARGET_CLEARANCE_M <= inner[1];
  const yaw = boxYaw + (along ? 0 : Math.PI / 2) + (b.rng.bool(0.5) ? Math.PI : 0);
  const innerBottom = box.position[2] + box.extent[2] / 2 - inner[2];
  return b.add(category, { x: box.position[0], y: box.position[1], bottom: innerBottom, yaw, role: "target", support: box.id });
}

export function structuralEnclosure(rng: Rng, ctx: GeneratorContext, plan: AnswerPlan): Draft {
  const s = countingScene(rng, "living_room", ctx.camera);
  const { b } = s;
  require(FITTING_CATEGORIES.length > 0, "no count category fits the boxes");
  const category = rng.pick(FITTING_CATEGORIES);
  const closed: Array<{ box: TaskObject; lid: TaskObject }> = [];
  const onTable = rng.bool(TABLE_SHARE) ? tableInView(s) : null;
  if (onTable) closed.push(closedBox(b, onTable.table.position[0], onTable.table.position[1], onTable.top, onTable.table.id));
  // the largest box's footprint (with its lid's overhang) bounds every floor spot
  const half =
    Math.max(...ENCLOSURE_BOX_CATEGORIES.map((c) => Math.hypot(...SceneBuilder.scaledExtent(categoryDef(c).models[0]!.id, BOX_SCALE[1]).slice(0, 2)))) / 2 +
    0.01;
  while (closed.length < BOX_COUNT) {
    const spot = spotInView(s, [half, half], BOX_DISTANCE_M, 0, BOX_GAP_M);
    require(spot, "no free floor in view for a box");
    closed.push(closedBox(b, spot[0], spot[1], 0, "floor"));
  }
  // a random subset holds one target each (ESI Q.23), every subset alike: each box is filled with probability 1/2
  const filled = closed.map((c) => c.box).filter(() => rng.bool(0.5));
  const n = filled.length;
  require(n >= plan.slot, `count ${n} below the planned option slot ${plan.slot}`);
  const targets = filled.map((box) => targetInside(b, box, category));
  assignNames(b.objects);
  const boxes = closed.map((c) => c.box);
  const boxIds = boxes.map((o) => o.id);
  const start = s.agent.position;
  const gtGoals: ViewGoal[] = [
    ...boxIds.map((id) => (v: Parameters<ViewGoal>[0]) => isVisible(v, id, COUNT_CLEAR_VIEW_PX)),
    (v) =>
      Math.hypot(v.pose.position[0] - start[0], v.pose.position[1] - start[1]) >= SECOND_VANTAGE_M &&
      boxIds.filter((id) => isVisible(v, id)).length >= Math.ceil(boxIds.length / 2),
  ];
  const gtKeyPoses = boxes.flatMap((o) => orbitPoses(o.position as Vec3, [0.9, 1.3, 1.8], [0.8, 1.25], 8, rng.uniform(0, Math.PI)));
  // as ESI's experts in GT-Passive (GT 3D + Gemini 100 % there), once the boxes are seen: open them, nearest first,
  // as many as the 30-step budget allows (walking 0.25 m a step, within the hands' 1 m reach of each: 2-4 of 5)
  const gtActs = nearestFirst(boxes, start).map((box) => ({
    action: "open" as const,
    id: box.id,
    keyPoses: orbitPoses(innerFloor(box), GT_OPEN_RADII_M, GT_OPEN_HEIGHTS_M(start[2]), GT_OPEN_AZIMUTHS, rng.uniform(0, Math.PI)),
    ifBudgetAllows: true,
    after: [(v: Parameters<ViewGoal>[0]) => looksInto(v.pose, box)],
  }));
  return {
    roomType: "living_room",
    room: b.room,
    objects: b.objects,
    lighting: defaultLighting(rng),
    agent: agentClear(b, s.agent),
    // ESI's released records ask for the scene's count ("how many objects of category X are present in this scene?"),
    // in the wording of the other counting tasks
    question: `How many ${pluralName(category)} are there in the room?`,
    answer: String(n),
    answerFormat: "integer",
    options: integerOptions(plan, n),
    // the boxes: the targets are never visible while their boxes are closed
    relevant: boxIds,
    metadata: {
      count: n,
      category,
      boxes: boxIds,
      lids: closed.map((c) => c.lid.id),
      filled_boxes: filled.map((o) => o.id),
      table: onTable ? onTable.table.id : null,
    },
    derive: (objects) => String(targetsInBoxes(objects, category).length),
    checkInitialView: (p) => {
      for (const t of targets) if ((p.counts.get(t.id) ?? 0) > 0) return `target ${t.id} inside a closed box is visible in the initial view`;
      const seen = boxIds.filter((id) => (p.counts.get(id) ?? 0) >= VISIBLE_MIN_PX).length;
      return seen > 0 ? null : "no box visible in the initial view";
    },
    gtActs,
    gtGoals,
    gtKeyPoses,
  };
}

/** A box's inner floor centre: where the trajectory looks once the box is open. */
export function innerFloor(box: TaskObject): Vec3 {
  const inner = interiorOf(box.category, box.extent)!.extent;
  return [box.position[0], box.position[1], box.position[2] + box.extent[2] / 2 - inner[2]];
}

/** Objects in a greedy walking order from a point: each time the nearest on the floor plan to the last one. */
export function nearestFirst(objects: readonly TaskObject[], from: readonly number[]): TaskObject[] {
  const left = [...objects],
    out: TaskObject[] = [];
  let at = from;
  while (left.length) {
    const d = (o: TaskObject) => Math.hypot(o.position[0] - at[0]!, o.position[1] - at[1]!);
    const k = left.reduce((best, o, i) => (d(o) < d(left[best]!) ? i : best), 0);
    const [o] = left.splice(k, 1);
    out.push(o!);
    at = o!.position;
  }
  return out;
}
