/**
 * Errors the service answers with. Every error body is `{"error": {"code", "message", "field"?, "issues"?}}`;
 * a client never sees a stack trace (500s say only "internal error" and a request id, the details go to the
 * server's stderr).
 */
import { ZodError } from "zod";
import { InputError, zodIssues } from "../../core/errors.js";
import { BundleError } from "../../../bridge/bundle/io.js";

export interface ErrorBody {
  error: { code: string; message: string; field?: string; issues?: Array<{ field: string; message: string }> };
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
    readonly issues?: Array<{ field: string; message: string }>,
  ) {
    super(message);
    this.name = "HttpError";
  }

  body(): ErrorBody {
    const e: ErrorBody["error"] = { code: this.code, message: this.message };
    if (this.field !== undefined) e.field = this.field;
    if (this.issues) e.issues = this.issues;
    return { error: e };
  }
}

/** 503 with Retry-After: a bounded queue is full. */
export function busy(what: string, retryAfterS: number): HttpError {
  return new HttpError(503, "busy", `${what}: the server is at its concurrency limit; retry after ${retryAfterS} s`, undefined, { "retry-after": String(retryAfterS) });
}

export function notFound(what: string, id: string): HttpError {
  return new HttpError(404, "not_found", `${what} ${id} does not exist`);
}

/** A zod error as a 400 naming the first field (prefixed with where it came from: body, query, params, ...). */
export function fromZod(e: ZodError, where: string): HttpError {
  const issues = zodIssues(e.issues, [where]);
  const first = issues[0]!;
  const message = issues.map((i) => `${i.field}: ${i.message}`).join("; ");
  return new HttpError(400, "invalid_request", message, first.field, {}, issues);
}

/** Maps whatever a handler threw to an HttpError (known input errors to 400, everything else to 500). */
export function toHttpError(e: unknown, requestId: string): HttpError {
  if (e instanceof HttpError) return e;
  if (e instanceof ZodError) return fromZod(e, "body");
  if (e instanceof BundleError) return new HttpError(400, "invalid_bundle", e.message, e.field);
  if (e instanceof InputError) return new HttpError(400, "invalid_request", e.message, e.field);
  // fastify's own errors (body too large, bad JSON, unsupported media type, ...) carry a 4xx statusCode
  const fe = e as { statusCode?: number; code?: string; message?: string };
  if (typeof fe?.statusCode === "number" && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new HttpError(fe.statusCode, fastifyCode(fe.code, fe.statusCode), cleanFastifyMessage(fe.message ?? "bad request"));
  }
  return new HttpError(500, "internal", `internal error (request ${requestId}); the server log has the details`);
}

function fastifyCode(code: string | undefined, status: number): string {
  switch (code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return "too_large";
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return "unsupported_media_type";
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return "invalid_json";
    default:
      return status === 413 ? "too_large" : status === 415 ? "unsupported_media_type" : "bad_request";
  }
}

function cleanFastifyMessage(m: string): string {
  // fastify messages are already user-facing; keep one line
  return m.split("\n")[0]!.slice(0, 300);
}
