/**
 * The OpenAPI 3.1 document served at /openapi.json, generated from the route table (src/apps/service/routes.ts)
 * and the zod schemas with z.toJSONSchema: the document cannot drift from what the server validates.
 */
import * as z from "zod";
import { PACKAGE_VERSION } from "../../../core/version.js";
import { ErrorBodySchema } from "./schemas.js";
import { VIEW_CONTENT_TYPE } from "./viewCodec.js";
import { JSON_BODY_LIMIT_BYTES, VIEW_BODY_LIMIT_BYTES } from "./limits.js";
import type { RouteDoc } from "./routes.js";

const toSchema = (s: z.ZodType, io: "input" | "output") => z.toJSONSchema(s, { io, unrepresentable: "any" }) as Record<string, unknown>;

export function openApiDocument(routes: readonly RouteDoc[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.url.replace(/:([A-Za-z_]+)/g, "{$1}");
    const params = [...r.url.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
    const query = r.query
      ? Object.entries((toSchema(r.query, "input").properties ?? {}) as Record<string, unknown>).map(([name, schema]) => ({
          name,
          in: "query",
          required: false,
          schema,
        }))
      : [];
    const op: Record<string, unknown> = {
      summary: r.summary,
      operationId: `${r.method.toLowerCase()}${path.replace(/[{}]/g, "").replace(/[/_-](\w)/g, (_, c: string) => c.toUpperCase())}`,
      responses: {
        [String(r.status)]: r.response
          ? { description: "success", content: { "application/json": { schema: toSchema(r.response, "output") } } }
          : { description: "success", ...(r.responseType ? { content: { [r.responseType]: { schema: { type: "string" } } } } : {}) },
        "4XX": {
          description:
            "invalid request (400, field named), unauthorized (401), not found (404), method not allowed (405, Allow header), conflict (409), too large (413), unsupported media type (415), headers too large (431)",
          content: { "application/json": { schema: toSchema(ErrorBodySchema, "output") } },
        },
        "503": {
          description: "at a concurrency limit (busy; retry after the Retry-After header's seconds), or a read-only data directory (storage_read_only)",
          headers: { "Retry-After": { schema: { type: "integer" } } },
          content: { "application/json": { schema: toSchema(ErrorBodySchema, "output") } },
        },
        "507": {
          description: "the server's disk is full (insufficient_storage); nothing was stored",
          content: { "application/json": { schema: toSchema(ErrorBodySchema, "output") } },
        },
      },
    };
    if (params.length || query.length) op.parameters = [...params, ...query];
    if (r.body)
      op.requestBody = {
        required: false,
        description: `JSON, at most ${JSON_BODY_LIMIT_BYTES} bytes`,
        content: { "application/json": { schema: toSchema(r.body, "input") } },
      };
    if (r.binaryBody)
      op.requestBody = {
        required: true,
        description: `${r.binaryBody} At most ${VIEW_BODY_LIMIT_BYTES} bytes.`,
        content: { [VIEW_CONTENT_TYPE]: { schema: { type: "string", format: "binary" } } },
      };
    if (!r.auth) op.security = [];
    (paths[path] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "esi3d service",
      version: PACKAGE_VERSION,
      description:
        "The esi3d pipeline over HTTP: capture sessions (the simulator protocol, docs/protocol.md), frame bundles, scene graphs, answers and evaluation runs.",
    },
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "the server's --token; required on every endpoint but /healthz when the server has a token (always off loopback)",
        },
      },
    },
    security: [{ bearer: [] }],
    paths,
  };
}
