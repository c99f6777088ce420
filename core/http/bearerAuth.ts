/**
 * Bearer-token authentication as a fastify plugin (fastify-plugin, so its hook covers every route of the
 * app it is registered on). Each app passes its own `unauthorized` error, so the refusal uses that app's
 * error body. Optionally, for pages a browser opens: `?<query>=<token>` once sets an HttpOnly, SameSite=Strict
 * cookie that stands for the token (never the token itself) and redirects to the same URL without it.
 */
import fp from "fastify-plugin";
import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import { bearerToken, tokenChecker, tokenCookieValue } from "./access.js";

export interface BearerAuthOptions {
  /** the server's token; null = no authentication (a loopback server, see serverToken) */
  token: string | null;
  /** requests that need no token (a liveness probe) */
  open?: (req: FastifyRequest) => boolean;
  /** browser login: the cookie's name and the query parameter that carries the token once */
  browser?: { cookie: string; query: string };
  /** the error a refused request is answered with (thrown from the hook, mapped by the app's error handler) */
  unauthorized: (message: string) => Error;
}

/** The value of cookie `name` in a Cookie header, or undefined. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

const bearerAuthPlugin: FastifyPluginAsync<BearerAuthOptions> = async (app, o) => {
  if (o.token === null) return;
  const tokenOk = tokenChecker(o.token);
  const cookie = tokenCookieValue(o.token);
  const cookieOk = tokenChecker(cookie);
  app.addHook("onRequest", async (req, reply) => {
    if (o.open?.(req)) return;
    if (o.browser) {
      const url = new URL(req.url, "http://localhost");
      const presented = url.searchParams.get(o.browser.query);
      if (presented !== null) {
        if (!tokenOk(presented)) throw o.unauthorized(`the ?${o.browser.query}= value is not this server's token`);
        url.searchParams.delete(o.browser.query);
        reply.header("set-cookie", `${o.browser.cookie}=${cookie}; HttpOnly; SameSite=Strict; Path=/`);
        return reply.redirect(url.pathname + url.search, 303);
      }
      if (cookieOk(cookieValue(req.headers.cookie, o.browser.cookie))) return;
    }
    if (tokenOk(bearerToken(req.headers.authorization))) return;
    reply.header("www-authenticate", 'Bearer realm="esi3d"');
    const how = `this server needs an Authorization: Bearer <token> header${o.browser ? ` (in a browser, open /?${o.browser.query}=<token> once)` : ""}`;
    throw o.unauthorized(req.headers.authorization ? "the bearer token is not valid" : how);
  });
};

export const bearerAuth = fp(bearerAuthPlugin, { fastify: "5.x", name: "esi3d-bearer-auth" });
