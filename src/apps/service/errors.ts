/**
 * Errors the service answers with. Every error body is `{"error": {"code", "message", "field"?, "issues"?}}`;
 * a client never sees a stack trace (500s say only "internal error" and a request id, the details go to the
 * server's stderr), a server path, or more than a few issues of a few hundred characters each
 * (core/errors.ts zodIssues).
 */
import { ZodError } from "zod";
import { InputError, zodIssues } from "../../../core/errors.js";
import { BundleError } from "../../../core/bundle/errors.js";
import { storageFailure } from "./storage.js";

/** The longest message a client is sent (characters): a message that needs more is echoing input. */
const MAX_ERROR_MESSAGE_CHARS = 600;

export interface ErrorBody {
  error: { code: string; message: string; field?: string; issues?: Array<{ field: string; message: string }> };
}

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + "…" : s);

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

  /** The body a client gets; `clean` removes server places (paths, the model endpoint) from the text. */
  body(clean: (text: string) => string = (t) => t): ErrorBody {
    const e: ErrorBody["error"] = { code: this.code, message: clip(clean(this.message), MAX_ERROR_MESSAGE_CHARS) };
    if (this.field !== undefined) e.field = this.field;
    if (this.issues) e.issues = this.issues.map((i) => ({ field: i.field, message: clean(i.message) }));
    return { error: e };
  }
}

/** 503 with Retry-After: a bounded queue is full. */
export function busy(what: string, retryAfterS: number): HttpError {
  return new HttpError(503, "busy", `${what}: the server is at its concurrency limit; retry after ${retryAfterS} s`, undefined, {
    "retry-after": String(retryAfterS),
  });
}

export function notFound(what: string, id: string, field = "params.id"): HttpError {
  return new HttpError(404, "not_found", `${field}: ${what} ${id} does not exist`, field);
}

/** A zod error as a 400 naming the first field (prefixed with where it came from: body, query, params, ...). */
export function fromZod(e: ZodError, where: string): HttpError {
  const issues = zodIssues(e.issues, [where]);
  const first = issues[0]!;
  const message = issues.map((i) => `${i.field}: ${i.message}`).join("; ");
  return new HttpError(400, "invalid_request", message, first.field, {}, issues);
}

/** fastify's own request errors: the documented code and the field the client got wrong. */
const FASTIFY_ERRORS: Record<string, { code: string; field: string; message?: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: "too_large", field: "body" },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: "unsupported_media_type",
    field: "headers.content-type",
    message: "this route takes a JSON object (Content-Type: application/json); views are uploaded to PUT /v1/sim/sessions/{id}/views/{n}",
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: "bad_request", field: "headers.content-length" },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: "invalid_json",
    field: "body",
    message: "the body is empty but Content-Type says JSON; send a JSON object, or no body and no Content-Type",
  },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: "invalid_json", field: "body" },
};

/** Maps whatever a handler threw to an HttpError (known input errors to 400, a full disk to 507, everything else to 500). */
export function toHttpError(e: unknown, requestId: string): HttpError {
  if (e instanceof HttpError) return e;
  if (e instanceof ZodError) return fromZod(e, "body");
  // the field and the detail, never the file: bundles live in the data directory
  if (e instanceof BundleError) return new HttpError(400, "invalid_bundle", `${e.field}: ${e.detail}`, e.field);
  if (e instanceof InputError) return new HttpError(400, "invalid_request", e.message, e.field);
  const storage = storageFailure(e);
  if (storage) return new HttpError(storage.status, storage.code, storage.message);
  // fastify's own errors (body too large, bad JSON, unsupported media type, ...) carry a 4xx statusCode
  const fe = e as { statusCode?: number; code?: string; message?: string; name?: string };
  if (typeof fe?.statusCode === "number" && fe.statusCode >= 400 && fe.statusCode < 500) {
    const known = FASTIFY_ERRORS[fe.code ?? ""];
    // the JSON parser's own SyntaxError (e.g. a __proto__ key, refused by fastify's secure parser)
    if (!known && fe.statusCode === 400 && fe.name === "SyntaxError")
      return new HttpError(400, "invalid_json", `body: not valid JSON for this server (${oneLine(fe.message)})`, "body");
    const code = known?.code ?? (fe.statusCode === 413 ? "too_large" : fe.statusCode === 415 ? "unsupported_media_type" : "bad_request");
    const field = known?.field ?? "request";
    return new HttpError(fe.statusCode, code, `${field}: ${known?.message ?? oneLine(fe.message ?? "bad request")}`, field);
  }
  return new HttpError(500, "internal", `internal error (request ${requestId}); the server log has the details`);
}

function oneLine(m: string | undefined): string {
  // fastify messages are already user-facing; keep one short line
  return clip((m ?? "").split("\n")[0]!, 300);
}
