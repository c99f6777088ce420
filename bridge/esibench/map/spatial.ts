/** Geometric Configuration, Linear Alignment, Physical Contact (ESI-Bench's released records' metadata). */
import { plainAnswer } from "../answers.js";
import { readObject, type Draft, type DraftObject } from "../draft.js";
import { flagFamily, type Field, type EsiRecord } from "../record.js";
import type { DraftView } from "../views.js";
import { applyFlags, keyedViews, keysOf, need, objectsByKey, meta, type Mapper } from "./common.js";

/** The triangle runner's initial view: the first pose (list order) lower than this (m), i.e. 0.png. */
const TRIANGLE_INITIAL_MAX_Z_M = 0.1;

function objectsOf(md: Field, keys: string[], role: string): DraftObject[] {
  const list = md.at("objects");
  const by = objectsByKey(list);
  return keys.map((k) => readObject(need(by, list, k), k, role));
}

const flagAll = (v: DraftView | undefined, keys: string[], value: boolean) => keys.forEach((k) => v?.flags.set(k, value));

export const mapGeometricConfiguration: Mapper = (r: EsiRecord, md: Field): Draft => {
  const objects = objectsOf(md, ["obj1", "obj2", "obj3"], "target");
  const keys = keysOf(objects);
  const views = keyedViews(md.at("camera_poses"));
  // success: view 0 shows all three; success_list: success_k (_indices [k]) for view k
  if (md.at("success").exists)
    flagAll(
      views.find((v) => v.view === 0),
      keys,
      md.at("success").bool(),
    );
  if (md.at("success_list").exists)
    for (const [k, value] of flagFamily(md.at("success_list")))
      flagAll(
        views.find((v) => v.view === Number(k)),
        keys,
        value,
      );
  const first = views.find((v) => v.position[2] < TRIANGLE_INITIAL_MAX_Z_M);
  const answer = plainAnswer(r, undefined, r.raw.answer === "random triangle" ? "random" : r.raw.answer);
  if (r.raw.answer === "random triangle") answer.fixes.unshift({ field: "answer", from: "random triangle", to: "random", why: 'the options say "random"' });
  return {
    objects,
    views,
    initial: first ? { name: first.name, rule: `triangle runner: the first pose lower than ${TRIANGLE_INITIAL_MAX_Z_M} m (the front camera)` } : null,
    relevant: keys,
    answer,
    room: {},
    labelMetadata: meta(md, ["layout", "seed", "run_idx", "floor_name", "success"]),
  };
};

export const mapLinearAlignment: Mapper = (r, md) => {
  const objects = objectsOf(md, ["obj1", "obj2", "obj3"], "target");
  const views = keyedViews(md.at("camera_poses"));
  return {
    objects,
    views,
    initial: views[0] ? { name: views[0].name, rule: "line runner: the first pose in the list" } : null,
    relevant: keysOf(objects),
    answer: plainAnswer(r),
    room: {},
    labelMetadata: meta(md, ["seed", "run_idx", "floor_name", "success"]),
  };
};

export const mapPhysicalContact: Mapper = (r, md) => {
  const objects = objectsOf(md, ["obj1", "obj2"], "target");
  const aabbs = md.at("obj_aabb");
  for (const o of objects) {
    const e = aabbs.entry(`${o.key}_aabb`);
    o.aabb = { min: e.at("min").vec3(), max: e.at("max").vec3() };
  }
  const views = keyedViews(md.at("camera_poses"));
  // 115 records: exist_obj [object, view]; the 4 of the older batch_touching.py: exist [view] (both objects)
  // plus exist_left/right [view, degrees] for the sweep poses "<view>_left<deg>.png"
  applyFlags(views, md.at("exist_obj"), (n) => `obj${n}`);
  if (md.at("exist").exists)
    for (const [k, value] of flagFamily(md.at("exist")))
      flagAll(
        views.find((v) => v.view === Number(k)),
        ["obj1", "obj2"],
        value,
      );
  for (const side of ["left", "right"] as const)
    if (md.at(`exist_${side}`).exists)
      for (const [k, value] of flagFamily(md.at(`exist_${side}`))) {
        const [view, deg] = k.split(",");
        flagAll(
          views.find((v) => v.name === `${view}_${side}${deg}.png`),
          ["obj1", "obj2"],
          value,
        );
      }
  const touching = md.at("touching").exists ? [...flagFamily(md.at("touching")).values()].filter(Boolean).length : null;
  return {
    objects,
    views,
    initial: views[0] ? { name: views[0].name, rule: "touching runner: the first pose in the list" } : null,
    relevant: keysOf(objects),
    answer: plainAnswer(r),
    room: {},
    labelMetadata: {
      ...meta(md, ["layout", "orientation", "x_gap", "y_gap", "drift_x", "drift_y", "seed", "run_idx", "floor_name"]),
      views_touching_in_mask: touching,
    },
  };
};
