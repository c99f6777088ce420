/**
 * Error mapping as a fastify plugin (fastify-plugin: it sets the app's error and not-found handlers), plus
 * the two handlers fastify only takes at construction (frameworkErrors for URLs it cannot route,
 * clientErrorHandler for requests Node's parser refuses). Every answer uses the documented body
 * `{"error": {code, message, field}}` (docs/protocol.md "Errors"), with server places redacted; 5xx details
 * go to the server log only.
 */
import fp from "fastify-plugin";
import { maxHeaderSize, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { HttpError, toHttpError } from "../errors.js";
import { ROUTE_LIST } from "../routes.js";

export interface ErrorMappingOptions {
  log: (line: string) => void;
  redact: (text: string) => string;
}

/** Each route template as a pattern of its path, with the methods it answers (GET routes answer HEAD too). */
const ROUTE_PATTERNS = ROUTE_LIST.map((r) => ({ method: r.method, pattern: new RegExp(`^${r.url.replace(/[.]/g, "\\.").replace(/:[A-Za-z_]+/g, "[^/]+")}$`) }));

/** The methods some route answers at `path` (empty: no route has this path). */
function allowedMethods(path: string): string[] {
  const methods = new Set<string>();
  for (const r of ROUTE_PATTERNS) {
    if (!r.pattern.test(path)) continue;
    methods.add(r.method);
    if (r.method === "GET") methods.add("HEAD");
  }
  return [...methods].sort();
}

const shownPath = (url: string) => JSON.stringify(url.split("?")[0]!.slice(0, 200));

function send(reply: FastifyReply, h: HttpError, redact: (t: string) => string): void {
  reply.code(h.status).headers(h.headers).type("application/json; charset=utf-8").send(h.body(redact));
}

const errorMappingPlugin: FastifyPluginAsync<ErrorMappingOptions> = async (app, o) => {
  app.setErrorHandler((err, req, reply) => {
    const h = toHttpError(err, req.id);
    if (h.status >= 500 && h.status !== 503 && h.status !== 504 && h.status !== 507)
      o.log(`request ${req.id} ${req.method} ${req.url}: ${(err as Error)?.stack ?? String(err)}`);
    send(reply, h, o.redact);
  });
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split("?")[0]!;
    const allowed = allowedMethods(path);
    if (allowed.length > 0)
      return send(
        reply,
        new HttpError(405, "method_not_allowed", `method: ${req.method} is not served at ${shownPath(req.url)}; use ${allowed.join(", ")}`, "method", {
          allow: allowed.join(", "),
        }),
        o.redact,
      );
    send(reply, new HttpError(404, "not_found", `path: no route ${req.method} ${shownPath(req.url)} (GET /openapi.json lists them)`, "path"), o.redact);
  });
};

export const errorMapping = fp(errorMappingPlugin, { fastify: "5.x", name: "esi3d-error-mapping" });

/** fastify's `frameworkErrors`: a URL it cannot decode, or a path segment beyond maxParamLength. */
export function frameworkErrors(redact: (t: string) => string) {
  return (err: FastifyError, req: FastifyRequest, reply: FastifyReply): void => {
    const h =
      err.code === "FST_ERR_MAX_PARAM_LENGTH"
        ? new HttpError(400, "invalid_id", "path: a path segment is longer than any id (ids are at most 128 characters)", "path")
        : new HttpError(400, "invalid_url", `path: ${shownPath(req.url)} is not a valid URL (a percent-escape that is not UTF-8)`, "path");
    send(reply, h, redact);
  };
}

/** What Node's HTTP parser refuses before fastify sees a request: oversized headers, ambiguous framing, timeouts. */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const [status, code, field, message] =
    err.code === "HPE_HEADER_OVERFLOW"
      ? [431, "headers_too_large", "headers", `headers: the request's headers are larger than this server accepts (${maxHeaderSize} bytes)`]
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "timeout", "request", "request: not received in time"]
        : [400, "bad_request", "headers", "headers: the request could not be parsed as HTTP/1.1 (e.g. both Content-Length and Transfer-Encoding)"];
  const body = JSON.stringify(new HttpError(status, code, message, field).body());
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  socket.destroy(err);
}
