/** Metric Comparison (the ESI-Bench paper, Appendix Q): Spatial Distance and Dimensional Size. */
import type { Vec3 } from "../../../core/math/vec.js";
import { rad } from "../../../core/math/vec.js";
import type { AgentPose } from "../../../core/math/camera.js";
import type { TaskObject } from "../../../core/task/schema.js";
import { METRIC_COMPARISON_MIN_RATIO } from "../../../core/task/rules.js";
import { categoryDef } from "../../../core/objects/library.js";
import { assignNames, cameraLookingAt, defaultLighting, displayName, makeRoom, require, round4, SceneBuilder } from "./common.js";
import type { Draft, Generator } from "./draft.js";
import { withAnswerAt } from "./answerPlan.js";
import { orbitPoses } from "./gtTrajectory.js";
import { objectBox } from "../../../core/objects/geometry.js";
import { boxDistance, boxVolume, footprint } from "../../../core/geometry.js";
import { isVisible } from "./visibility.js";

/** Reference furniture for Spatial Distance (ESI Q.6: an object already in the room, chosen by clearance). */
const DISTANCE_REFERENCES = ["table", "cabinet", "sofa", "counter", "bookshelf", "armchair"];
/** ESI Q.6: a reference needs >= 2 corners with clearance > 0.5 m to other objects' centres. */
const CORNER_CLEARANCE_M = 0.5;
/**
 * ESI `batch_distance.py` (ESI-Bench's released generator scripts): the near object's centre sits D_NEAR + U[-0.05,
 * 0.05] from its corner along the corner's diagonal (`D_NEAR` 0.20; measured 0.050-0.247), the far one's
 * exactly `D_FAR_EXTRA` 0.25 m farther from its own corner (measured exactly 0.250).
 */
const DISTANCE_NEAR_M = 0.2;
const DISTANCE_NEAR_JITTER_M = 0.05;
const DISTANCE_FAR_EXTRA_M = 0.25;
/** ESI: a blocked near offset shrinks in 0.05 m steps down to 0.05 m (the far one keeps its +0.25 m). */
const DISTANCE_SHRINK_STEP_M = 0.05;
const DISTANCE_MIN_NEAR_M = 0.05;
/** Similar-category pairs for the near and far objects. */
const DISTANCE_OBJECTS = ["vase", "potted_plant", "bottle", "candle", "teddy_bear", "basketball", "pumpkin", "kettle", "lamp", "cardboard_box"];
/** Dimensional Size (ESI Q.7): medium household categories; task_obj2 scale ~ U[1.2, 1.3]. */
const SIZE_CATEGORIES = ["vase", "pot", "kettle", "teddy_bear", "potted_plant", "basketball", "cardboard_box", "lamp", "bottle", "pumpkin", "soccer_ball"];
const SIZE_SCALE: [number, number] = [1.2, 1.3];
/** Visually distinct anchors placed next to each task object. */
const SIZE_REFERENCES = ["book", "candle", "toy_block", "can", "apple", "cup", "shoe", "toy_car", "tennis_ball", "mug"];
/** ESI Q.7: a reference is within 0.05 m of its task object and at least 0.30 m from the other. */
const REF_NEAR_M = 0.05;
const REF_FAR_M = 0.3;

const distanceTo = (a: TaskObject, b: TaskObject) => boxDistance(objectBox(a), objectBox(b));
const centreDistance = (a: TaskObject, b: TaskObject) => Math.hypot(a.position[0] - b.position[0], a.position[1] - b.position[1]);

/**
 * Forced-perspective view (ESI-Bench's initial-viewpoint rule, Appendix Q): the camera stands on the line through the two objects, beyond
 * `front`, so it partly blocks `back` and looks larger.
 */
function forcedPerspective(b: SceneBuilder, front: TaskObject, back: TaskObject, distM: [number, number], heightM: [number, number]): AgentPose {
  const rng = b.rng;
  const dx = front.position[0] - back.position[0],
    dy = front.position[1] - back.position[1];
  const L = Math.hypot(dx, dy);
  const lateral = rng.uniform(-0.06, 0.06);
  for (let i = 0; i < 20; i++) {
    const d = rng.uniform(...distM);
    const from: Vec3 = [front.position[0] + (dx / L) * d - (dy / L) * lateral, front.position[1] + (dy / L) * d + (dx / L) * lateral, rng.uniform(...heightM)];
    const target: Vec3 = [back.position[0], back.position[1], back.position[2]];
    const pose = cameraLookingAt(b, from, target);
    if (pose) return pose;
  }
  require(false, "forced-perspective camera blocked");
}

export const spatialDistance: Generator = (rng, _ctx, plan): Draft => {
  const room = makeRoom(rng, "living_room");
  const b = new SceneBuilder(rng, room);
  b.addWallFurniture(rng.int(0, 2), ["bookshelf", "wardrobe"]);
  const refCat = rng.pick(DISTANCE_REFERENCES);
  const refModel = rng.pick(categoryDef(refCat).models).id;
  const re = SceneBuilder.scaledExtent(refModel, 1);
  const refYaw = rng.uniform(-Math.PI, Math.PI);
  const spot = b.findFloorSpot([re[0] / 2 + 1.3, re[1] / 2 + 1.3], 0.05, refYaw);
  require(spot, "no room for the reference");
  const ref = b.add(refCat, { model: refModel, x: spot[0], y: spot[1], yaw: refYaw, role: "reference" });
  const rb = objectBox(ref);
  const corners = footprint(rb);
  const clear = corners.filter(([x, y]) => b.objects.every((o) => o === ref || Math.hypot(o.position[0] - x, o.position[1] - y) > CORNER_CLEARANCE_M));
  require(clear.length >= 2, "reference lacks two clear corners");
  const [cNear, cFar] = rng.sample(clear, 2);
  const [catA, catB] = rng.bool(0.5) ? [rng.pick(DISTANCE_OBJECTS), null] : rng.sample(DISTANCE_OBJECTS, 2);
  // ESI: corner -> object centre along the corner's diagonal
  const place = (corner: [number, number], d: number, cat: string, color?: string) => {
    const dir = [corner[0] - rb.centre[0], corner[1] - rb.centre[1]];
    const L = Math.hypot(dir[0]!, dir[1]!);
    return b.add(cat, { x: corner[0] + (dir[0]! / L) * d, y: corner[1] + (dir[1]! / L) * d, yaw: 0, role: "target", color });
  };
  const clearOf = (o: TaskObject) => b.isClear(objectBox(o), 0.03, new Set([o.id]));
  const palA = categoryDef(catA).models[0]!.palette;
  const colA = rng.pick(palA);
  let dNear = DISTANCE_NEAR_M + rng.uniform(-DISTANCE_NEAR_JITTER_M, DISTANCE_NEAR_JITTER_M);
  let near = place(cNear!, dNear, catA, colA);
  while (!clearOf(near) && dNear - DISTANCE_SHRINK_STEP_M >= DISTANCE_MIN_NEAR_M - 1e-9) {
    b.remove(near);
    dNear -= DISTANCE_SHRINK_STEP_M;
    near = place(cNear!, dNear, catA, colA);
  }
  const dFar = dNear + DISTANCE_FAR_EXTRA_M;
  const catFar = catB ?? catA;
  const palFar = categoryDef(catFar).models[0]!.palette.filter((c) => catB || c !== colA);
  require(palFar.length > 0, "no second colour to tell the objects apart");
  const far = place(cFar!, dFar, catFar, rng.pick(palFar));
  for (const o of [near, far]) require(clearOf(o), "object overlaps the scene");
  assignNames(b.objects);
  const dn = distanceTo(near, ref),
    df = distanceTo(far, ref);
  require(df / dn >= METRIC_COMPARISON_MIN_RATIO && centreDistance(far, ref) > centreDistance(near, ref) + 0.15, "distances too similar");
  // the near object is named at the planned slot (answerPlan.ts), in the question and the options alike
  const [first, second] = withAnswerAt(plan.slot, near, [far]);
  const agent = rng.bool() ? forcedPerspective(b, first!, second!, [0.7, 1.3], [0.7, 1.1]) : forcedPerspective(b, second!, first!, [0.7, 1.3], [0.7, 1.1]);
  const options = [first!.name, second!.name];
  // the reference first; the two candidates in a drawn order, so the order of relevant_object_ids carries no answer
  const ids = [ref.id, ...rng.shuffle([near.id, far.id])];
  return {
    roomType: "living_room",
    room,
    objects: b.objects,
    lighting: defaultLighting(rng),
    agent,
    question: `Which is closer to ${ref.name}: ${first!.name} or ${second!.name}?`,
    answer: near.name,
    answerFormat: "choice",
    options,
    relevant: ids,
    metadata: {
      reference: ref.name,
      distance_measure: "closest distance between object boxes",
      corner_offsets_m: { [near.name]: round4(dNear), [far.name]: round4(dFar) },
      distances_m: { [near.name]: round4(dn), [far.name]: round4(df) },
      centre_distances_m: { [near.name]: round4(centreDistance(near, ref)), [far.name]: round4(centreDistance(far, ref)) },
    },
    derive: (objects) => {
      const get = (id: number) => objects.find((o) => o.id === id)!;
      return distanceTo(get(near.id), get(ref.id)) < distanceTo(get(far.id), get(ref.id)) ? get(near.id).name : get(far.id).name;
    },
    checkInitialView: (p) => {
      for (const id of [near.id, far.id]) if (p.fraction(id) < 0.15) return `object ${id} hidden in the initial view`;
      return null;
    },
    gtGoals: [(v) => v.pose.pitch <= rad(-25) + 1e-6 && ids.every((id) => isVisible(v, id, 6))],
    gtKeyPoses: orbitPoses([rb.centre[0], rb.centre[1], 0.3], [1.6, 2.0, 2.5], [1.6, 1.9], 12),
  };
};

export const dimensionalSize: Generator = (rng, _ctx, plan): Draft => {
  const room = makeRoom(rng, "living_room");
  const b = new SceneBuilder(rng, room);
  b.addWallFurniture(rng.int(1, 2), ["bookshelf", "cabinet", "sofa"]);
  const cat = rng.pick(SIZE_CATEGORIES);
  const model = `${cat}/0`;
  const color = rng.pick(categoryDef(cat).models[0]!.palette);
  const big = rng.uniform(...SIZE_SCALE);
  const e1 = SceneBuilder.scaledExtent(model, 1),
    e2 = SceneBuilder.scaledExtent(model, big);
  const sep = rng.uniform(0.7, 1.0) + (e1[0] + e2[0]) / 2;
  const axis = rng.uniform(-Math.PI, Math.PI);
  const u: [number, number] = [Math.cos(axis), Math.sin(axis)];
  const spot = b.findFloorSpot([sep / 2 + 0.6, 0.6], 0.1, axis);
  require(spot, "no room for the pair");
  const yaw = rng.uniform(-Math.PI, Math.PI);
  const small = b.add(cat, { model, color, x: spot[0] - (u[0] * sep) / 2, y: spot[1] - (u[1] * sep) / 2, yaw, role: "target" });
  const large = b.add(cat, { model, color, scale: big, x: spot[0] + (u[0] * sep) / 2, y: spot[1] + (u[1] * sep) / 2, yaw, role: "target" });
  const [refCatS, refCatL] = rng.sample(
    SIZE_REFERENCES.filter((c) => c !== cat),
    2,
  );
  // each reference just beside its object (gap <= 0.05 m), on the side away from the other object
  const addRef = (obj: TaskObject, refCat: string, awaySign: number) => {
    const re = SceneBuilder.scaledExtent(`${refCat}/0`, 1);
    const side = rng.uniform(-Math.PI / 3, Math.PI / 3) + (awaySign > 0 ? axis : axis + Math.PI);
    const reach = Math.hypot(obj.extent[0], obj.extent[1]) / 2 + Math.hypot(re[0], re[1]) / 2;
    for (let i = 0; i < 40; i++) {
      const d = reach * (1 - i / 60);
      const ref = b.add(refCat, { x: obj.position[0] + d * Math.cos(side), y: obj.position[1] + d * Math.sin(side), yaw: side, role: "reference" });
      const g = distanceTo(ref, obj);
      if (g <= REF_NEAR_M && g > 0.002 && b.isClear(objectBox(ref), 0, new Set([ref.id]))) return ref;
      b.remove(ref);
    }
    require(false, "could not place a reference next to its object");
  };
  const refS = addRef(small, refCatS!, -1),
    refL = addRef(large, refCatL!, 1);
  require(distanceTo(refS, large) >= REF_FAR_M && distanceTo(refL, small) >= REF_FAR_M, "references too close to the other object");
  assignNames(b.objects);
  // ESI `batch_size.py` asks "larger" only (ESI-Bench's released question templates); the right option's position is
  // drawn (ESI's is always the second, a shortcut a text-only baseline takes)
  const askLarger = true;
  const front = rng.bool(0.7) ? small : large; // usually the smaller one in front: the misleading view
  const agent = forcedPerspective(b, front, front === small ? large : small, [0.8, 1.3], [0.5, 0.9]);
  const answerRef = askLarger ? refL : refS;
  // the right reference is named at the planned slot (answerPlan.ts), in the question and the options alike
  const [o1, o2] = withAnswerAt(plan.slot, answerRef, [answerRef === refL ? refS : refL]);
  const catName = displayName(cat);
  // drawn orders: the order of relevant_object_ids tells neither which object is larger nor which reference is right
  const ids = [...rng.shuffle([small.id, large.id]), ...rng.shuffle([refS.id, refL.id])];
  const refName = (o: TaskObject) => displayName(o.category);
  return {
    roomType: "living_room",
    room,
    objects: b.objects,
    lighting: defaultLighting(rng),
    agent,
    question: `Which ${catName} is larger: the one near ${o1!.name}, or the one near ${o2!.name}? Answer with the object next to it: ${refName(o1!)} or ${refName(o2!)}.`,
    answer: refName(answerRef),
    answerFormat: "choice",
    options: [refName(o1!), refName(o2!)],
    relevant: ids,
    metadata: { scale_ratio: round4(big), volume_ratio: round4(boxVolume(objectBox(large)) / boxVolume(objectBox(small))), asked: "larger" },
    derive: (objects) => {
      const get = (id: number) => objects.find((o) => o.id === id)!;
      const vs = boxVolume(objectBox(get(small.id))),
        vl = boxVolume(objectBox(get(large.id)));
      const bigger = vl > vs ? get(large.id) : get(small.id),
        smaller = bigger === get(large.id) ? get(small.id) : get(large.id);
      const target = askLarger ? bigger : smaller;
      const refs = [get(refS.id), get(refL.id)];
      const nearest = refs.reduce((a, r) => (distanceTo(r, target) < distanceTo(a, target) ? r : a));
      return refName(nearest);
    },
    checkInitialView: (p) => {
      for (const id of [small.id, large.id]) if (p.fraction(id) < 0.15) return `object ${id} hidden in the initial view`;
      return null;
    },
    gtGoals: [
      (v) => {
        // a side view: both objects at similar depth, so their sizes compare directly
        const d1 = Math.hypot(v.pose.position[0] - small.position[0], v.pose.position[1] - small.position[1]);
        const d2 = Math.hypot(v.pose.position[0] - large.position[0], v.pose.position[1] - large.position[1]);
        return Math.abs(d1 - d2) < 0.35 && ids.every((id) => isVisible(v, id, 4));
      },
    ],
    gtKeyPoses: orbitPoses([spot[0], spot[1], 0.2], [1.4, 1.8, 2.2], [1.0, 1.3], 2, axis + Math.PI / 2),
  };
};
