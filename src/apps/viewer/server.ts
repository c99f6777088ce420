/**
 * `esi3d inspect RUN --serve`: every task of a run on a local HTTP server (fastify; binds 127.0.0.1 unless
 * --host says otherwise, and then only with a token: core/http/access.ts, the rule of `esi3d serve`).
 * Routes:
 *   GET /                                  index: tasks ranked by how wrong their graphs are
 *   GET /task/<id>[?v=<paradigm>__<source>] the inspection page (variants fetched on demand)
 *   GET /api/<id>/variant/<key>            one variant's data (JSON, src/apps/viewer/types.ts Variant)
 *   GET /api/<id>/export/<key>.ply|.glb|.json  exports (src/apps/viewer/export.ts)
 *   GET /items, /question, /api/items, /api/item, /api/question, /api/usage   the run log viewer (log/routes.ts)
 * With several runs (`inspect RUN1 RUN2 --serve`), each run's pages are below /run/<name>/ and / lists the
 * runs; the log viewer's pages stay at the root and cover every run.
 * With a token, a browser opens `/?token=<token>` once (an HttpOnly cookie then stands for it); scripts send
 * `Authorization: Bearer <token>`. Variants are recomputed on first request (1–3 s for 30 views) and kept in
 * a small LRU cache. Errors are plain text naming what to fix, never the run's absolute path.
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { basename, resolve } from "node:path";
import { encodePly } from "../../../reconstruct/ply.js";
import { InputError } from "../../../core/errors.js";
import { bearerAuth } from "../../../core/http/bearerAuth.js";
import { Lru } from "../../../core/lru.js";
import { redactor } from "../../../core/redact.js";
import { encodeGlb, plyExtras } from "./export.js";
import { RunInspection } from "./inspection.js";
import { escapeHtml, pageHtml } from "./page.js";
import { rankTasks, type RunDir, type TaskWrongness } from "./run.js";
import type { Variant } from "./types.js";
import { LOG_PATHS, logRoutes, promptImageRoute } from "./log/routes.js";
import type { ServedRun } from "./log/data.js";
import type { PriceTable } from "../../eval/usage.js";

/** Tasks whose rendered bundles stay in memory (a 30-view bundle holds ~55 MB of images and depth). */
const TASK_CACHE = 2;
/** Variant payloads kept (each a few MB of JSON), so switching back and forth is instant. */
const VARIANT_CACHE = 8;
/** The cookie that stands for the token in a browser, and the query parameter that sets it. */
const TOKEN_COOKIE = "esi3d_inspect";
const TOKEN_QUERY = "token";

/** An error answered with its status and a plain-text message. */
class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const esc = escapeHtml;

/** The index page; `shownDir` is how the run is named on it (its directory's name when served), `base` the prefix of its pages. */
function indexHtml(run: RunDir, rows: TaskWrongness[], shownDir = run.dir, base = ""): string {
  const cell = (taskId: string, v: TaskWrongness["variants"][number]) => {
    const bad = v.duplicates + v.hallucinated + v.merged + v.stale + v.missed > 0 || v.f1_observed < 0.999;
    const ans = v.correct === null ? "" : v.correct ? " ✓" : " ✗";
    return `<a class="v ${bad ? "bad" : "ok"}" href="${base}/task/${encodeURIComponent(taskId)}?v=${encodeURIComponent(v.key)}" title="${esc(`${v.paradigm} views, source ${v.source}`)}">${esc(v.paradigm)}/${esc(v.source)} <b>F1 ${v.f1_observed.toFixed(2)}</b>${v.duplicates ? ` <i class="d">${v.duplicates} dup</i>` : ""}${v.hallucinated ? ` <i class="h">${v.hallucinated} hal</i>` : ""}${v.merged ? ` <i class="m">${v.merged} mer</i>` : ""}${v.stale ? ` <i class="s">${v.stale} stale</i>` : ""}${v.missed ? ` <i class="x">${v.missed} missed</i>` : ""}${ans}</a>`;
  };
  const body = rows
    .map(
      (r, i) =>
        `<tr><td class="r">${i + 1}</td><td><a href="${base}/task/${encodeURIComponent(r.task_id)}">${esc(r.task_id)}</a><br><small>${esc(r.subcategory.replace(/_/g, " "))}</small></td><td class="r"><b>${r.errors}</b></td><td class="r">${r.worst_f1.toFixed(2)}</td><td class="r">${r.wrong_answers}</td><td>${esc(r.question)}</td><td class="vs">${r.variants.map((v) => cell(r.task_id, v)).join("")}</td></tr>`,
    )
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>esi3d inspect — ${esc(shownDir)}</title><style>
body{font:13px/1.4 system-ui,sans-serif;background:#15171c;color:#e6e8ee;margin:0;padding:16px 20px}a{color:#8fc7ff}small{color:#9aa1b1}
table{border-collapse:collapse;width:100%}th{text-align:left;color:#9aa1b1;border-bottom:1px solid #2e323c;padding:4px 6px}td{border-bottom:1px solid #262a33;padding:5px 6px;vertical-align:top}
td.r{text-align:right;font-variant-numeric:tabular-nums}.vs{display:flex;flex-wrap:wrap;gap:4px}.v{display:inline-block;padding:1px 6px;border-radius:4px;background:#252932;text-decoration:none;color:#e6e8ee;font-size:12px}
.v.bad{border-left:3px solid #e74c3c}.v.ok{border-left:3px solid #2ecc71}i{font-style:normal;padding:0 3px;border-radius:3px}i.d{background:rgba(255,159,26,.3)}i.h{background:rgba(231,76,60,.35)}i.m{background:rgba(155,89,182,.35)}i.s{background:rgba(141,110,99,.45)}i.x{background:rgba(255,64,200,.3)}
</style></head><body><h1>esi3d inspect</h1><p><a href="/items">every item: prompts, replies, answers (${run.records.length})</a></p><p>${esc(shownDir)} · reasoner ${esc(run.config.reasoner.join(", "))} · masks ${esc(run.config.graph.masks)} · ${rows.length} task(s), most wrong first (errors = duplicate + merged + hallucinated + stale nodes + seen-but-missed objects, over every paradigm and source; then the worst node F1)</p>
<table data-testid="task-index"><thead><tr><th>#</th><th>task</th><th>errors</th><th>worst F1</th><th>wrong answers</th><th>question</th><th>graphs (paradigm/source)</th></tr></thead><tbody>
${body}
</tbody></table></body></html>`;
}

export interface ServeOptions {
  /** one run, or several (each below /run/<name>/) */
  runs: RunDir[];
  version: string;
  host: string;
  port: number;
  /** Bearer token; null = none (loopback only: the caller applies serverToken). */
  token: string | null;
  log?: (line: string) => void;
  /** the price table of the log viewer's costs, and its file (none: costs are unknown) */
  prices?: { table: PriceTable; file: string } | null;
}

/** Names the runs by their directories (unique, URL-safe); one run keeps the root, several get /run/<name>. */
function servedRuns(runs: readonly RunDir[]): ServedRun[] {
  const used = new Set<string>();
  return runs.map((run) => {
    const stem = basename(resolve(run.dir)).replace(/[^A-Za-z0-9_.-]/g, "_") || "run";
    let label = stem;
    for (let k = 2; used.has(label); k++) label = `${stem}-${k}`;
    used.add(label);
    return { run, label, base: runs.length > 1 ? `/run/${label}` : "" };
  });
}

/** The root page of several runs: each with its tasks' pages, and the log viewer over all of them. */
function runsIndexHtml(served: readonly ServedRun[]): string {
  const rows = served
    .map(
      (s) =>
        `<tr><td><a href="${s.base}/">${esc(s.label)}</a></td><td>${esc(s.run.config.reasoner.join(", "))}</td><td class="r">${s.run.taskIds.length}</td><td class="r">${s.run.records.length}</td><td>esi3d ${esc(s.run.version)}</td></tr>`,
    )
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>esi3d inspect — ${served.length} runs</title><style>
body{font:13px/1.4 system-ui,sans-serif;background:#15171c;color:#e6e8ee;margin:0;padding:16px 20px}a{color:#8fc7ff}table{border-collapse:collapse}th{text-align:left;color:#9aa1b1;border-bottom:1px solid #2e323c;padding:4px 8px}td{border-bottom:1px solid #262a33;padding:5px 8px}td.r{text-align:right}
</style></head><body><h1>esi3d inspect</h1><p><a href="/items">every item of every run: search, sort, one question across arms, tokens and cost</a></p>
<table data-testid="runs"><thead><tr><th>run (its tasks' graphs)</th><th>reasoners</th><th>tasks</th><th>items</th><th>made by</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>`;
}

/** The viewer's routes over one run, below its prefix. */
function viewerRoutes(app: FastifyInstance, s: ServedRun, version: string): void {
  const { run, base, label: shownDir } = s;
  const inspections = new Lru<string, RunInspection>(TASK_CACHE);
  const variants = new Lru<string, Promise<Variant>>(VARIANT_CACHE);
  let ranked: TaskWrongness[] | null = null;
  const tasks = () => (ranked ??= rankTasks(run));
  const inspection = (id: string) => {
    let i = inspections.get(id);
    if (!i) {
      i = new RunInspection(run, id, version);
      inspections.set(id, i);
    }
    return i;
  };
  const variant = (id: string, key: string) => {
    const k = `${id}|${key}`;
    let p = variants.get(k);
    if (!p) {
      p = inspection(id).variant(key);
      p.catch(() => variants.delete(k)); // a failure is reported once, never cached
      variants.set(k, p);
    }
    return p;
  };
  const html = "text/html; charset=utf-8";

  app.get("/", async (_req, reply) => reply.type(html).send(indexHtml(run, tasks(), shownDir, base)));
  app.get<{ Params: { id: string }; Querystring: { v?: string } }>("/task/:id", async (req, reply) => {
    const id = req.params.id;
    const i = inspection(id);
    const want = req.query.v;
    const initial = want && i.refs.some((r) => r.key === want) ? want : i.refs[0]!.key;
    const meta = {
      ...i.meta({
        mode: "serve",
        api: `${base}/api/${encodeURIComponent(id)}/`,
        tasks: tasks().map((t) => ({ task_id: t.task_id, subcategory: t.subcategory, href: `${base}/task/${encodeURIComponent(t.task_id)}` })),
        initial,
      }),
      home: `${base}/`,
    };
    return reply.type(html).send(await pageHtml(meta.run ? { ...meta, run: { ...meta.run, dir: shownDir } } : meta, []));
  });
  app.get<{ Params: { id: string; key: string } }>("/api/:id/variant/:key", async (req, reply) =>
    reply.type("application/json").send(JSON.stringify(await variant(req.params.id, req.params.key))),
  );
  app.get<{ Params: { id: string; file: string } }>("/api/:id/export/:file", async (req, reply) => {
    const { id, file } = req.params;
    const m = /^(.+)\.(ply|glb|json)$/.exec(file);
    if (!m) throw new HttpProblem(404, "exports: <key>.ply, <key>.glb, <key>.json");
    const d = await inspection(id).data(m[1]!);
    const name = `${id}__${m[1]}.${m[2]}`;
    reply.header("content-disposition", `attachment; filename="${name.replace(/[^A-Za-z0-9_.@-]/g, "_")}"`);
    if (m[2] === "ply") return reply.type("application/octet-stream").send(encodePly(d.cloud, plyExtras(d)));
    if (m[2] === "glb") return reply.type("model/gltf-binary").send(await encodeGlb(d));
    return reply.type("application/json").send(JSON.stringify({ graph: d.graph, diagnosis: d.diagnosis }, null, 1));
  });
}

/** fastify's frameworkErrors: a URL it cannot decode (e.g. /task/%E0%A4%A) is the client's error, not a 500. */
function badUrl(_err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  reply.code(400).type("text/plain; charset=utf-8").send("bad request: the URL is not valid (a percent-escape that is not UTF-8)");
}

/** Builds the viewer app (auth, errors, routes); nothing listens yet. */
function buildViewerApp(opts: Omit<ServeOptions, "host" | "port">): FastifyInstance {
  if (opts.runs.length === 0) throw new InputError("inspect --serve: no run to serve");
  const served = servedRuns(opts.runs);
  const redact = redactor(
    served.flatMap(
      (s): Array<[string, string]> => [
        [resolve(s.run.dir), `<${s.label}>`],
        [s.run.dir, `<${s.label}>`],
      ],
    ),
  );
  const app = Fastify({ logger: false, frameworkErrors: badUrl });
  app.addHook("onSend", async (_req, reply, payload) => {
    reply.header("cache-control", "no-store");
    return payload;
  });
  if (opts.log) app.addHook("onResponse", async (req, reply) => opts.log!(`${req.method} ${req.url} ${reply.statusCode} ${Math.round(reply.elapsedTime)} ms`));
  app.register(bearerAuth, { token: opts.token, browser: { cookie: TOKEN_COOKIE, query: TOKEN_QUERY }, unauthorized: (m) => new HttpProblem(401, m) });
  app.setErrorHandler((err, req, reply) => {
    const status =
      err instanceof HttpProblem
        ? err.status
        : err instanceof InputError
          ? 400
          : typeof (err as { statusCode?: number }).statusCode === "number" && (err as { statusCode: number }).statusCode < 500
            ? (err as { statusCode: number }).statusCode
            : 500;
    if (status >= 500) opts.log?.(`${req.method} ${req.url} failed: ${(err as Error).stack ?? String(err)}`);
    const message = status >= 500 ? "internal error; run with ESI3D_INSPECT_LOG=1 to see it on the server" : redact((err as Error).message);
    reply.code(status).type("text/plain; charset=utf-8").send(message);
  });
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split("?")[0]!;
    const inRun = path.replace(/^\/run\/[^/]+(?=\/|$)/, "") || "/";
    const known =
      path === "/" ||
      inRun === "/" ||
      /^\/task\/[^/]+$/.test(inRun) ||
      /^\/api\/[^/]+\/(variant|export)\/[^/]+$/.test(inRun) ||
      LOG_PATHS.test(path) ||
      /^\/prompts\/images\/[^/]+$/.test(inRun);
    if (known) return reply.code(405).header("allow", "GET, HEAD").type("text/plain; charset=utf-8").send(`${req.method}: this server only answers GET`);
    reply
      .code(404)
      .type("text/plain; charset=utf-8")
      .send(`not found: ${path.slice(0, 200)}`);
  });
  app.register(async (scope) => {
    for (const s of served)
      await scope.register(
        async (r) => {
          viewerRoutes(r, s, opts.version);
          promptImageRoute(r, s);
        },
        s.base ? { prefix: s.base } : {},
      );
    if (served.length > 1) scope.get("/", async (_req, reply) => reply.type("text/html; charset=utf-8").send(runsIndexHtml(served)));
    logRoutes(scope, served, opts.prices?.table ?? null, opts.prices?.file ?? null);
  });
  return app;
}

/** Serves the run until the returned app is closed (the command closes it on Ctrl-C). */
export async function serveRun(opts: ServeOptions): Promise<{ app: FastifyInstance; url: string }> {
  const app = buildViewerApp(opts);
  try {
    await app.listen({ host: opts.host, port: opts.port });
  } catch (e) {
    await app.close().catch(() => {});
    throw e;
  }
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : opts.port;
  const family = typeof addr === "object" && addr ? addr.family : "IPv4";
  const host =
    family === "IPv6" ? `[${typeof addr === "object" && addr ? addr.address : opts.host}]` : typeof addr === "object" && addr ? addr.address : opts.host;
  return { app, url: `http://${host}:${port}/` };
}
