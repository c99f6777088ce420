/**
 * The HTTP service (`esi3d serve`): fastify 5 on one port, composed of plugins. Routes are declared once in
 * ROUTES (routes.ts: method, path, schemas, summary) for the router, /openapi.json and docs/protocol.md;
 * one plugin per resource (routes/*.ts) attaches a typed handler to each, calling that resource's service.
 * Bearer auth (core/http/bearerAuth.ts), request metrics and error mapping are fastify-plugins on the
 * root. Errors are `{"error": {...}}` naming the field, never a stack trace or a server path.
 *
 * This module installs no process-wide handlers: the `serve` command (command.ts) owns signals.
 */
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from "fastify";
import { bearerAuth } from "../../../core/http/bearerAuth.js";
import { HttpError } from "./errors.js";
import {
  JSON_BODY_LIMIT_BYTES,
  KEEP_ALIVE_TIMEOUT_MS,
  MAX_PARAM_CHARS,
  REQUEST_RECEIVE_TIMEOUT_MS,
  SESSION_SWEEP_INTERVAL_MS,
  SHUTDOWN_GRACE_MS,
} from "./limits.js";
import { clientErrorHandler, errorMapping, frameworkErrors } from "./plugins/errors.js";
import { requestMetrics } from "./plugins/metrics.js";
import type { Resource } from "./routes.js";
import { answerRoutes } from "./routes/answers.js";
import { graphRoutes } from "./routes/graphs.js";
import { metaRoutes } from "./routes/meta.js";
import type { ResourcePluginOptions } from "./routes/plugin.js";
import { runRoutes } from "./routes/runs.js";
import { sessionRoutes } from "./routes/sessions.js";
import { taskRoutes } from "./routes/tasks.js";
import { closeServices, openServices, type Services } from "./services.js";
import { watchQueueInMetrics, type QueueWatch } from "./queueMetrics.js";
import { isDashboardUrl, queueDashboard } from "./queueDashboard.js";
import type { ServerContext } from "./context.js";

export interface ServeOptions {
  host: string;
  port: number;
  /** Bearer token; null = no auth (loopback only, checked by the caller with serverToken). */
  token: string | null;
  dataDir: string;
  cpuJobs: number;
  cpuQueue: number;
  /** The Redis of distributed runs to report in /metrics (redis://HOST:PORT[/DB]), or none. */
  queueUrl?: string | null;
  /** Server log lines (errors with stacks, start-up); default stderr. */
  log?: (line: string) => void;
}

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  ctx: ServerContext;
  close(): Promise<void>;
  /** For a process about to exit before close() finished: records running runs as interrupted, releases the data directory. */
  abandon(): void;
}

/** One plugin for every resource of ROUTES: a resource without its plugin does not compile. */
const RESOURCE_PLUGINS: { [R in Resource]: FastifyPluginAsync<ResourcePluginOptions> } = {
  meta: metaRoutes,
  tasks: taskRoutes,
  sessions: sessionRoutes,
  graphs: graphRoutes,
  answers: answerRoutes,
  runs: runRoutes,
};

/** /healthz answers without a token (a liveness probe); `?…` after it changes nothing. */
const isHealthCheck = (url: string) => url === "/healthz" || url.startsWith("/healthz?");

/** The fastify app over `services`: limits, body parsers, the root plugins, then one plugin per resource. */
function buildApp(services: Services, o: { token: string | null; log: (line: string) => void; queueUrl?: string | null }): FastifyInstance {
  let requests = 0;
  const redact = services.ctx.redact;
  const app = Fastify({
    logger: false,
    bodyLimit: JSON_BODY_LIMIT_BYTES,
    requestTimeout: REQUEST_RECEIVE_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    return503OnClosing: true,
    routerOptions: { maxParamLength: MAX_PARAM_CHARS },
    genReqId: () => `${services.startedAt.toString(36)}-${(++requests).toString(36)}`,
    frameworkErrors: frameworkErrors(redact),
    clientErrorHandler,
  });
  // JSON is the only body type outside the view upload (which adds its own parser in its scope)
  app.removeContentTypeParser("text/plain");
  app.register(errorMapping, { log: o.log, redact });
  // the queue dashboard checks the token itself, with a browser login (queueDashboard.ts)
  const dashboard = o.queueUrl ?? null;
  app.register(bearerAuth, {
    token: o.token,
    open: (req) => isHealthCheck(req.url) || (dashboard !== null && isDashboardUrl(req.url)),
    unauthorized: (message) => new HttpError(401, "unauthorized", message),
  });
  app.register(requestMetrics, { services });
  for (const plugin of Object.values(RESOURCE_PLUGINS)) app.register(plugin, { services });
  if (dashboard !== null) app.register(queueDashboard, { url: dashboard, token: o.token });
  return app;
}

/** Sweeps expired capture sessions now and then (the timer does not keep the process alive). */
function startSessionSweeper(services: Services, log: (line: string) => void): () => void {
  const timer = setInterval(() => {
    try {
      services.sessions.sweep();
    } catch (e) {
      log(`session sweep: ${(e as Error).message}`);
    }
  }, SESSION_SWEEP_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

function urlOf(app: FastifyInstance, opts: Pick<ServeOptions, "host" | "port">): string {
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : opts.port;
  return `http://${opts.host.includes(":") ? `[${opts.host}]` : opts.host}:${port}`;
}

/** Opens the data directory, builds the app, listens; resolves once it accepts connections. */
export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`esi3d serve: ${l}\n`));
  const services = openServices({ dataDir: opts.dataDir, cpuJobs: opts.cpuJobs, cpuQueue: opts.cpuQueue, log });
  let queueWatch: QueueWatch | null = null;
  const app = buildApp(services, { token: opts.token, log, queueUrl: opts.queueUrl });
  try {
    if (opts.queueUrl) queueWatch = await watchQueueInMetrics(opts.queueUrl, services.metrics);
    await app.listen({ host: opts.host, port: opts.port });
  } catch (e) {
    // nothing started: give the data directory back
    await queueWatch?.close();
    await app.close().catch(() => {});
    await closeServices(services);
    throw e;
  }
  services.ctx.warm();
  const stopSweeper = startSessionSweeper(services, log);
  let closed = false;
  return {
    app,
    ctx: services.ctx,
    url: urlOf(app, opts),
    async close() {
      if (closed) return;
      closed = true;
      stopSweeper();
      await services.runs.stopAll(SHUTDOWN_GRACE_MS);
      await app.close();
      await queueWatch?.close();
      await closeServices(services);
    },
    abandon() {
      services.runs.markInterrupted();
      services.store.unlock();
    },
  };
}
