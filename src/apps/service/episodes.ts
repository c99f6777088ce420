/**
 * Active sessions (docs/protocol.md "Active sessions"): an external simulator serves the steps of an
 * episode the server runs. Opening a session with paradigm `active` starts the episode loop of `esi3d run`
 * (src/eval/active.ts runActiveEpisode, unchanged) over a RemoteEnvironment (src/apps/service/remoteEnv.ts): its
 * reset() waits for view 0, each step() publishes the action the simulator must apply and waits for the
 * view it uploads. When the episode ends, the server writes its frame bundle (atomically) and then its item
 * record beside it (`bundles/<id>/item.json`, the record `esi3d run` writes to items.jsonl); the session is
 * then finished. An episode that fails (its simulator stopped serving it, the session was deleted, the
 * server stopped) leaves neither: the session is `failed` with the reason.
 *
 * The loop runs on the server's main thread, as the LLM episodes of POST /v1/runs do: each step's graph
 * update is milliseconds to a second of CPU at ESI-Bench's resolution (docs/active.md), between uploads.
 */
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { RemoteEnvironment, RemoteEnvironmentError } from "./remoteEnv.js";
import { writeBundle, type ViewData } from "../../../core/bundle/io.js";
import { BundleError } from "../../../core/bundle/errors.js";
import { decodeViewPayload } from "../../../core/bundle/view.js";
import { BUNDLE_CONVENTIONS, BUNDLE_FORMAT } from "../../../core/bundle/schema.js";
import type { Task } from "../../../core/task/schema.js";
import { trueRelations } from "../../../scenegraph/truth.js";
import { writeJsonAtomic } from "../../../core/fs.js";
import { cameraCentre } from "../../../core/math/camera.js";
import { activeRecord, llmAgentOptions, runActiveEpisode } from "../../eval/active.js";
import { resolveRunConfig, threeDArms, type RunConfig, type ThreeDArm } from "../../eval/config.js";
import { itemKey, ItemRecordSchema, type ItemRecord } from "../../eval/records.js";
import { createExplorerAgent } from "../../reason/active/explorers.js";
import { createLlmAgent } from "../../reason/active/llmAgent.js";
import type { ActiveAgent } from "../../reason/active/types.js";
import { createLlmClient } from "../../llm/client.js";
import type { StopReason } from "../../reason/active/stopping.js";
import { HttpError } from "./errors.js";
import { MAX_SESSION_BYTES, MAX_VIEWS_PER_SESSION } from "./limits.js";
import type { ServerContext } from "./context.js";
import { EpisodeOptionsSchema, type EpisodeOptions } from "./schemas.js";
import type { SessionRecord } from "./schemas.js";
import { storageFailure } from "./storage.js";
import { parseView } from "./viewCodec.js";

/**
 * How far the camera centre of an active view's extrinsic may lie from the pose its header gives: a
 * float32 round trip through a simulator moves it by micrometres; a pose in another frame or axis order by
 * metres. 1 cm catches the latter and never the former.
 */
const POSE_CENTRE_TOLERANCE_M = 0.01;

/** The response cache of an active session's LLM agent, in the session's directory. */
const EPISODE_LLM_CACHE_FILE = "llm-cache.sqlite";

/** The file of an episode's item record inside its bundle directory. */
const EPISODE_ITEM_FILE = "item.json";

/** The run configuration and the arm of an episode: `esi3d run --paradigm active` with one arm. */
function episodeConfig(options: EpisodeOptions, env: NodeJS.ProcessEnv = process.env): { config: RunConfig; arm: ThreeDArm | null } {
  const { arm, source, ...rest } = options;
  const config = resolveRunConfig(rest as Record<string, unknown>, {
    paradigms: ["active"],
    sources: [source],
    baseline: [arm === "2d" ? "2d" : "none"],
    vggt: { modelPath: env.ESI3D_VGGT_MODEL ?? null },
  });
  return { config, arm: arm === "3d" ? threeDArms(config)[0]! : null };
}

/** The item key and reasoner name of an episode's record (as `esi3d run` names them). */
function episodeIdentity(task: Task, arm: ThreeDArm | null, reasoner = "symbolic"): { key: string; reasoner: string } {
  // the offline 2D arm is symbolic-2d; an LLM is named as itself for either arm (as `esi3d run` names them)
  const name = reasoner === "symbolic" && !arm ? "symbolic-2d" : reasoner;
  return { key: arm ? itemKey(task.task_id, "active", "3d", arm.label) : itemKey(task.task_id, "active", "2d", null), reasoner: name };
}

type EpisodeState = "running" | "finished" | "failed";

interface EpisodeRun {
  env: RemoteEnvironment;
  /** sha256 of each accepted upload, so a retried upload of view n is recognised. */
  hashes: string[];
  views: ViewData[];
  bytes: number;
  state: EpisodeState;
  stopReason: StopReason | null;
  error: string | null;
  abort: AbortController;
  done: Promise<void>;
  /** Set when the session is deleted: nothing is written for it any more. */
  dropped: boolean;
}

/** What a session record keeps of its episode once it ended (and what a restarted server knows of it). */
export interface EpisodeOutcomeRecord {
  state: EpisodeState;
  views: number;
  stop_reason: StopReason | null;
  error: string | null;
}

export interface SessionAccess {
  load(id: string): SessionRecord;
  save(rec: SessionRecord): void;
}

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

export class EpisodeService {
  private readonly runs = new Map<string, EpisodeRun>();

  constructor(
    private readonly ctx: ServerContext,
    private readonly sessions: SessionAccess,
  ) {}

  get running(): number {
    let n = 0;
    for (const r of this.runs.values()) if (r.state === "running") n++;
    return n;
  }

  isRunning(id: string): boolean {
    return this.runs.get(id)?.state === "running";
  }

  /** The episode options of an opening (already parsed by SessionOpenSchema), defaults filled in; refuses what cannot run here. */
  static options(parsed: EpisodeOptions | undefined): EpisodeOptions {
    const options = parsed ?? EpisodeOptionsSchema.parse({});
    // an LLM agent that cannot be made (no key in the server's environment) fails the opening, not the episode
    if (options.reasoner !== "symbolic") {
      try {
        createLlmClient(options.reasoner, { cache: null });
      } catch (e) {
        throw new HttpError(400, "invalid_request", `body.episode.reasoner: ${e instanceof Error ? e.message : String(e)}`, "body.episode.reasoner");
      }
    }
    // every view is an upload, numbered below MAX_VIEWS_PER_SESSION: view 0 and one per step
    if (options.maxSteps > MAX_VIEWS_PER_SESSION - 1)
      throw new HttpError(
        400,
        "invalid_request",
        `body.episode.maxSteps: at most ${MAX_VIEWS_PER_SESSION - 1} in an active session (one view per step after view 0, ${MAX_VIEWS_PER_SESSION} views per session), got ${options.maxSteps}`,
        "body.episode.maxSteps",
      );
    return options;
  }

  /** Starts the episode of a just-opened active session. */
  start(rec: SessionRecord): void {
    const options = rec.episode!;
    const { config, arm } = episodeConfig(options);
    const task = rec.task;
    const manifest: RemoteEnvironment["manifest"] = {
      format: BUNDLE_FORMAT,
      task_id: task.task_id,
      paradigm: "active" as const,
      simulator: rec.simulator,
      image: rec.image,
      conventions: BUNDLE_CONVENTIONS,
      instances: rec.instances,
      task,
    };
    const env = new RemoteEnvironment(manifest, rec.view_timeout_s! * 1000);
    const abort = new AbortController();
    const run: EpisodeRun = {
      env,
      hashes: [],
      views: [],
      bytes: 0,
      state: "running",
      stopReason: null,
      error: null,
      abort,
      done: Promise.resolve(),
      dropped: false,
    };
    this.runs.set(rec.id, run);
    const { key, reasoner } = episodeIdentity(task, arm, config.reasoner[0]);
    run.done = (async () => {
      try {
        const out = await runActiveEpisode({
          task,
          config,
          arm,
          agent: this.agent(config, task, arm, rec.id),
          env,
          signal: abort.signal,
          trueRelations: trueRelations(task),
        });
        if (run.dropped) return;
        const record = activeRecord(task, config, arm, reasoner, out, key);
        const bundleId = this.store(rec, out.bundle.manifest, out.bundle.views, record);
        run.state = "finished";
        run.stopReason = out.episode.stop_reason;
        this.sessions.save({
          ...this.sessions.load(rec.id),
          status: "finished",
          bundle: bundleId,
          updated_at: new Date().toISOString(),
          outcome: this.outcome(run),
        });
      } catch (e) {
        run.state = "failed";
        run.error = this.ctx.redact(failureMessage(e));
        env.fail(e instanceof Error ? e : new Error(String(e)));
        if (run.dropped) return;
        try {
          this.sessions.save({ ...this.sessions.load(rec.id), status: "failed", updated_at: new Date().toISOString(), outcome: this.outcome(run) });
        } catch {
          // the session is gone (deleted) or the disk is full: its state stays in memory until the server stops
        }
      } finally {
        run.views = [];
      }
    })();
  }

  /**
   * The episode's agent: the offline explorer for the symbolic reasoner, else ESI's per-step LLM contract
   * (keys and OPENAI_BASE_URL from the server's environment, as POST /v1/runs), every call through the
   * session's response cache.
   */
  private agent(config: RunConfig, task: Task, arm: ThreeDArm | null, session: string): ActiveAgent {
    // an episode has one reasoner (EpisodeOptionsSchema)
    const reasoner = config.reasoner[0]!;
    if (reasoner === "symbolic") return createExplorerAgent(config.active.explorer, task, arm ? "3d" : "2d");
    const client = createLlmClient(reasoner, {
      cache: this.ctx.store.path("sessions", session, EPISODE_LLM_CACHE_FILE),
      timeoutMs: config.llm.timeoutMs,
      maxRetries: config.llm.maxRetries,
      maxConcurrency: 1,
    });
    return createLlmAgent(client, task, llmAgentOptions(config), arm ? "3d" : "2d");
  }

  /** Writes the bundle (atomically), then the record beside it; on a failure neither is left. */
  private store(rec: SessionRecord, manifest: Parameters<typeof writeBundle>[1], views: ViewData[], record: ItemRecord): string {
    const bundleId = rec.id.replace(/^s-/, "b-");
    const dir = this.ctx.store.path("bundles", bundleId);
    try {
      writeBundle(dir, manifest, views);
      writeJsonAtomic(join(dir, EPISODE_ITEM_FILE), record);
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      throw e;
    }
    return bundleId;
  }

  private outcome(run: EpisodeRun): EpisodeOutcomeRecord {
    return { state: run.state, views: run.hashes.length, stop_reason: run.stopReason, error: run.error };
  }

  /** Views received and bytes held by an active session's episode (its views live in memory, not on disk). */
  received(rec: SessionRecord): { views: number[]; bytes: number } {
    const run = this.runs.get(rec.id);
    const n = run ? run.hashes.length : (rec.outcome?.views ?? 0);
    return { views: Array.from({ length: n }, (_, k) => k), bytes: run?.bytes ?? 0 };
  }

  /** The episode part of a session's status. */
  status(rec: SessionRecord) {
    const run = this.runs.get(rec.id);
    const o: EpisodeOutcomeRecord = run ? this.outcome(run) : (rec.outcome ?? { state: "failed", views: 0, stop_reason: null, error: RESTART_ERROR });
    const next = run && run.state === "running" && !run.env.isClosed ? nextView(run.env) : null;
    return {
      state: o.state,
      views: o.views,
      next_view: next,
      stop_reason: o.stop_reason,
      error: o.error,
      item: o.state === "finished" ? `/v1/sim/sessions/${rec.id}/item` : null,
    };
  }

  /** PUT .../views/{n} of an active session: checks the view against the episode and delivers it. */
  putView(rec: SessionRecord, n: number, body: Buffer) {
    const run = this.runs.get(rec.id);
    const hash = sha256(body);
    const views = () => (run ? run.hashes.length : (rec.outcome?.views ?? 0));
    if (run && n < run.hashes.length) {
      if (run.hashes[n] === hash) return { created: false, response: { session: rec.id, view: n, bytes: body.length, views: views() } };
      throw new HttpError(409, "conflict", `view ${n} was already used by the episode; a different view cannot replace it (re-upload only the same bytes)`);
    }
    if (rec.status === "failed" || !run || run.state === "failed")
      throw new HttpError(409, "conflict", `session ${rec.id}: the episode failed (${run?.error ?? rec.outcome?.error ?? RESTART_ERROR}); open a new session`);
    if (run.state === "finished" || run.env.isClosed)
      throw new HttpError(
        409,
        "conflict",
        `session ${rec.id}: the episode has ended after ${run.hashes.length} views; GET /v1/sim/sessions/${rec.id}/action?after=${run.hashes.length - 1} says how`,
      );
    const expected = run.env.viewsReceived;
    if (n !== expected)
      throw new HttpError(
        409,
        "conflict",
        `params.n: the episode expects view ${expected}${expected > 0 && run.env.actionAfter(expected - 1) === null ? ` once the action after view ${expected - 1} is decided (GET /v1/sim/sessions/${rec.id}/action?after=${expected - 1})` : ""}, not view ${n}`,
        "params.n",
      );
    if (n > 0 && run.env.actionAfter(n - 1) === null)
      throw new HttpError(
        409,
        "conflict",
        `params.n: view ${n} follows the action after view ${n - 1}, which is not decided yet (GET /v1/sim/sessions/${rec.id}/action?after=${n - 1})`,
        "params.n",
      );
    const parts = parseView(body, n, rec.image);
    const h = parts.header;
    const f = (x: string) => `views.${n}.${x}`;
    const bad = (field: string, msg: string) => new HttpError(400, "invalid_view", `${field}: ${msg}`, field);
    if (h.pose === undefined)
      throw bad(f("pose"), "an active session's view gives the agent pose it was taken from ({position: [x, y, z], yaw, pitch}: world Z up, m, rad)");
    if (h.blocked === undefined) throw bad(f("blocked"), "an active session's view says whether the action was blocked (true/false; false for view 0)");
    const want = n === 0 ? null : run.env.actionAfter(n - 1);
    if (h.action !== want)
      throw bad(
        f("action"),
        `expected ${JSON.stringify(want)} (${n === 0 ? "view 0 follows no action" : `the action the server gave after view ${n - 1}`}), got ${JSON.stringify(h.action)}`,
      );
    if (n === 0 && h.blocked) throw bad(f("blocked"), "view 0 follows no action, so it cannot be blocked");
    if (h.acted_on !== undefined) {
      const named = n === 0 ? 0 : run.env.objectsAfter(n - 1).length;
      if (named === 0 || h.blocked)
        throw bad(f("acted_on"), "acted_on goes with a manipulation that happened (not blocked): the instance ids of the objects it names");
      if (h.acted_on.length !== named) throw bad(f("acted_on"), `the manipulation names ${named} object(s), acted_on has ${h.acted_on.length} id(s)`);
      const known = new Set(rec.instances.filter((e) => !e.structure).map((e) => e.id));
      const unknown = h.acted_on.find((id) => !known.has(id));
      if (unknown !== undefined) throw bad(f("acted_on"), `${unknown} is no object of the session's instances table`);
    }
    if (h.moved !== undefined) {
      if (n === 0 || h.blocked)
        throw bad(
          f("moved"),
          "moved goes with an action that happened (not view 0, not blocked: the world is as before): the objects it moved, where they are now",
        );
      const ids = new Set((run.env.manifest.task?.objects ?? []).map((o) => o.id));
      for (const [k, m] of h.moved.entries()) {
        if (!ids.has(m.id)) throw bad(f(`moved.${k}.id`), `${m.id} is no object of the session's task`);
        if (h.moved.findIndex((x) => x.id === m.id) !== k) throw bad(f(`moved.${k}.id`), `object ${m.id} is listed twice`);
      }
    }
    const C = cameraCentre(h.extrinsic);
    const off = Math.hypot(C[0] - h.pose.position[0], C[1] - h.pose.position[1], C[2] - h.pose.position[2]);
    if (!(off <= POSE_CENTRE_TOLERANCE_M))
      throw bad(
        f("pose"),
        `the extrinsic's camera centre (${C.map((x) => x.toFixed(3)).join(", ")}) is ${off.toFixed(3)} m from pose.position; they must agree within ${POSE_CENTRE_TOLERANCE_M} m (same world frame)`,
      );
    if (run.bytes + body.length > MAX_SESSION_BYTES)
      throw new HttpError(
        413,
        "too_large",
        `session ${rec.id} would hold ${run.bytes + body.length} bytes, more than the ${MAX_SESSION_BYTES}-byte limit per session`,
      );
    let pixels;
    try {
      const place = {
        index: n,
        files: { rgb: `view ${n}`, depth: `view ${n}`, instances: `view ${n}` },
        idsFrom: "the session's instances table (give it when opening the session)",
      };
      pixels = decodeViewPayload({ rgb: parts.rgb, depth: parts.depth, instances: parts.inst }, rec.image, new Set(rec.instances.map((e) => e.id)), place);
    } catch (e) {
      if (e instanceof BundleError) throw bad(e.field, e.detail);
      throw e;
    }
    const view: ViewData = { index: n, width: rec.image.width, height: rec.image.height, ...pixels, K: h.intrinsics, E: h.extrinsic, action: h.action };
    run.env.deliver(
      {
        view,
        pose: { position: [...h.pose.position], yaw: h.pose.yaw, pitch: h.pose.pitch },
        blocked: h.blocked,
        action: want,
        actionResult: want === null ? null : (h.action_result ?? (h.blocked ? "blocked" : "ok")),
        ...(h.acted_on ? { actedOn: [...h.acted_on] } : {}),
      },
      h.moved,
    );
    run.hashes.push(hash);
    run.views.push(view);
    run.bytes += body.length;
    this.sessions.save({ ...rec, updated_at: new Date().toISOString() });
    return { created: true, response: { session: rec.id, view: n, bytes: body.length, views: run.hashes.length } };
  }

  /** GET .../action?after=n&wait=s: the action after view n, waiting up to `wait` s for the decision. */
  async action(rec: SessionRecord, after: number, waitS: number, signal: AbortSignal) {
    const base = { session: rec.id, after, action: null, view: null, stop_reason: null, bundle: null, item: null, error: null };
    const run = this.runs.get(rec.id);
    const received = run ? run.hashes.length : (rec.outcome?.views ?? 0);
    const failure = run ? (run.state === "failed" ? run.error : null) : rec.status === "finished" ? null : (rec.outcome?.error ?? RESTART_ERROR);
    // a failed episode answers every ask the same way: the simulator stops
    if (failure !== null) return { ...base, next: "failed" as const, error: failure };
    if (after >= received)
      throw new HttpError(
        409,
        "conflict",
        `query.after: view ${after} has not been uploaded (the episode has ${received} view${received === 1 ? "" : "s"}); upload it first`,
        "query.after",
      );
    const answer = () => {
      const action = run?.env.actionAfter(after) ?? null;
      if (action) {
        const objects = run!.env.objectsAfter(after);
        return { ...base, next: "act" as const, action, ...(objects.length ? { objects } : {}), view: after + 1 };
      }
      const state = run ? run.state : (rec.outcome?.state ?? "failed");
      if (state === "finished") {
        const r = run ? this.outcome(run) : rec.outcome!;
        const bundle = this.sessions.load(rec.id).bundle;
        return { ...base, next: "stop" as const, stop_reason: r.stop_reason, bundle, item: `/v1/sim/sessions/${rec.id}/item` };
      }
      if (state === "failed") return { ...base, next: "failed" as const, error: run?.error ?? rec.outcome?.error ?? RESTART_ERROR };
      return null;
    };
    const now = answer();
    if (now || !run || waitS === 0) return now ?? { ...base, next: "wait" as const };
    return new Promise((resolve) => {
      let finished = false;
      const done = () => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        unsubscribe();
        signal.removeEventListener("abort", done);
        resolve(answer() ?? { ...base, next: "wait" as const });
      };
      const timer = setTimeout(done, waitS * 1000);
      // the decision, the end or a failure of the episode; the record is stored just after the loop ends
      const unsubscribe = run.env.subscribe(() => setImmediate(() => (answer() ? done() : undefined)));
      run.done.then(done, done);
      signal.addEventListener("abort", done);
    });
  }

  /** GET .../item: the episode's item record once the session finished. */
  item(rec: SessionRecord): ItemRecord {
    if (rec.status !== "finished" || !rec.bundle) {
      const state = this.status(rec).state;
      throw new HttpError(
        409,
        "conflict",
        `session ${rec.id}: the episode is ${state}${state === "failed" ? ` (${this.status(rec).error})` : "; its record is stored when it ends (GET .../action answers next: stop)"}`,
      );
    }
    const r = this.ctx.store.readJson(this.ctx.store.path("bundles", rec.bundle, EPISODE_ITEM_FILE), ItemRecordSchema, "episode item record");
    if (!r) throw new HttpError(404, "not_found", `the item record of session ${rec.id} is gone (its bundle ${rec.bundle} was removed)`);
    return r;
  }

  /** The session is being deleted: its episode stops and writes nothing. */
  drop(id: string): void {
    const run = this.runs.get(id);
    if (!run) return;
    run.dropped = true;
    run.abort.abort();
    run.env.fail(new RemoteEnvironmentError("the session was deleted"));
    this.runs.delete(id);
  }

  /** The server stops: running episodes fail (their sessions say so) and nothing half-written stays. */
  async stopAll(): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const run of this.runs.values()) {
      if (run.state !== "running") continue;
      run.abort.abort();
      run.env.fail(new RemoteEnvironmentError(STOP_ERROR));
      waits.push(run.done);
    }
    await Promise.allSettled(waits);
  }
}

const RESTART_ERROR = "the server stopped during the episode (an episode does not survive a restart); open a new session";
const STOP_ERROR = "the server is stopping";

function nextView(env: RemoteEnvironment): number | null {
  const n = env.viewsReceived;
  if (n === 0) return 0;
  return env.actionAfter(n - 1) !== null ? n : null;
}

function failureMessage(e: unknown): string {
  if (e instanceof RemoteEnvironmentError) return e.message;
  const storage = storageFailure(e);
  if (storage) return `storing the episode failed: ${storage.message}`;
  if ((e as Error)?.name === "AbortError") return STOP_ERROR;
  return `the episode failed: ${(e as Error)?.message ?? String(e)}`;
}

export { RESTART_ERROR };
