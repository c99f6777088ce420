/**
 * Perceptual Grounding (reference/esi-spec.md §6.2.1–6.2.3): Material Transparency, Partial Occlusion,
 * View Hallucination.
 */
import type { Vec3 } from "../../../src/core/math/vec.js";
import { rad, wrapAngle } from "../../../src/core/math/vec.js";
import type { TaskObject } from "../../task/schema.js";
import { categoryDef, LIBRARY } from "../../objects/library.js";
import { assignNames, cameraLookingAt, defaultLighting, displayName, makeRoom, require, round4, SceneBuilder } from "./common.js";
import type { Draft, Generator } from "./draft.js";
import { orbitPoses } from "./gt-trajectory.js";
import { objectBox } from "../../objects/geometry.js";
import { boxBottom, boxDistance, boxTop, inFootprint } from "../../../src/core/geometry.js";
import { isVisible } from "./visibility.js";

export const TRANSPARENT_CONTAINERS = ["glass", "jar", "glass_bowl"];
export const SMALL_INSERTS = ["chestnut", "walnut", "marble", "dice", "egg"];
/** ESI Q.1: the small object's largest dimension = min(U(l, u), 0.5 d_min); l and u are lost, our choice (m). */
export const INSERT_SIZE_M: [number, number] = [0.025, 0.05];
/** ESI Q.1: a negative sits directly behind the container with a 0.01 m gap; up to 8 lateral shifts of 0.05 m. */
export const BEHIND_GAP_M = 0.01;
export const LATERAL_SHIFT_M = 0.05;
export const LATERAL_SHIFTS = 8;
/** ESI Q.14: every occluder box dimension is 1.1 x the target's. */
export const OCCLUDER_SCALE = 1.1;
/** ESI Q.14: initial view 15 deg off the occluder -> target axis, at the target's centre height. */
export const OCCLUSION_VIEW_OFFSET_RAD = rad(15);
/** Targets for Partial Occlusion: categories with look-alikes whose distinguishing parts an occluder can hide. */
export const OCCLUSION_TARGETS = ["mug", "kettle", "teddy_bear", "toy_car", "toy_truck", "shoe", "bottle", "vase", "potted_plant", "lamp", "clock", "pot"];
/** View Hallucination: categories whose identity depends on the viewing angle (library flag `ambiguous`). */
export const AMBIGUOUS_CATEGORIES = [...LIBRARY.values()].filter((c) => c.flags.ambiguous).map((c) => c.category);

/** Puts a table in the room and returns it with its top height. */
function addTable(b: SceneBuilder): { table: TaskObject; top: number } {
  const model = b.rng.pick(categoryDef("table").models).id;
  const e = SceneBuilder.scaledExtent(model, 1);
  const yaw = b.rng.uniform(-Math.PI, Math.PI);
  const spot = b.findFloorSpot([e[0] / 2 + 1.0, e[1] / 2 + 1.0], 0.1, yaw);
  require(spot, "no room for the table");
  const table = b.add("table", { model, x: spot[0], y: spot[1], yaw, role: "support" });
  return { table, top: table.position[2] + table.extent[2] / 2 };
}

/** XY of a point given in the table's frame. */
function onTable(table: TaskObject, lx: number, ly: number): [number, number] {
  const yaw = objectBox(table).yaw;
  return [table.position[0] + lx * Math.cos(yaw) - ly * Math.sin(yaw), table.position[1] + lx * Math.sin(yaw) + ly * Math.cos(yaw)];
}

/** Options of the label questions: ESI's 2, the truth and one look-alike (reference/esi-released.md §3.3: "2 (target + 1 confusable)"). */
export const LABEL_OPTION_COUNT = 2;

/** The truth and LABEL_OPTION_COUNT - 1 look-alikes (padding from the library when needed), shuffled. */
function categoryOptions(b: SceneBuilder, truth: string): string[] {
  const conf = categoryDef(truth).confusables.filter((c) => c !== truth);
  const pool = [...conf];
  for (const c of LIBRARY.keys()) if (pool.length < LABEL_OPTION_COUNT - 1 && c !== truth && !pool.includes(c)) pool.push(c);
  // the order from a stream of its own: a draw that later checks may reject would tie the answer's position to them
  return b.rng.fork("options").shuffle([truth, ...pool.slice(0, LABEL_OPTION_COUNT - 1)]).map(displayName);
}

export const materialTransparency: Generator = (rng): Draft => {
  const room = makeRoom(rng, "kitchen");
  const b = new SceneBuilder(rng, room);
  b.addWallFurniture(rng.int(1, 2), ["cabinet", "counter", "bookshelf"]);
  const { table, top } = addTable(b);
  const contCat = rng.pick(TRANSPARENT_CONTAINERS);
  const ce = SceneBuilder.scaledExtent(`${contCat}/0`, 1);
  // near the table's edge, so an agent standing beside the table can look down into it
  const te = table.extent;
  const edgeSide = rng.bool() ? 1 : -1;
  const [cx, cy] = onTable(table, rng.uniform(-te[0] / 4, te[0] / 4), edgeSide * (te[1] / 2 - 0.12 - ce[1] / 2));
  const container = b.add(contCat, { x: cx, y: cy, bottom: top, yaw: 0, role: "container", support: table.id });
  const inside = rng.bool();
  const insCat = rng.pick(SMALL_INSERTS);
  const ie = SceneBuilder.scaledExtent(`${insCat}/0`, 1);
  const dMin = Math.min(...ce);
  const size = Math.min(rng.uniform(...INSERT_SIZE_M), 0.5 * dMin);
  const scale = size / Math.max(...ie);
  const se = ie.map((v) => v * scale);
  const wall = 0.006;
  let obj: TaskObject;
  let camAz: number;
  if (inside) {
    // resting on the inner bottom (ESI teleports to 25 % of the interior height and lets it settle)
    const innerR = Math.min(ce[0], ce[1]) / 2 - wall - Math.max(se[0]!, se[1]!) / 2 - 0.004;
    require(innerR > 0, "object does not fit the container");
    const a = rng.uniform(-Math.PI, Math.PI), r = rng.uniform(0, innerR * 0.6);
    obj = b.add(insCat, { x: cx + r * Math.cos(a), y: cy + r * Math.sin(a), bottom: top + wall, scale, role: "target", support: container.id });
    camAz = -Math.PI / 2; // ESI: azimuth fixed along -Y
  } else {
    // directly behind the container as seen from the camera, 0.01 m from its box
    camAz = rng.uniform(-Math.PI, Math.PI);
    const away: [number, number] = [-Math.cos(camAz), -Math.sin(camAz)], lat: [number, number] = [-away[1], away[0]];
    let placed: TaskObject | null = null;
    for (let k = 0; k <= LATERAL_SHIFTS && !placed; k++) {
      const sh = (k % 2 === 1 ? 1 : -1) * Math.ceil(k / 2) * LATERAL_SHIFT_M;
      // distance along `away` that leaves exactly BEHIND_GAP_M between the boxes (bisection: the gap grows with it)
      const at = (d: number): [number, number] => [cx + away[0] * d + lat[0] * sh, cy + away[1] * d + lat[1] * sh];
      const o = b.add(insCat, { x: at(0)[0], y: at(0)[1], bottom: top, scale, role: "target", support: table.id });
      let lo = 0, hi = ce[0] + se[0]! + BEHIND_GAP_M + 0.1;
      for (let it = 0; it < 40; it++) {
        const mid = (lo + hi) / 2;
        const [x, y] = at(mid);
        o.position = [x, y, o.position[2]];
        if (boxDistance(objectBox(o), objectBox(container)) < BEHIND_GAP_M) lo = mid;
        else hi = mid;
      }
      const [fx, fy] = at(hi);
      o.position = [round4(fx), round4(fy), o.position[2]];
      const onTop = pointOnTable(table, o.position[0], o.position[1], 0.03);
      if (onTop && b.isClear(objectBox(o), 0, new Set([o.id, table.id]))) placed = o;
      else b.remove(o);
    }
    require(placed, "no free spot behind the container");
    obj = placed;
  }
  assignNames(b.objects);
  const height = top + ce[2] * 0.5;
  const D = rng.uniform(0.7, 1.1);
  const agent = cameraLookingAt(b, [cx + D * Math.cos(camAz), cy + D * Math.sin(camAz), height], [cx, cy, top + ce[2] * 0.4]);
  require(agent, "initial camera blocked");
  const ids = [container.id, obj.id];
  const contBox = objectBox(container);
  return {
    roomType: "kitchen",
    room,
    objects: b.objects,
    lighting: defaultLighting(rng),
    agent,
    question: `Is ${obj.name} inside ${container.name}?`,
    answer: inside ? "yes" : "no",
    answerFormat: "yes_no",
    options: ["yes", "no"],
    relevant: ids,
    metadata: { inside, container_box_gap_m: round4(boxDistance(objectBox(obj), contBox)), object_size_m: round4(size) },
    allowedOverlaps: inside ? [[container.id, obj.id]] : [],
    derive: (objects) => {
      const o = objects.find((x) => x.id === obj.id)!, c = objects.find((x) => x.id === container.id)!;
      return isInsideContainer(o, c) ? "yes" : "no";
    },
    // view 0 puts the camera on the container-object line: the container hides it as much as possible
    checkInitialView: (p) => (p.fraction(obj.id) > 0.5 ? `the object is ${(p.fraction(obj.id) * 100).toFixed(0)} % visible in the initial view` : null),
    gtGoals: [(v) => isVisible(v, obj.id, 4) && isVisible(v, container.id, 4)],
    gtKeyPoses: orbitPoses([cx, cy, top], [0.45, 0.6, 0.8], [top + 0.5, top + 0.75], 12),
  };
};

function pointOnTable(table: TaskObject, x: number, y: number, margin: number): boolean {
  return inFootprint(objectBox(table), x, y, margin);
}

/** Slack for float rounding of a placement that rests exactly on a container's floor or rim (m). */
const INSIDE_TOLERANCE_M = 1e-4;

/** Inside = the object's centre within the container's footprint and its box within the container's height. */
export function isInsideContainer(o: TaskObject, c: TaskObject): boolean {
  const cb = objectBox(c), ob = objectBox(o);
  const r = Math.hypot(o.position[0] - c.position[0], o.position[1] - c.position[1]);
  return r < Math.min(cb.extent[0], cb.extent[1]) / 2 && boxBottom(ob) >= boxBottom(cb) - INSIDE_TOLERANCE_M && boxTop(ob) <= boxTop(cb) + INSIDE_TOLERANCE_M;
}

export const partialOcclusion: Generator = (rng): Draft => {
  const room = makeRoom(rng, "living_room");
  const b = new SceneBuilder(rng, room);
  b.addWallFurniture(rng.int(1, 2), ["cabinet", "bookshelf", "sofa"]);
  const { table, top } = addTable(b);
  const cat = rng.pick(OCCLUSION_TARGETS);
  const te = SceneBuilder.scaledExtent(`${cat}/0`, 1);
  const [tx, ty] = onTable(table, rng.uniform(-0.15, 0.15), rng.uniform(-0.1, 0.1));
  const target = b.add(cat, { x: tx, y: ty, bottom: top, yaw: rng.uniform(-Math.PI, Math.PI), role: "target", support: table.id });
  // occluder: a box scaled per axis to 1.1 x the target's box (ESI Q.14)
  const be = SceneBuilder.scaledExtent("cardboard_box/0", 1);
  const occScale: Vec3 = [(OCCLUDER_SCALE * Math.max(te[0], te[1])) / be[0], (OCCLUDER_SCALE * Math.min(te[0], te[1])) / be[1], (OCCLUDER_SCALE * te[2]) / be[2]];
  // the canonical hard view looks along `view`; the occluder stands in front of the target, at a corner
  const view = rng.uniform(-Math.PI, Math.PI);
  const toCam: [number, number] = [Math.cos(view), Math.sin(view)], lat: [number, number] = [-toCam[1], toCam[0]];
  const oe = SceneBuilder.scaledExtent("cardboard_box/0", occScale);
  const front = Math.max(te[0], te[1]) / 2 + oe[1] / 2 + 0.03;
  const side = (rng.bool() ? 1 : -1) * rng.uniform(0.25, 0.45) * oe[0];
  const occluder = b.add("cardboard_box", { x: tx + toCam[0] * front + lat[0] * side, y: ty + toCam[1] * front + lat[1] * side, bottom: top, yaw: view + Math.PI / 2, scale: occScale, role: "occluder", support: table.id });
  for (const o of [target, occluder]) require(pointOnTable(table, o.position[0], o.position[1], 0.08), "object off the table");
  require(b.isClear(objectBox(occluder), 0, new Set([occluder.id, table.id])), "occluder overlaps");
  assignNames(b.objects);
  // ESI Q.14: 15 deg lateral offset from the occluder->target axis, at the target's centre height, horizontal
  const axis = Math.atan2(occluder.position[1] - ty, occluder.position[0] - tx) + (rng.bool() ? 1 : -1) * OCCLUSION_VIEW_OFFSET_RAD;
  const D = rng.uniform(0.9, 1.4);
  const agent = cameraLookingAt(b, [tx + D * Math.cos(axis), ty + D * Math.sin(axis), target.position[2]], [tx, ty, target.position[2]]);
  require(agent, "initial camera blocked");
  const options = categoryOptions(b, cat);
  return {
    roomType: "living_room",
    room,
    objects: b.objects,
    lighting: defaultLighting(rng),
    agent,
    question: `What is the object partly hidden behind ${occluder.name} on the table? Options: ${options.join(", ")}.`,
    answer: displayName(cat),
    answerFormat: "choice",
    options,
    relevant: [target.id, occluder.id],
    metadata: { target_category: cat, occluder_scale: OCCLUDER_SCALE },
    derive: (objects) => displayName(objects.find((o) => o.id === target.id)!.category),
    checkInitialView: (p) => {
      const f = p.fraction(target.id);
      return f < 0.15 || f > 0.8 ? `target ${(f * 100).toFixed(0)} % visible; the rule wants it partly hidden` : null;
    },
    // a view past the occluder that shows the target mostly unoccluded
    gtGoals: [(v) => (v.counts.get(target.id) ?? 0) >= 12 && Math.abs(wrapAngle(Math.atan2(v.pose.position[1] - ty, v.pose.position[0] - tx) - view)) > rad(70)],
    gtKeyPoses: orbitPoses([tx, ty, top], [0.7, 0.9, 1.2], [top + 0.35, top + 0.6], 12),
  };
};

export const viewHallucination: Generator = (rng): Draft => {
  const room = makeRoom(rng, "living_room");
  const b = new SceneBuilder(rng, room);
  const cat = rng.pick(AMBIGUOUS_CATEGORIES);
  const def = categoryDef(cat);
  const amb = def.flags.ambiguous!;
  const yaw = rng.uniform(-Math.PI, Math.PI);
  let obj: TaskObject;
  let dist: [number, number], camH: number, targetZ: number;
  const furniture = def.group === "furniture";
  if (furniture) {
    b.addWallFurniture(rng.int(1, 2), ["bookshelf", "sofa", "cabinet"].filter((c) => c !== cat));
    const e = SceneBuilder.scaledExtent(`${cat}/0`, 1);
    const spot = b.findFloorSpot([e[0] / 2 + 0.8, e[1] / 2 + 0.8], 0.1, yaw);
    require(spot, "no room for the object");
    obj = b.add(cat, { x: spot[0], y: spot[1], yaw, role: "target" });
    dist = [2.0, 2.8];
    camH = rng.uniform(1.1, 1.4);
    targetZ = obj.position[2];
  } else {
    b.addWallFurniture(rng.int(1, 2), ["cabinet", "bookshelf", "sofa"]);
    const { table, top } = addTable(b);
    const [x, y] = onTable(table, rng.uniform(-0.2, 0.2), rng.uniform(-0.1, 0.1));
    obj = b.add(cat, { x, y, bottom: top, yaw, role: "target", support: table.id });
    dist = [0.6, 0.9];
    camH = top + obj.extent[2] + rng.uniform(0.05, 0.12);
    targetZ = obj.position[2];
  }
  assignNames(b.objects);
  // the most ambiguous azimuth: the distinguishing part faces away from the camera
  const az = yaw + rad(amb.ambiguousAzimuthDeg) + rad(rng.uniform(-15, 15));
  const D = rng.uniform(...dist);
  const agent = cameraLookingAt(b, [obj.position[0] + D * Math.cos(az), obj.position[1] + D * Math.sin(az), camH], [obj.position[0], obj.position[1], targetZ]);
  require(agent, "initial camera blocked");
  const options = categoryOptions(b, cat);
  const reveal = yaw + rad(amb.ambiguousAzimuthDeg) + Math.PI;
  return {
    roomType: "living_room",
    room,
    objects: b.objects,
    lighting: defaultLighting(rng),
    agent,
    question: `What is ${furniture ? "the large object in front of you" : "the object on the table in front of you"}? Options: ${options.join(", ")}.`,
    answer: displayName(cat),
    answerFormat: "choice",
    options,
    relevant: [obj.id],
    metadata: { true_category: cat, distinguishing_part: amb.part, confusables: def.confusables },
    derive: (objects) => displayName(objects.find((o) => o.id === obj.id)!.category),
    checkInitialView: (p) => (p.fraction(obj.id) < 0.6 ? "object not clearly in the initial view" : null),
    // a view from the side that shows the distinguishing part
    gtGoals: [(v) => isVisible(v, obj.id, 10) && Math.abs(wrapAngle(Math.atan2(v.pose.position[1] - obj.position[1], v.pose.position[0] - obj.position[0]) - reveal)) < rad(60)],
    gtKeyPoses: orbitPoses([obj.position[0], obj.position[1], targetZ], [dist[0], (dist[0] + dist[1]) / 2], [camH], 12, reveal),
  };
};
