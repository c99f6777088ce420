/**
 * Every route of the service, once: method, path, summary, request and response schemas, limits. The
 * router (the resource plugins in routes/ attach a typed handler to each), /openapi.json (openapi.ts) and
 * the endpoint table of docs/protocol.md (protocol-doc.ts) are all generated from this declaration.
 */
import * as z from "zod";
import { TaskSchema } from "../../../core/task/schema.js";
import { BundleManifestSchema } from "../../../core/bundle/schema.js";
import { DiagnosisSchema } from "../../../scenegraph/diagnosisSchema.js";
import { SceneGraphSchema } from "../../../scenegraph/types.js";
import { ItemRecordSchema } from "../../eval/records.js";
import { VIEW_BODY_LIMIT_BYTES } from "./limits.js";
import {
  ActionQuerySchema,
  ActionResponseSchema,
  AnswerRequestSchema,
  AnswerResponseSchema,
  FinishResponseSchema,
  GraphOptionsSchema,
  GraphRequestSchema,
  GraphSummarySchema,
  ItemsPageQuerySchema,
  RunRequestSchema,
  RunStatusSchema,
  SessionFinishSchema,
  SessionOpenSchema,
  SessionStatusSchema,
  TaskPutResponseSchema,
  ViewResponseSchema,
} from "./schemas.js";

export interface RouteDoc {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** fastify form, e.g. /v1/graphs/:id */
  url: string;
  summary: string;
  /** JSON request body */
  body?: z.ZodType;
  /** a binary request body instead (the view layout): what it is */
  binaryBody?: string;
  query?: z.ZodType;
  /** success status and body */
  status: number;
  response?: z.ZodType;
  /** response content type when not JSON */
  responseType?: string;
  auth: boolean;
  /** request body limit when not the JSON default */
  bodyLimit?: number;
}

/** A route declared with its literal method and url (the handler's params are typed from the url). */
const route = <const R extends RouteDoc>(r: R): R => r;

const HealthSchema = z.object({ status: z.literal("ok"), version: z.string(), uptime_s: z.number() });
const BundleResponseSchema = z.object({ id: z.string(), manifest: BundleManifestSchema });
const GraphResponseSchema = z.object({
  id: z.string(),
  bundle: z.string(),
  options: GraphOptionsSchema,
  created_at: z.string(),
  graph: SceneGraphSchema.describe("esi3d-graph/1 (docs/scene-graph.md, docs/graph.schema.json)"),
});
const DiagnosisResponseSchema = z.object({ id: z.string(), bundle: z.string(), diagnosis: DiagnosisSchema.describe("docs/diagnosis.schema.json") });
const ItemsResponseSchema = z.object({
  run: z.string(),
  offset: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  items: z.array(ItemRecordSchema).describe("lines of items.jsonl (docs/item.schema.json)"),
});
const RunListSchema = z.object({ runs: z.array(z.object({ id: z.string(), status: z.string(), created_at: z.string() })) });

/**
 * Every route, grouped by resource: one plugin per group (src/apps/service/routes/<resource>.ts) implements
 * exactly these keys (a mapped type, so a missing or misspelled handler does not compile).
 */
export const ROUTES = {
  meta: {
    health: route({
      method: "GET",
      url: "/healthz",
      summary: "liveness; answers while CPU work runs in worker threads",
      status: 200,
      response: HealthSchema,
      auth: false,
    }),
    metrics: route({
      method: "GET",
      url: "/metrics",
      summary: "Prometheus metrics (text format 0.0.4): requests by route and status, latency histograms, stage timings, CPU queue depth and jobs in flight",
      status: 200,
      responseType: "text/plain",
      auth: true,
    }),
    openapi: route({ method: "GET", url: "/openapi.json", summary: "this API as OpenAPI 3.1, generated from the zod schemas", status: 200, auth: true }),
  },
  tasks: {
    put: route({
      method: "PUT",
      url: "/v1/tasks/:id",
      summary: 'store a task record (TaskSchema); sessions (task_id) and runs (suite "tasks") can then name it',
      body: TaskSchema,
      status: 201,
      response: TaskPutResponseSchema,
      auth: true,
    }),
    get: route({ method: "GET", url: "/v1/tasks/:id", summary: "a stored task record", status: 200, response: TaskSchema, auth: true }),
  },
  sessions: {
    open: route({
      method: "POST",
      url: "/v1/sim/sessions",
      summary: "open a capture session for a task (a task record, or the id of a stored task)",
      body: SessionOpenSchema,
      status: 201,
      response: SessionStatusSchema,
      auth: true,
    }),
    get: route({
      method: "GET",
      url: "/v1/sim/sessions/:id",
      summary: "a session's state: views received so far; the bundle id once finished",
      status: 200,
      response: SessionStatusSchema,
      auth: true,
    }),
    delete: route({
      method: "DELETE",
      url: "/v1/sim/sessions/:id",
      summary: "abandon a session (its views are deleted; a finished session's bundle stays)",
      status: 204,
      auth: true,
    }),
    putView: route({
      method: "PUT",
      url: "/v1/sim/sessions/:id/views/:n",
      summary: "upload view n (0-based); 201 new, 200 replaced an earlier upload of n",
      binaryBody: "The binary view layout of docs/protocol.md: preamble, camera JSON, RGB PNG, float32 depth, instance-id PNG.",
      status: 201,
      response: ViewResponseSchema,
      auth: true,
      bodyLimit: VIEW_BODY_LIMIT_BYTES,
    }),
    finish: route({
      method: "POST",
      url: "/v1/sim/sessions/:id/finish",
      summary: "decode and check every view, write the frame bundle atomically; 201 (200 if already finished)",
      body: SessionFinishSchema,
      status: 201,
      response: FinishResponseSchema,
      auth: true,
    }),
    action: route({
      method: "GET",
      url: "/v1/sim/sessions/:id/action",
      summary: "active sessions: the action to apply after view `after` (long poll up to `wait` s): act, stop, wait (ask again) or failed",
      query: ActionQuerySchema,
      status: 200,
      response: ActionResponseSchema,
      auth: true,
    }),
    item: route({
      method: "GET",
      url: "/v1/sim/sessions/:id/item",
      summary: "active sessions: the finished episode's item record (the record `esi3d run` writes to items.jsonl)",
      status: 200,
      response: ItemRecordSchema,
      auth: true,
    }),
    bundle: route({
      method: "GET",
      url: "/v1/bundles/:id",
      summary: "a finished bundle's manifest (bundle.json)",
      status: 200,
      response: BundleResponseSchema,
      auth: true,
    }),
  },
  graphs: {
    build: route({
      method: "POST",
      url: "/v1/graphs",
      summary: "build the scene graph of a bundle with the options of `esi3d graph` (201), or return the stored one (200)",
      body: GraphRequestSchema,
      status: 201,
      response: GraphSummarySchema,
      auth: true,
    }),
    get: route({
      method: "GET",
      url: "/v1/graphs/:id",
      summary: "a stored scene graph (esi3d-graph/1) with its bundle and options",
      status: 200,
      response: GraphResponseSchema,
      auth: true,
    }),
    diagnosis: route({
      method: "GET",
      url: "/v1/graphs/:id/diagnosis",
      summary: "the graph's quality against the ground truth (matched / duplicate / merged / hallucinated / stale / missed)",
      status: 200,
      response: DiagnosisResponseSchema,
      auth: true,
    }),
  },
  answers: {
    answer: route({
      method: "POST",
      url: "/v1/answers",
      summary: "answer the task's question (or another, LLMs) over a graph or bundle with symbolic, symbolic-2d, shortcut, openai:M or gemini:M",
      body: AnswerRequestSchema,
      status: 200,
      response: AnswerResponseSchema,
      auth: true,
    }),
  },
  runs: {
    start: route({
      method: "POST",
      url: "/v1/runs",
      summary: "start an evaluation run in the background (the configuration of `esi3d run`)",
      body: RunRequestSchema,
      status: 202,
      response: RunStatusSchema,
      auth: true,
    }),
    list: route({ method: "GET", url: "/v1/runs", summary: "every run with its status", status: 200, response: RunListSchema, auth: true }),
    get: route({
      method: "GET",
      url: "/v1/runs/:id",
      summary: "a run's status, progress (items done / total) and, once finished, its summary",
      status: 200,
      response: RunStatusSchema,
      auth: true,
    }),
    items: route({
      method: "GET",
      url: "/v1/runs/:id/items",
      summary: "a page of the run's item records (items.jsonl): ?offset&limit",
      query: ItemsPageQuerySchema,
      status: 200,
      response: ItemsResponseSchema,
      auth: true,
    }),
    resume: route({
      method: "POST",
      url: "/v1/runs/:id/resume",
      summary: "complete an interrupted, cancelled (or failed) run",
      status: 202,
      response: RunStatusSchema,
      auth: true,
    }),
    cancel: route({
      method: "DELETE",
      url: "/v1/runs/:id",
      summary:
        "cancel a running run: it starts no more items, those in flight finish, every finished item is kept (resume completes it); answers once it stopped, or after a few seconds with status still running",
      status: 202,
      response: RunStatusSchema,
      auth: true,
    }),
  },
} as const satisfies Record<string, Record<string, RouteDoc>>;

export type Resource = keyof typeof ROUTES;

/** Every route in documentation order (the router, /openapi.json and docs/protocol.md use this list). */
export const ROUTE_LIST: readonly RouteDoc[] = Object.values(ROUTES).flatMap((group) => Object.values(group) as RouteDoc[]);
