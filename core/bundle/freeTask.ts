/**
 * Bundles without a task record (a scene of one's own, esi3d import <layout>): what the stages that need a
 * task get instead. `requireTask` refuses, naming the bundle, where only a real task will do (an active
 * episode re-renders the task's scene); `freeQuestionTask` is the stand-in a reasoner answers a question of
 * one's own with: the question, its options and format, the bundle's first camera as the viewpoint, and no
 * objects, room or truth. Reasoners read only the question, options, format and camera of it; its answer is
 * never scored (ask says "not scored").
 */
import { join } from "node:path";
import { poseQuaternion } from "../math/camera.js";
import type { Task } from "../task/schema.js";
import { SUBCATEGORY_CATEGORY } from "../task/taxonomy.js";
import { BundleError } from "./errors.js";
import type { BundleManifest } from "./schema.js";
import { bundleViewpoint, type Viewpoint } from "./viewpoint.js";

export function requireTask(manifest: Pick<BundleManifest, "task" | "simulator">, dir: string, what: string): Task {
  if (manifest.task) return manifest.task;
  throw new BundleError(join(dir, "bundle.json"), "task", `this bundle has no task record (${manifest.simulator}: a scene of one's own); ${what} needs one`);
}

/**
 * The subcategory of a free question: one whose prompt template is the plain one for every answer format
 * (no category-answer template, src/prompt/templates.ts), so only the question's own form decides the prompt.
 */
const FREE_QUESTION_SUBCATEGORY = "spatial_distance" as const;

/** The placeholder room of a free question (no reasoner reads it; the schema needs positive sizes). */
const NO_ROOM = { id: "unknown", type: "unknown", size: [1, 1] as [number, number], height: 1 };

export function freeQuestionTask(manifest: BundleManifest, q: Pick<Task, "question" | "answer_format" | "options">): Task {
  const v0 = manifest.views[0]!;
  const hfov = (2 * Math.atan(manifest.image.width / 2 / v0.intrinsics.fx) * 180) / Math.PI;
  return freeQuestionTaskAt(
    {
      taskId: manifest.task_id,
      simulator: manifest.simulator,
      viewpoint: bundleViewpoint(manifest),
      camera: { width: manifest.image.width, height: manifest.image.height, hfov_deg: hfov },
    },
    q,
  );
}

/** Where a free question is asked from: a bundle's first camera, or a scene graph's viewpoint (which has no image). */
export interface FreeQuestionPlace {
  taskId: string;
  simulator: string;
  viewpoint: Viewpoint;
  camera: Task["camera"];
}

export function freeQuestionTaskAt(at: FreeQuestionPlace, q: Pick<Task, "question" | "answer_format" | "options">): Task {
  const vp = at.viewpoint;
  return {
    schema: "esi3d-task/1",
    task_id: at.taskId,
    seed: "",
    category: SUBCATEGORY_CATEGORY[FREE_QUESTION_SUBCATEGORY],
    subcategory: FREE_QUESTION_SUBCATEGORY,
    simulator: at.simulator,
    scene: at.taskId,
    room: NO_ROOM,
    floor: 0,
    objects: [],
    lighting: { ambient: 1, sun: null, lights: [] },
    camera: at.camera,
    agent_initial: { position: vp.position, orientation: poseQuaternion(vp), yaw: vp.yaw, pitch: vp.pitch },
    action_trajectory: [],
    view_object_existence: [],
    question: q.question,
    answer_format: q.answer_format,
    options: q.options,
    answer: q.options[0] ?? "0",
    relevant_object_ids: [],
    label_metadata: { free_question: true },
  };
}
