/**
 * The task record: ESI-Bench's per-instance JSON (reference/esi-spec.md §4) plus esi3d's own fields.
 * Any simulator can produce tasks by following docs/task.schema.json, generated from this zod schema.
 */
import { z } from "zod";
import { CATEGORIES, SUBCATEGORIES } from "./taxonomy.js";

const finite = () => z.number().finite();
export const Vec3Schema = z.tuple([finite(), finite(), finite()]).describe("[x, y, z] in metres, world frame (Z up)");
export const QuatSchema = z
  .object({ x: finite(), y: finite(), z: finite(), w: finite() })
  .describe("unit quaternion, scalar last");

export const TaskObjectSchema = z.object({
  id: z.number().int().min(16).max(65535).describe("instance id; the value this object has in instance images (1-15 are reserved for room structure)"),
  category: z.string().min(1).describe("object category, e.g. 'mug'"),
  model: z.string().min(1).describe("simulator model instance, e.g. 'mug/0'"),
  name: z.string().min(1).describe("how questions refer to this object, e.g. 'the red mug'"),
  role: z.string().min(1).describe("why the object is in the scene: target, reference, occluder, divider, container, confuser, distractor, support, furniture"),
  position: Vec3Schema.describe("centre of the object's box (metres, world)"),
  orientation: QuatSchema.describe("object-to-world rotation"),
  extent: Vec3Schema.describe("full box size along the object's own axes (metres), model size times scale"),
  scale: z
    .union([finite().positive(), z.tuple([finite().positive(), finite().positive(), finite().positive()])])
    .describe("scale applied to the model: uniform, or per object axis [sx, sy, sz]"),
  color: z.string().describe("primary colour name"),
  transparent: z.boolean().default(false).describe("rendered as glass"),
  support: z.union([z.number().int(), z.literal("floor")]).optional().describe("id of the object it rests on, or 'floor'"),
});
export type TaskObject = z.infer<typeof TaskObjectSchema>;

export const AgentPoseSchema = z.object({
  position: Vec3Schema.describe("camera optical centre"),
  orientation: QuatSchema.describe("body orientation (x forward, y left, z up)"),
  yaw: finite().describe("radians; 0 looks along +X, counter-clockwise seen from above"),
  pitch: finite().describe("radians; positive looks up"),
});
export type AgentPoseRecord = z.infer<typeof AgentPoseSchema>;

export const LightingSchema = z.object({
  ambient: finite().min(0).describe("ambient light intensity (1 = full)"),
  sun: z.object({ direction: Vec3Schema.describe("direction the light travels"), intensity: finite().min(0) }).nullable(),
  lights: z
    .array(z.object({ position: Vec3Schema, intensity: finite().min(0), range: finite().positive().describe("distance at which intensity halves (m)") }))
    .describe("point lights"),
});
export type Lighting = z.infer<typeof LightingSchema>;

export const CameraSpecSchema = z.object({
  width: z.number().int().min(8).max(8192),
  height: z.number().int().min(8).max(8192),
  hfov_deg: finite().gt(1).lt(179),
});
export type CameraSpec = z.infer<typeof CameraSpecSchema>;

export const RoomSchema = z.object({
  id: z.string(),
  type: z.string().describe("living_room, kitchen, ..."),
  size: z.tuple([finite().positive(), finite().positive()]).describe("floor size [x, y] (m); the floor spans [-x/2, x/2] x [-y/2, y/2] at z = 0"),
  height: finite().positive().describe("wall height (m)"),
});

export const ANSWER_FORMATS = ["yes_no", "choice", "integer", "ordering"] as const;
export type AnswerFormat = (typeof ANSWER_FORMATS)[number];

export const TaskSchema = z
  .object({
    schema: z.literal("esi3d-task/1"),
    task_id: z.string().regex(/^[A-Za-z0-9_.-]+$/, "letters, digits, '_', '.', '-' only"),
    seed: z.string().describe("seed the task was generated from"),
    category: z.enum(CATEGORIES),
    subcategory: z.enum(SUBCATEGORIES),
    simulator: z.string().describe("who produced the task, e.g. 'esi3d-builtin/1'"),
    scene: z.string(),
    room: RoomSchema,
    floor: z.number().int(),
    objects: z.array(TaskObjectSchema),
    lighting: LightingSchema,
    camera: CameraSpecSchema,
    agent_initial: AgentPoseSchema,
    action_trajectory: z.array(z.string()).max(30).describe("ground-truth action sequence (at most T_max = 30 steps)"),
    view_object_existence: z
      .array(z.object({ view: z.number().int().min(0), visible: z.array(z.number().int()) }))
      .describe("per view of the ground-truth trajectory (view 0 = initial pose): ids of objects visible in it"),
    question: z.string().min(1),
    answer: z.string().min(1),
    answer_format: z.enum(ANSWER_FORMATS),
    options: z.array(z.string().min(1)).describe("answer options; the answer is one of them"),
    relevant_object_ids: z.array(z.number().int()).describe("objects the question is about"),
    label_metadata: z.record(z.string(), z.unknown()).describe("raw quantities the answer was derived from"),
  })
  .superRefine((t, ctx) => {
    if (!t.options.includes(t.answer)) ctx.addIssue({ code: "custom", path: ["answer"], message: `answer "${t.answer}" is not one of the options` });
    const ids = new Set<number>();
    t.objects.forEach((o, i) => {
      if (ids.has(o.id)) ctx.addIssue({ code: "custom", path: ["objects", i, "id"], message: `duplicate object id ${o.id}` });
      ids.add(o.id);
    });
    t.relevant_object_ids.forEach((id, i) => {
      if (!ids.has(id)) ctx.addIssue({ code: "custom", path: ["relevant_object_ids", i], message: `unknown object id ${id}` });
    });
  });
export type Task = z.infer<typeof TaskSchema>;

export function taskJsonSchema(): unknown {
  return z.toJSONSchema(TaskSchema, { io: "input", unrepresentable: "any" });
}
