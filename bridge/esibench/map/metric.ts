/** Spatial Distance and Dimensional Size (ESI-Bench's released records' metadata). */
import { plainAnswer, stringList } from "../answers.js";
import { displayName, readObject, type Draft, type DraftObject, type InitialView } from "../draft.js";
import { flagFamily, type Field, type EsiRecord } from "../record.js";
import type { DraftView } from "../views.js";
import { applyFlags, keyedViews, need, objectsByKey, showsAll, meta, type Mapper } from "./common.js";

/**
 * The distance and size runners look for the first flag index i whose flags show the objects, then take
 * camera_poses[i] by list position. The exporter sorted that list as strings ("0.png, 1.png, 10.png, ..."),
 * so from the third entry on list position i is not view i (so the released records store them). We take view number i; when
 * the runner's pose differs, `runner` says which it is and whether its own flags show the objects.
 */
function firstShowing(views: DraftView[], keySets: string[][], rule: string): InitialView | null {
  const numbered = views.filter((v) => v.view !== null).sort((a, b) => a.view! - b.view!);
  for (const v of numbered) {
    const keys = keySets.find((ks) => showsAll(v, ks));
    if (!keys) continue;
    const runnerPose = views[v.view!];
    if (!runnerPose || runnerPose.name === v.name) return { name: v.name, rule };
    return {
      name: v.name,
      rule,
      runner: {
        name: runnerPose.name,
        shows: runnerPose.view === null ? null : keySets.some((ks) => showsAll(runnerPose, ks)),
        note: `ESI's runner reads the flags of view ${v.view} but takes camera_poses[${v.view}] by list position, which is ${runnerPose.name}`,
      },
    };
  }
  return null;
}

export const mapSpatialDistance: Mapper = (r: EsiRecord, md: Field): Draft => {
  const list = md.at("objects");
  const by = objectsByKey(list);
  const ref = readObject(need(by, list, "obj_ref"), "obj_ref", "reference");
  const near = readObject(need(by, list, "obj_near"), "obj_near", "target");
  const far = readObject(need(by, list, "obj_far"), "obj_far", "target");
  const views = keyedViews(md.at("camera_poses"));
  applyFlags(views, md.at("exist_ref"), "obj_ref");
  applyFlags(views, md.at("exist_near"), "obj_near");
  applyFlags(views, md.at("exist_far"), "obj_far");
  const options = stringList(r, r.options, "options_json");
  // esi3d's program reads [reference, object, object]; keep the objects in the question's option order
  const inOptionOrder = [near, far].sort((a, b) => options.indexOf(displayName(a.category)) - options.indexOf(displayName(b.category)));
  return {
    objects: [ref, near, far],
    views,
    initial: firstShowing(views, [["obj_near", "obj_far"]], "distance runner: the first view whose flags show the near and the far object"),
    relevant: [ref.key, ...inOptionOrder.map((o) => o.key)],
    answer: plainAnswer(r, options),
    room: {},
    labelMetadata: {
      ...meta(md, [
        "d_near",
        "d_far",
        "dist_near_centre",
        "dist_far_centre",
        "near_corner",
        "far_corner",
        "near_corner_xy",
        "far_corner_xy",
        "near_pos",
        "far_pos",
        "corner_clearances",
        "ref_category",
        "near_category",
        "far_category",
        "layout",
        "seed",
        "run_idx",
        "floor_name",
      ]),
      ...(md.at("answer").exists ? { generator_answer: md.at("answer").value } : {}),
    },
  };
};

const NEAR_THE = /^near the /;

export const mapDimensionalSize: Mapper = (r, md) => {
  const list = md.at("objects");
  const by = objectsByKey(list);
  const objects: DraftObject[] = [];
  for (const n of [1, 2]) {
    const o = readObject(need(by, list, `task_obj${n}`), `task_obj${n}`, "target");
    const lo = md.at("task_obj_aabb_min"),
      hi = md.at("task_obj_aabb_max");
    if (lo.hasEntry(`task_obj${n}_aabb_min`) && hi.hasEntry(`task_obj${n}_aabb_max`))
      o.aabb = { min: lo.entry(`task_obj${n}_aabb_min`).at("value").vec3(), max: hi.entry(`task_obj${n}_aabb_max`).at("value").vec3() };
    objects.push(o);
  }
  const footprints: Record<string, unknown> = {};
  for (const n of [1, 2]) {
    objects.push(readObject(need(by, list, `ref_obj${n}`), `ref_obj${n}`, "reference"));
    const p = md.at("ref_placement");
    if (p.hasEntry(`ref${n}_placement`)) {
      const e = p.entry(`ref${n}_placement`);
      // the record keeps only the reference's half footprint, no height: not an extent
      footprints[`ref_obj${n}`] = {
        half_x: e.at("ref_half_x").numOr(null),
        half_y: e.at("ref_half_y").numOr(null),
        actual_bbox_gap: e.at("actual_bbox_gap").numOr(null),
        collision_fallback: e.at("collision_fallback").value ?? null,
      };
    }
  }
  const views = keyedViews(md.at("camera_poses"));
  applyFlags(views, md.at("exist_task_obj"), (n) => `task_obj${n}`);
  applyFlags(views, md.at("exist_ref_obj"), (n) => `ref_obj${n}`);
  const raw = stringList(r, r.options, "options_json");
  const fixes = raw.some((o) => NEAR_THE.test(o))
    ? [
        {
          field: "options_json" as const,
          from: JSON.stringify(raw),
          to: JSON.stringify(raw.map((o) => o.replace(NEAR_THE, ""))),
          why: "esi3d's Dimensional Size options name the reference itself",
        },
      ]
    : [];
  const answer = plainAnswer(
    r,
    raw.map((o) => o.replace(NEAR_THE, "")),
    r.raw.answer.replace(NEAR_THE, ""),
    fixes,
  );
  const scales: Record<string, number> = {};
  if (md.at("scale_obj").exists)
    for (const [k, v] of md
      .at("scale_obj")
      .keyed()
      .map((e) => [e.key, e.field.at("value").numOr(null)] as const))
      if (v !== null) scales[k] = v;
  return {
    objects,
    views,
    initial: firstShowing(
      views,
      [
        ["task_obj1", "ref_obj1"],
        ["task_obj2", "ref_obj2"],
      ],
      "size runner: the first view whose flags show a task object and its reference",
    ),
    relevant: objects.map((o) => o.key),
    answer,
    room: {},
    labelMetadata: {
      ...meta(md, ["separation", "task_category", "layout", "seed", "run_idx", "floor_name"]),
      scale_obj: scales,
      reference_footprints: footprints,
      ...(md.at("answer").exists ? { generator_answer: md.at("answer").value } : {}),
    },
  };
};

void flagFamily;
