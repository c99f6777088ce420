/**
 * Request and response schemas of the service. Requests reuse the zod types the CLI and the file formats
 * use (TaskSchema, the bundle's IntrinsicsSchema / extrinsic / InstanceEntrySchema, RunConfigSchema, the
 * source / mask / instance-mode enums), so a body the server accepts is exactly what the CLI accepts.
 * /openapi.json and docs/protocol.md are generated from these (src/apps/service/openapi.ts, protocol-doc.ts).
 */
import * as z from "zod";
import { TaskObjectSchema, TaskSchema } from "../../../core/task/schema.js";
import { BundleManifestSchema, BundleViewSchema, InstanceEntrySchema, IntrinsicsSchema, PARADIGMS } from "../../../core/bundle/schema.js";
import { VggtOptionsSchema } from "../../../reconstruct/options.js";
import { GraphPipelineOptionsSchema } from "../../../scenegraph/pipelineOptions.js";
import { LlmOptionsSchema } from "../../llm/options.js";
import { RunConfigSchema, RunGraphOptionsSchema, RunPromptOptionsSchema } from "../../eval/config.js";
import { GeneratorOptionsSchema } from "../../../bridge/sim/generate/options.js";
import { SummaryFileSchema } from "../../eval/summary.js";
import { GraphMetricsSchema } from "../../../scenegraph/diagnosisSchema.js";
import { ANSWER_MATCHES, ImageOptionsSchema, OptionPresentationSchema, PromptFormatSchema } from "../../prompt/formats.js";
import { CircularSchema } from "../../eval/records.js";
import { ReasonerSpecSchema, RunReasonerSchema } from "../../reason/spec.js";
import { SourceSchema } from "../../../reconstruct/options.js";
import { NoiseOptionsSchema } from "../../../reconstruct/noisy/params.js";
import { GraphOptionsSchema as GraphBuildOptionsSchema } from "../../../scenegraph/options.js";
import { ActiveOptionsSchema } from "../../reason/active/options.js";
import { STOP_REASONS } from "../../reason/active/stopping.js";
import type { ObjectRef } from "../../../bridge/env/types.js";
import { AgentPoseSchema } from "../../eval/records.js";
import { DEFAULT_ACTION_WAIT_S, DEFAULT_VIEW_TIMEOUT_S, MAX_ACTION_WAIT_S, MAX_VIEW_TIMEOUT_S, MAX_VIEWS_PER_SESSION, MIN_VIEW_TIMEOUT_S } from "./limits.js";

// ---------------------------------------------------------------- capture sessions (the simulator protocol)

/**
 * What an active session's episode runs (paradigm `active`): the arm, its source and graph options, the
 * reasoner and the active options: the RunConfig fields of `esi3d run --paradigm active`, from the same
 * stage schemas, so the same names and defaults (an omitted key takes the run's default).
 */
export const EpisodeOptionsSchema = z
  .object({
    arm: z.enum(["3d", "2d"]).default("3d").describe("3d: a scene graph of every view so far grows each step; 2d: the 2D baseline sees views only"),
    source: SourceSchema.default("gt").describe("3d arm: the point-cloud source (gt, noisy, vggt; the VGGT model is the server's ESI3D_VGGT_MODEL)"),
    reasoner: RunReasonerSchema.default("symbolic"),
    ...GraphBuildOptionsSchema.shape,
    ...NoiseOptionsSchema.shape,
    ...PromptFormatSchema.shape,
    ...ActiveOptionsSchema.shape,
  })
  .strict();
export type EpisodeOptions = z.infer<typeof EpisodeOptionsSchema>;

export const SessionOpenSchema = z
  .object({
    task: TaskSchema.optional().describe("the task record the views are captured for (or give task_id)"),
    task_id: z.string().optional().describe("instead of `task`: the id of a task stored on the server (PUT /v1/tasks/{id})"),
    paradigm: z.enum(PARADIGMS).describe("which view set the views are: single, multi, gt or active"),
    simulator: z.string().min(1).max(200).describe("who captures the views, e.g. 'omnigibson/1.1.1'"),
    image: BundleManifestSchema.shape.image.optional().describe("size of every image of the session (default: the task's camera)"),
    instances: z
      .array(InstanceEntrySchema)
      .max(65535)
      .optional()
      .describe("id -> category table for every id in the instance images (default: 1 floor, 2-5 walls, and the task's objects); may also be given at finish"),
    episode: EpisodeOptionsSchema.optional().describe(
      'paradigm active: the episode the server runs (default: the 3D arm over gt with the symbolic reasoner\'s nbv explorer); the simulator serves its steps (docs/protocol.md "Active sessions")',
    ),
    view_timeout_s: z
      .number()
      .min(MIN_VIEW_TIMEOUT_S)
      .max(MAX_VIEW_TIMEOUT_S)
      .default(DEFAULT_VIEW_TIMEOUT_S)
      .describe(
        "paradigm active: the episode fails when the view it waits for (view 0 after opening, view n+1 after the action after view n is decided) has not arrived within this many seconds",
      ),
  })
  .strict()
  .superRefine((b, ctx) => {
    if ((b.task === undefined) === (b.task_id === undefined))
      ctx.addIssue({ code: "custom", path: ["task"], message: "give exactly one of task (a task record) or task_id (a stored task)" });
    if (b.episode !== undefined && b.paradigm !== "active")
      ctx.addIssue({ code: "custom", path: ["episode"], message: `an episode goes with paradigm active (the server chooses the views), not ${b.paradigm}` });
  });
export type SessionOpen = z.infer<typeof SessionOpenSchema>;

/** One object a remote simulator's action moved, where it is now (the diagnosis judges the graph against it). */
const MovedObjectSchema = z
  .object({
    id: TaskObjectSchema.shape.id.describe("instance id of an object of the session's task"),
    position: TaskObjectSchema.shape.position.describe(
      "where it is now, as the task's objects give their position (the box centre unless the task says base_link): world frame, Z up, m",
    ),
    orientation: TaskObjectSchema.shape.orientation
      .optional()
      .describe("its orientation now (object to world, unit quaternion, scalar last); default: the last it had (the task's, until a view reports another)"),
  })
  .strict();

/** The JSON header of a view upload (binary layout, docs/protocol.md): the camera of that view. */
export const ViewHeaderSchema = z
  .object({
    intrinsics: IntrinsicsSchema.describe("fx, fy, cx, cy in pixels; pixel (i, j) has its centre at (u, v) = (i, j)"),
    extrinsic: BundleViewSchema.shape.extrinsic,
    action: BundleViewSchema.shape.action,
    pose: AgentPoseSchema.optional().describe(
      "active sessions (required there): the agent pose the view was taken from, after the action (the pose before it when the action was blocked)",
    ),
    blocked: z
      .boolean()
      .optional()
      .describe("active sessions (required there): true when the simulator could not carry the action out and the pose stayed (false for view 0)"),
    action_result: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe("active sessions: what came of the action in words ('ok', or why it failed: 'mug is out of reach'); default 'ok', or 'blocked' when blocked"),
    acted_on: z
      .array(z.number().int().min(1).max(65535))
      .min(1)
      .max(2)
      .optional()
      .describe(
        "active sessions, a manipulation that happened: the instance ids of the objects it acted on, in the action's order (kept in the step record, never shown to the agent)",
      ),
    moved: z
      .array(MovedObjectSchema)
      .min(1)
      .optional()
      .describe(
        "active sessions, an action that happened: the objects whose pose it changed (a manipulated object, a lid, what rests on a moved object, a held object carried by a camera move), each where it is now; an object not listed stays where it was last reported. The final diagnosis judges the graph against them, and counts a node where a moved object was as stale; never shown to the agent",
      ),
  })
  .strict();
export type ViewHeader = z.infer<typeof ViewHeaderSchema>;

export const SessionFinishSchema = z
  .object({
    views: z
      .number()
      .int()
      .min(1)
      .max(MAX_VIEWS_PER_SESSION)
      .optional()
      .describe("the number of views the client sent; the finish fails if the server has a different number"),
    instances: z.array(InstanceEntrySchema).max(65535).optional().describe("the id -> category table, if not given when the session was opened (replaces it)"),
  })
  .strict();

const SESSION_STATUSES = ["open", "finished", "failed"] as const;
const EPISODE_STATES = ["running", "finished", "failed"] as const;

const EpisodeStatusSchema = z.object({
  state: z
    .enum(EPISODE_STATES)
    .describe("running: the server is waiting for a view or deciding the next action; finished: the item record and bundle are stored; failed: see error"),
  views: z.number().int().describe("views the episode has received"),
  next_view: z.number().int().nullable().describe("the view the episode waits for (null: it is deciding, or it has ended)"),
  stop_reason: z.enum(STOP_REASONS).nullable(),
  error: z.string().nullable().describe("why the episode failed (the simulator stopped serving it, a view broke the rules, the server stopped)"),
  item: z.string().nullable().describe("URL of the item record once finished"),
});

export const SessionStatusSchema = z.object({
  id: z.string(),
  status: z.enum(SESSION_STATUSES).describe("failed: an active session whose episode failed (episode.error)"),
  task_id: z.string(),
  paradigm: z.enum(PARADIGMS),
  simulator: z.string(),
  image: BundleManifestSchema.shape.image,
  views: z.array(z.number().int()).describe("indices of the views received so far"),
  bytes: z.number().int().describe("bytes held for the views received so far"),
  bundle: z.string().nullable().describe("the bundle id once finished"),
  expires_at: z.string().nullable().describe("an open session idle until then is deleted"),
  upload: z.string().describe("URL template for view uploads"),
  episode: EpisodeStatusSchema.nullable().describe("paradigm active: the episode the server runs (null for other paradigms)"),
});

export const ActionQuerySchema = z
  .object({
    after: z.coerce
      .number()
      .int()
      .min(0)
      .max(MAX_VIEWS_PER_SESSION - 1)
      .describe("the view the action follows: ask for the action after the last view you uploaded"),
    wait: z.coerce
      .number()
      .min(0)
      .max(MAX_ACTION_WAIT_S)
      .default(DEFAULT_ACTION_WAIT_S)
      .describe("seconds to wait for the decision before answering next: wait"),
  })
  .strict();

const ACTION_NEXT = ["act", "stop", "wait", "failed"] as const;

/**
 * An object a manipulation names (bridge/env/types.ts ObjectRef): the agent's text, and, when the text is a node of
 * the agent's graph, the node's centroid (world, m) and label: the simulator takes the object visible there.
 */
const ObjectRefSchema = z.object({
  text: z.string().describe("the reference as the agent wrote it: #<instance id>, a node id (n3), a category, colour and category, or a name"),
  near: z
    .object({
      node: z.string().describe("the node of the agent's graph"),
      point: z.tuple([z.number(), z.number(), z.number()]).describe("the node's centroid, world frame (Z up, m)"),
      label: z.string().describe("the node's label (a category)"),
    })
    .optional()
    .describe("present when text names a node of the agent's graph"),
}) satisfies z.ZodType<ObjectRef>;

export const ActionResponseSchema = z.object({
  session: z.string(),
  after: z.number().int(),
  next: z
    .enum(ACTION_NEXT)
    .describe(
      "act: apply `action` and upload view `view`; stop: the episode ended, its record and bundle are stored; wait: not decided within `wait` s, ask again (at once); failed: the episode failed (`error`)",
    ),
  action: z
    .string()
    .nullable()
    .describe(
      "next act: the action to apply, as canonical text: a camera move (move_forward, turn_left, ...) or a manipulation with its objects (open(n3), put_on(red mug, table))",
    ),
  objects: z.array(ObjectRefSchema).optional().describe("next act, a manipulation: the objects it names, in its order (absent for a camera move)"),
  view: z.number().int().nullable().describe("next act: the index of the view to upload after applying the action (after + 1)"),
  stop_reason: z.enum(STOP_REASONS).nullable().describe("next stop: why the episode ended"),
  bundle: z.string().nullable().describe("next stop: the episode's frame bundle (GET /v1/bundles/{id})"),
  item: z.string().nullable().describe("next stop: URL of the item record (GET /v1/sim/sessions/{id}/item)"),
  error: z.string().nullable().describe("next failed: why"),
});

export const FinishResponseSchema = z.object({
  bundle: z.string().describe("id of the frame bundle (GET /v1/bundles/{id})"),
  session: z.string(),
  task_id: z.string(),
  paradigm: z.enum(PARADIGMS),
  views: z.number().int(),
});

export const ViewResponseSchema = z.object({
  session: z.string(),
  view: z.number().int(),
  bytes: z.number().int(),
  views: z.number().int().describe("views received so far"),
});

// ---------------------------------------------------------------- tasks

export const TaskPutResponseSchema = z.object({ task_id: z.string(), created: z.boolean() });

// ---------------------------------------------------------------- graphs

/**
 * The options of `esi3d graph`: the same schema (scenegraph/pipeline.ts), so the same names and defaults. The
 * VGGT model file is the server's (its ESI3D_VGGT_MODEL), never the client's.
 */
export const GraphOptionsSchema = GraphPipelineOptionsSchema.extend({
  vggt: VggtOptionsSchema.omit({ modelPath: true }).default(VggtOptionsSchema.omit({ modelPath: true }).parse({})),
}).strict();
export type GraphOptions = z.infer<typeof GraphOptionsSchema>;

export const GraphRequestSchema = GraphOptionsSchema.extend({
  bundle: z.string().describe("bundle id (from POST /v1/sim/sessions/{id}/finish)"),
}).strict();

export const GraphSummarySchema = z.object({
  id: z.string().describe("graph id: a hash of the bundle and the options, so the same request is answered from the store"),
  bundle: z.string(),
  options: GraphOptionsSchema,
  cached: z.boolean().describe("true when the graph was already stored"),
  created_at: z.string(),
  nodes: z.number().int(),
  relations: z.number().int(),
  metrics: GraphMetricsSchema.describe("the diagnosis metrics (GET /v1/graphs/{id}/diagnosis has everything)"),
  timings_ms: z.record(z.string(), z.number()),
});

// ---------------------------------------------------------------- answers

export const AnswerRequestSchema = z
  .object({
    graph: z.string().optional().describe("graph id to answer over (its bundle gives the task and, for 2D arms, the images)"),
    bundle: z.string().optional().describe("instead: a bundle id; 3D reasoners build (or reuse) its graph with graph_options"),
    graph_options: GraphOptionsSchema.optional().describe("with `bundle`: the graph to build (default: the `esi3d graph` defaults)"),
    reasoner: ReasonerSpecSchema.describe(
      "symbolic | symbolic-2d | shortcut (question and options only) | openai:<model> | gemini:<model> (keys and OPENAI_BASE_URL from the server's environment)",
    ),
    question: z
      .string()
      .min(1)
      .max(20_000)
      .optional()
      .describe("ask this instead of the task's question (LLM reasoners; the offline programs answer the task's question)"),
    format: PromptFormatSchema.shape.format.unwrap().optional(),
    uncertainty: PromptFormatSchema.shape.uncertainty.unwrap().optional(),
    images: ImageOptionsSchema.shape.images.unwrap().optional().describe("LLM: answer from images (the VLM 2D baseline) instead of the graph"),
    maxImages: ImageOptionsSchema.shape.maxImages.unwrap().optional(),
    optionLabels: OptionPresentationSchema.shape.optionLabels
      .unwrap()
      .optional()
      .describe(
        'LLM: how the prompt lists the options: none (default; a reply must give an option\'s text) | letters ("A. text"; a reply may give the letter)',
      ),
    circular: OptionPresentationSchema.shape.circular.unwrap().optional(),
    temperature: LlmOptionsSchema.shape.temperature.unwrap().optional(),
    timeoutMs: LlmOptionsSchema.shape.timeoutMs.unwrap().max(600_000).optional().describe("LLM: per-attempt timeout (ms; at most 10 minutes here)"),
    maxRetries: LlmOptionsSchema.shape.maxRetries.unwrap().optional(),
    cache: z.boolean().default(true).describe("LLM: use the server's response cache"),
  })
  .strict()
  .superRefine((b, ctx) => {
    if ((b.graph === undefined) === (b.bundle === undefined))
      ctx.addIssue({ code: "custom", path: ["graph"], message: "give exactly one of graph (a graph id) or bundle (a bundle id)" });
    if (b.graph_options && b.graph)
      ctx.addIssue({ code: "custom", path: ["graph_options"], message: "graph_options go with bundle, not with graph (the graph already has its options)" });
  });
export type AnswerRequest = z.infer<typeof AnswerRequestSchema>;

export const AnswerResponseSchema = z.object({
  reasoner: z.string(),
  task_id: z.string(),
  graph: z.string().nullable(),
  bundle: z.string(),
  question: z.string(),
  status: z.enum(["parsed", "invalid", "empty", "error"]),
  answer: z.string().nullable(),
  confidence: z.number().nullable(),
  truth: z.string().describe("the task's answer"),
  correct: z.boolean().nullable().describe("null when not parsed, or when a custom question was asked; with circular, true only when every rotation is right"),
  method: z.string(),
  match: z.enum(ANSWER_MATCHES).nullable().describe("how the answer was matched to its option: text | letter | fuzzy (null: no answer)"),
  circular: CircularSchema.nullable().describe("circular: every rotation's answer and whether it is right (null: not circular, or fewer than 2 options)"),
  reason: z.string().nullable(),
  raw: z.array(z.string()),
  latency_ms: z.number(),
});

// ---------------------------------------------------------------- runs

/**
 * The body of POST /v1/runs: any subset of RunConfig (the keys of `esi3d run --config`, each stage's options
 * in its own object), merged over the defaults by resolveRunConfig; a body in the flat form of earlier versions
 * is migrated first (src/eval/config.ts migrateRunConfig). Paths on the server are not the client's to choose: `suite` is "default"
 * (the built-in suite) or "tasks" (the tasks stored with PUT /v1/tasks); llm.baseUrl, llm.cachePath and
 * vggt.modelPath come from the server (its environment and data directory).
 */
export const RunRequestSchema = RunConfigSchema.partial()
  .extend({
    graph: RunGraphOptionsSchema.partial().optional(),
    prompt: RunPromptOptionsSchema.partial().optional(),
    noise: NoiseOptionsSchema.partial().optional(),
    active: ActiveOptionsSchema.partial().optional(),
    generator: GeneratorOptionsSchema.partial().optional(),
    images: ImageOptionsSchema.partial().optional(),
    llm: LlmOptionsSchema.partial().optional(),
    vggt: VggtOptionsSchema.partial().optional(),
  })
  .strict();

export const RUN_STATUSES = ["running", "finished", "interrupted", "cancelled", "failed"] as const;

export const RunStatusSchema = z.object({
  id: z.string(),
  status: z
    .enum(RUN_STATUSES)
    .describe(
      "interrupted: the server stopped (or was killed) during the run; cancelled: DELETE /v1/runs/{id} stopped it; either way the finished items are kept and POST /v1/runs/{id}/resume completes it",
    ),
  created_at: z.string(),
  finished_at: z.string().nullable(),
  config: RunConfigSchema,
  progress: z.object({ done: z.number().int(), total: z.number().int().nullable() }).describe("items finished (lines of items.jsonl) of the planned total"),
  summary: SummaryFileSchema.nullable().describe("summary.json once the run finished (docs/summary.schema.json)"),
  error: z.string().nullable(),
});

export const ItemsPageQuerySchema = z
  .object({
    offset: z.coerce.number().int().min(0).default(0),
    limit: z.coerce.number().int().min(1).optional(),
  })
  .strict();

export const ErrorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string().describe("names the field and the expected form"),
    field: z.string().optional().describe("path of the offending field, e.g. body.task.objects.0.id or view.3.extrinsic"),
    issues: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  }),
});

/** A capture session as stored in its session.json (sessions.ts writes it, episodes.ts runs its active episode). */
export const SessionRecordSchema = z
  .object({
    format: z.literal("esi3d-session/1"),
    id: z.string(),
    status: z.enum(SESSION_STATUSES),
    created_at: z.string(),
    updated_at: z.string(),
    task: TaskSchema,
    paradigm: BundleManifestSchema.shape.paradigm,
    simulator: z.string(),
    image: z.object({ width: z.number().int(), height: z.number().int() }).strict(),
    instances: BundleManifestSchema.shape.instances,
    bundle: z.string().nullable(),
    /** paradigm active: the episode the server runs, how long it waits for a view, and how it ended. */
    episode: EpisodeOptionsSchema.optional(),
    view_timeout_s: z.number().optional(),
    outcome: z
      .object({
        state: z.enum(["running", "finished", "failed"]),
        views: z.number().int(),
        stop_reason: z.enum(STOP_REASONS).nullable(),
        error: z.string().nullable(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type SessionRecord = z.infer<typeof SessionRecordSchema>;
