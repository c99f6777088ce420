/**
 * What a subcategory mapper reads out of one record (objects, candidate views, the initial view, the
 * answer), before it becomes an esi3d task record (build.ts). Object keys are the record's own names
 * ("obj1", "obj_near", "targets[2]"), so findings and flags can name them.
 */
import type { Vec3 } from "../../core/math/vec.js";
import type { AnswerSpec, RecordAnswerFormat } from "../../core/task/schema.js";
import type { Field } from "./record.js";
import type { DraftView, QuatXyzw } from "./views.js";

export interface Aabb {
  min: Vec3;
  max: Vec3;
}

export interface DraftObject {
  key: string;
  /** metadata_json path of the object's entry, for findings. */
  field: string;
  category: string;
  /** BEHAVIOR-1K model id (6 letters), or null when the record names none ("scene_native"). */
  model: string | null;
  role: string;
  /** The record's position: the model's root-link origin. */
  origin: Vec3;
  quat: QuatXyzw;
  /** World AABB after placement, when the record stores one. */
  aabb: Aabb | null;
  /** Own-axis extent, when the record stores one (Rigid Containment's bbox_inventory, Stacking's extents). */
  ownExtent: Vec3 | null;
  scale: number | Vec3;
  sceneObject?: boolean;
  transparent?: boolean;
}

/** A change the importer made to the record's answer or options, for the audit. */
export interface AnswerFix {
  field: "answer" | "options_json";
  from: string;
  to: string;
  why: string;
}

export interface DraftAnswer {
  format: RecordAnswerFormat;
  answer: string;
  options: string[];
  spec?: AnswerSpec;
  fixes: AnswerFix[];
  /** Set when the answer cannot be mapped into the options: the record is kept out of the task set. */
  outside?: string;
}

export interface InitialView {
  /** The candidate view taken as the initial pose (by view number where the runner means one). */
  name: string;
  /** How it was chosen (the released runner's rule for its module, or ours for modules it does not cover). */
  rule: string;
  /** What ESI's runner itself picks when that differs (its list-position-vs-view-number bug). */
  runner?: { name: string; shows: boolean | null; note: string };
}

export interface Draft {
  objects: DraftObject[];
  views: DraftView[];
  initial: InitialView | null;
  /** Object keys the question is about, in the order esi3d's programs read them. */
  relevant: string[];
  answer: DraftAnswer;
  room: { bounds?: { min: [number, number]; max: [number, number] }; floorZ?: number; source?: string };
  labelMetadata: Record<string, unknown>;
  /** Counting: the category the question asks for and the category actually placed. */
  counting?: { asked: string; placed: string | null };
  hfovDeg?: number;
}

export const displayName = (category: string): string => category.replace(/_/g, " ");

/** An object entry with category, model, position, quaternion_xyzw (the common ESI layout). */
export function readObject(f: Field, key: string, role: string, extra: Partial<DraftObject> = {}): DraftObject {
  const category = (f.at("category").exists ? f.at("category") : f.at("cat")).str();
  const model = f.at("model").exists ? f.at("model").str() : null;
  const origin = f.at("position").vec3();
  const quat = (f.at("quaternion_xyzw").exists ? f.at("quaternion_xyzw").vec(4) : [0, 0, 0, 1]) as QuatXyzw;
  let aabb: Aabb | null = null;
  if (f.at("aabb_min").exists || f.at("aabb_max").exists) aabb = { min: f.at("aabb_min").vec3(), max: f.at("aabb_max").vec3() };
  else if (f.at("bbox").exists) {
    const b = f.at("bbox").list();
    if (b.length !== 2) f.at("bbox").refuse("expected [min, max]");
    aabb = { min: b[0]!.vec3(), max: b[1]!.vec3() };
  }
  if (aabb) checkAabb(f, aabb);
  const s = f.at("scale");
  const scale = Array.isArray(s.value) ? (s.vec3() as Vec3) : typeof s.value === "number" ? s.num() : 1;
  return {
    key,
    field: f.path,
    category,
    model: model === "scene_native" ? null : model,
    role,
    origin,
    quat,
    aabb,
    ownExtent: null,
    scale,
    ...(model === "scene_native" ? { sceneObject: true } : {}),
    ...extra,
  };
}

function checkAabb(f: Field, b: Aabb): void {
  if (!(b.max[0] >= b.min[0] && b.max[1] >= b.min[1] && b.max[2] >= b.min[2])) f.refuse("AABB max below min");
}

export const aabbCentre = (b: Aabb): Vec3 => [(b.min[0] + b.max[0]) / 2, (b.min[1] + b.max[1]) / 2, (b.min[2] + b.max[2]) / 2];
export const aabbSize = (b: Aabb): Vec3 => [b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]];

/** Sets a flag on a view by view number; views are found by number, never by list position. */
export function flagByNumber(views: DraftView[], view: number, objectKey: string, value: boolean): void {
  const v = views.find((x) => x.view === view);
  if (v) v.flags.set(objectKey, value);
}
