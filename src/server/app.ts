/**
 * The HTTP service (`esi3d serve`): fastify 5 on one port. Routes are listed once in ROUTES (method, path,
 * schemas, summary) for both the router and /openapi.json; handlers live in the services (sessions,
 * graphs, answers, runs). Bearer auth on everything but /healthz, request size limits per route,
 * admission control on CPU work, errors as `{"error": {...}}` naming the field, never a stack trace.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { createHash, timingSafeEqual } from "node:crypto";
import { existsSync } from "node:fs";
import { z } from "zod";
import { TaskSchema } from "../../bridge/task/schema.js";
import { readManifest } from "../../bridge/bundle/io.js";
import { BundleManifestSchema } from "../../bridge/bundle/schema.js";
import { writeJsonAtomic } from "../../bridge/task/io.js";
import { PACKAGE_VERSION } from "../cli/version.js";
import { AnswerService } from "./answers.js";
import { ServerContext } from "./context.js";
import { fromZod, HttpError, notFound, toHttpError } from "./errors.js";
import { GraphService } from "./graphs.js";
import { checkId, checkTaskId } from "./ids.js";
import { JSON_BODY_LIMIT_BYTES, KEEP_ALIVE_TIMEOUT_MS, REQUEST_RECEIVE_TIMEOUT_MS, SESSION_SWEEP_INTERVAL_MS, SHUTDOWN_GRACE_MS, VIEW_BODY_LIMIT_BYTES } from "./limits.js";
import { Metrics } from "./metrics.js";
import { openApiDocument, type RouteDoc } from "./openapi.js";
import { RunService } from "./runs.js";
import {
  AnswerRequestSchema,
  AnswerResponseSchema,
  FinishResponseSchema,
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
import { SessionService } from "./sessions.js";
import { DataStore } from "./store.js";
import { VIEW_CONTENT_TYPE } from "./view-codec.js";

export interface ServeOptions {
  host: string;
  port: number;
  /** Bearer token; null = no auth (loopback only, checked by the caller). */
  token: string | null;
  dataDir: string;
  cpuJobs: number;
  cpuQueue: number;
  /** Server log lines (errors with stacks, start-up); default stderr. */
  log?: (line: string) => void;
}

type Handler = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown> | unknown;
interface Route extends RouteDoc {
  handler: Handler;
  bodyLimit?: number;
}

const HEALTH = z.object({ status: z.literal("ok"), version: z.string(), uptime_s: z.number() });
const BUNDLE_RESPONSE = z.object({ id: z.string(), manifest: BundleManifestSchema });
const GRAPH_RESPONSE = z.object({ id: z.string(), bundle: z.string(), options: z.record(z.string(), z.unknown()), created_at: z.string(), graph: z.unknown().describe("esi3d-graph/1 (docs/scene-graph.md)") });
const DIAGNOSIS_RESPONSE = z.object({ id: z.string(), bundle: z.string(), diagnosis: z.unknown() });
const ITEMS_RESPONSE = z.object({ run: z.string(), offset: z.number().int(), limit: z.number().int(), total: z.number().int(), items: z.array(z.record(z.string(), z.unknown())) });
const RUN_LIST = z.object({ runs: z.array(z.object({ id: z.string(), status: z.string(), created_at: z.string() })) });

const params = (req: FastifyRequest) => req.params as Record<string, string>;

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  ctx: ServerContext;
  close(): Promise<void>;
}

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`esi3d serve: ${l}\n`));
  const store = new DataStore(opts.dataDir);
  store.open();
  const metrics = new Metrics();
  const ctx = new ServerContext(store, metrics, opts.cpuJobs, opts.cpuQueue);
  const sessions = new SessionService(store, ctx);
  const graphs = new GraphService(ctx);
  const answers = new AnswerService(ctx, graphs);
  const runs = new RunService(ctx);
  const recovered = runs.recover();
  if (recovered) log(`${recovered} run(s) left running by a previous server are now 'interrupted' (POST /v1/runs/{id}/resume)`);
  sessions.sweep();
  const startedAt = Date.now();

  metrics.gauge("esi3d_cpu_jobs_in_flight", "CPU jobs running in worker threads", () => ctx.cpu.running);
  metrics.gauge("esi3d_cpu_jobs_queued", "CPU jobs waiting for a worker (the queue depth)", () => ctx.cpu.queued);
  metrics.gauge("esi3d_cpu_jobs_limit", "CPU jobs allowed at once (--cpu-jobs) and waiting (--queue)", () => [
    { labels: { kind: "running" }, value: ctx.cpu.concurrency },
    { labels: { kind: "queued" }, value: ctx.cpu.queue },
  ]);
  metrics.gauge("esi3d_rejected_total", "requests refused with 503 at a concurrency limit, by limiter (a counter kept as a gauge)", () => [
    { labels: { limiter: "cpu" }, value: ctx.cpu.rejected },
    { labels: { limiter: "llm" }, value: answers.llm.rejected },
  ]);
  metrics.gauge("esi3d_llm_calls_in_flight", "LLM answers in flight", () => answers.llm.running);
  metrics.gauge("esi3d_llm_calls_queued", "LLM answers waiting", () => answers.llm.queued);
  metrics.gauge("esi3d_runs_active", "evaluation runs running", () => runs.activeCount);
  metrics.gauge("esi3d_sessions_open", "capture sessions open", () => sessions.openCount());

  const tokenDigest = opts.token ? createHash("sha256").update(opts.token).digest() : null;
  const authorized = (header: string | undefined): boolean => {
    if (!tokenDigest) return true;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
    if (!m) return false;
    return timingSafeEqual(createHash("sha256").update(m[1]!).digest(), tokenDigest);
  };

  const routes: Route[] = [
    { method: "GET", url: "/healthz", summary: "liveness: answers while CPU work runs in workers (no auth)", status: 200, response: HEALTH, auth: false, handler: () => ({ status: "ok", version: PACKAGE_VERSION, uptime_s: Math.round((Date.now() - startedAt) / 1000) }) },
    { method: "GET", url: "/metrics", summary: "Prometheus metrics (text format 0.0.4)", status: 200, responseType: "text/plain", auth: true, handler: (_q, reply) => reply.type("text/plain; version=0.0.4").send(metrics.render()) },
    { method: "GET", url: "/openapi.json", summary: "this document", status: 200, auth: true, handler: () => openApiDocument(routes) },

    { method: "PUT", url: "/v1/tasks/:id", summary: "store a task record (TaskSchema); sessions and runs (suite 'tasks') can then name it", body: TaskSchema, status: 201, response: TaskPutResponseSchema, auth: true, handler: (req, reply) => {
      const id = checkTaskId(params(req).id, "params.id");
      const parsed = TaskSchema.safeParse(req.body ?? {});
      if (!parsed.success) throw fromZod(parsed.error, "body");
      if (parsed.data.task_id !== id) throw new HttpError(400, "invalid_request", `body.task_id: "${parsed.data.task_id}" differs from the id in the path ("${id}")`, "body.task_id");
      const file = store.path("tasks", `${id}.json`);
      const created = !existsSync(file);
      writeJsonAtomic(file, parsed.data);
      reply.code(created ? 201 : 200);
      return { task_id: id, created };
    } },
    { method: "GET", url: "/v1/tasks/:id", summary: "a stored task record", status: 200, response: TaskSchema, auth: true, handler: (req) => {
      const id = checkTaskId(params(req).id, "params.id");
      const t = store.readJson(store.path("tasks", `${id}.json`));
      if (!t) throw notFound("task", id);
      return t;
    } },

    { method: "POST", url: "/v1/sim/sessions", summary: "open a capture session for a task (a task record, or the id of a stored task)", body: SessionOpenSchema, status: 201, response: SessionStatusSchema, auth: true, handler: (req, reply) => {
      reply.code(201);
      return sessions.open(req.body);
    } },
    { method: "GET", url: "/v1/sim/sessions/:id", summary: "a session's state: the views received so far, the bundle once finished", status: 200, response: SessionStatusSchema, auth: true, handler: (req) => sessions.get(params(req).id) },
    { method: "DELETE", url: "/v1/sim/sessions/:id", summary: "abandon a session (its views are deleted; a finished session's bundle stays)", status: 204, auth: true, handler: (req, reply) => {
      sessions.delete(params(req).id);
      return reply.code(204).send();
    } },
    { method: "PUT", url: "/v1/sim/sessions/:id/views/:n", summary: "upload view n (0-based) of a session; replaces an earlier upload of the same n", binaryBody: "The binary view layout of docs/protocol.md: preamble, camera JSON, RGB PNG, float32 depth, instance-id PNG.", status: 201, response: ViewResponseSchema, auth: true, bodyLimit: VIEW_BODY_LIMIT_BYTES, handler: (req, reply) => {
      const r = sessions.putView(params(req).id, params(req).n, req.body);
      reply.code(r.created ? 201 : 200);
      return r.response;
    } },
    { method: "POST", url: "/v1/sim/sessions/:id/finish", summary: "check every view and write the session as a frame bundle (atomically); idempotent", body: SessionFinishSchema, status: 201, response: FinishResponseSchema, auth: true, handler: async (req, reply) => {
      const r = await sessions.finish(params(req).id, req.body);
      reply.code(r.created ? 201 : 200);
      return r.response;
    } },
    { method: "GET", url: "/v1/bundles/:id", summary: "a finished bundle's manifest (bundle.json)", status: 200, response: BUNDLE_RESPONSE, auth: true, handler: (req) => {
      const id = checkId("bundle", params(req).id, "params.id");
      const dir = graphs.bundleDir(id, "params.id");
      return { id, manifest: readManifest(dir) };
    } },

    { method: "POST", url: "/v1/graphs", summary: "build (or fetch the stored) scene graph of a bundle, with the options of `esi3d graph`", body: GraphRequestSchema, status: 201, response: GraphSummarySchema, auth: true, handler: async (req, reply) => {
      const r = await graphs.request(req.body);
      reply.code(r.created ? 201 : 200);
      return r.response;
    } },
    { method: "GET", url: "/v1/graphs/:id", summary: "a stored scene graph (esi3d-graph/1) with its bundle and options", status: 200, response: GRAPH_RESPONSE, auth: true, handler: (req) => {
      const r = graphs.load(params(req).id);
      return { id: r.id, bundle: r.bundle, options: r.options, created_at: r.created_at, graph: r.graph };
    } },
    { method: "GET", url: "/v1/graphs/:id/diagnosis", summary: "the graph's quality against the ground truth (matched / duplicate / merged / hallucinated / missed)", status: 200, response: DIAGNOSIS_RESPONSE, auth: true, handler: (req) => {
      const r = graphs.load(params(req).id);
      return { id: r.id, bundle: r.bundle, diagnosis: r.diagnosis };
    } },

    { method: "POST", url: "/v1/answers", summary: "answer the task's question (or another) over a graph or bundle with a reasoner", body: AnswerRequestSchema, status: 200, response: AnswerResponseSchema, auth: true, handler: (req) => answers.answer(req.body) },

    { method: "POST", url: "/v1/runs", summary: "start an evaluation run in the background (the configuration of `esi3d run`)", body: RunRequestSchema, status: 202, response: RunStatusSchema, auth: true, handler: (req, reply) => {
      reply.code(202);
      return runs.start(req.body);
    } },
    { method: "GET", url: "/v1/runs", summary: "every run with its status", status: 200, response: RUN_LIST, auth: true, handler: () => runs.list() },
    { method: "GET", url: "/v1/runs/:id", summary: "a run's status, progress (items done / total) and, once finished, its summary", status: 200, response: RunStatusSchema, auth: true, handler: (req) => runs.get(params(req).id) },
    { method: "GET", url: "/v1/runs/:id/items", summary: "a page of the run's item records (items.jsonl)", query: ItemsPageQuerySchema, status: 200, response: ITEMS_RESPONSE, auth: true, handler: (req) => runs.items(params(req).id, req.query) },
    { method: "POST", url: "/v1/runs/:id/resume", summary: "complete an interrupted (or failed) run", status: 202, response: RunStatusSchema, auth: true, handler: (req, reply) => {
      reply.code(202);
      return runs.resume(params(req).id);
    } },
  ];

  let reqCounter = 0;
  const app = Fastify({
    logger: false,
    bodyLimit: JSON_BODY_LIMIT_BYTES,
    requestTimeout: REQUEST_RECEIVE_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    return503OnClosing: true,
    genReqId: () => `${startedAt.toString(36)}-${(++reqCounter).toString(36)}`,
  });

  app.addContentTypeParser([VIEW_CONTENT_TYPE, "application/octet-stream"], { parseAs: "buffer" }, (_req, body, done) => done(null, body));

  app.addHook("onRequest", async (req, reply) => {
    if (req.url === "/healthz" || req.url.startsWith("/healthz?")) return;
    if (!authorized(req.headers.authorization)) {
      reply.header("www-authenticate", 'Bearer realm="esi3d"');
      throw new HttpError(401, "unauthorized", req.headers.authorization ? "the bearer token is not valid" : "this server needs an Authorization: Bearer <token> header");
    }
  });
  app.addHook("onResponse", async (req, reply) => {
    const route = req.routeOptions.url ?? "unmatched";
    metrics.requests.inc({ method: req.method, route, status: String(reply.statusCode) });
    metrics.latency.observe({ route }, reply.elapsedTime / 1000);
  });
  app.setErrorHandler((err, req, reply) => {
    const h = toHttpError(err, req.id);
    if (h.status >= 500 && h.status !== 503 && h.status !== 504) log(`request ${req.id} ${req.method} ${req.url}: ${(err as Error)?.stack ?? String(err)}`);
    reply.code(h.status).headers(h.headers).send(h.body());
  });
  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(new HttpError(404, "not_found", `no route ${req.method} ${req.url.split("?")[0]!.slice(0, 200)}`).body());
  });

  for (const r of routes) {
    const onRequest = r.binaryBody
      ? async (req: FastifyRequest) => {
          // refuse other media types before reading up to VIEW_BODY_LIMIT_BYTES of them
          const ct = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
          if (ct !== VIEW_CONTENT_TYPE && ct !== "application/octet-stream")
            throw new HttpError(415, "unsupported_media_type", `Content-Type: expected ${VIEW_CONTENT_TYPE} (the binary view layout of docs/protocol.md), got ${JSON.stringify(ct || "none")}`);
        }
      : undefined;
    app.route({ method: r.method, url: r.url, bodyLimit: r.bodyLimit, ...(onRequest ? { onRequest } : {}), handler: async (req, reply) => r.handler(req, reply) });
  }

  await app.listen({ host: opts.host, port: opts.port });
  ctx.warm();
  const sweeper = setInterval(() => {
    try {
      sessions.sweep();
    } catch (e) {
      log(`session sweep: ${(e as Error).message}`);
    }
  }, SESSION_SWEEP_INTERVAL_MS);
  sweeper.unref();
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : opts.port;
  const hostForUrl = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  let closed = false;
  return {
    app,
    ctx,
    url: `http://${hostForUrl}:${port}`,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(sweeper);
      await runs.stopAll(SHUTDOWN_GRACE_MS);
      await app.close();
      await ctx.close();
      answers.close();
      metrics.close();
      store.unlock();
    },
  };
}
