/**
 * The 16 subcategories esi3d does not generate (ESI-Bench's released records' metadata, second table). Their
 * metadata differs per generator; each mapper below reads the placed objects it names, and every camera
 * pose the record stores (any position + quaternion_xyzw under a key naming a camera, view or observer)
 * becomes a candidate view. The runner's initial view is known only for 9 runner modules of ESI-Bench's released runner; for these
 * we take the view the record itself names as its main or initial view (stated per mapper), or none.
 */
import type { Vec3 } from "../../../core/math/vec.js";
import { quatToMat } from "../../../core/math/quat.js";
import { MIRROR_CATEGORY, MIRROR_FRAME_BORDER_M, MIRROR_PANE_THICKNESS_M } from "../../../core/objects/mirror.js";
import { matchOption, parseJsonAnswer, plainAnswer, stringList, structuredAnswer } from "../answers.js";
import { displayName, readObject, type AnswerFix, type Draft, type DraftAnswer, type DraftObject } from "../draft.js";
import { RecordRefusal, type EsiRecord, type Field, type Json } from "../record.js";
import { readView, type DraftView, type QuatXyzw } from "../views.js";
import type { Mapper } from "./common.js";

const CAMERA_PATH = /cam|view|observer/i;
const NOT_A_CAMERA = /mirror_pose|scene_setup\.mirror$/;
const NAME_KEYS = ["image_path", "filename", "_key", "view_name", "view_id"];

interface Harvested extends DraftView {
  path: string;
}

/** Every camera pose of a record, named by its image (or its path), in document order. */
function harvestViews(md: Field, exclude?: RegExp): Harvested[] {
  const out: Harvested[] = [];
  const visit = (f: Field, parent: Field | null) => {
    const v = f.value;
    if (Array.isArray(v)) {
      f.list().forEach((c) => visit(c, f));
      return;
    }
    if (!v || typeof v !== "object") return;
    if (exclude?.test(f.path)) return;
    if (f.at("position").exists && f.at("quaternion_xyzw").exists && CAMERA_PATH.test(f.path) && !NOT_A_CAMERA.test(f.path)) {
      const holder = /(camera_pose|\.pose)$/.test(f.path) && parent ? parent : f;
      const named = NAME_KEYS.map((k) => holder.at(k)).find((x) => typeof x.value === "string");
      let name = named ? (named.value as string) : f.path.replace(/^metadata_json\./, "");
      const view = readView(f, name);
      const same = out.find((x) => x.name === name);
      if (same && same.position.every((c, i) => c === view.position[i]) && same.quat.every((c, i) => c === view.quat[i])) return;
      if (same) name = f.path.replace(/^metadata_json\./, "");
      out.push({ ...view, name, path: f.path.replace(/^metadata_json\./, "") });
      return;
    }
    for (const k of Object.keys(v)) visit(f.at(k), f);
  };
  visit(md, null);
  return out;
}

const firstUnder = (views: Harvested[], prefix: string) =>
  views.find((v) => v.path === prefix || v.path.startsWith(`${prefix}.`) || v.path.startsWith(`${prefix}[`));

function draft(
  _r: EsiRecord,
  md: Field,
  objects: DraftObject[],
  views: Harvested[],
  initial: Harvested | undefined,
  rule: string,
  answer: DraftAnswer,
  labelMetadata: Record<string, unknown> = {},
  hfovDeg?: number,
): Draft {
  return {
    objects,
    views: views.map(({ path: _p, ...v }) => v),
    initial: initial ? { name: initial.name, rule } : null,
    relevant: objects.filter((o) => o.role !== "distractor").map((o) => o.key),
    answer,
    room: {},
    labelMetadata: { seed: md.at("seed").value ?? null, ...labelMetadata },
    ...(hfovDeg ? { hfovDeg } : {}),
  };
}

/** An object from a pose dict that holds position + quaternion_xyzw + AABB under other names. */
function poseObject(key: string, role: string, category: string, model: string | null, pose: Field, extra: Partial<DraftObject> = {}): DraftObject {
  const quat = (pose.at("quaternion_xyzw").exists ? pose.at("quaternion_xyzw").vec(4) : [0, 0, 0, 1]) as QuatXyzw;
  const aabb = pose.at("aabb_min").exists ? { min: pose.at("aabb_min").vec3(), max: pose.at("aabb_max").vec3() } : null;
  return { key, field: pose.path, category, model, role, origin: pose.at("position").vec3(), quat, aabb, ownExtent: null, scale: 1, ...extra };
}

// ---------------------------------------------------------------------------------------------- answers

function flattenedOptions(r: EsiRecord): { options: string[]; fix: AnswerFix } {
  const o = r.options;
  if (Array.isArray(o) && o.every((x) => x && typeof x === "object" && !Array.isArray(x) && typeof (x as Record<string, Json>).text === "string")) {
    const texts = (o as Array<Record<string, Json>>).map((x) => x.text as string);
    return {
      options: texts,
      fix: { field: "options_json", from: r.raw.options_json, to: JSON.stringify(texts), why: "flattened {option_id, text} options to their texts" },
    };
  }
  if (o && typeof o === "object" && !Array.isArray(o)) {
    const vals = Object.values(o).map((v) => String(v));
    return {
      options: vals,
      fix: { field: "options_json", from: r.raw.options_json, to: JSON.stringify(vals), why: "flattened the option dict to its values" },
    };
  }
  return { options: stringList(r, o, "options_json"), fix: { field: "options_json", from: "", to: "", why: "" } };
}

function flatAnswer(r: EsiRecord): DraftAnswer {
  const { options, fix } = flattenedOptions(r);
  return plainAnswer(r, options, r.raw.answer, fix.why ? [fix] : []);
}

function partsAnswer(r: EsiRecord): DraftAnswer {
  const opts = r.options,
    ans = parseJsonAnswer(r);
  if (!opts || typeof opts !== "object" || Array.isArray(opts))
    throw new RecordRefusal(r.file, "options_json", "expected a dict of option lists per part (Action Order Inference)");
  const fixes: AnswerFix[] = [];
  const parts = Object.entries(opts as Record<string, Json>).map(([key, o]) => {
    const options = stringList(r, o, `options_json.${key}`);
    const given =
      ans && typeof ans === "object" && !Array.isArray(ans)
        ? ((ans as Record<string, Json>)[`answer_${key}`] ?? (ans as Record<string, Json>)[key])
        : undefined;
    return { key, options, given: typeof given === "string" ? given : null };
  });
  const missing = parts.find((p) => p.given === null);
  if (missing)
    return structuredAnswer(
      { kind: "parts", parts: parts.map((p) => ({ key: p.key, options: p.options, answer: p.options[0]! })) },
      parts.flatMap((p) => p.options),
      fixes,
      `no answer for part ${missing.key} in ${r.raw.answer}`,
    );
  const mapped = parts.map((p) => ({ ...p, answer: matchOption(p.given!, p.options, fixes, `part ${p.key}`) }));
  const bad = mapped.find((p) => p.answer === null);
  return structuredAnswer(
    { kind: "parts", parts: mapped.map((p) => ({ key: p.key, options: p.options, answer: p.answer ?? p.options[0]! })) },
    [...new Set(parts.flatMap((p) => p.options))],
    fixes,
    bad ? `part ${bad.key}: "${bad.given}" is not one of ${JSON.stringify(bad.options)}` : undefined,
  );
}

function stepsAnswer(r: EsiRecord): DraftAnswer {
  const o = r.options;
  if (!Array.isArray(o) || !o.every(Array.isArray)) return plainAnswer(r);
  const stepOptions = (o as Json[]).map((s, i) => stringList(r, s, `options_json[${i}]`));
  const given = r.raw.answer.split(" | ").map((s) => s.trim());
  const fixes: AnswerFix[] = [];
  const union = [...new Set(stepOptions.flat())];
  if (given.length !== stepOptions.length)
    return structuredAnswer(
      { kind: "step_sequence", steps: stepOptions.map((opts) => ({ options: opts, answer: opts[0]! })) },
      union,
      fixes,
      `${given.length} answer steps for ${stepOptions.length} option lists`,
    );
  const steps = stepOptions.map((opts, i) => ({ options: opts, given: given[i]!, answer: matchOption(given[i]!, opts, fixes, `step ${i + 1}`) }));
  const bad = steps.findIndex((s) => s.answer === null);
  return structuredAnswer(
    { kind: "step_sequence", steps: steps.map((s) => ({ options: s.options, answer: s.answer ?? s.options[0]! })) },
    union,
    fixes,
    bad >= 0 ? `step ${bad + 1}: "${steps[bad]!.given}" is not one of ${JSON.stringify(steps[bad]!.options)}` : undefined,
  );
}

function orderingAnswer(r: EsiRecord): DraftAnswer {
  const items = stringList(r, r.options, "options_json");
  const ans = parseJsonAnswer(r);
  const accepted = Array.isArray(ans) && ans.every((x) => Array.isArray(x) && x.every((y) => typeof y === "string")) ? (ans as string[][]) : null;
  const sorted = [...items].sort().join("\u0000");
  const bad =
    !accepted || accepted.length === 0
      ? "expected a list of accepted orders"
      : accepted.find((a) => [...a].sort().join("\u0000") !== sorted)
        ? "an accepted order is not a permutation of the options"
        : undefined;
  return structuredAnswer({ kind: "any_ordering", items, accepted: bad ? [items] : accepted! }, items, [], bad ? `${bad}: ${r.raw.answer}` : undefined);
}

function assignmentOrChoice(r: EsiRecord): DraftAnswer {
  if (!r.raw.answer.trim().startsWith("[")) return plainAnswer(r);
  const targets = stringList(r, r.options, "options_json");
  const ans = parseJsonAnswer(r);
  const pairs = Array.isArray(ans)
    ? ans.map((e) =>
        e && typeof e === "object" && !Array.isArray(e) ? { item: (e as Record<string, Json>)._key, target: (e as Record<string, Json>).value } : null,
      )
    : null;
  const fixes: AnswerFix[] = [];
  if (!pairs || pairs.some((p) => !p || typeof p.item !== "string" || typeof p.target !== "string"))
    return structuredAnswer(
      { kind: "assignment", targets, pairs: [{ item: "?", target: targets[0]! }] },
      targets,
      fixes,
      `expected a keyed list [{"_key": item, "value": container}], got ${r.raw.answer}`,
    );
  const mapped = (pairs as Array<{ item: string; target: string }>).map((p) => ({ item: p.item, target: matchOption(p.target, targets, fixes, p.item) }));
  const bad = mapped.find((p) => p.target === null);
  return structuredAnswer(
    { kind: "assignment", targets, pairs: mapped.map((p) => ({ item: p.item, target: p.target ?? targets[0]! })) },
    targets,
    fixes,
    bad ? `${bad.item}: not one of ${JSON.stringify(targets)}` : undefined,
  );
}

/** Liquid Volume answers "left"/"right", the options name the containers (as the released records do). */
function sideAnswer(r: EsiRecord, md: Field): DraftAnswer {
  const options = stringList(r, r.options, "options_json");
  const side = r.raw.answer.trim().toLowerCase();
  const cat = md.at(`${side}_category`);
  if ((side === "left" || side === "right") && cat.exists) {
    const name = displayName(cat.str());
    if (options.includes(name))
      return {
        format: "choice",
        answer: name,
        options,
        fixes: [{ field: "answer", from: r.raw.answer, to: name, why: `the ${side} container (${cat.path})` }],
      };
  }
  return plainAnswer(r, options);
}

// ---------------------------------------------------------------------------------------------- mappers

export const mapActionOrder: Mapper = (r, md) => {
  const poses = new Map(
    md
      .at("initial_poses")
      .keyed()
      .map((e) => [e.key, e.field]),
  );
  const objects = md
    .at("objects")
    .keyed()
    .flatMap(({ key, field }) => {
      const pose = poses.get(key);
      if (!pose) return [];
      return [
        poseObject(key, key === "obj_fixed" ? "reference" : "target", field.at("cat").str(), field.at("model").strOr("") || null, pose, {
          scale: Array.isArray(field.at("scale").value) ? (field.at("scale").vec3() as Vec3) : 1,
        }),
      ];
    });
  const views = harvestViews(md);
  // stage0_initial_views carry exist_<object> flags per view
  for (const f of md.at("stage0_initial_views").listOrEmpty()) {
    const v = views.find((x) => x.name === f.at("filename").strOr(""));
    if (v) for (const o of objects) if (typeof f.at(`exist_${o.key}`).value === "boolean") v.flags.set(o.key, f.at(`exist_${o.key}`).value as boolean);
  }
  const file = md.get("qa", "view_file").strOr("");
  return draft(
    r,
    md,
    objects,
    views,
    views.find((v) => v.name === file) ?? views[0],
    "our rule: the stage-0 view the question was asked on (qa.view_file)",
    partsAnswer(r),
    { hierarchy: md.at("hierarchy").value ?? null },
  );
};

function cognitive(initialPaths: string[]): Mapper {
  return (r, md) => {
    const views = harvestViews(md);
    const initial = initialPaths.map((p) => firstUnder(views, p)).find(Boolean);
    const qd = md.at("question_data");
    return draft(
      r,
      md,
      [],
      views,
      initial,
      `our rule: the record's ${initialPaths.join(" or ")}`,
      r.raw.small_task === "Long-Term Navigation" ? stepsAnswer(r) : plainAnswer(r),
      {
        task_type: md.at("task_type").value ?? null,
        trav_map: md.at("trav_map_basename").value ?? null,
        question_keys: Object.keys(qd.exists ? qd.object() : {}),
      },
    );
  };
}

export const mapConnectivity = cognitive(["question_data.initial_view"]);
export const mapLongTermNavigation = cognitive(["question_data.initial_view"]);
export const mapTraversablePassage = cognitive(["question_data.initial_view"]);
export const mapRegionalBoundary = cognitive(["question_data.source_view", "question_data.overview_view", "question_data.initial_view"]);

export const mapInclinedPlane: Mapper = (r, md) => {
  const t = md.at("objects").entry("task_obj");
  const obj: DraftObject = {
    key: "task_obj",
    field: t.path,
    category: t.at("category").str(),
    model: t.at("model").strOr("") || null,
    role: "target",
    origin: t.at("pos_init").vec3(),
    quat: [0, 0, 0, 1],
    aabb: t.at("aabb_min_init").exists ? { min: t.at("aabb_min_init").vec3(), max: t.at("aabb_max_init").vec3() } : null,
    ownExtent: null,
    scale: 1,
  };
  const s = md.at("slope");
  const slope: DraftObject = {
    key: "slope",
    field: s.path,
    category: "slope",
    model: null,
    role: "support",
    origin: s.at("position").vec3(),
    quat: md.at("slope_quaternion").vec(4) as QuatXyzw,
    aabb: s.at("aabb_min").exists ? { min: s.at("aabb_min").vec3(), max: s.at("aabb_max").vec3() } : null,
    ownExtent: md.at("slope_scale").exists ? (md.at("slope_scale").vec3() as Vec3) : null,
    scale: 1,
  };
  const views = harvestViews(md);
  return draft(r, md, [obj, slope], views, firstUnder(views, "camera_poses"), "our rule: the first of camera_poses", plainAnswer(r), {
    slope_angle_deg: md.at("slope_angle_deg").value ?? null,
    static_friction: md.at("static_friction").value ?? null,
    dynamic_friction: md.at("dynamic_friction").value ?? null,
    ground_truth_slid: md.at("ground_truth_slid").value ?? null,
  });
};

export const mapStacking: Mapper = (r, md) => {
  const names = md
    .at("object_names")
    .list()
    .map((f) => f.str());
  const cats = md
    .at("object_categories")
    .list()
    .map((f) => f.str());
  const models = md
    .at("object_models")
    .listOrEmpty()
    .map((f) => f.str());
  const poses = new Map(
    md
      .at("initial_poses")
      .keyed()
      .map((e) => [e.key, e.field]),
  );
  const objects = names.map((n, i) => {
    const pose = poses.get(n);
    if (!pose) return md.at("initial_poses").refuse(`no pose for ${n}`);
    return poseObject(n, "target", cats[i] ?? md.at("object_categories").refuse(`no category for ${n}`), models[i] ?? null, pose);
  });
  // the trials' views show the objects after a stacking attempt, not the initial scene
  const views = harvestViews(md, /\.trials/);
  for (const f of md.at("initial_exist_flags").listOrEmpty()) {
    const m = /^exist_(stack_obj\d+)_(.+)$/.exec(f.at("_key").strOr(""));
    const v = m ? views.find((x) => x.name === m[2]) : undefined;
    if (m && v && typeof f.at("value").value === "boolean") v.flags.set(m[1]!, f.at("value").value as boolean);
  }
  return draft(r, md, objects, views, firstUnder(views, "initial_cam_poses"), "our rule: the first of initial_cam_poses", orderingAnswer(r));
};

export const mapDeformable: Mapper = (r, md) => {
  const it = md.at("small_item");
  const pose = it.at("pose_after_cover");
  const bb = it.at("bbox_after_cover");
  const item: DraftObject = {
    key: "small_item",
    field: it.path,
    category: it.at("category").str(),
    model: it.at("model").strOr("") || null,
    role: "target",
    origin: pose.at("position").vec3(),
    quat: pose.at("quaternion_xyzw").vec(4) as QuatXyzw,
    aabb: bb.exists ? { min: bb.at("min").vec3(), max: bb.at("max").vec3() } : null,
    ownExtent: null,
    scale: 1,
  };
  const views = harvestViews(md);
  const fov = md.get("camera_poses", "fov_deg").numOr(null);
  return draft(
    r,
    md,
    [item],
    views,
    firstUnder(views, "render.main_view"),
    "our rule: render.main_view",
    flatAnswer(r),
    { cloth: md.get("cloth", "category").value ?? null, distractors: md.at("distractors").value ?? null },
    fov ?? undefined,
  );
};

export const mapLiquidVolume: Mapper = (r, md) => {
  const containers: Record<string, unknown> = {};
  for (const k of ["obj1", "obj2"]) if (md.at(k).exists) containers[k] = md.at(k).value;
  // the record places nothing: Rs_int's fixed environment, the two containers' poses are not stored
  return draft(r, md, [], [], undefined, "none: the record stores no camera", sideAnswer(r, md), {
    containers,
    gt_larger: md.at("gt_larger").value ?? null,
    capacity_diff_measured: md.at("capacity_diff_measured").value ?? null,
  });
};

export const mapRigidContainment: Mapper = (r, md) => {
  const objects: DraftObject[] = [];
  const add = (f: Field, key: string, role: string) => {
    const pose = f.at("final_pose");
    const scale = Array.isArray(f.at("scale").value) ? (f.at("scale").vec3() as Vec3) : 1;
    const inv = f.at("bbox_inventory").exists ? (f.at("bbox_inventory").vec3() as Vec3) : null;
    const s = Array.isArray(scale) ? scale : [scale, scale, scale];
    // bbox_inventory is the model's native box; times the scale it is the placed object's own-axis extent
    objects.push(
      poseObject(key, role, f.at("cat").str(), f.at("model").strOr("") || null, pose, {
        scale,
        ownExtent: inv ? [inv[0] * s[0]!, inv[1] * s[1]!, inv[2] * s[2]!] : null,
      }),
    );
  };
  if (md.at("containee").exists) add(md.at("containee"), "containee", "target");
  for (const { key, field } of md.at("containees").exists ? md.at("containees").keyed() : []) add(field, key, "target");
  for (const { key, field } of md.at("containers").exists ? md.at("containers").keyed() : []) add(field, key, "container");
  for (const { key, field } of md.at("extras").exists ? md.at("extras").keyed() : []) add(field, key, "distractor");
  return draft(r, md, objects, harvestViews(md), undefined, "none: the record stores no camera", assignmentOrChoice(r));
};

/**
 * How far (rad) a mirror's normal_xy may turn from its quaternion's +x axis: ESI writes both from one pose (the sample's
 * records agree to 1e-15), so a larger gap is a record whose mirror esi3d cannot place.
 */
const MIRROR_NORMAL_TOLERANCE_RAD = 1e-3;

/**
 * The record's mirror as an esi3d mirror object (core/objects/mirror.ts: the reflective face is the box's +x face).
 * ESI's mirror quaternion turns +x onto normal_xy and +y onto tangent_xy, and its position (the model's base link, as
 * ESI places it) lies on the reflective plane: every placement's mirror_hit_xy and mirror_position lie on and reflect
 * about the plane through it. The record gives the half width; the rest of the extent is ours: MIRROR_PANE_THICKNESS_M
 * thick, and as high as a framed mirror standing on the floor, centred at the position's z, with the frame's border
 * below the pane. Without a floor height the height is unknown and the mirror has no extent.
 */
function mirrorObject(md: Field, m: Field, floorZ: number | undefined): DraftObject {
  const quat = m.at("quaternion_xyzw").vec(4) as QuatXyzw;
  const R = quatToMat({ x: quat[0], y: quat[1], z: quat[2], w: quat[3] });
  const nxy = m.at("normal_xy").exists ? m.at("normal_xy").vec(2) : null;
  const gap = nxy ? Math.abs(Math.atan2(nxy[0]! * R[1][0] - nxy[1]! * R[0][0], nxy[0]! * R[0][0] + nxy[1]! * R[1][0])) : 0;
  if (gap > MIRROR_NORMAL_TOLERANCE_RAD) m.at("normal_xy").refuse("expected the mirror quaternion's +x axis (ESI's mirror faces its normal_xy)");
  const position = m.at("position").vec3() as Vec3;
  const halfHeight = floorZ === undefined ? null : position[2] - floorZ - MIRROR_FRAME_BORDER_M;
  const width = 2 * m.at("half_width_m").num();
  return {
    key: "mirror",
    field: m.path,
    category: md.get("mirror_setup", "category").strOr(MIRROR_CATEGORY),
    model: md.get("mirror_setup", "model").strOr("") || null,
    role: "mirror",
    origin: position,
    quat,
    aabb: null,
    ownExtent: halfHeight !== null && halfHeight > 0 && width > 0 ? [MIRROR_PANE_THICKNESS_M, width, 2 * halfHeight] : null,
    scale: 1,
  };
}

function mirror(r: EsiRecord, md: Field): Draft {
  const qd = md.at("question_data");
  const objects: DraftObject[] = qd
    .at("placement")
    .listOrEmpty()
    .map((f, i) => ({
      key: `placement[${i}]`,
      field: f.path,
      category: f.at("category").str(),
      model: f.at("model").strOr("") || null,
      role: "target",
      origin: f.at("real_position").vec3(),
      quat: (f.at("quaternion_xyzw").exists ? f.at("quaternion_xyzw").vec(4) : [0, 0, 0, 1]) as QuatXyzw,
      aabb: null,
      ownExtent: null,
      scale: 1,
    }));
  const views = harvestViews(md);
  const initial = firstUnder(views, "question_data.render.camera_pose");
  // our rule: ESI puts its cameras camera_poses.height_m above the floor, so the floor is that far below the question's camera
  const cameraHeight = md.get("camera_poses", "height_m").numOr(null);
  const floorZ = initial && cameraHeight !== null ? initial.position[2] - cameraHeight : undefined;
  const m = qd.get("scene_setup", "mirror");
  if (m.exists) objects.push(mirrorObject(md, m, floorZ));
  const fov = md.get("camera_poses", "fov_deg").numOr(null);
  const d = draft(
    r,
    md,
    objects,
    views,
    initial,
    "our rule: question_data.render.camera_pose (the question's image)",
    plainAnswer(r),
    { evidence: qd.at("evidence").value ?? null },
    fov ?? undefined,
  );
  return floorZ === undefined ? d : { ...d, room: { floorZ, source: "the question's camera, camera_poses.height_m above the floor" } };
}

export const mapMirror: Mapper = mirror;

export const mapAgentObservation: Mapper = (r, md) => {
  const cat = md.at("object_category").strOr("");
  const objects = md
    .at("objects_meta")
    .keyed()
    .map(({ key, field }) => {
      const o = readObject(field, key, field.at("category").strOr("") === cat ? "target" : "distractor");
      return o;
    });
  const views = harvestViews(md);
  for (const f of md.at("observer_poses").listOrEmpty()) {
    const v = views.find((x) => x.name === f.at("_key").strOr(""));
    for (const e of f.at("visibility").listOrEmpty())
      if (v && objects.some((o) => o.key === e.at("_key").strOr("")) && typeof e.at("value").value === "boolean")
        v.flags.set(e.at("_key").str(), e.at("value").value as boolean);
  }
  return draft(r, md, objects, views, firstUnder(views, "observer_poses"), "our rule: the first observer pose", flatAnswer(r), {
    proximity_thresh: md.at("proximity_thresh").value ?? null,
    true_count: md.at("true_count").value ?? null,
    path_waypoints: md.at("path_waypoints").value ?? null,
  });
};

export const mapUnobservedChange: Mapper = (r, md) => {
  const qd = md.at("question_data");
  const objects = qd
    .at("boxes")
    .listOrEmpty()
    .map((f, i) => {
      const c = f.at("container");
      const bbox = c.at("bbox");
      const b = bbox.exists ? bbox.list() : [];
      return {
        key: `boxes[${i}]`,
        field: c.path,
        category: c.at("category").str(),
        model: c.at("model").strOr("") || null,
        role: "container",
        origin: c.get("placement", "position").vec3(),
        quat: [0, 0, 0, 1] as QuatXyzw,
        aabb: b.length === 2 ? { min: b[0]!.vec3(), max: b[1]!.vec3() } : null,
        ownExtent: null,
        scale: 1,
      };
    });
  const views = harvestViews(md);
  return draft(
    r,
    md,
    objects,
    views,
    firstUnder(views, "question_data.render.image"),
    "our rule: the first pose of question_data.render.image",
    plainAnswer(r),
    {
      changes: qd
        .at("boxes")
        .listOrEmpty()
        .map((f) => ({ box: f.at("box_index").value ?? null, change: f.at("change_type").value ?? null })),
    },
  );
};
