/**
 * Physical Structure (the ESI-Bench paper, Appendix Q, ESI-Bench's released records' metadata): Rigid Containment (which
 * container an object best fits inside) and Liquid Volume (which of two containers holds more). Containers
 * are open boxes and round vessels whose walls the library declares (core/objects/interior.ts); every
 * answer is derived from the placed objects' interiors (core/objects/containers.ts) with the rules of
 * core/task/rules.ts.
 */
import type { Vec3 } from "../../../core/math/vec.js";
import { rad, wrapAngle } from "../../../core/math/vec.js";
import type { Rng } from "../../../core/math/rng.js";
import type { TaskObject } from "../../../core/task/schema.js";
import { bestFit, fitMargin, LIQUID_VOLUME_MIN_RATIO } from "../../../core/task/rules.js";
import { buildModel, categoryDef, LIBRARY } from "../../../core/objects/library.js";
import { interiorFractions, interiorOf } from "../../../core/objects/containers.js";
import { assignNames, defaultLighting, makeRoom, require, round4, SceneBuilder } from "./common.js";
import { initialView } from "./initialView.js";
import { withAnswerAt } from "./answerPlan.js";
import type { Draft, Generator } from "./draft.js";
import { orbitPoses } from "./gtTrajectory.js";
import { isVisible } from "./visibility.js";

/** How an option names an object: its name without the article, as ESI's options do ("medium packing box"). */
const optionName = (o: TaskObject): string => o.name.replace(/^the /, "");

/** Rigid Containment's box containers (library flag `rigidContainer`): packing boxes and toy boxes as in ESI's records. */
const RIGID_CONTAINERS = [...LIBRARY.values()].filter((c) => c.flags.rigidContainer).map((c) => c.category);
/** Objects to put away (ESI: a fillable category GPT-4o picks; here household objects of 6–30 cm). */
const RIGID_CONTAINEES = [
  "basketball",
  "soccer_ball",
  "teddy_bear",
  "toy_truck",
  "toy_car",
  "shoe",
  "cardboard_box",
  "kettle",
  "pumpkin",
  "book",
  "potted_plant",
  "vase",
  "bottle",
];
/**
 * Outer size of each container over the object's box, per axis: ESI's `scale_ratio` in its sample records
 * (ESI-Bench's released sample, Rigid Containment: small 0.911, 0.916, 0.944; fit 1.306, 1.328, 1.370; big 1.682, 1.724).
 * The small one is narrower than the object on every axis, the fit one leaves ~20 % clearance inside its walls.
 */
type ContainerSize = "small" | "fit" | "big";
const CONTAINER_RATIO: Record<ContainerSize, [number, number]> = { small: [0.91, 0.944], fit: [1.306, 1.37], big: [1.682, 1.724] };
/**
 * Which containers a question offers. ESI's records offer {small, fit, big} (3 options) or {fit, small}
 * (2); we add {fit, big}, where both fit and the tighter one is right, so that ranking the containers by size
 * without looking at the object (the middle one; the larger of two) is at chance on the 2-option questions.
 */
const OPTION_SETS: ReadonlyArray<readonly ContainerSize[]> = [
  ["small", "fit", "big"],
  ["small", "fit"],
  ["fit", "big"],
];
/** Initial camera: height (m) and distance from the row (m, plus 0.35 x its length), about 40-50 deg down, so a box's far wall and floor show. Ours. */
const RIGID_CAMERA_HEIGHT_M: [number, number] = [1.3, 1.6];
const RIGID_CAMERA_DISTANCE_M: [number, number] = [0.9, 1.3];
/** Gap between neighbours in the row (m); ESI lays the containee and containers out in a row (`row_layout`), spacing not stored: ours. */
const ROW_GAP_M: [number, number] = [0.12, 0.3];

/** Liquid Volume's vessels (library flag `fillable`): bowls, pots, goblets, crock pots, buckets, pitchers, bins. */
const FILLABLE_CONTAINERS = [...LIBRARY.values()].filter((c) => c.flags.fillable).map((c) => c.category);
/** Largest interior ratio of a pair: ESI's sample records' capacities differ by up to 1.92x (203 vs 106 particles). */
const LIQUID_VOLUME_MAX_RATIO = 1.92;
/** Interior volume of the smaller vessel (m^3): 0.3–3 litres, household sizes. Ours (ESI's capacities are particle counts). */
const LIQUID_SMALLER_VOLUME_M3: [number, number] = [0.0003, 0.003];
/** Uniform scale of a vessel relative to its library model, so that it still looks like one. Ours. */
const VESSEL_SCALE: [number, number] = [0.5, 2.0];
/**
 * Share of pairs whose larger interior sits in the smaller box (a goblet's stem, a crock pot's thick walls): ours,
 * so that comparing outer sizes alone is at chance and the answer needs the interior.
 */
const BOX_ORDER_REVERSED_SHARE = 0.5;
/** Pair draws before giving up on a feasible pair for the wanted box order. */
const PAIR_TRIES = 60;

/** Full box size of a library model at unit scale. */
const unitExtent = (category: string): Vec3 => {
  const e = buildModel(categoryDef(category).models[0]!.id).extent;
  return [e[0], e[1], e[2]];
};
/** Heading (rad) from an object to a point, seen from above. */
const azimuthFrom = (o: TaskObject, p: readonly number[]) => Math.atan2(p[1]! - o.position[1], p[0]! - o.position[0]);
const get = (objects: readonly TaskObject[], id: number) => objects.find((o) => o.id === id)!;
/** Half-length of an object's footprint along the unit direction (ux, uy). */
const halfAlong = (o: TaskObject, yaw: number, ux: number, uy: number): number => {
  const c = Math.cos(yaw),
    s = Math.sin(yaw);
  return (Math.abs(c * ux + s * uy) * o.extent[0] + Math.abs(-s * ux + c * uy) * o.extent[1]) / 2;
};

export const rigidContainment: Generator = (rng, _ctx, plan): Draft => {
  const room = makeRoom(rng, "storage_room");
  const b = new SceneBuilder(rng, room);
  b.addWallFurniture(rng.int(0, 2), ["bookshelf", "cabinet", "wardrobe"]);
  const contCat = rng.pick(RIGID_CONTAINERS);
  const colours = rng.shuffle(categoryDef(contCat).models[0]!.palette);
  // the option set is the planned form (answerPlan.ts ANSWER_FORMS lists their sizes)
  const sizes = OPTION_SETS[plan.form]!;
  require(colours.length >= sizes.length, "not enough colours to tell the containers apart");
  const objCat = rng.pick(RIGID_CONTAINEES);
  const rowYaw = rng.uniform(-Math.PI, Math.PI);
  const u: [number, number] = [Math.cos(rowYaw), Math.sin(rowYaw)];
  const objYaw = rng.uniform(-Math.PI, Math.PI);
  const oe = unitExtent(objCat);
  const ue = unitExtent(contCat);
  // each container: the object's box times its size class's ratio on every axis (ESI's scale_ratio)
  const ratios = sizes.map((s) => rng.uniform(...CONTAINER_RATIO[s]));
  const containee = b.add(objCat, { x: 0, y: 0, yaw: objYaw, role: "target" });
  const containers = sizes.map((_, k) => {
    const scale: Vec3 = [(oe[0] * ratios[k]!) / ue[0], (oe[1] * ratios[k]!) / ue[1], (oe[2] * ratios[k]!) / ue[2]];
    return b.add(contCat, { x: 0, y: 0, yaw: rowYaw, scale, color: colours[k]!, role: "container" });
  });
  // the row: the containee and the containers in random order, along u
  const row = rng.shuffle([containee, ...containers]);
  const yawOf = (o: TaskObject) => (o === containee ? objYaw : rowYaw);
  const halves = row.map((o) => halfAlong(o, yawOf(o), u[0], u[1]));
  const gaps = row.slice(1).map(() => rng.uniform(...ROW_GAP_M));
  const length = halves.reduce((s, h) => s + 2 * h, 0) + gaps.reduce((s, g) => s + g, 0);
  const depth = Math.max(...row.map((o) => halfAlong(o, yawOf(o), -u[1], u[0]))) * 2;
  for (const o of row) b.remove(o);
  const spot = b.findFloorSpot([length / 2 + 0.3, depth / 2 + 0.3], 0.1, rowYaw);
  require(spot, "no room for the row");
  let at = -length / 2;
  row.forEach((o, k) => {
    at += halves[k]!;
    o.position = [round4(spot[0] + u[0] * at), round4(spot[1] + u[1] * at), o.position[2]];
    at += halves[k]! + (gaps[k] ?? 0);
    b.objects.push(o);
  });
  b.objects.sort((x, y) => x.id - y.id);
  assignNames(b.objects);
  const drawn = rng.shuffle(containers.map((c, k) => ({ c, size: sizes[k]! })));
  const interiorsOf = (list: typeof drawn, objects: readonly TaskObject[]) =>
    list.map(({ c }) => ({ item: get(objects, c.id), interior: interiorOf(contCat, get(objects, c.id).extent)! }));
  const best = bestFit(containee.extent, interiorsOf(drawn, b.objects));
  require(best, "the object fits no container");
  // the best fit offered at the planned slot, the others in their drawn order
  const bestEntry = drawn.find(({ c }) => c.id === best.id)!;
  const offered = withAnswerAt(
    plan.slot,
    bestEntry,
    drawn.filter((e) => e !== bestEntry),
  );
  const interiors = (objects: readonly TaskObject[]) => interiorsOf(offered, objects);
  // the camera in front of the row, looking down into the open boxes (ESI's robot-eye camera: pose not stored, ours)
  const side = rng.bool() ? 1 : -1;
  const n: [number, number] = [-u[1] * side, u[0] * side];
  const D = rng.uniform(...RIGID_CAMERA_DISTANCE_M) + 0.35 * length;
  const initial = initialView(b, [spot[0] + n[0] * D, spot[1] + n[1] * D, rng.uniform(...RIGID_CAMERA_HEIGHT_M)], [spot[0], spot[1], 0.12]);
  const ids = [containee.id, ...offered.map(({ c }) => c.id)];
  const names = offered.map(({ c }) => c.name);
  return {
    roomType: "storage_room",
    room,
    objects: b.objects,
    lighting: defaultLighting(rng),
    ...initial,
    // ESI's template: "Which container does the gift box best fit inside: the large packing box or the medium packing box or the small packing box?"
    question: `Which container does ${containee.name} best fit inside: ${names.join(" or ")}?`,
    answer: optionName(best),
    answerFormat: "choice",
    options: offered.map(({ c }) => optionName(c)),
    relevant: ids,
    metadata: {
      containee_extent_m: containee.extent,
      containers: interiors(b.objects).map(({ item, interior }, k) => ({
        name: optionName(item),
        size: offered[k]!.size,
        ratio: round4(ratios[sizes.indexOf(offered[k]!.size)]!),
        interior_extent_m: interior.extent.map(round4),
        interior_volume_m3: round4(interior.volume_m3 * 1000) / 1000,
        fit_margin_m: round4(fitMargin(containee.extent, interior.extent)),
      })),
      rule: "the smallest interior the object's box fits (turned about the vertical as needed)",
    },
    derive: (objects) => {
      const fit = bestFit(get(objects, containee.id).extent, interiors(objects));
      return fit ? optionName(fit) : "";
    },
    checkInitialView: (p) => {
      for (const id of ids) if (p.fraction(id) < 0.3) return `object ${id} is ${(p.fraction(id) * 100).toFixed(0)} % visible in the initial view`;
      return null;
    },
    // a view from above the row that shows the object and every container's opening, and the object from
    // another side (one view sees only its front half: its depth, what the fit needs, would be short)
    gtGoals: [
      (v) => v.pose.pitch <= rad(-35) + 1e-6 && ids.every((id) => isVisible(v, id, 6)),
      (v) =>
        isVisible(v, containee.id, 10) &&
        Math.abs(wrapAngle(azimuthFrom(containee, v.pose.position) - azimuthFrom(containee, initial.agent.position))) > rad(70),
    ],
    gtKeyPoses: [
      ...orbitPoses([spot[0], spot[1], 0.12], [1.2, 1.6], [1.4, 1.7], 12),
      ...orbitPoses([containee.position[0], containee.position[1], containee.position[2]], [0.8, 1.1], [1.0, 1.3], 8),
    ],
  };
};

interface VesselPair {
  larger: string;
  smaller: string;
  ratio: number;
  scales: { larger: number; smaller: number };
  reversed: boolean;
}

/** Draws two vessel categories and sizes whose interiors differ by a ratio in [min, max] and whose boxes are ordered as wanted. */
function drawVesselPair(rng: Rng, reversed: boolean): VesselPair | null {
  for (let t = 0; t < PAIR_TRIES; t++) {
    const [larger, smaller] = rng.sample(FILLABLE_CONTAINERS, 2) as [string, string];
    const ratio = rng.uniform(LIQUID_VOLUME_MIN_RATIO, LIQUID_VOLUME_MAX_RATIO);
    const fl = interiorFractions(larger)!.volume,
      fs = interiorFractions(smaller)!.volume;
    // box volume of the larger over the smaller's, for interiors `ratio` apart
    const boxRatio = (ratio * fs) / fl;
    if (boxRatio < 1 !== reversed) continue;
    const boxVol = (c: string) => unitExtent(c).reduce((a, x) => a * x, 1);
    const vSmall = rng.uniform(...LIQUID_SMALLER_VOLUME_M3);
    const sSmall = Math.cbrt(vSmall / (fs * boxVol(smaller))),
      sLarge = Math.cbrt((ratio * vSmall) / (fl * boxVol(larger)));
    if ([sSmall, sLarge].some((s) => s < VESSEL_SCALE[0] || s > VESSEL_SCALE[1])) continue;
    return { larger, smaller, ratio, scales: { larger: round4(sLarge), smaller: round4(sSmall) }, reversed };
  }
  return null;
}

export const liquidVolume: Generator = (rng, _ctx, plan): Draft => {
  const room = makeRoom(rng, "living_room");
  const b = new SceneBuilder(rng, room);
  b.addWallFurniture(rng.int(1, 2), ["cabinet", "bookshelf", "sofa"]);
  const pair = drawVesselPair(rng, rng.bool(BOX_ORDER_REVERSED_SHARE));
  require(pair, "no vessel pair for the wanted box order");
  // side by side on the floor across the view: ESI's obj1 on the left, obj2 on the right (`side`)
  const az = rng.uniform(-Math.PI, Math.PI);
  const toCam: [number, number] = [Math.cos(az), Math.sin(az)];
  const left: [number, number] = [toCam[1], -toCam[0]];
  // the left vessel is named (and offered) first: the larger one stands at the planned slot's side
  const largerLeft = plan.slot === 0;
  const cats = largerLeft ? [pair.larger, pair.smaller] : [pair.smaller, pair.larger];
  const scales = largerLeft ? [pair.scales.larger, pair.scales.smaller] : [pair.scales.smaller, pair.scales.larger];
  const radii = cats.map((c, k) => (Math.hypot(unitExtent(c)[0], unitExtent(c)[1]) / 2) * scales[k]!);
  const sep = radii[0]! + radii[1]! + rng.uniform(0.08, 0.2);
  const spot = b.findFloorSpot([sep / 2 + 0.5, 0.6], 0.1, az + Math.PI / 2);
  require(spot, "no room for the pair");
  const [lObj, rObj] = cats.map((c, k) => {
    const sign = k === 0 ? 1 : -1;
    return b.add(c, {
      x: spot[0] + left[0] * sign * (sep / 2),
      y: spot[1] + left[1] * sign * (sep / 2),
      yaw: rng.uniform(-Math.PI, Math.PI),
      scale: scales[k]!,
      role: "container",
    });
  }) as [TaskObject, TaskObject];
  assignNames(b.objects);
  const volumeOf = (o: TaskObject) => interiorOf(o.category, o.extent)!.volume_m3;
  const largerObj = volumeOf(lObj) > volumeOf(rObj) ? lObj : rObj;
  const hi = Math.max(volumeOf(lObj), volumeOf(rObj)),
    lo = Math.min(volumeOf(lObj), volumeOf(rObj));
  require(hi / lo >= LIQUID_VOLUME_MIN_RATIO, "interiors too similar");
  const top = Math.max(lObj.extent[2], rObj.extent[2]);
  const D = rng.uniform(0.9, 1.3) + 0.5 * sep;
  const initial = initialView(b, [spot[0] + toCam[0] * D, spot[1] + toCam[1] * D, rng.uniform(0.7, 1.0)], [spot[0], spot[1], top / 2]);
  const ids = [lObj.id, rObj.id];
  const boxVolume = (o: TaskObject) => o.extent[0] * o.extent[1] * o.extent[2];
  return {
    roomType: "living_room",
    room,
    objects: b.objects,
    lighting: defaultLighting(rng),
    ...initial,
    // ESI's template: "Which container has a larger volume: the mug or the wineglass?" (the left one first)
    question: `Which container has a larger volume: ${lObj.name} or ${rObj.name}?`,
    answer: optionName(largerObj),
    answerFormat: "choice",
    options: [optionName(lObj), optionName(rObj)],
    relevant: ids,
    metadata: {
      // ESI answers with the side ("left"/"right", its `gt_larger`); a built-in task answers with the option it names
      gt_larger: largerObj === lObj ? "left" : "right",
      interior_volume_m3: { left: round4(volumeOf(lObj) * 1e6) / 1e6, right: round4(volumeOf(rObj) * 1e6) / 1e6 },
      box_volume_m3: { left: round4(boxVolume(lObj) * 1e6) / 1e6, right: round4(boxVolume(rObj) * 1e6) / 1e6 },
      interior_ratio: round4(hi / lo),
      box_order_reversed: pair.reversed,
    },
    derive: (objects) => {
      const l = get(objects, lObj.id),
        r = get(objects, rObj.id);
      return optionName(volumeOf(l) > volumeOf(r) ? l : r);
    },
    checkInitialView: (p) => {
      for (const id of ids) if (p.fraction(id) < 0.5) return `container ${id} is ${(p.fraction(id) * 100).toFixed(0)} % visible in the initial view`;
      return null;
    },
    // a view from above that looks into both vessels (their depth is what the interior needs)
    gtGoals: [(v) => v.pose.pitch <= rad(-35) + 1e-6 && ids.every((id) => isVisible(v, id, 6))],
    gtKeyPoses: orbitPoses([spot[0], spot[1], top / 2], [0.6, 0.8, 1.0], [1.0, 1.3], 12),
  };
};
