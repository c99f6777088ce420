/**
 * The run log viewer's routes, beside the 3D viewer's on the same server (src/apps/viewer/server.ts: the
 * same loopback binding, token rule and error handling):
 *   GET /items                       the item list with filters (page.ts)
 *   GET /api/items                   every item's row (JSON, data.ts ItemRow[])
 *   GET /api/item?key=<item key>     one item in full (JSON, data.ts ItemDetail)
 *   GET /prompts/images/<sha256>.<ext>  an image a prompt file names (the run directory's own path)
 */
import type { FastifyInstance } from "fastify";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../../core/errors.js";
import type { RunDir } from "../run.js";
import { itemDetail, itemRows } from "./data.js";
import { logPageHtml } from "./page.js";

/** The paths these routes answer, for the server's 404-or-405 decision. */
export const LOG_PATHS = /^\/(items|api\/items|api\/item|prompts\/images\/[^/]+)$/;

const IMAGE_NAME = /^[0-9a-f]{64}\.(png|jpg)$/;

export function logRoutes(app: FastifyInstance, run: RunDir, shownDir: string): void {
  app.get("/items", async (_req, reply) => reply.type("text/html; charset=utf-8").send(logPageHtml(shownDir, run.config.reasoner.join(", "), run.records.length)));
  app.get("/api/items", async (_req, reply) => reply.type("application/json").send(JSON.stringify(itemRows(run))));
  app.get<{ Querystring: { key?: string } }>("/api/item", async (req, reply) => {
    const key = req.query.key;
    if (typeof key !== "string" || key === "") throw new InputError("/api/item: pass ?key=<item key> (task|paradigm|arm, as in items.jsonl)");
    return reply.type("application/json").send(JSON.stringify(itemDetail(run, key)));
  });
  app.get<{ Params: { file: string } }>("/prompts/images/:file", async (req, reply) => {
    const m = IMAGE_NAME.exec(req.params.file);
    const file = m ? join(run.dir, "prompts", "images", req.params.file) : null;
    if (!file || !existsSync(file)) return reply.code(404).type("text/plain; charset=utf-8").send("not found: prompt images are /prompts/images/<sha256>.png, as the run's prompt files name them");
    return reply.type(m![1] === "jpg" ? "image/jpeg" : "image/png").send(readFileSync(file));
  });
}
