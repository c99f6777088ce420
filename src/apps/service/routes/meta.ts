/** GET /healthz (no auth), /metrics, /openapi.json. */
import { PACKAGE_VERSION } from "../../../../core/version.js";
import { openApiDocument } from "../openapi.js";
import { ROUTE_LIST } from "../routes.js";
import { resourcePlugin } from "./plugin.js";

let openapi: Record<string, unknown> | null = null;

export const metaRoutes = resourcePlugin("meta", {
  health: (_req, _reply, { startedAt }) => ({ status: "ok", version: PACKAGE_VERSION, uptime_s: Math.round((Date.now() - startedAt) / 1000) }),
  metrics: async (_req, reply, { metrics }) => reply.type("text/plain; version=0.0.4").send(await metrics.scrape()),
  // generated once, on first request: the routes do not change while the server runs
  openapi: () => (openapi ??= openApiDocument(ROUTE_LIST)),
});
