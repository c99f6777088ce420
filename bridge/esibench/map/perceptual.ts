/** Material Transparency, Partial Occlusion, View Hallucination (ESI-Bench's released records' metadata). */
import { plainAnswer } from "../answers.js";
import { readObject, type Draft, type DraftObject } from "../draft.js";
import type { Field } from "../record.js";
import { applyFlags, keyedViews, need, objectsByKey, meta, type Mapper } from "./common.js";

/** BEHAVIOR-1K's floor objects: their AABB gives the room's floor rectangle, they are not task objects. */
const FLOOR_CATEGORY = "floors";

/** The support: a table becomes an object; a floor becomes the room's bounds and floor height. */
function support(md: Field, by: Map<string, Field>): { object: DraftObject | null; room: Draft["room"] } {
  const f = by.get("support");
  if (!f) return { object: null, room: {} };
  if (f.at("category").strOr("") === FLOOR_CATEGORY && f.at("aabb_min").exists) {
    const lo = f.at("aabb_min").vec3(),
      hi = f.at("aabb_max").vec3();
    return { object: null, room: { bounds: { min: [lo[0], lo[1]], max: [hi[0], hi[1]] }, floorZ: hi[2], source: `${f.path} (the floor's AABB)` } };
  }
  void md;
  return { object: readObject(f, "support", "support"), room: {} };
}

export const mapMaterialTransparency: Mapper = (r, md) => {
  const list = md.at("objects");
  const by = objectsByKey(list);
  const container = readObject(need(by, list, "obj_container"), "obj_container", "container", { transparent: true });
  const small = readObject(need(by, list, "obj_small"), "obj_small", "target");
  const views = keyedViews(md.at("camera_poses"));
  applyFlags(views, md.at("exist_obj_container"), "obj_container");
  applyFlags(views, md.at("exist_obj_small"), "obj_small");
  const first = views.find((v) => v.name === "0.png");
  return {
    objects: [container, small],
    views,
    initial: first ? { name: first.name, rule: "transparent runner: 0.png" } : null,
    relevant: ["obj_container", "obj_small"],
    answer: plainAnswer(r),
    room: {},
    labelMetadata: {
      ...meta(md, ["layout", "container_cat", "container_model", "small_obj_cat", "camera_0_azimuth_deg", "seed", "run_idx", "floor_name"]),
      ...(md.at("answer").exists ? { generator_answer: md.at("answer").value } : {}),
    },
  };
};

export const mapPartialOcclusion: Mapper = (r, md) => {
  const list = md.at("objects");
  const by = objectsByKey(list);
  const target = readObject(need(by, list, "target"), "target", "target");
  const occluderField = need(by, list, "occluder");
  const occluder = readObject(
    occluderField,
    "occluder",
    "occluder",
    occluderField.at("applied_scale").exists ? { scale: occluderField.at("applied_scale").vec3() } : {},
  );
  const s = support(md, by);
  const views = keyedViews(md.at("camera_poses"));
  applyFlags(views, md.at("exist_target_obj"), "target");
  applyFlags(views, md.at("exist_occluder_obj"), "occluder");
  return {
    objects: [target, occluder, ...(s.object ? [s.object] : [])],
    views,
    initial: views[0] ? { name: views[0].name, rule: "occlusion runner: the first pose in the list (the hard view)" } : null,
    relevant: ["occluder", "target"],
    answer: plainAnswer(r),
    room: s.room,
    labelMetadata: meta(md, ["placement_mode", "support_type", "support_category", "target_confusable_with", "layout", "seed", "run_idx", "floor_name"]),
  };
};

export const mapViewHallucination: Mapper = (r, md) => {
  const list = md.at("objects");
  const by = objectsByKey(list);
  const target = readObject(need(by, list, "target"), "target", "target");
  const s = support(md, by);
  const viewList = md.at("views");
  const views = keyedViews(viewList);
  // per-view visibility [{_key: "target_obj", value}] and the exist_target_obj family say the same thing
  for (const { key, field } of viewList.keyed()) {
    const v = views.find((x) => x.name === key)!;
    for (const e of field.at("visibility").listOrEmpty())
      if (e.at("_key").strOr("") === "target_obj" && typeof e.at("value").value === "boolean") v.flags.set("target", e.at("value").value as boolean);
  }
  applyFlags(views, md.at("exist_target_obj"), "target");
  const first = views.find((v) => v.kind !== "topdown" && !/topdown/.test(v.name) && v.flags.get("target") === true);
  return {
    objects: [target, ...(s.object ? [s.object] : [])],
    views,
    initial: first ? { name: first.name, rule: "angle_confusion runner: the first non-top-down view with the target visible" } : null,
    relevant: ["target"],
    answer: plainAnswer(r),
    room: s.room,
    labelMetadata: {
      ...meta(md, ["placement_mode", "support_type", "support_category", "target_confusable_with", "layout", "seed", "run_idx", "floor_name"]),
      ...(md.at("answer").exists ? { generator_answer: md.at("answer").value } : {}),
    },
  };
};
