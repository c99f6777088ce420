/**
 * Capture sessions: the simulator protocol (docs/protocol.md). A simulator opens a session for a task,
 * uploads views one at a time (each checked on arrival and stored as received), then finishes it: the
 * views are decoded, checked and written as a frame bundle in a worker thread, atomically. A session that
 * is never finished never becomes a bundle; it expires after SESSION_TTL_MS without uploads.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Task } from "../../../core/task/schema.js";
import { readTaskFile } from "../../../core/task/io.js";
import { readManifest } from "../../../core/bundle/io.js";
import { BundleManifestSchema, type BundleManifest } from "../../../core/bundle/schema.js";
import { HttpError, busy, fromZod, notFound } from "./errors.js";
import { ActionQuerySchema } from "./schemas.js";
import { checkId, checkTaskId, newId, sameId } from "./ids.js";
import { MAX_ACTIVE_EPISODES, MAX_IMAGE_PIXELS, MAX_OPEN_SESSIONS, MAX_SESSION_BYTES, MAX_VIEWS_PER_SESSION, SESSION_TTL_MS } from "./limits.js";
import { SessionFinishSchema, SessionOpenSchema, SessionRecordSchema, type SessionOpen, type SessionRecord } from "./schemas.js";
import { EpisodeService, RESTART_ERROR } from "./episodes.js";
import { type DataStore } from "./store.js";
import { parseView } from "./viewCodec.js";
import type { FinishResult } from "./serviceWorker.js";
import type { ServerContext } from "./context.js";
import { writeFileAtomic } from "../../../core/fs.js";
import { FLOOR_ID, WALL_IDS } from "../../../core/task/instanceIds.js";

/** Retry-After (s) when MAX_OPEN_SESSIONS are open: sessions finish or expire on the scale of minutes. */
const SESSIONS_FULL_RETRY_AFTER_S = 60;
/** Retry-After (s) when MAX_ACTIVE_EPISODES run: an offline episode takes seconds to a few minutes. */
const EPISODES_FULL_RETRY_AFTER_S = 30;

const VIEW_FILE = /^(\d{3})\.view$/;

/** The default id -> category table of a task: floor, walls and the task's objects. */
function defaultInstances(task: Task): BundleManifest["instances"] {
  return [
    { id: FLOOR_ID, category: "floor", structure: true },
    ...WALL_IDS.map((id) => ({ id, category: "wall", structure: true })),
    ...task.objects.map((o) => ({ id: o.id, category: o.category, structure: false })),
  ].sort((a, b) => a.id - b.id);
}

function checkInstances(instances: BundleManifest["instances"], field: string): void {
  const seen = new Set<number>();
  instances.forEach((e, i) => {
    if (seen.has(e.id)) throw new HttpError(400, "invalid_request", `${field}.${i}.id: duplicate id ${e.id}`, `${field}.${i}.id`);
    seen.add(e.id);
  });
}

export class SessionService {
  /** Sessions being finished right now (uploads and a second finish are refused meanwhile). */
  private finishing = new Set<string>();
  /** The episodes of active sessions (episodes.ts). */
  readonly episodes: EpisodeService;

  constructor(
    private readonly store: DataStore,
    private readonly ctx: ServerContext,
  ) {
    this.episodes = new EpisodeService(ctx, { load: (id) => this.load(id), save: (rec) => this.save(rec) });
  }

  private dir(id: string): string {
    return this.store.path("sessions", id);
  }

  private load(id: string): SessionRecord {
    checkId("session", id, "params.id");
    const rec = this.store.readJson(join(this.dir(id), "session.json"), SessionRecordSchema, "session");
    if (!rec) throw notFound("session", id);
    return rec;
  }

  private save(rec: SessionRecord): void {
    this.store.writeJson(join(this.dir(rec.id), "session.json"), rec);
  }

  /** Indices and sizes of the views received so far. */
  private received(id: string): Map<number, number> {
    const views = join(this.dir(id), "views");
    const out = new Map<number, number>();
    if (!existsSync(views)) return out;
    for (const name of readdirSync(views)) {
      const m = VIEW_FILE.exec(name);
      if (m) out.set(Number(m[1]), statSync(join(views, name)).size);
    }
    return out;
  }

  openCount(): number {
    let n = 0;
    for (const name of readdirSync(this.store.path("sessions"))) {
      const rec = this.store.readJson(join(this.store.path("sessions"), name, "session.json"), SessionRecordSchema, "session");
      if (rec?.status === "open") n++;
    }
    return n;
  }

  status(rec: SessionRecord) {
    const got = rec.episode ? new Map<number, number>() : this.received(rec.id);
    const active = rec.episode ? this.episodes.received(rec) : null;
    return {
      id: rec.id,
      status: rec.status,
      task_id: rec.task.task_id,
      paradigm: rec.paradigm,
      simulator: rec.simulator,
      image: rec.image,
      views: active ? active.views : [...got.keys()].sort((a, b) => a - b),
      bytes: active ? active.bytes : [...got.values()].reduce((a, b) => a + b, 0),
      bundle: rec.bundle,
      expires_at: rec.status === "open" ? new Date(Date.parse(rec.updated_at) + SESSION_TTL_MS).toISOString() : null,
      upload: `/v1/sim/sessions/${rec.id}/views/{n}`,
      episode: rec.episode ? this.episodes.status(rec) : null,
    };
  }

  private active(id: string): SessionRecord {
    const rec = this.load(id);
    if (!rec.episode)
      throw new HttpError(
        409,
        "conflict",
        `session ${id} has paradigm ${rec.paradigm}: only an active session (paradigm active) has actions and an item record`,
      );
    return rec;
  }

  /** GET /v1/sim/sessions/{id}/action: the next action of an active session's episode (long poll). */
  async action(id: string, query: unknown, signal: AbortSignal) {
    const q = ActionQuerySchema.safeParse(query ?? {});
    if (!q.success) throw fromZod(q.error, "query");
    return this.episodes.action(this.active(id), q.data.after, q.data.wait, signal);
  }

  /** GET /v1/sim/sessions/{id}/item: the item record of an active session's finished episode. */
  item(id: string) {
    return this.episodes.item(this.active(id));
  }

  /** At start-up: active sessions a previous server left running have lost their episode. */
  recover(): number {
    let n = 0;
    const root = this.store.path("sessions");
    for (const name of readdirSync(root)) {
      const rec = this.store.readJson(join(root, name, "session.json"), SessionRecordSchema, "session");
      if (rec?.episode && rec.status === "open" && !this.episodes.isRunning(rec.id)) {
        this.save({ ...rec, status: "failed", outcome: { state: "failed", views: rec.outcome?.views ?? 0, stop_reason: null, error: RESTART_ERROR } });
        n++;
      }
    }
    return n;
  }

  open(body: unknown) {
    const parsed = SessionOpenSchema.safeParse(body ?? {});
    if (!parsed.success) throw fromZod(parsed.error, "body");
    const b: SessionOpen = parsed.data;
    let task: Task;
    if (b.task) task = b.task;
    else {
      const taskId = checkTaskId(b.task_id, "body.task_id");
      const file = this.store.path("tasks", `${taskId}.json`);
      if (!existsSync(file))
        throw new HttpError(
          404,
          "not_found",
          `body.task_id: no task ${taskId} is stored on the server (PUT /v1/tasks/${taskId} first, or send the task record as body.task)`,
          "body.task_id",
        );
      task = readTaskFile(file);
    }
    const image = b.image ?? { width: task.camera.width, height: task.camera.height };
    if (image.width * image.height > MAX_IMAGE_PIXELS)
      throw new HttpError(
        400,
        "invalid_request",
        `body.image: ${image.width}x${image.height} is more than the ${MAX_IMAGE_PIXELS} pixels this server accepts per image`,
        "body.image",
      );
    const instances = b.instances ? [...b.instances] : defaultInstances(task);
    checkInstances(instances, "body.instances");
    const episode = b.paradigm === "active" ? EpisodeService.options(b.episode) : undefined;
    // the protocol has no step that moves an external simulator's world on to its next phase: such an episode would
    // explore the first phase's world only and be scored against a change it never saw
    if (episode && task.phases) {
      const field = b.task ? "body.task.phases" : "body.task_id";
      throw new HttpError(
        400,
        "invalid_request",
        `${field}: ${task.task_id} is a changing world (${task.phases.length} phases); an active session cannot move an external simulator's world on to its next phase yet, so its episode would see the first phase only. Run it in the built-in simulator (esi3d run or ask --paradigm active)`,
        field,
      );
    }
    if (this.openCount() >= MAX_OPEN_SESSIONS) throw busy(`open sessions (${MAX_OPEN_SESSIONS} at most)`, SESSIONS_FULL_RETRY_AFTER_S);
    if (episode && this.episodes.running >= MAX_ACTIVE_EPISODES) throw busy(`active episodes (${MAX_ACTIVE_EPISODES} at once)`, EPISODES_FULL_RETRY_AFTER_S);
    const id = newId("session");
    const now = new Date().toISOString();
    const rec: SessionRecord = {
      format: "esi3d-session/1",
      id,
      status: "open",
      created_at: now,
      updated_at: now,
      task,
      paradigm: b.paradigm,
      simulator: b.simulator,
      image,
      instances,
      bundle: null,
      ...(episode ? { episode, view_timeout_s: b.view_timeout_s } : {}),
    };
    try {
      mkdirSync(join(this.dir(id), "views"), { recursive: true });
      this.save(rec);
    } catch (e) {
      // a full disk: no half-made session is left behind
      rmSync(this.dir(id), { recursive: true, force: true });
      throw e;
    }
    if (episode) this.episodes.start(rec);
    return this.status(rec);
  }

  get(id: string) {
    return this.status(this.load(id));
  }

  delete(id: string): void {
    this.load(id);
    if (this.finishing.has(id)) throw new HttpError(409, "conflict", `session ${id} is being finished`);
    this.episodes.drop(id);
    rmSync(this.dir(id), { recursive: true, force: true });
  }

  /** Stores view `nText` of session `id`; returns whether it was new. */
  putView(id: string, nText: string, body: unknown) {
    if (!/^\d{1,3}$/.test(nText) || Number(nText) >= MAX_VIEWS_PER_SESSION)
      throw new HttpError(
        400,
        "invalid_request",
        `params.n: expected a view index 0..${MAX_VIEWS_PER_SESSION - 1}, got ${JSON.stringify(nText.slice(0, 20))}`,
        "params.n",
      );
    const n = Number(nText);
    const rec = this.load(id);
    if (rec.episode) {
      if (!Buffer.isBuffer(body))
        throw new HttpError(415, "unsupported_media_type", `a view is uploaded as application/vnd.esi3d.view (the binary view layout of docs/protocol.md)`);
      return this.episodes.putView(rec, n, body);
    }
    if (rec.status !== "open")
      throw new HttpError(409, "conflict", `session ${id} is already finished (bundle ${rec.bundle}); open a new session to capture again`);
    if (this.finishing.has(id)) throw new HttpError(409, "conflict", `session ${id} is being finished; uploads are closed`);
    if (!Buffer.isBuffer(body))
      throw new HttpError(415, "unsupported_media_type", `a view is uploaded as application/vnd.esi3d.view (the binary view layout of docs/protocol.md)`);
    parseView(body, n, rec.image);
    const got = this.received(id);
    const others = [...got.entries()].filter(([k]) => k !== n).reduce((a, [, s]) => a + s, 0);
    if (others + body.length > MAX_SESSION_BYTES)
      throw new HttpError(
        413,
        "too_large",
        `session ${id} would hold ${others + body.length} bytes, more than the ${MAX_SESSION_BYTES}-byte limit per session`,
      );
    writeFileAtomic(join(this.dir(id), "views", `${String(n).padStart(3, "0")}.view`), body);
    rec.updated_at = new Date().toISOString();
    this.save(rec);
    return { created: !got.has(n), response: { session: id, view: n, bytes: body.length, views: got.has(n) ? got.size : got.size + 1 } };
  }

  async finish(id: string, body: unknown) {
    const parsed = SessionFinishSchema.safeParse(body ?? {});
    if (!parsed.success) throw fromZod(parsed.error, "body");
    const rec = this.load(id);
    if (rec.episode)
      throw new HttpError(
        409,
        "conflict",
        `session ${id} is an active session: it finishes by itself when its episode ends (GET /v1/sim/sessions/${id}/action answers next: stop)`,
      );
    const respond = (r: SessionRecord, views: number) => ({ bundle: r.bundle!, session: r.id, task_id: r.task.task_id, paradigm: r.paradigm, views });
    if (rec.status === "finished") {
      const m = this.store.readJson(this.store.path("bundles", rec.bundle!, "bundle.json"), BundleManifestSchema, "bundle manifest");
      return { created: false, response: respond(rec, m?.views.length ?? 0) };
    }
    if (this.finishing.has(id)) throw new HttpError(409, "conflict", `session ${id} is already being finished`);
    const got = [...this.received(id).keys()].sort((a, b) => a - b);
    if (got.length === 0) throw new HttpError(400, "invalid_request", `views: session ${id} has no views; upload views 0..n-1 first`, "views");
    for (let k = 0; k < got.length; k++) {
      if (got[k] !== k)
        throw new HttpError(
          400,
          "invalid_request",
          `views.${k}: view ${k} was never uploaded (received ${got.join(", ")}); views must be numbered 0..n-1`,
          `views.${k}`,
        );
    }
    if (parsed.data.views !== undefined && parsed.data.views !== got.length)
      throw new HttpError(
        400,
        "invalid_request",
        `body.views: the client sent ${parsed.data.views} views, the server has ${got.length} (${got.join(", ")})`,
        "body.views",
      );
    const instances = parsed.data.instances ?? rec.instances;
    checkInstances(instances, parsed.data.instances ? "body.instances" : "instances");
    const bundleId = sameId(id, "bundle");
    this.finishing.add(id);
    try {
      const result = (await this.ctx.cpuJob("finish", {
        kind: "finish",
        viewFiles: got.map((k) => join(this.dir(id), "views", `${String(k).padStart(3, "0")}.view`)),
        bundleDir: this.store.path("bundles", bundleId),
        base: { task_id: rec.task.task_id, paradigm: rec.paradigm, simulator: rec.simulator, image: rec.image, instances, task: rec.task },
      })) as FinishResult;
      if (!result.ok) throw new HttpError(result.status, result.code, result.message, result.field);
      const done: SessionRecord = { ...rec, status: "finished", bundle: bundleId, instances, updated_at: new Date().toISOString() };
      this.save(done);
      rmSync(join(this.dir(id), "views"), { recursive: true, force: true });
      return { created: true, response: respond(done, result.views) };
    } finally {
      this.finishing.delete(id);
    }
  }

  /** GET /v1/bundles/{id}: a finished bundle's manifest, read and checked as the bundle reader does. */
  bundle(id: string) {
    return { id, manifest: readManifest(this.store.bundleDir(id, "params.id")) };
  }

  /** Deletes sessions idle for more than SESSION_TTL_MS (open ones lose their views; finished ones only their record). */
  sweep(now = Date.now()): number {
    let removed = 0;
    const root = this.store.path("sessions");
    for (const name of readdirSync(root)) {
      // a running episode is ended by its own view timeout, not by the idle sweep
      if (this.finishing.has(name) || this.episodes.isRunning(name)) continue;
      const dir = join(root, name);
      let rec: SessionRecord | null = null;
      try {
        rec = this.store.readJson(join(dir, "session.json"), SessionRecordSchema, "session");
      } catch {
        rec = null;
      }
      const last = rec ? Date.parse(rec.updated_at) : statSync(dir).mtimeMs;
      if (now - last > SESSION_TTL_MS) {
        rmSync(dir, { recursive: true, force: true });
        removed++;
      }
    }
    return removed;
  }
}
