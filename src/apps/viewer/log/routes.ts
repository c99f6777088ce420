/**
 * The run log viewer's routes, beside the 3D viewer's on the same server (src/apps/viewer/server.ts: the
 * same loopback binding, token rule and error handling), over every served run:
 *   GET /items                             the item list: search, sort, filters, one item in full (page.ts)
 *   GET /question?task=<id>                one question, every arm and reasoner of every run side by side (questionPage.ts)
 *   GET /api/items                         every item's row (JSON, data.ts ItemRow[])
 *   GET /api/item?key=<item key>[&run=<run>]  one item in full (JSON, data.ts ItemDetail)
 *   GET /api/question?task=<id>            one question (JSON, data.ts QuestionView)
 *   GET /api/usage                         token and cost totals per reasoner of each run (JSON)
 * and, under each run's prefix, GET <base>/prompts/images/<sha256>.<ext>: an image a prompt file names.
 */
import type { FastifyInstance } from "fastify";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../../../core/errors.js";
import type { PriceTable } from "../../../eval/usage.js";
import { itemDetail, itemRows, questionView, usageByRun, type ServedRun } from "./data.js";
import { logPageHtml } from "./page.js";
import { questionPageHtml } from "./questionPage.js";

/** The paths these routes answer (a run's prompt images below its prefix), for the server's 404-or-405 decision. */
export const LOG_PATHS = /^\/(items|question|api\/items|api\/item|api\/question|api\/usage|prompts\/images\/[^/]+)$/;

const IMAGE_NAME = /^[0-9a-f]{64}\.(png|jpg)$/;

export function logRoutes(app: FastifyInstance, runs: readonly ServedRun[], prices: PriceTable | null, pricesFile: string | null): void {
  const html = "text/html; charset=utf-8";
  const json = "application/json";
  app.get("/items", async (_req, reply) => reply.type(html).send(logPageHtml(runs, pricesFile)));
  app.get("/api/items", async (_req, reply) => reply.type(json).send(JSON.stringify(itemRows(runs))));
  app.get("/api/usage", async (_req, reply) => reply.type(json).send(JSON.stringify({ prices: pricesFile, runs: usageByRun(runs, prices) })));
  app.get<{ Querystring: { key?: string; run?: string } }>("/api/item", async (req, reply) => {
    const key = req.query.key;
    if (typeof key !== "string" || key === "") throw new InputError("/api/item: pass ?key=<item key> (task|paradigm|arm, as in items.jsonl)");
    return reply.type(json).send(JSON.stringify(itemDetail(runs, req.query.run, key)));
  });
  const task = (q: { task?: string }, route: string) => {
    if (typeof q.task !== "string" || q.task === "") throw new InputError(`${route}: pass ?task=<task id>`);
    return q.task;
  };
  app.get<{ Querystring: { task?: string } }>("/question", async (req, reply) => reply.type(html).send(questionPageHtml(task(req.query, "/question"), runs)));
  app.get<{ Querystring: { task?: string } }>("/api/question", async (req, reply) =>
    reply.type(json).send(JSON.stringify(questionView(runs, task(req.query, "/api/question")))),
  );
}

/** A run's prompt images, below its prefix: the files its prompt files name (prompts/images/). */
export function promptImageRoute(app: FastifyInstance, s: ServedRun): void {
  app.get<{ Params: { file: string } }>("/prompts/images/:file", async (req, reply) => {
    const m = IMAGE_NAME.exec(req.params.file);
    const file = m ? join(s.run.dir, "prompts", "images", req.params.file) : null;
    if (!file || !existsSync(file))
      return reply
        .code(404)
        .type("text/plain; charset=utf-8")
        .send("not found: prompt images are /prompts/images/<sha256>.png, as the run's prompt files name them");
    return reply.type(m![1] === "jpg" ? "image/jpeg" : "image/png").send(readFileSync(file));
  });
}
