/**
 * `esi3d serve --queue-url`: Bull Board, BullMQ's own dashboard, at /queues, read-only (jobs can be looked
 * at, never retried, promoted or removed from here: the run that enqueued them is their only collector).
 * It sits behind the service's token like every endpoint; a browser opens /queues?token=<token> once, which
 * sets an HttpOnly, SameSite=Strict cookie that stands for the token (core/http/bearerAuth.ts).
 * Its page would load a web font from Google: that link is taken out, so the dashboard works offline and
 * tells no third party that it was opened.
 */
import type { FastifyPluginAsync } from "fastify";
import { Queue } from "bullmq";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { FastifyAdapter } from "@bull-board/fastify";
import type { HTTPStatus } from "@bull-board/api/typings/app";
import { bearerAuth } from "../../../core/http/bearerAuth.js";
import { redisConnection } from "../../eval/queue/connection.js";
import { QUEUES } from "../../eval/queue/jobs.js";
import { HttpError } from "./errors.js";

const QUEUE_DASHBOARD_PATH = "/queues";
/** The browser login of the dashboard: ?token= once, then this cookie (not the token itself). */
const DASHBOARD_COOKIE = "esi3d_queues";
const DASHBOARD_TOKEN_QUERY = "token";

/** The web-font stylesheet link in Bull Board's page (@bull-board/ui dist/index.ejs). */
const THIRD_PARTY_FONT = /<link[^>]*href="https:\/\/fonts\.googleapis\.com[^"]*"[^>]*>/g;

export const isDashboardUrl = (url: string) =>
  url === QUEUE_DASHBOARD_PATH || url.startsWith(`${QUEUE_DASHBOARD_PATH}/`) || url.startsWith(`${QUEUE_DASHBOARD_PATH}?`);

export const queueDashboard: FastifyPluginAsync<{ url: string; token: string | null }> = async (scope, o) => {
  const connection = redisConnection(o.url);
  const queues = Object.values(QUEUES).map((name) => new Queue(name, { connection }));
  const board = new FastifyAdapter();
  board.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: queues.map((q) => new BullMQAdapter(q, { readOnlyMode: true })),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: "esi3d queue" } },
  });
  // the service's error body for its own refusals (the token), Bull Board's status for the rest; its
  // HTTPStatus type lists fewer statuses than the adapter sends (401 among them)
  board.setErrorHandler((e: Error & { statusCode?: number }) =>
    e instanceof HttpError
      ? { status: e.status as HTTPStatus, body: e.body() }
      : { status: (e.statusCode ?? 500) as HTTPStatus, body: { error: { code: "dashboard", message: e.message } } },
  );
  scope.addHook("onSend", async (_req, reply, payload) => {
    if (typeof payload !== "string" || !String(reply.getHeader("content-type") ?? "").startsWith("text/html")) return payload;
    return payload.replace(THIRD_PARTY_FONT, "");
  });
  await scope.register(bearerAuth, {
    token: o.token,
    browser: { cookie: DASHBOARD_COOKIE, query: DASHBOARD_TOKEN_QUERY },
    unauthorized: (message) => new HttpError(401, "unauthorized", message),
  });
  await scope.register(board.registerPlugin(), { prefix: QUEUE_DASHBOARD_PATH });
  scope.addHook("onClose", async () => {
    await Promise.all(queues.map((q) => q.close()));
    connection.disconnect();
  });
};
