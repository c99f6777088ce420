/**
 * A mapper's draft -> an esi3d task record (TaskRecordSchema), after ESI-Bench's released records. Unknowns
 * stay unknown (null extents, models, room size, lighting) instead of being filled with placeholders.
 */
import { quatFromYaw } from "../../core/math/quat.js";
import { MIN_TASK_CAMERA_HEIGHT_M, TaskRecordSchema, type CandidateView, type TaskRecord, type TaskRecordObject } from "../../core/task/schema.js";
import { SUBCATEGORY_CATEGORY, type Subcategory } from "../../core/task/taxonomy.js";
import { roomTypeOfId } from "../../core/task/layout.js";
import { formatZodIssues } from "../../core/errors.js";
import { aabbCentre, aabbSize, displayName, type Draft } from "./draft.js";
import { RecordRefusal, type EsiRecord } from "./record.js";
import { usdCameraAngles } from "./views.js";

/**
 * ESI's runner renders through OmniGibson's viewer camera: 1280 x 720, focal length 17 mm, USD's default
 * horizontal aperture 20.955 mm, so HFOV = 2 atan(20.955 / 34) = 63.29 deg (ESI-Bench's released camera conventions).
 */
const ESI_IMAGE = { width: 1280, height: 720 } as const;
const ESI_HFOV_DEG = (2 * Math.atan(20.955 / (2 * 17)) * 180) / Math.PI;
/** Deformable sets its camera explicitly: 70 deg at 1280 x 720 (ESI-Bench's released camera conventions). */
const ESI_DEFORMABLE_HFOV_DEG = 70;
/** The simulator field of imported tasks. */
const ESI_SIMULATOR = "esi-bench/omnigibson";
const FIRST_IMPORTED_OBJECT_ID = 16;

const TASK_ID_OK = /^[A-Za-z0-9_.-]+$/;

export function buildTask(r: EsiRecord, sub: Subcategory, d: Draft): TaskRecord {
  if (!TASK_ID_OK.test(r.raw.id)) throw new RecordRefusal(r.file, "id", "expected letters, digits, '_', '.' or '-' (ESI ids are \"0001\" ... \"3502\")");
  const idOf = new Map(d.objects.map((o, i) => [o.key, FIRST_IMPORTED_OBJECT_ID + i]));
  const objects: TaskRecordObject[] = d.objects.map((o) => {
    const extent = o.ownExtent ?? (o.aabb ? aabbSize(o.aabb) : null);
    return {
      id: idOf.get(o.key)!,
      category: o.category,
      model: o.model ? `${o.category}/${o.model}` : null,
      name: displayName(o.category),
      role: o.role,
      position: o.aabb ? aabbCentre(o.aabb) : o.origin,
      orientation: { x: o.quat[0], y: o.quat[1], z: o.quat[2], w: o.quat[3] },
      extent,
      scale: o.scale,
      color: "",
      transparent: o.transparent ?? false,
      ...(extent ? { extent_source: o.ownExtent ? ("record" as const) : ("record_world_aabb" as const) } : {}),
      ...(o.aabb ? {} : { position_frame: "base_link" as const }),
      ...(o.sceneObject ? { scene_object: true } : {}),
    };
  });
  const views: CandidateView[] = d.views.map((v) => {
    const { yaw, pitch } = usdCameraAngles(v.quat);
    return {
      name: v.name,
      view: v.view,
      position: v.position,
      quaternion_xyzw: v.quat,
      yaw,
      pitch,
      ...(v.kind ? { kind: v.kind } : {}),
      visibility: [...v.flags.entries()].filter(([k]) => idOf.has(k)).map(([k, visible]) => ({ id: idOf.get(k)!, visible })),
    };
  });
  const initial = d.initial ? (views.find((v) => v.name === d.initial!.name) ?? null) : null;
  const b = d.room.bounds;
  const record = {
    schema: "esi3d-task/1" as const,
    task_id: `esi-${r.raw.id}`,
    seed: String(r.metadata.seed ?? `esi-${r.raw.id}`),
    category: SUBCATEGORY_CATEGORY[sub],
    subcategory: sub,
    simulator: ESI_SIMULATOR,
    scene: r.raw.scene,
    room: {
      id: r.raw.room,
      type: roomTypeOfId(r.raw.room),
      size: b ? ([b.max[0] - b.min[0], b.max[1] - b.min[1]] as [number, number]) : null,
      height: null,
      ...(b ? { bounds: b } : {}),
      ...(d.room.floorZ !== undefined ? { floor_z: d.room.floorZ } : {}),
    },
    floor: 0,
    objects,
    lighting: null,
    // a record that names its camera's field of view (the mirror records' camera_poses.fov_deg) renders with it
    camera: { ...ESI_IMAGE, hfov_deg: d.hfovDeg ?? (sub === "deformable" ? ESI_DEFORMABLE_HFOV_DEG : ESI_HFOV_DEG) },
    agent_initial: initial ? { position: initial.position, orientation: quatFromYaw(initial.yaw), yaw: initial.yaw, pitch: initial.pitch } : null,
    action_trajectory: [],
    view_object_existence: initial && initial.visibility.length ? [{ view: 0, visible: initial.visibility.filter((f) => f.visible).map((f) => f.id) }] : [],
    question: r.raw.question,
    answer: d.answer.answer,
    answer_format: d.answer.format,
    options: d.answer.options,
    relevant_object_ids: d.relevant.map((k) => idOf.get(k)!).filter((x) => x !== undefined),
    label_metadata: d.labelMetadata,
    agent_limits: { min_camera_height_m: MIN_TASK_CAMERA_HEIGHT_M },
    ...(views.length ? { candidate_views: views } : {}),
    ...(initial ? { initial_view: initial.name } : {}),
    ...(d.answer.spec ? { answer_spec: d.answer.spec } : {}),
    provenance: {
      dataset: "esi-bench",
      record_id: r.raw.id,
      file: r.rel,
      fields: {
        big_task: r.raw.big_task,
        small_task: r.raw.small_task,
        runner_task: r.raw.runner_task,
        answer_type: r.raw.answer_type,
        answer: r.raw.answer,
        options_json: r.raw.options_json,
        image_paths: r.imagePaths,
        ...(d.initial ? { initial_view_rule: d.initial.rule } : {}),
      },
    },
  };
  const parsed = TaskRecordSchema.safeParse(record);
  if (!parsed.success) throw new RecordRefusal(r.file, "(mapped task)", `does not fit esi3d's task schema: ${formatZodIssues(parsed.error.issues)}`);
  return parsed.data;
}
