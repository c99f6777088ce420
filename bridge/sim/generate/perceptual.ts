/**
 * Perceptual Grounding (the ESI-Bench paper, Appendix Q): Material Transparency, Partial Occlusion,
 * View Hallucination.
 */
import type { Vec3 } from "../../../core/math/vec.js";
import { rad, wrapAngle } from "../../../core/math/vec.js";
import { MIN_TASK_CAMERA_HEIGHT_M, type TaskObject } from "../../../core/task/schema.js";
import { categoryDef, LIBRARY } from "../../../core/objects/library.js";
import { CLOTH_CATEGORY } from "../../../core/objects/drape.js";
import { assignNames, defaultLighting, displayName, makeRoom, plannedYes, require, round4, SceneBuilder } from "./common.js";
import { initialView } from "./initialView.js";
import { withAnswerAt, type AnswerPlan } from "./answerPlan.js";
import type { Draft, Generator } from "./draft.js";
import { orbitPoses } from "./gtTrajectory.js";
import { objectBox } from "../../../core/objects/geometry.js";
import { boxBottom, boxDistance, boxTop, inFootprint } from "../../../core/geometry.js";
import { isVisible, visibleCounts, VISIBILITY_SCALE, VISIBLE_MIN_PX } from "./visibility.js";
import { BODY_CLEARANCE_M, MIN_CAMERA_HEIGHT_M } from "../agent.js";

const TRANSPARENT_CONTAINERS = ["glass", "jar", "glass_bowl"];
const SMALL_INSERTS = ["chestnut", "walnut", "marble", "dice", "egg"];
/** An inside object's largest dimension = min(U(l, u), ½ d_min) (ESI batch_transparent.py `SMALL_OBJ_SCALE_MIN/MAX`). */
const INSERT_SIZE_M: [number, number] = [0.025, 0.05];
/** A negative's largest dimension = min(U(l, u), ½ min(dx, dy) of the container) (ESI batch_transparent_false.py). */
const BEHIND_SIZE_M: [number, number] = [0.05, 0.075];
/** A negative's box this far behind the container's, seen from view 0 (ESI batch_transparent_false.py `BEHIND_GAP`). */
const BEHIND_GAP_M = 0.02;
/** Up to 8 sideways shifts of 0.05 m when the spot behind is taken (ESI batch_transparent_false.py). */
const LATERAL_SHIFT_M = 0.05;
const LATERAL_SHIFTS = 8;
/** Share of containers on the floor, the rest on a table (ESI: 67 of 97 configurations on the floor, 27 on a table; ESI-Bench's released generator scripts). */
const TRANSPARENCY_FLOOR_SHARE = 0.7;
/** View 0 stands the container's XY half-diagonal + 0.25 m away (ESI batch_transparent*.py, measured 0.29-0.71 m; ESI-Bench's released generator scripts). */
const TRANSPARENCY_VIEW_EXTRA_M = 0.25;
/** Free floor around a Material Transparency table (m): view 0's camera and the body clearance fit in it (ours). */
const TRANSPARENCY_TABLE_CLEARANCE_M = 0.6;
/** A Material Transparency table stands within this of the room's axes, so an edge faces view 0 (ours). */
const TRANSPARENCY_TABLE_YAW_JITTER_RAD = rad(20);
/** View 0 looks from -Y towards +Y, horizontally, at the object's height (ESI `0.png` azimuth 270 deg). */
const TRANSPARENCY_VIEW_AZIMUTH = -Math.PI / 2;
/** Every occluder box dimension is 1.1 x the target's corresponding one (ESI batch_occlusion_yining.py). */
const OCCLUDER_SCALE = 1.1;
/** Share of occlusion targets on the floor, the rest on a table (ESI batch_occlusion_yining.py: floor centre 88 of 95). */
const OCCLUSION_FLOOR_SHARE = 88 / 95;
/** Share of view-hallucination objects on the floor, the rest on a table (ESI batch_angle_confusion_yining.py: 390 floor / 47 table). */
const HALLUCINATION_FLOOR_SHARE = 390 / 437;
/** Initial view 15 deg off the occluder -> target axis, at the target's centre height (ESI batch_occlusion_yining.py). */
const OCCLUSION_VIEW_OFFSET_RAD = rad(15);
/** The initial view stands the target's XY half-diagonal + this far from it (ESI batch_occlusion_yining.py: "radius half-diagonal + 0.55"). */
const OCCLUSION_CAMERA_EXTRA_M = 0.55;
/** Targets for Partial Occlusion: categories with look-alikes whose distinguishing parts an occluder can hide. */
const OCCLUSION_TARGETS = ["mug", "kettle", "teddy_bear", "toy_car", "toy_truck", "shoe", "bottle", "vase", "potted_plant", "lamp", "clock", "pot"];
/**
 * Occluders: ESI scales "a random BEHAVIOR object" to the target's box (ESI-Bench's released generator scripts); ours is
 * any library category with a closed silhouette: not glass (seen through), not supports or dividers
 * (seen between their legs), not a box's lid (a part) or the robot (an agent), nor the cloth (Deformable's cover, whose shape is a drape over
 * what it covers, no box to scale). A generator excludes the question's options, so the occluder's name tells nothing
 * about the answer.
 */
const OCCLUDER_CATEGORIES = [...LIBRARY.values()]
  .filter((c) => !c.flags.transparentContainer && !c.flags.support && !c.flags.divider && !c.flags.lid && !c.flags.agent && c.category !== CLOTH_CATEGORY)
  .map((c) => c.category);
/** View Hallucination: categories whose identity depends on the viewing angle (library flag `ambiguous`). */
const AMBIGUOUS_CATEGORIES = [...LIBRARY.values()].filter((c) => c.flags.ambiguous).map((c) => c.category);

/** Puts a table in the room (`clearance` m of free floor around it for the agent, at a drawn yaw unless given) and returns it with its top height. */
function addTable(b: SceneBuilder, clearance = 1.0, givenYaw?: number): { table: TaskObject; top: number } {
  const model = b.rng.pick(categoryDef("table").models).id;
  const e = SceneBuilder.scaledExtent(model, 1);
  const yaw = givenYaw ?? b.rng.uniform(-Math.PI, Math.PI);
  const spot = b.findFloorSpot([e[0] / 2 + clearance, e[1] / 2 + clearance], 0.1, yaw);
  require(spot, "no room for the table");
  const table = b.add("table", { model, x: spot[0], y: spot[1], yaw, role: "support" });
  return { table, top: table.position[2] + table.extent[2] / 2 };
}

/** XY of a point given in the table's frame. */
function onTable(table: TaskObject, lx: number, ly: number): [number, number] {
  const yaw = objectBox(table).yaw;
  return [table.position[0] + lx * Math.cos(yaw) - ly * Math.sin(yaw), table.position[1] + lx * Math.sin(yaw) + ly * Math.cos(yaw)];
}

/** Options of the label questions: ESI's 2, the truth and one look-alike (ESI-Bench's released generator scripts: "2 (target + 1 confusable)"). */
const LABEL_OPTION_COUNT = 2;

/** The truth at the planned slot and LABEL_OPTION_COUNT - 1 look-alikes (padding from the library when needed) around it. */
function categoryOptions(b: SceneBuilder, truth: string, plan: AnswerPlan): string[] {
  const conf = categoryDef(truth).confusables.filter((c) => c !== truth);
  const pool = [...conf];
  for (const c of LIBRARY.keys()) if (pool.length < LABEL_OPTION_COUNT - 1 && c !== truth && !pool.includes(c)) pool.push(c);
  // the order from a stream of its own: a draw that later checks may reject would tie the answer's position to them
  return withAnswerAt(plan.slot, truth, b.rng.fork("options").shuffle(pool.slice(0, LABEL_OPTION_COUNT - 1))).map(displayName);
}

/**
 * A spot on the table for a container of half-extents `half` whose view-0 camera stands `camD` towards -Y:
 * near the table's edge, so the camera is outside the table's footprint by the agent's body clearance.
 */
function tableSpotFacingCamera(b: SceneBuilder, table: TaskObject, half: [number, number], camD: number): [number, number] | null {
  const tb = objectBox(table),
    te = table.extent,
    m = Math.hypot(half[0], half[1]) + 0.02;
  for (let k = 0; k < 80; k++) {
    const [x, y] = onTable(table, b.rng.uniform(-te[0] / 2 + m, te[0] / 2 - m), b.rng.uniform(-te[1] / 2 + m, te[1] / 2 - m));
    if (!inFootprint(tb, x, y - camD, -BODY_CLEARANCE_M)) return [x, y];
  }
  return null;
}

export const materialTransparency: Generator = (rng, _ctx, plan): Draft => {
  const room = makeRoom(rng, "kitchen");
  const b = new SceneBuilder(rng, room);
  b.addWallFurniture(rng.int(1, 2), ["cabinet", "counter", "bookshelf"]);
  const onFloor = rng.bool(TRANSPARENCY_FLOOR_SHARE);
  const contCat = rng.pick(TRANSPARENT_CONTAINERS);
  const ce = SceneBuilder.scaledExtent(`${contCat}/0`, 1);
  // view 0: ESI's radius, from -Y (the negative goes behind, towards +Y, so the container hides it)
  const camD = Math.hypot(ce[0], ce[1]) / 2 + TRANSPARENCY_VIEW_EXTRA_M;
  let table: TaskObject | null = null,
    base = 0,
    spot: [number, number] | null;
  if (onFloor) {
    // room for the camera in front and the object behind
    spot = b.findFloorSpot([ce[0] / 2 + 0.1, camD + 0.2], 0.1, 0);
  } else {
    // view 0 stands at most 0.39 m from the container, so the agent needs less floor around the table; an
    // edge of it faces view 0 (ESI uses the scene's own tables, which stand along the room's axes)
    const yaw = (rng.int(0, 3) * Math.PI) / 2 + rng.uniform(-TRANSPARENCY_TABLE_YAW_JITTER_RAD, TRANSPARENCY_TABLE_YAW_JITTER_RAD);
    ({ table, top: base } = addTable(b, TRANSPARENCY_TABLE_CLEARANCE_M, yaw));
    spot = tableSpotFacingCamera(b, table, [ce[0] / 2, ce[1] / 2], camD);
  }
  require(spot, onFloor ? "no floor spot for the container" : "no table spot for the container");
  const [cx, cy] = spot;
  const container = b.add(contCat, { x: cx, y: cy, bottom: base, yaw: 0, role: "container", support: table?.id ?? "floor" });
  const inside = plannedYes(plan);
  const insCat = rng.pick(SMALL_INSERTS);
  const ie = SceneBuilder.scaledExtent(`${insCat}/0`, 1);
  // ESI sizes the two cases differently: inside <= ½ the container's smallest dimension, behind <= ½ its smallest XY one
  const size = inside ? Math.min(rng.uniform(...INSERT_SIZE_M), 0.5 * Math.min(...ce)) : Math.min(rng.uniform(...BEHIND_SIZE_M), 0.5 * Math.min(ce[0], ce[1]));
  const scale = size / Math.max(...ie);
  const se = ie.map((v) => v * scale);
  const wall = 0.006;
  let obj: TaskObject;
  if (inside) {
    // resting on the inner bottom (ESI teleports to 25 % of the interior height and lets it settle)
    const innerR = Math.min(ce[0], ce[1]) / 2 - wall - Math.max(se[0]!, se[1]!) / 2 - 0.004;
    require(innerR > 0, "object does not fit the container");
    const a = rng.uniform(-Math.PI, Math.PI),
      r = rng.uniform(0, innerR * 0.6);
    obj = b.add(insCat, { x: cx + r * Math.cos(a), y: cy + r * Math.sin(a), bottom: base + wall, scale, role: "target", support: container.id });
  } else {
    // directly behind the container as seen from view 0, BEHIND_GAP_M from its box; sideways shifts along X if taken
    const away: [number, number] = [-Math.cos(TRANSPARENCY_VIEW_AZIMUTH), -Math.sin(TRANSPARENCY_VIEW_AZIMUTH)],
      lat: [number, number] = [-away[1], away[0]];
    let placed: TaskObject | null = null;
    for (let k = 0; k <= LATERAL_SHIFTS && !placed; k++) {
      const sh = (k % 2 === 1 ? 1 : -1) * Math.ceil(k / 2) * LATERAL_SHIFT_M;
      // distance along `away` that leaves exactly BEHIND_GAP_M between the boxes (bisection: the gap grows with it)
      const at = (d: number): [number, number] => [cx + away[0] * d + lat[0] * sh, cy + away[1] * d + lat[1] * sh];
      const o = b.add(insCat, { x: at(0)[0], y: at(0)[1], bottom: base, scale, role: "target", support: table?.id ?? "floor" });
      let lo = 0,
        hi = ce[0] + ce[1] + se[0]! + se[1]! + BEHIND_GAP_M + 0.1;
      for (let it = 0; it < 40; it++) {
        const mid = (lo + hi) / 2;
        const [x, y] = at(mid);
        o.position = [x, y, o.position[2]];
        if (boxDistance(objectBox(o), objectBox(container)) < BEHIND_GAP_M) lo = mid;
        else hi = mid;
      }
      const [fx, fy] = at(hi);
      o.position = [round4(fx), round4(fy), o.position[2]];
      const supported = !table || pointOnTable(table, o.position[0], o.position[1], 0.03);
      if (supported && b.isClear(objectBox(o), 0, new Set([o.id, ...(table ? [table.id] : [])]))) placed = o;
      else b.remove(o);
    }
    require(placed, "no free spot behind the container");
    obj = placed;
  }
  assignNames(b.objects);
  // ESI's view 0 is horizontal at the object's height. The built-in agent's camera goes no lower than
  // MIN_CAMERA_HEIGHT_M (0.2 m), so a floor task lowers its own limit to the object's height (initialView; as
  // imported ESI tasks do, to MIN_TASK_CAMERA_HEIGHT_M): the camera then stands level with the object
  const objZ = obj.position[2],
    camZ = Math.max(objZ, MIN_TASK_CAMERA_HEIGHT_M);
  const from: Vec3 = [cx + camD * Math.cos(TRANSPARENCY_VIEW_AZIMUTH), cy + camD * Math.sin(TRANSPARENCY_VIEW_AZIMUTH), camZ];
  const initial = initialView(b, from, [cx, cy, objZ]);
  const ids = [container.id, obj.id];
  const contBox = objectBox(container);
  return {
    roomType: "kitchen",
    room,
    objects: b.objects,
    lighting: defaultLighting(rng),
    ...initial,
    question: `Is ${obj.name} inside ${container.name}?`,
    answer: inside ? "yes" : "no",
    answerFormat: "yes_no",
    options: ["yes", "no"],
    relevant: ids,
    metadata: {
      inside,
      support: onFloor ? "floor" : "table",
      container_box_gap_m: round4(boxDistance(objectBox(obj), contBox)),
      object_size_m: round4(size),
      camera_distance_m: round4(camD),
    },
    allowedOverlaps: inside ? [[container.id, obj.id]] : [],
    derive: (objects) => {
      const o = objects.find((x) => x.id === obj.id)!,
        c = objects.find((x) => x.id === container.id)!;
      return isInsideContainer(o, c) ? "yes" : "no";
    },
    // view 0 puts the camera on the container-object line, so the container hides the object as much as
    // possible; both must still be in the frame (the object seen through the glass, its pixels the glass's)
    checkInitialView: (p) => {
      if (p.fraction(obj.id) > 0.5) return `the object is ${(p.fraction(obj.id) * 100).toFixed(0)} % visible in the initial view`;
      if ((p.counts.get(container.id) ?? 0) < VISIBLE_MIN_PX) return "the container is not in the initial view";
      const alone = visibleCounts(p.scene, p.camera, p.pose, VISIBILITY_SCALE, new Set([obj.id])).get(obj.id) ?? 0;
      return alone < VISIBLE_MIN_PX ? "the object is outside the initial view's frame" : null;
    },
    gtGoals: [(v) => isVisible(v, obj.id, 4) && isVisible(v, container.id, 4)],
    // the orbit, plus steep views down into the opening from just outside the agent's body clearance:
    // an inside object's pixels through the glass wall are the glass's, so it shows only through the top
    gtKeyPoses: [
      ...orbitPoses([cx, cy, base], [0.45, 0.6, 0.8], [base + 0.5, base + 0.75], 12),
      ...orbitPoses(
        [cx, cy, objZ],
        [Math.max(ce[0], ce[1]) / 2 + BODY_CLEARANCE_M + 0.05, camD],
        [base + ce[2] + 0.5, base + ce[2] + 0.75],
        8,
        TRANSPARENCY_VIEW_AZIMUTH,
      ),
    ],
  };
};

function pointOnTable(table: TaskObject, x: number, y: number, margin: number): boolean {
  return inFootprint(objectBox(table), x, y, margin);
}

/** Slack for float rounding of a placement that rests exactly on a container's floor or rim (m). */
const INSIDE_TOLERANCE_M = 1e-4;

/** Inside = the object's centre within the container's footprint and its box within the container's height. */
function isInsideContainer(o: TaskObject, c: TaskObject): boolean {
  const cb = objectBox(c),
    ob = objectBox(o);
  const r = Math.hypot(o.position[0] - c.position[0], o.position[1] - c.position[1]);
  return r < Math.min(cb.extent[0], cb.extent[1]) / 2 && boxBottom(ob) >= boxBottom(cb) - INSIDE_TOLERANCE_M && boxTop(ob) <= boxTop(cb) + INSIDE_TOLERANCE_M;
}

export const partialOcclusion: Generator = (rng, _ctx, plan): Draft => {
  const room = makeRoom(rng, "living_room");
  const b = new SceneBuilder(rng, room);
  b.addWallFurniture(rng.int(1, 2), ["cabinet", "bookshelf", "sofa"]);
  const onFloor = rng.bool(OCCLUSION_FLOOR_SHARE);
  const cat = rng.pick(OCCLUSION_TARGETS);
  const yaw = rng.uniform(-Math.PI, Math.PI);
  let table: TaskObject | null = null,
    base = 0,
    tx: number,
    ty: number;
  if (onFloor) {
    // room for the occluder beside the target
    const r = Math.max(...SceneBuilder.scaledExtent(`${cat}/0`, 1)) * 1.5 + 0.1;
    const spot = b.findFloorSpot([r, r], 0.1, 0);
    require(spot, "no floor spot for the target");
    [tx, ty] = spot;
  } else {
    ({ table, top: base } = addTable(b));
    [tx, ty] = onTable(table, rng.uniform(-0.15, 0.15), rng.uniform(-0.1, 0.1));
  }
  const support = table?.id ?? "floor";
  const target = b.add(cat, { x: tx, y: ty, bottom: base, yaw, role: "target", support });
  const te = target.extent;
  const options = categoryOptions(b, cat, plan);
  // occluder: another category, neither option (its name must not tell the answer) nor one already in the
  // scene (its name stays "the X"), scaled per axis to 1.1 x the target's box and turned as the target
  const pool = OCCLUDER_CATEGORIES.filter((c) => !options.includes(displayName(c)) && !b.objects.some((o) => o.category === c));
  const occCat = rng.pick(pool);
  const occModel = rng.pick(categoryDef(occCat).models).id;
  const me = SceneBuilder.scaledExtent(occModel, 1);
  const occScale: Vec3 = [(OCCLUDER_SCALE * te[0]) / me[0], (OCCLUDER_SCALE * te[1]) / me[1], (OCCLUDER_SCALE * te[2]) / me[2]];
  const oe = SceneBuilder.scaledExtent(occModel, occScale);
  // the canonical hard view looks along one of the target's box axes; the occluder stands in front, at a corner
  const k = rng.int(0, 3),
    depth = k % 2,
    across = 1 - depth;
  const view = yaw + (k * Math.PI) / 2;
  const toCam: [number, number] = [Math.cos(view), Math.sin(view)],
    lat: [number, number] = [-toCam[1], toCam[0]];
  const front = te[depth]! / 2 + oe[depth]! / 2 + 0.03;
  const side = (rng.bool() ? 1 : -1) * rng.uniform(0.25, 0.45) * oe[across]!;
  const occluder = b.add(occCat, {
    model: occModel,
    x: tx + toCam[0] * front + lat[0] * side,
    y: ty + toCam[1] * front + lat[1] * side,
    bottom: base,
    yaw,
    scale: occScale,
    role: "occluder",
    support,
  });
  if (table) for (const o of [target, occluder]) require(pointOnTable(table, o.position[0], o.position[1], 0.08), "object off the table");
  require(b.isClear(objectBox(occluder), 0, new Set([occluder.id, ...(table ? [table.id] : [])])), "occluder overlaps");
  assignNames(b.objects);
  // ESI: 15 deg lateral offset from the occluder->target axis, horizontal at the target's centre height; the
  // built-in agent's camera goes no lower than MIN_CAMERA_HEIGHT_M, so a low target is seen from slightly above
  const axis = Math.atan2(occluder.position[1] - ty, occluder.position[0] - tx) + (rng.bool() ? 1 : -1) * OCCLUSION_VIEW_OFFSET_RAD;
  const D = Math.hypot(te[0], te[1]) / 2 + OCCLUSION_CAMERA_EXTRA_M;
  const tz = target.position[2];
  const initial = initialView(b, [tx + D * Math.cos(axis), ty + D * Math.sin(axis), Math.max(tz, MIN_CAMERA_HEIGHT_M)], [tx, ty, tz]);
  const where = onFloor ? "on the floor" : "on the table";
  return {
    roomType: "living_room",
    room,
    objects: b.objects,
    lighting: defaultLighting(rng),
    ...initial,
    question: `What is the object partly hidden behind ${occluder.name} ${where}? Options: ${options.join(", ")}.`,
    answer: displayName(cat),
    answerFormat: "choice",
    options,
    relevant: [target.id, occluder.id],
    metadata: {
      target_category: cat,
      occluder_category: occCat,
      occluder_scale: OCCLUDER_SCALE,
      support: onFloor ? "floor" : "table",
      camera_distance_m: round4(D),
    },
    derive: (objects) => displayName(objects.find((o) => o.id === target.id)!.category),
    checkInitialView: (p) => {
      const f = p.fraction(target.id);
      return f < 0.15 || f > 0.8 ? `target ${(f * 100).toFixed(0)} % visible; the rule wants it partly hidden` : null;
    },
    // a view past the occluder that shows the target mostly unoccluded
    gtGoals: [
      (v) => (v.counts.get(target.id) ?? 0) >= 12 && Math.abs(wrapAngle(Math.atan2(v.pose.position[1] - ty, v.pose.position[0] - tx) - view)) > rad(70),
    ],
    gtKeyPoses: orbitPoses([tx, ty, base], [0.7, 0.9, 1.2], [base + 0.35, base + 0.6], 12),
  };
};

export const viewHallucination: Generator = (rng, _ctx, plan): Draft => {
  const room = makeRoom(rng, "living_room");
  const b = new SceneBuilder(rng, room);
  // the support first, as ESI's placement_mode: furniture (piano) only stands on the floor
  const onFloor = rng.bool(HALLUCINATION_FLOOR_SHARE);
  const cat = rng.pick(onFloor ? AMBIGUOUS_CATEGORIES : AMBIGUOUS_CATEGORIES.filter((c) => categoryDef(c).group !== "furniture"));
  const def = categoryDef(cat);
  const amb = def.flags.ambiguous!;
  const yaw = rng.uniform(-Math.PI, Math.PI);
  let obj: TaskObject;
  let dist: [number, number], camH: number;
  const furniture = def.group === "furniture";
  if (onFloor) {
    b.addWallFurniture(
      rng.int(1, 2),
      ["bookshelf", "sofa", "cabinet"].filter((c) => c !== cat),
    );
    const e = SceneBuilder.scaledExtent(`${cat}/0`, 1);
    dist = furniture ? [2.0, 2.8] : [0.6, 0.9];
    const spot = b.findFloorSpot(furniture ? [e[0] / 2 + 0.8, e[1] / 2 + 0.8] : [e[0] / 2 + 0.3, e[1] / 2 + 0.3], 0.1, yaw);
    require(spot, "no room for the object");
    obj = b.add(cat, { x: spot[0], y: spot[1], yaw, role: "target" });
    // a small object is seen from just above its top, as on a table, but no lower than the agent's camera goes
    camH = furniture ? rng.uniform(1.1, 1.4) : Math.max(obj.extent[2] + rng.uniform(0.05, 0.12), MIN_CAMERA_HEIGHT_M);
  } else {
    b.addWallFurniture(rng.int(1, 2), ["cabinet", "bookshelf", "sofa"]);
    const { table, top } = addTable(b);
    const [x, y] = onTable(table, rng.uniform(-0.2, 0.2), rng.uniform(-0.1, 0.1));
    obj = b.add(cat, { x, y, bottom: top, yaw, role: "target", support: table.id });
    dist = [0.6, 0.9];
    camH = top + obj.extent[2] + rng.uniform(0.05, 0.12);
  }
  const targetZ = obj.position[2];
  assignNames(b.objects);
  // the most ambiguous azimuth: the distinguishing part faces away from the camera
  const az = yaw + rad(amb.ambiguousAzimuthDeg) + rad(rng.uniform(-15, 15));
  const D = rng.uniform(...dist);
  const initial = initialView(b, [obj.position[0] + D * Math.cos(az), obj.position[1] + D * Math.sin(az), camH], [obj.position[0], obj.position[1], targetZ]);
  const options = categoryOptions(b, cat, plan);
  const reveal = yaw + rad(amb.ambiguousAzimuthDeg) + Math.PI;
  return {
    roomType: "living_room",
    room,
    objects: b.objects,
    lighting: defaultLighting(rng),
    ...initial,
    question: `What is ${furniture ? "the large object in front of you" : `the object on the ${onFloor ? "floor" : "table"} in front of you`}? Options: ${options.join(", ")}.`,
    answer: displayName(cat),
    answerFormat: "choice",
    options,
    relevant: [obj.id],
    metadata: { true_category: cat, distinguishing_part: amb.part, confusables: def.confusables, support: onFloor ? "floor" : "table" },
    derive: (objects) => displayName(objects.find((o) => o.id === obj.id)!.category),
    checkInitialView: (p) => (p.fraction(obj.id) < 0.6 ? "object not clearly in the initial view" : null),
    // a view from the side that shows the distinguishing part
    gtGoals: [
      (v) =>
        isVisible(v, obj.id, 10) &&
        Math.abs(wrapAngle(Math.atan2(v.pose.position[1] - obj.position[1], v.pose.position[0] - obj.position[0]) - reveal)) < rad(60),
    ],
    gtKeyPoses: orbitPoses([obj.position[0], obj.position[1], targetZ], [dist[0], (dist[0] + dist[1]) / 2], [camH], 12, reveal),
  };
};
