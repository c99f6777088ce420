/**
 * `esi3d inspect RUN --serve`: every task of a run on a local HTTP server (node:http; binds 127.0.0.1
 * unless --host says otherwise). Routes:
 *   GET /                                  index: tasks ranked by how wrong their graphs are
 *   GET /task/<id>[?v=<paradigm>__<source>] the inspection page (variants fetched on demand)
 *   GET /api/<id>/variant/<key>            one variant's data (JSON, src/apps/viewer/types.ts Variant)
 *   GET /api/<id>/export/<key>.ply|.glb|.json  exports (src/apps/viewer/export.ts)
 * Variants are recomputed on first request (1–3 s for 30 views) and kept in a small LRU cache.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { encodePly } from "../../../reconstruct/ply.js";
import { InputError } from "../../core/errors.js";
import { encodeGlb, nodeColors } from "./export.js";
import { RunInspection } from "./inspection.js";
import { escapeHtml, pageHtml } from "./page.js";
import { rankTasks, type RunDir, type TaskWrongness } from "./run.js";
import type { Variant } from "./types.js";

/** Tasks whose rendered bundles stay in memory (a 30-view bundle holds ~55 MB of images and depth). */
export const TASK_CACHE = 2;
/** Variant payloads kept (each a few MB of JSON), so switching back and forth is instant. */
export const VARIANT_CACHE = 8;

class Lru<V> {
  private map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(k: string): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  delete(k: string): void {
    this.map.delete(k);
  }
  set(k: string, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
}

const esc = escapeHtml;

export function indexHtml(run: RunDir, rows: TaskWrongness[]): string {
  const cell = (taskId: string, v: TaskWrongness["variants"][number]) => {
    const bad = v.duplicates + v.hallucinated + v.merged + v.missed > 0 || v.f1_observed < 0.999;
    const ans = v.correct === null ? "" : v.correct ? " ✓" : " ✗";
    return `<a class="v ${bad ? "bad" : "ok"}" href="/task/${encodeURIComponent(taskId)}?v=${encodeURIComponent(v.key)}" title="${esc(`${v.paradigm} views, source ${v.source}`)}">${esc(v.paradigm)}/${esc(v.source)} <b>F1 ${v.f1_observed.toFixed(2)}</b>${v.duplicates ? ` <i class="d">${v.duplicates} dup</i>` : ""}${v.hallucinated ? ` <i class="h">${v.hallucinated} hal</i>` : ""}${v.merged ? ` <i class="m">${v.merged} mer</i>` : ""}${v.missed ? ` <i class="x">${v.missed} missed</i>` : ""}${ans}</a>`;
  };
  const body = rows
    .map(
      (r, i) =>
        `<tr><td class="r">${i + 1}</td><td><a href="/task/${encodeURIComponent(r.task_id)}">${esc(r.task_id)}</a><br><small>${esc(r.subcategory.replace(/_/g, " "))}</small></td><td class="r"><b>${r.errors}</b></td><td class="r">${r.worst_f1.toFixed(2)}</td><td class="r">${r.wrong_answers}</td><td>${esc(r.question)}</td><td class="vs">${r.variants.map((v) => cell(r.task_id, v)).join("")}</td></tr>`,
    )
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>esi3d inspect — ${esc(run.dir)}</title><style>
body{font:13px/1.4 system-ui,sans-serif;background:#15171c;color:#e6e8ee;margin:0;padding:16px 20px}a{color:#8fc7ff}small{color:#9aa1b1}
table{border-collapse:collapse;width:100%}th{text-align:left;color:#9aa1b1;border-bottom:1px solid #2e323c;padding:4px 6px}td{border-bottom:1px solid #262a33;padding:5px 6px;vertical-align:top}
td.r{text-align:right;font-variant-numeric:tabular-nums}.vs{display:flex;flex-wrap:wrap;gap:4px}.v{display:inline-block;padding:1px 6px;border-radius:4px;background:#252932;text-decoration:none;color:#e6e8ee;font-size:12px}
.v.bad{border-left:3px solid #e74c3c}.v.ok{border-left:3px solid #2ecc71}i{font-style:normal;padding:0 3px;border-radius:3px}i.d{background:rgba(255,159,26,.3)}i.h{background:rgba(231,76,60,.35)}i.m{background:rgba(155,89,182,.35)}i.x{background:rgba(255,64,200,.3)}
</style></head><body><h1>esi3d inspect</h1><p>${esc(run.dir)} · reasoner ${esc(run.config.reasoner)} · masks ${esc(run.config.masks)} · ${rows.length} task(s), most wrong first (errors = duplicate + merged + hallucinated nodes + seen-but-missed objects, over every paradigm and source; then the worst node F1)</p>
<table data-testid="task-index"><thead><tr><th>#</th><th>task</th><th>errors</th><th>worst F1</th><th>wrong answers</th><th>question</th><th>graphs (paradigm/source)</th></tr></thead><tbody>
${body}
</tbody></table></body></html>`;
}

export interface ServeOptions {
  run: RunDir;
  version: string;
  host: string;
  port: number;
  log?: (line: string) => void;
}

export async function serveRun(opts: ServeOptions): Promise<{ server: Server; url: string }> {
  const { run, version } = opts;
  const inspections = new Lru<RunInspection>(TASK_CACHE);
  const variants = new Lru<Promise<Variant>>(VARIANT_CACHE);
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
  const send = (res: ServerResponse, code: number, type: string, body: string | Uint8Array, extra: Record<string, string> = {}) => {
    res.writeHead(code, { "content-type": type, "cache-control": "no-store", ...extra });
    res.end(body);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "text/plain", "GET only");
    if (parts.length === 0) return send(res, 200, "text/html; charset=utf-8", indexHtml(run, tasks()));
    if (parts[0] === "task" && parts.length === 2) {
      const i = inspection(parts[1]!);
      const want = url.searchParams.get("v");
      const initial = want && i.refs.some((r) => r.key === want) ? want : i.refs[0]!.key;
      const meta = i.meta({ mode: "serve", api: `/api/${encodeURIComponent(parts[1]!)}/`, tasks: tasks().map((t) => ({ task_id: t.task_id, subcategory: t.subcategory, href: `/task/${encodeURIComponent(t.task_id)}` })), initial });
      return send(res, 200, "text/html; charset=utf-8", await pageHtml(meta, []));
    }
    if (parts[0] === "api" && parts.length === 4 && parts[2] === "variant") {
      const v = await variant(parts[1]!, parts[3]!);
      return send(res, 200, "application/json", JSON.stringify(v));
    }
    if (parts[0] === "api" && parts.length === 4 && parts[2] === "export") {
      const m = /^(.+)\.(ply|glb|json)$/.exec(parts[3]!);
      if (!m) return send(res, 404, "text/plain", "exports: <key>.ply, <key>.glb, <key>.json");
      const d = await inspection(parts[1]!).data(m[1]!);
      const name = `${parts[1]}__${m[1]}.${m[2]}`;
      const disp = { "content-disposition": `attachment; filename="${name.replace(/[^A-Za-z0-9_.@-]/g, "_")}"` };
      if (m[2] === "ply") return send(res, 200, "application/octet-stream", encodePly(d.cloud, nodeColors(d.cloud.count, d.members)), disp);
      if (m[2] === "glb") return send(res, 200, "model/gltf-binary", await encodeGlb(d), disp);
      return send(res, 200, "application/json", JSON.stringify({ graph: d.graph, diagnosis: d.diagnosis }, null, 1), disp);
    }
    return send(res, 404, "text/plain", `not found: ${url.pathname}`);
  };
  const server = createServer((req, res) => {
    const t = Date.now();
    handle(req, res)
      .then(() => opts.log?.(`${req.method} ${req.url} ${res.statusCode} ${Date.now() - t} ms`))
      .catch((e: Error) => {
        opts.log?.(`${req.method} ${req.url} failed: ${e.message}`);
        if (!res.headersSent) send(res, e instanceof InputError ? 400 : 500, "text/plain; charset=utf-8", e.message);
        else res.end();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  return { server, url: `http://${host}:${addr.port}/` };
}
