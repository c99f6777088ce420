/**
 * The task record: ESI-Bench's per-instance JSON (the ESI-Bench paper's per-instance record) plus esi3d's own fields.
 * Any simulator can produce tasks by following docs/task.schema.json, generated from this zod schema.
 *
 * Two forms of one declaration:
 * - TaskRecordSchema, the record format itself (docs/task.schema.json): it also holds tasks imported from
 *   ESI-Bench's released records (bridge/esibench), whose rooms may sit anywhere in world coordinates with
 *   unknown bounds, whose object extents may be unknown until a simulator loads the models, and whose answers
 *   may be orderings, assignments, step sequences or dicts;
 * - TaskSchema, a record every stage of the pipeline can use as it is (render, reconstruct, graph, reason,
 *   score): room size and height known, every object's extent and model known. Built-in tasks are in this
 *   form, with one of the four plain answer formats; a structured answer (answer_spec) is parsed and scored
 *   by src/reason/structured.ts and src/eval/score.ts.
 */
import * as z from "zod";
import { CATEGORIES, SUBCATEGORIES } from "./taxonomy.js";
import { SafeSegmentSchema } from "../paths.js";
import { actionText, parseAgentAction } from "./actions.js";

const finite = () => z.number().finite();
const Vec3Schema = z.tuple([finite(), finite(), finite()]).describe("[x, y, z] in metres, world frame (Z up)");
const QuatSchema = z.object({ x: finite(), y: finite(), z: finite(), w: finite() }).describe("unit quaternion, scalar last");
const Vec2Schema = z.tuple([finite(), finite()]);

const EXTENT_DESCRIPTION = "full box size along the object's own axes (metres), model size times scale";

/** Where an object's extent comes from (imported tasks say; built-in tasks leave it out: "model"). */
const EXTENT_SOURCES = ["model", "record", "record_world_aabb", "capture"] as const;

const objectFields = {
  id: z.number().int().min(16).max(65535).describe("instance id; the value this object has in instance images (1-15 are reserved for room structure)"),
  category: z.string().min(1).describe("object category, e.g. 'mug'"),
  model: z
    .string()
    .min(1)
    .describe("simulator model instance: 'mug/0' in the built-in library, '<category>/<model id>' for BEHAVIOR-1K (e.g. 'bottle_of_lime_juice/ouuhaa')"),
  name: z.string().min(1).describe("how questions refer to this object, e.g. 'the red mug'"),
  role: z.string().min(1).describe("why the object is in the scene: target, reference, occluder, divider, container, confuser, distractor, support, furniture"),
  position: Vec3Schema.describe("centre of the object's box (metres, world); with position_frame 'base_link', the simulator model's base-link origin instead"),
  orientation: QuatSchema.describe("object-to-world rotation"),
  extent: Vec3Schema.describe(EXTENT_DESCRIPTION),
  scale: z
    .union([finite().positive(), z.tuple([finite().positive(), finite().positive(), finite().positive()])])
    .describe("scale applied to the model: uniform, or per object axis [sx, sy, sz] (BEHAVIOR-1K: relative to the native model)"),
  color: z.string().describe("primary colour name ('' when unknown, e.g. textured BEHAVIOR-1K models)"),
  transparent: z.boolean().default(false).describe("rendered as glass"),
  support: z
    .union([z.number().int(), z.literal("floor")])
    .optional()
    .describe("id of the object it rests on, or 'floor'"),
  extent_source: z
    .enum(EXTENT_SOURCES)
    .optional()
    .describe(
      "where extent comes from: model (the model's size times scale; the default), record (an own-axis extent stored in the source record), record_world_aabb (the world AABB of the placed object stands in: exact only for an unrotated object), capture (read back from the simulator after placement)",
    ),
  position_frame: z
    .enum(["box_centre", "base_link"])
    .optional()
    .describe(
      "what position is: the box centre (the default) or the model's base-link origin (ESI-Bench records store that when they store no box); a capture places the object by it and reports the box centre",
    ),
  scene_object: z
    .boolean()
    .optional()
    .describe("the object is part of the simulator's scene itself (ESI-Bench 'scene_native'): a capture finds it in the scene instead of loading a copy"),
};

export const TaskObjectSchema = z.object(objectFields);
export type TaskObject = z.infer<typeof TaskObjectSchema>;

const TaskRecordObjectSchema = z.object({
  ...objectFields,
  model: objectFields.model.nullable().describe("as in a task; null when the source does not name the model (a scene object ESI-Bench calls 'scene_native')"),
  extent: Vec3Schema.nullable().describe(`${EXTENT_DESCRIPTION}; null when unknown until a simulator loads the model`),
});
export type TaskRecordObject = z.infer<typeof TaskRecordObjectSchema>;

const AgentPoseSchema = z.object({
  position: Vec3Schema.describe("camera optical centre"),
  orientation: QuatSchema.describe("body orientation (x forward, y left, z up)"),
  yaw: finite().describe("radians; 0 looks along +X, counter-clockwise seen from above"),
  pitch: finite().describe("radians; positive looks up"),
});

const LightingSchema = z.object({
  ambient: finite().min(0).describe("ambient light intensity (1 = full)"),
  sun: z.object({ direction: Vec3Schema.describe("direction the light travels"), intensity: finite().min(0) }).nullable(),
  lights: z
    .array(z.object({ position: Vec3Schema, intensity: finite().min(0), range: finite().positive().describe("distance at which intensity halves (m)") }))
    .describe("point lights"),
});
export type Lighting = z.infer<typeof LightingSchema>;

const CameraSpecSchema = z
  .object({
    width: z.number().int().min(8).max(8192).describe("image width (px)"),
    height: z.number().int().min(8).max(8192).describe("image height (px)"),
    hfov_deg: finite().gt(1).lt(179).describe("horizontal field of view (deg); square pixels"),
  })
  .describe("the images of this task (ESI-Bench's runner: 1280 x 720 at 63.29 deg, 70 deg for Deformable)");
export type CameraSpec = z.infer<typeof CameraSpecSchema>;

/**
 * A multi-room apartment inside the task's room rectangle (Cognitive Mapping): named rooms, interior walls
 * (axis-aligned, zero thickness, full height) and the doorways cut into them. Single-room tasks and
 * ESI-Bench imports have none.
 */
const LayoutSchema = z
  .object({
    rooms: z
      .array(
        z.object({
          id: z.string().min(1).describe("room name as questions use it, e.g. 'kitchen_0'"),
          type: z.string().min(1).describe("room type, e.g. 'kitchen'"),
          min: Vec2Schema.describe("[x, y] corner of the room's floor rectangle (m, world)"),
          max: Vec2Schema.describe("[x, y] opposite corner (m, world)"),
        }),
      )
      .min(2),
    walls: z
      .array(
        z.object({
          id: z.number().int().min(6).max(15).describe("instance id of the wall in instance images (room structure ids 6-15)"),
          from: Vec2Schema.describe("[x, y] one end (m, world)"),
          to: Vec2Schema.describe("[x, y] other end; the wall runs along x or along y"),
          doors: z
            .array(
              z.object({
                offset_m: finite().min(0).describe("distance of the doorway's centre from `from` along the wall (m)"),
                width_m: finite().positive().describe("doorway width (m); doorways are full-height openings"),
                rooms: z.tuple([z.string().min(1), z.string().min(1)]).describe("the two rooms the doorway joins"),
              }),
            )
            .describe("doorways in this wall"),
        }),
      )
      .describe("interior walls; the room's four outer walls enclose the apartment"),
  })
  .describe("multi-room apartment layout (Cognitive Mapping tasks)");
export type Layout = z.infer<typeof LayoutSchema>;

const roomFields = {
  id: z.string(),
  type: z.string().describe("living_room, kitchen, ..."),
  size: z.tuple([finite().positive(), finite().positive()]).describe("floor size [x, y] (m); without bounds the floor spans [-x/2, x/2] x [-y/2, y/2]"),
  height: finite().positive().describe("wall height (m)"),
  bounds: z
    .object({ min: Vec2Schema.describe("[x, y] (m, world)"), max: Vec2Schema.describe("[x, y] (m, world)") })
    .optional()
    .describe("where the floor lies in world coordinates, for rooms not centred at the origin (ESI-Bench rooms); size is then max - min"),
  floor_z: finite().optional().describe("world z of the floor (m; default 0; BEHAVIOR-1K houses have floors below 0 and above)"),
  layout: LayoutSchema.optional(),
};

export const RoomSchema = z.object(roomFields);
const RoomRecordSchema = z.object({
  ...roomFields,
  size: roomFields.size.nullable().describe("as in a task; null when the source gives no room extent"),
  height: roomFields.height.nullable().describe("wall height (m); null when unknown"),
});

/**
 * One state of a world that changes while no one acts (ESI-Bench's Temporal Understanding: box contents swapped
 * between two looks, a robot along its path): every object as it is in that phase. An object keeps its id across
 * phases while it is the same object (moved or not); a new one takes an id no phase uses for another object.
 */
const PhaseSchema = z.object({
  label: z.string().min(1).describe("how the question names the phase, e.g. 'Phase 1', 'step 3'"),
  objects: z.array(TaskObjectSchema).describe("every object of the world in this phase"),
  agent: AgentPoseSchema.optional().describe("the phase's primary viewpoint (default: agent_initial)"),
});
/** Camera height floor of imported tasks: ESI-Bench's cameras sit down to 0.02 m above the floor (Material Transparency). */
export const MIN_TASK_CAMERA_HEIGHT_M = 0.02;

const AgentLimitsSchema = z
  .object({
    min_camera_height_m: finite()
      .min(MIN_TASK_CAMERA_HEIGHT_M)
      .max(2)
      .describe("lowest camera height above the floor the agent may move to (m); default 0.2, the built-in agent's crouch"),
  })
  .describe("per-task overrides of the agent's motion limits");

const CandidateViewSchema = z.object({
  name: z.string().min(1).describe("the view's name in the source, e.g. '10.png' or 'view_03_az056.png'"),
  view: z.number().int().min(0).nullable().describe("view number, read from the name (not the position in any list); null when the name carries none"),
  position: Vec3Schema.describe("camera optical centre (m, world)"),
  quaternion_xyzw: z
    .tuple([finite(), finite(), finite(), finite()])
    .describe("world orientation of the camera as recorded: a USD camera (looks down -Z, +Y up), scalar last"),
  yaw: finite().describe("radians, derived from quaternion_xyzw: the view direction's heading (0 along +X, counter-clockwise)"),
  pitch: finite().describe("radians, derived: the view direction's elevation (positive up); every ESI-Bench view has zero roll"),
  kind: z.string().optional().describe("the source's label for the view (side, topdown, ring, cross_view, ...)"),
  visibility: z
    .array(z.object({ id: z.number().int(), visible: z.boolean() }))
    .describe("visibility flags the source recorded for this view, per object id; objects not listed have no flag"),
});
export type CandidateView = z.infer<typeof CandidateViewSchema>;

/** The four plain answer formats: one text answer, one of the options (or an integer). */
const ANSWER_FORMATS = ["yes_no", "choice", "integer", "ordering"] as const;
/** Answer formats of imported ESI-Bench records whose answer has several parts; answer_spec holds them. */
const STRUCTURED_ANSWER_FORMATS = ["any_ordering", "assignment", "step_sequence", "parts"] as const;
export type StructuredAnswerFormat = (typeof STRUCTURED_ANSWER_FORMATS)[number];
const RECORD_ANSWER_FORMATS = [...ANSWER_FORMATS, ...STRUCTURED_ANSWER_FORMATS] as const;
export type RecordAnswerFormat = (typeof RECORD_ANSWER_FORMATS)[number];
/** Every answer format a task may have (the plain four and the structured four). */
export type AnswerFormat = RecordAnswerFormat;
export const isStructuredFormat = (f: string): f is StructuredAnswerFormat => (STRUCTURED_ANSWER_FORMATS as readonly string[]).includes(f);

const stringList = () => z.array(z.string().min(1)).min(1);
const AnswerSpecSchema = z
  .discriminatedUnion("kind", [
    z.object({
      kind: z.literal("any_ordering"),
      items: stringList().describe("the items to order"),
      accepted: z.array(stringList()).min(1).describe("every accepted order (each a permutation of items); the answer is the first"),
    }),
    z.object({
      kind: z.literal("assignment"),
      targets: stringList().describe("what items can be assigned to"),
      pairs: z
        .array(z.object({ item: z.string().min(1), target: z.string().min(1) }))
        .min(1)
        .describe("the correct target of each item"),
    }),
    z.object({
      kind: z.literal("step_sequence"),
      steps: z
        .array(z.object({ options: stringList(), answer: z.string().min(1) }))
        .min(1)
        .describe("one answer per step, from that step's options"),
    }),
    z.object({
      kind: z.literal("parts"),
      parts: z
        .array(z.object({ key: z.string().min(1), options: stringList(), answer: z.string().min(1) }))
        .min(1)
        .describe("named sub-answers, each from its own options"),
    }),
  ])
  .describe("the structured answer of an any_ordering, assignment, step_sequence or parts task");
export type AnswerSpec = z.infer<typeof AnswerSpecSchema>;

/** The canonical text of a structured answer: what `answer` holds for the structured formats. */
export function canonicalAnswer(spec: AnswerSpec): string {
  switch (spec.kind) {
    case "any_ordering":
      return JSON.stringify(spec.accepted[0]);
    case "assignment":
      return JSON.stringify(Object.fromEntries(spec.pairs.map((p) => [p.item, p.target])));
    case "step_sequence":
      return spec.steps.map((s) => s.answer).join(" | ");
    case "parts":
      return JSON.stringify(Object.fromEntries(spec.parts.map((p) => [p.key, p.answer])));
  }
}

const ProvenanceSchema = z
  .object({
    dataset: z.string().min(1).describe("e.g. 'esi-bench'"),
    record_id: z.string().min(1).describe("the record's id in the source dataset"),
    file: z.string().min(1).describe("the source file, relative to the dataset root"),
    fields: z.record(z.string(), z.unknown()).describe("source fields kept verbatim for traceability (answer, options, runner module, ...)"),
  })
  .describe("where an imported task comes from");

const ProxySchema = z
  .object({
    of_simulator: z.string().min(1).describe("the simulator the original task is for"),
    objects: z
      .array(z.object({ id: z.number().int(), stands_in: z.enum(["library_model", "box"]), original_model: z.string().nullable() }))
      .describe("what stands in for each object: a built-in library model of the same category, or a box of the recorded extent"),
    room: z.string().describe("how the proxy room was made"),
  })
  .describe("set on proxy tasks: the built-in simulator renders stand-ins for another simulator's scene; results are about the proxy, not the original");

const taskFields = {
  schema: z.literal("esi3d-task/1"),
  task_id: SafeSegmentSchema.describe("names the task's files and folders (bundles, graphs): one safe path segment"),
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
  action_trajectory: z
    .array(
      z.string().superRefine((a, ctx) => {
        const p = parseAgentAction(a, "all");
        if ("error" in p) ctx.addIssue({ code: "custom", message: p.error });
        else if (p.action.kind === "stop") ctx.addIssue({ code: "custom", message: "stop ends an episode; a trajectory does not hold it" });
        // a trajectory is replayed as written: it holds the canonical text, not a phrasing an agent may use
        else if (actionText(p.action) !== a)
          ctx.addIssue({ code: "custom", message: `expected the canonical form ${JSON.stringify(actionText(p.action))}, got ${JSON.stringify(a)}` });
      }),
    )
    .max(30)
    .describe(
      "ground-truth action sequence (at most T_max = 30 steps), in the active vocabulary: move_forward/backward/left/right/up/down, turn_left/right/up/down, and the hands with instance ids: open(#57), pick_up(#61), put_on(#61, #40), put_inside(#61, #40), put_back(#61), close(#57)",
    ),
  view_object_existence: z
    .array(z.object({ view: z.number().int().min(0), visible: z.array(z.number().int()) }))
    .describe("per view of the ground-truth trajectory (view 0 = initial pose): ids of objects visible in it"),
  question: z.string().min(1),
  answer: z.string().min(1),
  answer_format: z
    .enum(RECORD_ANSWER_FORMATS)
    .describe("yes_no, choice, integer, ordering; imported ESI-Bench tasks also any_ordering, assignment, step_sequence, parts (see answer_spec)"),
  options: z.array(z.string().min(1)).describe("answer options; the answer is one of them (structured formats: the items or targets, see answer_spec)"),
  relevant_object_ids: z.array(z.number().int()).describe("objects the question is about"),
  label_metadata: z.record(z.string(), z.unknown()).describe("raw quantities the answer was derived from"),
  agent_limits: AgentLimitsSchema.optional(),
  candidate_views: z
    .array(CandidateViewSchema)
    .optional()
    .describe(
      "named camera poses the source rendered (ESI-Bench's candidate rings), with their view numbers and visibility flags; the gt paradigm of an imported task uses those whose flags show every relevant object",
    ),
  initial_view: z.string().optional().describe("name of the candidate view agent_initial was taken from"),
  answer_spec: AnswerSpecSchema.optional(),
  phases: z
    .array(PhaseSchema)
    .min(2)
    .optional()
    .describe(
      "a world that changes between looks, in time order: phase 0's objects are `objects` (and its pose agent_initial); each view of a bundle says which phase it saw. Absent: one unchanging world",
    ),
  provenance: ProvenanceSchema.optional(),
  proxy: ProxySchema.optional(),
};

type RefineTask = {
  answer: string;
  answer_format: string;
  options: string[];
  answer_spec?: AnswerSpec;
  objects: Array<{ id: number }>;
  relevant_object_ids: number[];
  room: { size: [number, number] | null; bounds?: { min: [number, number]; max: [number, number] } };
  candidate_views?: CandidateView[];
  initial_view?: string;
  phases?: Array<{ objects: Array<{ id: number; category: string }> }>;
};

const ROOM_BOUNDS_TOL_M = 1e-6;

/** Phase 0 is the task's own objects; an id names one object (one category) in every phase, once per phase. */
function checkPhases(t: RefineTask, ctx: z.RefinementCtx): void {
  if (!t.phases) return;
  if (JSON.stringify(t.phases[0]!.objects) !== JSON.stringify(t.objects))
    ctx.addIssue({ code: "custom", path: ["phases", 0, "objects"], message: "phase 0's objects must be the task's objects" });
  const categoryOf = new Map<number, string>();
  t.phases.forEach((p, k) => {
    const seen = new Set<number>();
    p.objects.forEach((o, i) => {
      const path = ["phases", k, "objects", i, "id"];
      if (seen.has(o.id)) ctx.addIssue({ code: "custom", path, message: `duplicate object id ${o.id} in phase ${k}` });
      seen.add(o.id);
      const before = categoryOf.get(o.id);
      if (before !== undefined && before !== o.category)
        ctx.addIssue({ code: "custom", path, message: `id ${o.id} is a ${before} in an earlier phase and a ${o.category} here: a new object takes a new id` });
      categoryOf.set(o.id, o.category);
    });
  });
}

function checkTask(t: RefineTask, ctx: z.RefinementCtx): void {
  const structured = (STRUCTURED_ANSWER_FORMATS as readonly string[]).includes(t.answer_format);
  if (structured) {
    if (!t.answer_spec) ctx.addIssue({ code: "custom", path: ["answer_spec"], message: `answer format ${t.answer_format} needs answer_spec` });
    else if (t.answer_spec.kind !== t.answer_format)
      ctx.addIssue({ code: "custom", path: ["answer_spec", "kind"], message: `answer_spec is ${t.answer_spec.kind}, answer_format ${t.answer_format}` });
    else {
      const s = t.answer_spec;
      const canon = canonicalAnswer(s);
      if (t.answer !== canon) ctx.addIssue({ code: "custom", path: ["answer"], message: `answer must be the canonical text of answer_spec: ${canon}` });
      const notIn = (v: string, opts: readonly string[], path: Array<string | number>) => {
        if (!opts.includes(v)) ctx.addIssue({ code: "custom", path, message: `"${v}" is not one of ${JSON.stringify(opts)}` });
      };
      if (s.kind === "any_ordering")
        s.accepted.forEach((order, i) => {
          if (order.length !== s.items.length || [...order].sort().join("\u0000") !== [...s.items].sort().join("\u0000"))
            ctx.addIssue({ code: "custom", path: ["answer_spec", "accepted", i], message: "an accepted order must be a permutation of items" });
        });
      if (s.kind === "assignment") s.pairs.forEach((p, i) => notIn(p.target, s.targets, ["answer_spec", "pairs", i, "target"]));
      if (s.kind === "step_sequence") s.steps.forEach((st, i) => notIn(st.answer, st.options, ["answer_spec", "steps", i, "answer"]));
      if (s.kind === "parts") s.parts.forEach((p, i) => notIn(p.answer, p.options, ["answer_spec", "parts", i, "answer"]));
    }
  } else if (!t.options.includes(t.answer)) ctx.addIssue({ code: "custom", path: ["answer"], message: `answer "${t.answer}" is not one of the options` });
  if (!structured && t.answer_spec) ctx.addIssue({ code: "custom", path: ["answer_spec"], message: `answer format ${t.answer_format} takes no answer_spec` });
  const ids = new Set<number>();
  t.objects.forEach((o, i) => {
    if (ids.has(o.id)) ctx.addIssue({ code: "custom", path: ["objects", i, "id"], message: `duplicate object id ${o.id}` });
    ids.add(o.id);
  });
  checkPhases(t, ctx);
  const everyId = new Set([...ids, ...(t.phases ?? []).flatMap((p) => p.objects.map((o) => o.id))]);
  t.relevant_object_ids.forEach((id, i) => {
    if (!everyId.has(id)) ctx.addIssue({ code: "custom", path: ["relevant_object_ids", i], message: `unknown object id ${id}` });
  });
  const b = t.room.bounds;
  if (b) {
    if (!(b.max[0] > b.min[0] && b.max[1] > b.min[1])) ctx.addIssue({ code: "custom", path: ["room", "bounds"], message: "max must exceed min" });
    else if (
      t.room.size &&
      (Math.abs(t.room.size[0] - (b.max[0] - b.min[0])) > ROOM_BOUNDS_TOL_M || Math.abs(t.room.size[1] - (b.max[1] - b.min[1])) > ROOM_BOUNDS_TOL_M)
    )
      ctx.addIssue({ code: "custom", path: ["room", "size"], message: "size must be bounds.max - bounds.min" });
  }
  const names = new Set<string>();
  (t.candidate_views ?? []).forEach((v, i) => {
    if (names.has(v.name)) ctx.addIssue({ code: "custom", path: ["candidate_views", i, "name"], message: `duplicate view name ${v.name}` });
    names.add(v.name);
    v.visibility.forEach((f, j) => {
      if (!ids.has(f.id)) ctx.addIssue({ code: "custom", path: ["candidate_views", i, "visibility", j, "id"], message: `unknown object id ${f.id}` });
    });
  });
  if (t.initial_view !== undefined && !names.has(t.initial_view))
    ctx.addIssue({ code: "custom", path: ["initial_view"], message: `no candidate view named ${t.initial_view}` });
}

/** A task every stage of the pipeline can use (built-in tasks, captured or proxied imports). */
export const TaskSchema = z.object(taskFields).superRefine(checkTask);
export type Task = z.infer<typeof TaskSchema>;

/** The task record format (docs/task.schema.json): TaskSchema plus what imported records may leave unknown. */
export const TaskRecordSchema = z
  .object({
    ...taskFields,
    room: RoomRecordSchema,
    objects: z.array(TaskRecordObjectSchema),
    lighting: LightingSchema.nullable().describe("null when the source stores no lighting (ESI-Bench: the scene's own lights)"),
    agent_initial: AgentPoseSchema.nullable().describe("the initial camera pose; null when the source records no camera for the question"),
  })
  .superRefine(checkTask);
export type TaskRecord = z.infer<typeof TaskRecordSchema>;

/**
 * Why a task record cannot go through the pipeline as it is (unknown room, extents or models), or [] when
 * TaskSchema accepts it.
 */
export function unresolvedFields(t: TaskRecord): string[] {
  const out: string[] = [];
  if (t.room.size === null) out.push("room.size (unknown)");
  if (t.room.height === null) out.push("room.height (unknown)");
  if (t.lighting === null) out.push("lighting (not recorded)");
  if (t.agent_initial === null) out.push("agent_initial (no camera recorded)");
  t.objects.forEach((o, i) => {
    if (o.extent === null) out.push(`objects[${i}].extent (unknown until capture)`);
    if (o.model === null) out.push(`objects[${i}].model (not recorded)`);
  });
  return out;
}
