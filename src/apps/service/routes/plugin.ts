/**
 * How a resource's routes become a fastify plugin. ROUTES (../routes.ts) declares each resource's routes
 * under names; a resource plugin supplies one handler per name, as an object literal typed by a mapped type
 * over that resource's names: a missing handler or a misspelled name is a compile error (not a crash at
 * start-up), and each handler's `req.params` is typed from its url (`/v1/runs/:id/items` gives `{ id }`).
 *
 * Bodies: JSON routes take only JSON objects (anything else is a 400 before a schema sees it);
 * the binary view parser exists only inside the scope of the routes that declare a binary body, so a binary
 * body sent to a JSON route is a 415 without being read into a schema.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import { HttpError } from "../errors.js";
import { MAX_BODY_KEYS } from "../limits.js";
import { ROUTES, type Resource, type RouteDoc } from "../routes.js";
import type { Services } from "../services.js";
import { VIEW_CONTENT_TYPE } from "../viewCodec.js";

/** Media types of a binary (view) body. */
const BINARY_CONTENT_TYPES = [VIEW_CONTENT_TYPE, "application/octet-stream"];

/** The `:name` parameters of a fastify url. */
type ParamNames<U extends string> = U extends `${string}:${infer P}/${infer Rest}` ? P | ParamNames<`/${Rest}`> : U extends `${string}:${infer P}` ? P : never;

type RouteRequest<R extends RouteDoc> = FastifyRequest<{ Params: { [K in ParamNames<R["url"]>]: string }; Body: unknown; Querystring: unknown }>;
/** A route's handler: its request (params typed from the url), the reply, and the server's services. */
type RouteHandler<R extends RouteDoc> = (req: RouteRequest<R>, reply: FastifyReply, services: Services) => unknown;

type RoutesOf<Res extends Resource> = (typeof ROUTES)[Res];
/** One handler for each route a resource declares, no more, no fewer. */
export type ResourceHandlers<Res extends Resource> = { [K in keyof RoutesOf<Res>]: RoutesOf<Res>[K] extends RouteDoc ? RouteHandler<RoutesOf<Res>[K]> : never };

export interface ResourcePluginOptions {
  services: Services;
}

/** The media type of a request, lower-case, without parameters ("" when none). */
function mediaType(req: FastifyRequest): string {
  return (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * Refuses a JSON body that is not an object (an array, a string, a number, null), or one with more top-level
 * keys than any request has, before a schema parses it: a strict schema lists every unknown key, which for a
 * 4 MiB body of keys costs the event loop half a second to say nothing useful.
 */
async function jsonObjectOnly(req: FastifyRequest): Promise<void> {
  const b = req.body;
  if (b === undefined) return;
  if (b === null || typeof b !== "object" || Array.isArray(b) || Buffer.isBuffer(b))
    throw new HttpError(400, "invalid_request", `body: expected a JSON object, got ${b === null ? "null" : Array.isArray(b) ? "an array" : typeof b}`, "body");
  let keys = 0;
  for (const _ in b)
    if (++keys > MAX_BODY_KEYS)
      throw new HttpError(400, "invalid_request", `body: more than ${MAX_BODY_KEYS} keys; no request of this API has that many (GET /openapi.json)`, "body");
}

/** Refuses another media type on a binary route before its (large) body is read. */
async function binaryOnly(req: FastifyRequest): Promise<void> {
  const ct = mediaType(req);
  if (!BINARY_CONTENT_TYPES.includes(ct))
    throw new HttpError(
      415,
      "unsupported_media_type",
      `headers.content-type: expected ${VIEW_CONTENT_TYPE} (the binary view layout of docs/protocol.md), got ${JSON.stringify(ct.slice(0, 100) || "none")}`,
      "headers.content-type",
    );
}

function routeOptions(doc: RouteDoc, handler: RouteHandler<RouteDoc>, services: Services): RouteOptions {
  return {
    method: doc.method,
    url: doc.url,
    ...(doc.bodyLimit ? { bodyLimit: doc.bodyLimit } : {}),
    ...(doc.binaryBody ? { onRequest: binaryOnly } : {}),
    ...(doc.body ? { preValidation: jsonObjectOnly } : {}),
    handler: async (req, reply) => handler(req as RouteRequest<RouteDoc>, reply, services),
  };
}

/** A binary route in its own scope: the only place the binary parser exists. */
async function binaryScope(app: FastifyInstance, o: { route: RouteOptions }): Promise<void> {
  app.addContentTypeParser(BINARY_CONTENT_TYPES, { parseAs: "buffer" }, (_req, body, done) => done(null, body));
  app.route(o.route);
}

/** The plugin of one resource: its slice of ROUTES, each route with the handler of its name. */
export function resourcePlugin<Res extends Resource>(resource: Res, handlers: ResourceHandlers<Res>): FastifyPluginAsync<ResourcePluginOptions> {
  const table = handlers as Record<string, RouteHandler<RouteDoc>>;
  return async (app, { services }) => {
    for (const [name, doc] of Object.entries(ROUTES[resource]) as Array<[string, RouteDoc]>) {
      const route = routeOptions(doc, table[name]!, services);
      if (doc.binaryBody) await app.register(binaryScope, { route });
      else app.route(route);
    }
  };
}
