/**
 * The HTTP service (`esi3d serve`): fastify 5 on one port. Routes are listed once in ROUTES (method, path,
 * schemas, summary) for both the router and /openapi.json; handlers live in the services (sessions,
 * graphs, answers, runs). Bearer auth on everything but /healthz, request size limits per route,
 * admission control on CPU work, errors as `{"error": {...}}` naming the field, never a stack trace.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { createHash, timingSafeEqual } from "node:crypto";
import { existsSync } from "node:fs";
import { TaskSchema } from "../../../bridge/task/schema.js";
import { readManifest } from "../../../bridge/bundle/io.js";
import { PACKAGE_VERSION } from "../../core/version.js";
import { AnswerService } from "./answers.js";
import { ServerContext } from "./context.js";
import { fromZod, HttpError, notFound, toHttpError } from "./errors.js";
import { GraphService } from "./graphs.js";
import { checkId, checkTaskId } from "./ids.js";
import { JSON_BODY_LIMIT_BYTES, KEEP_ALIVE_TIMEOUT_MS, REQUEST_RECEIVE_TIMEOUT_MS, SESSION_SWEEP_INTERVAL_MS, SHUTDOWN_GRACE_MS } from "./limits.js";
import { Metrics } from "./metrics.js";
import { openApiDocument } from "./openapi.js";
import { ROUTES, routeKey } from "./routes.js";
import { RunService } from "./runs.js";
import { SessionService } from "./sessions.js";
import { DataStore } from "./store.js";
import { VIEW_CONTENT_TYPE } from "./view-codec.js";
import { writeJsonAtomic } from "../../core/fs.js";

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

  const handlers: Record<string, Handler> = {
    "GET /healthz": () => ({ status: "ok", version: PACKAGE_VERSION, uptime_s: Math.round((Date.now() - startedAt) / 1000) }),
    "GET /metrics": (_q, reply) => reply.type("text/plain; version=0.0.4").send(metrics.render()),
    "GET /openapi.json": () => openapi,

    "PUT /v1/tasks/:id": (req, reply) => {
      const id = checkTaskId(params(req).id, "params.id");
      const parsed = TaskSchema.safeParse(req.body ?? {});
      if (!parsed.success) throw fromZod(parsed.error, "body");
      if (parsed.data.task_id !== id) throw new HttpError(400, "invalid_request", `body.task_id: "${parsed.data.task_id}" differs from the id in the path ("${id}")`, "body.task_id");
      const file = store.path("tasks", `${id}.json`);
      const created = !existsSync(file);
      writeJsonAtomic(file, parsed.data);
      reply.code(created ? 201 : 200);
      return { task_id: id, created };
    },
    "GET /v1/tasks/:id": (req) => {
      const id = checkTaskId(params(req).id, "params.id");
      const t = store.readJson(store.path("tasks", `${id}.json`));
      if (!t) throw notFound("task", id);
      return t;
    },

    "POST /v1/sim/sessions": (req, reply) => {
      reply.code(201);
      return sessions.open(req.body);
    },
    "GET /v1/sim/sessions/:id": (req) => sessions.get(params(req).id),
    "DELETE /v1/sim/sessions/:id": (req, reply) => {
      sessions.delete(params(req).id);
      return reply.code(204).send();
    },
    "PUT /v1/sim/sessions/:id/views/:n": (req, reply) => {
      const r = sessions.putView(params(req).id, params(req).n, req.body);
      reply.code(r.created ? 201 : 200);
      return r.response;
    },
    "POST /v1/sim/sessions/:id/finish": async (req, reply) => {
      const r = await sessions.finish(params(req).id, req.body);
      reply.code(r.created ? 201 : 200);
      return r.response;
    },
    "GET /v1/bundles/:id": (req) => {
      const id = checkId("bundle", params(req).id, "params.id");
      return { id, manifest: readManifest(graphs.bundleDir(id, "params.id")) };
    },

    "POST /v1/graphs": async (req, reply) => {
      const r = await graphs.request(req.body);
      reply.code(r.created ? 201 : 200);
      return r.response;
    },
    "GET /v1/graphs/:id": (req) => {
      const r = graphs.load(params(req).id);
      return { id: r.id, bundle: r.bundle, options: r.options, created_at: r.created_at, graph: r.graph };
    },
    "GET /v1/graphs/:id/diagnosis": (req) => {
      const r = graphs.load(params(req).id);
      return { id: r.id, bundle: r.bundle, diagnosis: r.diagnosis };
    },

    "POST /v1/answers": (req) => answers.answer(req.body),

    "POST /v1/runs": (req, reply) => {
      reply.code(202);
      return runs.start(req.body);
    },
    "GET /v1/runs": () => runs.list(),
    "GET /v1/runs/:id": (req) => runs.get(params(req).id),
    "GET /v1/runs/:id/items": (req) => runs.items(params(req).id, req.query),
    "POST /v1/runs/:id/resume": (req, reply) => {
      reply.code(202);
      return runs.resume(params(req).id);
    },
  };
  const openapi = openApiDocument(ROUTES);

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

  for (const r of ROUTES) {
    const handler = handlers[routeKey(r)];
    if (!handler) throw new Error(`no handler for ${routeKey(r)}`);
    const onRequest = r.binaryBody
      ? async (req: FastifyRequest) => {
          // refuse other media types before reading up to VIEW_BODY_LIMIT_BYTES of them
          const ct = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
          if (ct !== VIEW_CONTENT_TYPE && ct !== "application/octet-stream")
            throw new HttpError(415, "unsupported_media_type", `Content-Type: expected ${VIEW_CONTENT_TYPE} (the binary view layout of docs/protocol.md), got ${JSON.stringify(ct || "none")}`);
        }
      : undefined;
    app.route({ method: r.method, url: r.url, bodyLimit: r.bodyLimit, ...(onRequest ? { onRequest } : {}), handler: async (req, reply) => handler(req, reply) });
  }

  try {
    await app.listen({ host: opts.host, port: opts.port });
  } catch (e) {
    // nothing started: give the data directory back
    await app.close().catch(() => {});
    metrics.close();
    store.unlock();
    throw e;
  }
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
