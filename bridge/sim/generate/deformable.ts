/**
 * Physical Structure (the ESI-Bench paper, Appendix Q.3; ESI-Bench's released generator batch_deformable.py):
 * Deformable. A small portable object stands on free floor under a cloth of side <= 50 cm; the question asks what is
 * under the cloth, with the object's category and 3 distractor categories as options A-D. The cloth's shape is
 * core/objects/drape.ts's drape over the object (ESI simulates the cloth in OmniGibson; esi3d has no soft bodies),
 * so passive views see only the drape, whose height and footprint follow the hidden object's shape.
 *
 * What each arm can know: the drape's size and shape (a 3D node's box, a 2D mask's outline); the category itself only
 * once the cloth is lifted (`pick_up` of the cloth, which the ground-truth trajectory does once the engine runs
 * manipulation; until then its views are camera moves around the covered object).
 */
import type { Vec3 } from "../../../core/math/vec.js";
import { buildModel, categoryDef, LIBRARY } from "../../../core/objects/library.js";
import { CLOTH_CATEGORY, CLOTH_MAX_SIDE_M, covers, drapeBox, drapeCloth, DRAPE_SLOPE_DEG } from "../../../core/objects/drape.js";
import { withAnswerAt } from "./answerPlan.js";
import { defaultLighting, displayName, makeRoom, require, round4, SceneBuilder } from "./common.js";
import { initialView } from "./initialView.js";
import type { Draft, Generator } from "./draft.js";
import { orbitPoses } from "./gtTrajectory.js";
import { isVisible } from "./visibility.js";

/**
 * ESI's object pool: portable objects of average radius 5-15 cm (its small_portable_item_candidates_5to15cm list).
 * ESI does not say how it averages; ours: the mean of the object's three box half-extents (a sphere of that radius
 * has the box's mean size). Portable: the library's hand-held groups (no furniture, no cloth).
 */
const AVERAGE_RADIUS_RANGE_M: readonly [number, number] = [0.05, 0.15];
const PORTABLE_GROUPS: ReadonlySet<string> = new Set(["fruit", "ball", "kitchen", "toy", "decor", "stationery", "container"]);
/** Options per question: ESI's A-D (the target and 3 distractor categories from the rest of the pool). */
const DEFORMABLE_OPTION_COUNT = 4;
/** ESI's DEFAULT_ITEM_FREE_RADIUS_M: the target's centre keeps this clearance (m) from every other object. */
const ITEM_FREE_RADIUS_M = 0.3;
/**
 * The cloth's side (m): ESI's cloth assets have side <= 50 cm (their sizes are not released; the records' settled
 * footprints are 16-27 cm, crumpled). Ours: drawn uniformly in this range above the object's smallest covering side
 * (`minCoveringSide`), so the drape reaches the floor all round (else the object would show under its edge).
 */
const CLOTH_SIDE_RANGE_M: readonly [number, number] = [0.3, CLOTH_MAX_SIDE_M];
/**
 * ESI's main view (`_main_view_camera_params`): the footprint (the drape's largest XY side, floored at 5 cm) maps
 * linearly from 0.10..0.40 m onto distance 0.45..0.68 m and height 0.24..0.40 m above the aim point, at azimuth
 * -90 deg (the camera on the -Y side, looking +Y). The aim point is the drape's centre at the higher of the object's
 * and the cloth's box centres.
 */
const MAIN_VIEW = {
  azimuthDeg: -90,
  footprintFloorM: 0.05,
  footprintRangeM: [0.1, 0.4] as const,
  distanceRangeM: [0.45, 0.68] as const,
  heightOffsetRangeM: [0.24, 0.4] as const,
};
/** ESI's DEFAULT_CAMERA_FOV_DEG for this task: 70 (the suite's default 518x392 camera). */
const DEFORMABLE_FOV_DEG = 70;
/** ESI's question text (batch_deformable.py). */
const QUESTION = "What object is under this cloth?";
/** Ground-truth views: orbits around the covered object at the suite's usual radii and eye heights (ours). */
const GT_RADII_M = [0.7, 1.0];
/** Radii the trajectory lifts the cloth from (m): within the hands' 1 m reach of its edge. */
const GT_ACT_RADII_M = [0.5, 0.7];
const GT_HEIGHTS_M = [0.6, 0.9];
/** The cloth fills at least this much of its own silhouette in the initial view (ours: it is the task's subject). */
const INITIAL_MIN_CLOTH_FRACTION = 0.9;

/** ESI's average radius, ours: the mean half-extent of a model's box. */
const averageRadius = (model: string): number => {
  const e = buildModel(model).extent;
  return (e[0] + e[1] + e[2]) / 6;
};

/** Bisection steps of a model's smallest covering cloth: 0.3 m / 2^7, about 2 mm. */
/**
 * A drawn cloth is at least this much (m) larger than the smallest covering side: the drape's sample grid falls
 * differently at another position, which moves the covering side by a few millimetres. Ours.
 */
const COVER_SIDE_MARGIN_M = 0.01;
const COVER_SIDE_STEPS = 7;
const coverCache = new Map<string, number | null>();

/**
 * The smallest cloth side (m, in CLOTH_SIDE_RANGE_M's span from 0.2 m) whose drape reaches the floor all round the
 * model standing alone, or null when not even a CLOTH_MAX_SIDE_M cloth does. Computed once per model.
 */
function minCoveringSide(model: string): number | null {
  if (coverCache.has(model)) return coverCache.get(model)!;
  const e = buildModel(model).extent;
  const obj = {
    id: 1,
    category: "probe",
    model,
    name: "probe",
    role: "target",
    position: [0, 0, e[2] / 2] as Vec3,
    orientation: { x: 0, y: 0, z: 0, w: 1 },
    extent: e,
    scale: 1,
    color: "grey",
    transparent: false,
  };
  const coversWith = (side: number) => covers(drapeCloth({ id: 2, position: [0, 0, 0], scale: [side, side, 1] }, [obj]));
  let result: number | null = null;
  if (coversWith(CLOTH_MAX_SIDE_M)) {
    let lo = 0.2,
      hi = CLOTH_MAX_SIDE_M;
    for (let k = 0; k < COVER_SIDE_STEPS; k++) {
      const mid = (lo + hi) / 2;
      if (coversWith(mid)) hi = mid;
      else lo = mid;
    }
    result = round4(hi);
  }
  coverCache.set(model, result);
  return result;
}

/**
 * The pool: portable categories whose every model's average radius lies in AVERAGE_RADIUS_RANGE_M and that a cloth
 * of side CLOTH_MAX_SIDE_M covers (ESI's passive views see only the cloth: an object taller than its cloth could
 * drape would show, and the question would ask nothing). Targets and distractors both come from it, so no option is
 * one the cloth could never hide.
 */
function deformablePool(): string[] {
  return [...LIBRARY.values()]
    .filter(
      (c) =>
        PORTABLE_GROUPS.has(c.group) &&
        c.models.every(
          (m) => averageRadius(m.id) >= AVERAGE_RADIUS_RANGE_M[0] && averageRadius(m.id) <= AVERAGE_RADIUS_RANGE_M[1] && minCoveringSide(m.id) !== null,
        ),
    )
    .map((c) => c.category);
}

/** ESI's camera params of a footprint: [distance, height offset] (m). */
function mainViewParams(footprint: number): [number, number] {
  const f = Math.max(footprint, MAIN_VIEW.footprintFloorM);
  const [f0, f1] = MAIN_VIEW.footprintRangeM;
  const t = Math.min(Math.max((f - f0) / (f1 - f0), 0), 1);
  const lerp = ([a, b]: readonly [number, number]) => a + (b - a) * t;
  return [lerp(MAIN_VIEW.distanceRangeM), lerp(MAIN_VIEW.heightOffsetRangeM)];
}

export const deformable: Generator = (rng, _ctx, plan): Draft => {
  const room = makeRoom(rng, "living_room");
  const b = new SceneBuilder(rng, room);
  b.addWallFurniture(rng.int(1, 2), ["cabinet", "bookshelf", "sofa"]);
  const pool = deformablePool();
  const category = rng.pick(pool);
  const distractors = rng.sample(
    pool.filter((c) => c !== category),
    DEFORMABLE_OPTION_COUNT - 1,
  );
  const model = rng.pick(categoryDef(category).models).id;
  const spot = b.findFloorSpot([ITEM_FREE_RADIUS_M, ITEM_FREE_RADIUS_M], 0, 0);
  require(spot, "no free floor for the covered object");
  const target = b.add(category, { model, x: spot[0], y: spot[1], yaw: 0, role: "target" });
  // a cloth that covers this object: from its smallest covering side (or the range's lower end) up to 50 cm
  const side = round4(
    rng.uniform(Math.min(CLOTH_SIDE_RANGE_M[1], Math.max(CLOTH_SIDE_RANGE_M[0], minCoveringSide(model)! + COVER_SIDE_MARGIN_M)), CLOTH_SIDE_RANGE_M[1]),
  );
  const cloth = b.add(CLOTH_CATEGORY, { x: spot[0], y: spot[1], scale: [side, side, 1], role: "cover", support: target.id });
  const drape = drapeCloth(cloth, b.objects);
  require(covers(drape), `a ${side} m cloth does not reach the floor all round the ${category}`);
  const box = drapeBox(drape);
  cloth.position = [round4(box.centre[0]), round4(box.centre[1]), round4(box.centre[2])];
  cloth.extent = [round4(box.extent[0]), round4(box.extent[1]), round4(box.extent[2])];

  const footprint = Math.max(cloth.extent[0], cloth.extent[1]);
  const [distance, heightOffset] = mainViewParams(footprint);
  const aim: Vec3 = [cloth.position[0], cloth.position[1], Math.max(target.position[2], cloth.position[2])];
  const az = (MAIN_VIEW.azimuthDeg * Math.PI) / 180;
  const eye: Vec3 = [aim[0] + distance * Math.cos(az), aim[1] + distance * Math.sin(az), aim[2] + heightOffset];
  const initial = initialView(b, eye, aim);

  const options = withAnswerAt(plan.slot, category, rng.fork("options").shuffle(distractors)).map(displayName);
  const answer = displayName(category);
  return {
    roomType: "living_room",
    room,
    objects: b.objects,
    lighting: defaultLighting(rng),
    ...initial,
    question: QUESTION,
    answer,
    answerFormat: "choice",
    options,
    // the cloth is what every view shows; the object under it shows only once the cloth is lifted
    relevant: [cloth.id, target.id],
    allowedOverlaps: [[cloth.id, target.id]],
    metadata: {
      target_id: target.id,
      target_category: category,
      target_average_radius_m: round4(averageRadius(model)),
      distractor_categories: distractors,
      pool_size: pool.length,
      average_radius_range_m: AVERAGE_RADIUS_RANGE_M,
      item_free_radius_m: ITEM_FREE_RADIUS_M,
      cloth_id: cloth.id,
      cloth_side_m: side,
      drape_slope_deg: DRAPE_SLOPE_DEG,
      cloth_footprint_xy_m: round4(footprint),
      cloth_height_m: cloth.extent[2],
      main_view_azimuth_deg: MAIN_VIEW.azimuthDeg,
      distance_to_item_m: round4(distance),
      height_offset_m: round4(heightOffset),
      fov_deg: DEFORMABLE_FOV_DEG,
      target_xyz: aim.map(round4),
    },
    // the answer is the category of what the cloth rests on
    derive: (objects) => {
      const c = objects.find((o) => o.id === cloth.id);
      const under = objects.find((o) => o.id === c?.support);
      return under ? displayName(under.category) : "";
    },
    checkInitialView: (probe) => {
      if ((probe.counts.get(target.id) ?? 0) > 0) return `the covered ${category} shows (${probe.counts.get(target.id)} px)`;
      const f = probe.fraction(cloth.id);
      return f >= INITIAL_MIN_CLOTH_FRACTION ? null : `cloth ${Math.round(f * 100)} % visible`;
    },
    // as ESI's experts in GT-Passive: lift the cloth (from a pose within reach that sees it), then look at what it hid
    gtActs: [{ action: "pick_up", id: cloth.id, keyPoses: orbitPoses(aim, GT_ACT_RADII_M, GT_HEIGHTS_M) }],
    gtGoals: [(v) => isVisible(v, target.id)],
    gtKeyPoses: orbitPoses(aim, GT_RADII_M, GT_HEIGHTS_M),
  };
};
