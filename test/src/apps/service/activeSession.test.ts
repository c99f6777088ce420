/**
 * Active sessions over real HTTP (a live `esi3d serve` on loopback): an external simulator serves the steps
 * of an episode the server runs. The "simulator" here is the built-in one (BuiltinEnvironment) driven only
 * through the protocol, so the stored item record must equal the record of the same episode run in-process
 * over the built-in environment (timings aside). Then the protocol's rules: idempotent retries, a
 * simulator that disappears (the episode fails, nothing is stored), bad bodies and queries (400 naming the
 * field), uploads out of turn (409), deleting a session mid-episode, and a server restart.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BuiltinEnvironment } from "../../../../bridge/sim/env.js";
import type { Environment, EnvView } from "../../../../bridge/env/types.js";
import { encodePng } from "../../../../core/bundle/png.js";
import { readBundle } from "../../../../core/bundle/io.js";
import type { Task, TaskObject } from "../../../../core/task/schema.js";
import { isNavigationAction, parseAgentAction } from "../../../../core/task/actions.js";
import type { EnvAction, ObjectRef } from "../../../../bridge/env/types.js";
import { lookAt } from "../../../../bridge/sim/agent.js";
import { loadPhysics } from "../../../../bridge/sim/physics/world.js";
import { generateTask } from "../../../../bridge/sim/generate/suite.js";
import { generatorContext, GeneratorOptionsSchema } from "../../../../bridge/sim/generate/options.js";
import { poseQuaternion } from "../../../../core/math/camera.js";
import { trueRelations } from "../../../../scenegraph/truth.js";
import { activeRecord, llmAgentOptions, runActiveEpisode } from "../../../../src/eval/active.js";
import { createExplorerAgent } from "../../../../src/reason/active/explorers.js";
import { encodeView, type ViewParts } from "../../../../src/apps/service/viewCodec.js";
import type { ItemRecord } from "../../../../src/eval/records.js";
import { http, timelessRecord, poll, runReference, smallTask, startServe, type Serve } from "./helpers.js";
import { openaiReply, startServer, type Handler } from "../../llm/server.js";
import { createLlmClient } from "../../../../src/llm/client.js";
import { createLlmAgent } from "../../../../src/reason/active/llmAgent.js";

type Header = ViewParts["header"];

function viewBody(v: EnvView, override: Partial<Header> = {}): Buffer {
  const { width: W, height: H } = v.view;
  const header: Header = {
    intrinsics: v.view.K,
    extrinsic: v.view.E,
    action: v.action,
    pose: { position: [...v.pose.position], yaw: v.pose.yaw, pitch: v.pose.pitch },
    blocked: v.blocked,
    ...(v.actionResult ? { action_result: v.actionResult } : {}),
    ...(v.actedOn ? { acted_on: v.actedOn } : {}),
    ...override,
  };
  for (const k of Object.keys(override) as Array<keyof Header>) if (override[k] === undefined) delete header[k];
  const d = v.view.depth;
  return encodeView(header, encodePng(W, H, 3, 8, v.view.rgb), Buffer.from(d.buffer, d.byteOffset, d.byteLength), encodePng(W, H, 1, 16, v.view.ids));
}

let serve: Serve;
beforeAll(async () => {
  serve = await startServe(["--cpu-jobs", "1"]);
});
afterAll(async () => {
  expect(await serve.stop()).toBe(0);
});

const sessionUrl = (id: string) => `${serve.url}/v1/sim/sessions/${id}`;

/** Opens an active session on the server at `base` (default: the shared one), its simulator the built-in world. */
async function open(task: Task, episode: Record<string, unknown>, extra: Record<string, unknown> = {}, base = serve.url) {
  const env = new BuiltinEnvironment(task);
  const r = await http("POST", `${base}/v1/sim/sessions`, {
    task,
    paradigm: "active",
    simulator: env.manifest.simulator,
    instances: env.manifest.instances,
    episode,
    ...extra,
  });
  expect(r.status, r.text).toBe(201);
  return { env, id: r.body.id as string, session: r.body };
}

async function askAction(id: string, after: number, wait = 20) {
  const r = await http("GET", `${sessionUrl(id)}/action?after=${after}&wait=${wait}`);
  expect(r.status, r.text).toBe(200);
  return r.body;
}

/** Serves a whole episode with `env` through the protocol, retrying every upload and every ask once. */
async function serveEpisode(id: string, env: BuiltinEnvironment) {
  let v = await env.reset();
  let n = 0;
  const log: Array<{ action: string; blocked: boolean }> = [];
  for (;;) {
    const body = viewBody(v);
    const put = await http("PUT", `${sessionUrl(id)}/views/${n}`, body);
    expect(put.status, put.text).toBe(201);
    // an upload retried after a lost answer: the same bytes are accepted again, without effect
    const again = await http("PUT", `${sessionUrl(id)}/views/${n}`, body);
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ view: n, views: n + 1 });
    let a = await askAction(id, n);
    while (a.next === "wait") a = await askAction(id, n);
    // asking again gives the same answer
    expect(await askAction(id, n)).toEqual(a);
    if (a.next !== "act") return { last: a, views: n + 1, log };
    expect(a.view).toBe(n + 1);
    expect(isNavigationAction(a.action)).toBe(true);
    v = await env.step({ kind: "camera", name: a.action });
    log.push({ action: a.action, blocked: v.blocked });
    n++;
  }
}

describe("active sessions: an external simulator serves the episode's steps", () => {
  it.each([
    ["3d gt, nbv explorer", "counting_with_occlusion", 0, { arm: "3d", source: "gt", explorer: "nbv", maxSteps: 8 }, false],
    ["2d arm (seeded random walk)", "spatial_distance", 0, { arm: "2d", maxSteps: 6, minSteps: 6 }, false],
    // this task's random walk tries a move below the camera floor at step 2: the blocked flag crosses the protocol
    ["3d gt, random explorer, a blocked move", "linear_alignment", 1, { arm: "3d", source: "gt", explorer: "random", maxSteps: 12 }, true],
  ] as const)(
    "%s: the stored item record equals the in-process episode over the built-in environment",
    async (_name, sub, index, episode, blocks) => {
      const task = smallTask(sub, index);
      const { env, id, session } = await open(task, episode);
      expect(session.episode).toMatchObject({ state: "running", views: 0, next_view: 0 });
      const served = await serveEpisode(id, env);
      expect(served.last.next).toBe("stop");
      const item = await http("GET", `${sessionUrl(id)}/item`);
      expect(item.status, item.text).toBe(200);
      const record = item.body as ItemRecord;

      // the same episode in-process, over the built-in environment directly
      const { config, arm, key, reasoner } = runReference(episode, task);
      const out = await runActiveEpisode({
        task,
        config,
        arm,
        agent: createExplorerAgent(config.active.explorer, task, arm ? "3d" : "2d"),
        trueRelations: trueRelations(task),
      });
      const reference = activeRecord(task, config, arm, reasoner, out, key);
      expect(timelessRecord(record)).toEqual(timelessRecord(reference));
      expect(record.active!.steps.length).toBeGreaterThan(1);
      expect(record.active!.steps.some((x) => x.blocked === true)).toBe(blocks);
      expect(served.last.stop_reason).toBe(record.active!.stop_reason);
      // the actions the simulator was told are the record's executed actions, and their blocked flags
      expect(served.log).toEqual(record.active!.steps.filter((s) => s.blocked !== null).map((s) => ({ action: s.action, blocked: s.blocked })));

      // the stored bundle: every view the episode saw, paradigm active, as written by the built-in capture
      const s = await http("GET", sessionUrl(id));
      expect(s.body.views).toEqual(Array.from({ length: served.views }, (_, k) => k));
      expect(s.body).toMatchObject({
        status: "finished",
        bundle: served.last.bundle,
        episode: {
          state: "finished",
          views: served.views,
          next_view: null,
          stop_reason: record.active!.stop_reason,
          error: null,
          item: `/v1/sim/sessions/${id}/item`,
        },
      });
      const bundle = readBundle(join(serve.data, "bundles", served.last.bundle));
      expect(bundle.manifest.paradigm).toBe("active");
      expect(bundle.views.length).toBe(record.views);
      bundle.views.forEach((v, k) => {
        expect(v.E).toEqual(out.bundle.views[k]!.E);
        expect(Buffer.from(v.ids.buffer, v.ids.byteOffset, v.ids.byteLength).equals(Buffer.from(out.bundle.views[k]!.ids.buffer))).toBe(true);
      });
      // after the end: uploads are refused, finish is not the client's to call
      const late = await http("PUT", `${sessionUrl(id)}/views/${served.views}`, viewBody(await env.step({ kind: "camera", name: "turn_left" })));
      expect(late.status).toBe(409);
      expect((await http("POST", `${sessionUrl(id)}/finish`, {})).status).toBe(409);
    },
    120_000,
  );

  it("a simulator that stops serving fails the episode after view_timeout_s: a clear error, nothing stored", async () => {
    const task = smallTask("spatial_distance", 1);
    const { env, id } = await open(task, { arm: "2d", maxSteps: 6, minSteps: 6 }, { view_timeout_s: 1 });
    const v0 = await env.reset();
    expect((await http("PUT", `${sessionUrl(id)}/views/0`, viewBody(v0))).status).toBe(201);
    let a = await askAction(id, 0);
    while (a.next === "wait") a = await askAction(id, 0);
    expect(a.next).toBe("act");
    // ... and the simulator is gone: view 1 never comes
    const s = await poll(
      () => http("GET", sessionUrl(id)),
      (r) => r.body.status === "failed",
      10_000,
    );
    expect(s.body.episode).toMatchObject({ state: "failed", views: 1, stop_reason: null, item: null });
    expect(s.body.episode.error).toMatch(/view 1 did not arrive within 1 s of the action after view 0/);
    expect(s.body.bundle).toBeNull();
    expect(readdirSync(join(serve.data, "bundles")).filter((b) => b === id.replace("s-", "b-"))).toEqual([]);
    const late = await http("PUT", `${sessionUrl(id)}/views/1`, viewBody(await env.step({ kind: "camera", name: a.action })));
    expect(late.status).toBe(409);
    expect(late.body.error.message).toMatch(/the episode failed \(view 1 did not arrive/);
    expect((await http("GET", `${sessionUrl(id)}/item`)).status).toBe(409);
    // every ask of a failed episode says so, at once
    expect(await askAction(id, 1, 0)).toMatchObject({ next: "failed", error: s.body.episode.error });

    // a session whose simulator never sends view 0 fails the same way
    const none = await open(task, { arm: "2d" }, { view_timeout_s: 1 });
    const s0 = await poll(
      () => http("GET", sessionUrl(none.id)),
      (r) => r.body.status === "failed",
      10_000,
    );
    expect(s0.body.episode.error).toMatch(/view 0 did not arrive within 1 s of the session's opening/);
  }, 60_000);

  it("refuses bad bodies and queries with a 400 naming the field, and uploads out of turn with a 409", async () => {
    const task = smallTask("spatial_distance", 2);
    const post = (body: Record<string, unknown>) => http("POST", `${serve.url}/v1/sim/sessions`, { task, simulator: "test", ...body });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ paradigm: "gt", episode: {} }, "body.episode"],
      [{ paradigm: "active", episode: { maxSteps: 0 } }, "body.episode.maxSteps"],
      [{ paradigm: "active", episode: { maxSteps: 64 } }, "body.episode.maxSteps"],
      [{ paradigm: "active", episode: { threshold: 1.5 } }, "body.episode.threshold"],
      [{ paradigm: "active", episode: { explorer: "greedy" } }, "body.episode.explorer"],
      [{ paradigm: "active", episode: { source: "lidar" } }, "body.episode.source"],
      [{ paradigm: "active", episode: { reasoner: "openai:gpt-4o" } }, "body.episode.reasoner"],
      [{ paradigm: "active", episode: { stepz: 3 } }, "body.episode"],
      [{ paradigm: "active", view_timeout_s: 0 }, "body.view_timeout_s"],
    ];
    for (const [body, field] of cases) {
      const r = await post(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.field, JSON.stringify(body)).toBe(field);
    }
    // a changing world cannot be moved on to its next phase over the protocol: refused, not explored as one world
    const changing = generateTask("unobserved_change", "0", 0);
    const refused = await http("POST", `${serve.url}/v1/sim/sessions`, { task: changing, simulator: "test", paradigm: "active", episode: {} });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error.field).toBe("body.task.phases");
    expect(refused.body.error.message).toMatch(/unobserved_change-000 is a changing world \(2 phases\).*built-in simulator/);

    const { env, id } = await open(task, { arm: "2d", maxSteps: 4, minSteps: 4 });
    const v0 = await env.reset();
    const put = (n: number, body: Buffer) => http("PUT", `${sessionUrl(id)}/views/${n}`, body);
    for (const [override, field] of [
      [{ pose: undefined }, "views.0.pose"],
      [{ blocked: undefined }, "views.0.blocked"],
      [{ action: "turn_left" }, "views.0.action"],
      [{ blocked: true }, "views.0.blocked"],
      [{ pose: { position: [v0.pose.position[0] + 1, v0.pose.position[1], v0.pose.position[2]], yaw: v0.pose.yaw, pitch: v0.pose.pitch } }, "views.0.pose"],
    ] as Array<[Partial<Header>, string]>) {
      const r = await put(0, viewBody(v0, override));
      expect(r.status, field).toBe(400);
      expect(r.body.error.field).toBe(field);
    }
    expect((await put(1, viewBody(v0))).status).toBe(409);
    for (const [q, field] of [
      ["after=-1", "query.after"],
      ["after=0&wait=31", "query.wait"],
      ["wait=1", "query.after"],
      ["after=0&later=1", "query"],
    ] as const) {
      const r = await http("GET", `${sessionUrl(id)}/action?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.field, q).toBe(field);
    }
    expect((await http("GET", `${sessionUrl(id)}/action?after=0&wait=0`)).status).toBe(409); // view 0 not uploaded yet
    expect((await put(0, viewBody(v0))).status).toBe(201);
    let a = await askAction(id, 0);
    while (a.next === "wait") a = await askAction(id, 0);
    const v1 = await env.step({ kind: "camera", name: a.action });
    const wrong = a.action === "turn_left" ? "turn_right" : "turn_left";
    const r = await put(1, viewBody(v1, { action: wrong }));
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe("views.1.action");
    expect(r.body.error.message).toContain(`expected "${a.action}"`);
    // a different view 0 cannot replace the one the episode used
    expect((await put(0, viewBody(v1, { action: null, blocked: false }))).status).toBe(409);
    // a passive session has no actions
    const passive = await http("POST", `${serve.url}/v1/sim/sessions`, { task, paradigm: "gt", simulator: "test" });
    expect(passive.body.episode).toBeNull();
    expect((await http("GET", `${sessionUrl(passive.body.id)}/action?after=0`)).status).toBe(409);
    // deleting a session mid-episode ends it; nothing is stored
    expect((await http("DELETE", sessionUrl(id))).status).toBe(204);
    expect((await http("GET", sessionUrl(id))).status).toBe(404);
    await new Promise((res) => setTimeout(res, 300));
    expect(existsSync(join(serve.data, "bundles", id.replace("s-", "b-")))).toBe(false);
  }, 60_000);
});

describe("active sessions and a server restart", () => {
  it("an episode in flight when the server is killed is failed at the next start, with the reason", async () => {
    const s1 = await startServe(["--cpu-jobs", "1"]);
    const task = smallTask("spatial_distance", 3);
    const env = new BuiltinEnvironment(task);
    const o = await http("POST", `${s1.url}/v1/sim/sessions`, {
      task,
      paradigm: "active",
      simulator: "test",
      instances: env.manifest.instances,
      episode: { arm: "2d" },
    });
    expect((await http("PUT", `${s1.url}/v1/sim/sessions/${o.body.id}/views/0`, viewBody(await env.reset()))).status).toBe(201);
    await s1.kill();
    const s2 = await startServe(["--cpu-jobs", "1"], { data: s1.data });
    try {
      const s = await http("GET", `${s2.url}/v1/sim/sessions/${o.body.id}`);
      expect(s.body.status).toBe("failed");
      expect(s.body.episode.error).toMatch(/the server stopped during the episode/);
      const a = await http("GET", `${s2.url}/v1/sim/sessions/${o.body.id}/action?after=0`);
      expect(a.body).toMatchObject({ next: "failed" });
      expect(JSON.parse(readFileSync(join(s1.data, "sessions", o.body.id, "session.json"), "utf8")).status).toBe("failed");
    } finally {
      expect(await s2.stop()).toBe(0);
    }
  }, 60_000);
});

describe("active sessions with an LLM agent: the server's model client, the simulator's steps", () => {
  it("an openai: reasoner explores over the protocol with ESI's per-step contract; the record is the in-process one; a missing key fails the opening", async () => {
    const KEY = "sk-active-session-test-key";
    const task = smallTask("linear_alignment", 0);
    const wrong = task.options.find((o) => o !== task.answer)!;
    const say = (action: string, answer: string, confidence: number) => openaiReply(JSON.stringify({ action, answer, reasoning: "scripted", confidence }));
    // turn; an invalid action, re-prompted once; a turn; then a confident conclusive answer (min_steps 2)
    const script = () => [say("turn_left", "not sure", 0.2), say("fly_up", wrong, 0.3), say("turn_right", wrong, 0.4), say("move_up", task.answer, 0.9)];
    const llm = await startServer(...script());
    const withModel = await startServe(["--cpu-jobs", "1"], { env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${llm.url}/v1` } });
    try {
      const episode = { arm: "3d", source: "gt", reasoner: "openai:test-model", maxSteps: 6, minSteps: 2 } as const;
      const env = new BuiltinEnvironment(task);
      const r = await http("POST", `${withModel.url}/v1/sim/sessions`, {
        task,
        paradigm: "active",
        simulator: env.manifest.simulator,
        instances: env.manifest.instances,
        episode,
      });
      expect(r.status, r.text).toBe(201);
      const id = r.body.id as string;
      const url = `${withModel.url}/v1/sim/sessions/${id}`;
      let v = await env.reset();
      for (let n = 0; ; n++) {
        expect((await http("PUT", `${url}/views/${n}`, viewBody(v))).status).toBe(201);
        let a = (await http("GET", `${url}/action?after=${n}&wait=20`)).body;
        while (a.next === "wait") a = (await http("GET", `${url}/action?after=${n}&wait=20`)).body;
        if (a.next !== "act") {
          expect(a.next, JSON.stringify(a)).toBe("stop");
          break;
        }
        v = await env.step({ kind: "camera", name: a.action });
      }
      const record = (await http("GET", `${url}/item`)).body as ItemRecord;
      expect(record.reasoner).toBe("openai:test-model");
      expect(record.active!.stop_reason).toBe("confident");
      // step 2's invalid "fly_up" is re-prompted within the step, whose action becomes the retry's
      expect(record.active!.steps.map((x) => x.requested_action)).toEqual(["turn_left", "turn_right", "move_up"]);
      expect(record.active!.steps[1]!.reprompted).toBe(true);
      expect(record.answer).toBe(task.answer);
      expect(record.correct).toBe(true);
      // every model call carried ESI's step contract and the graph so far
      expect(llm.requests.length).toBeGreaterThanOrEqual(4);
      expect(JSON.stringify(llm.requests[0]!.body)).toContain("Confidence threshold to conclude");
      expect(llm.requests.every((q) => q.headers.authorization === `Bearer ${KEY}`)).toBe(true);

      // the same episode in-process over the built-in environment, against the same script
      expect(timelessRecord(record)).toEqual(timelessRecord(await inProcessUnreported(task, episode, script(), KEY)));
    } finally {
      expect(await withModel.stop()).toBe(0);
      await llm.close();
    }
    // without a key in the server's environment the opening is refused, naming the field
    const bad = await http("POST", `${serve.url}/v1/sim/sessions`, { task, paradigm: "active", simulator: "x", episode: { reasoner: "openai:test-model" } });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.error.field ?? bad.text).toMatch(/episode\.reasoner|OPENAI_API_KEY/);
  }, 120_000);
});

/**
 * The in-process reference of a session's LLM episode: the same episode run here over the built-in world,
 * against the model at `baseUrl`; `truth`: the world tells the diagnosis where its objects are now, as a
 * simulator that reports `moved` does (false: as one that reports no moves).
 */
async function inProcessLlmRecord(task: Task, episode: Record<string, unknown>, baseUrl: string, apiKey: string, truth: boolean): Promise<ItemRecord> {
  const { config, arm, key, reasoner } = runReference(episode, task);
  const client = createLlmClient("openai:test-model", { baseUrl, env: { OPENAI_API_KEY: apiKey }, cache: null });
  const agent = createLlmAgent(client, task, llmAgentOptions(config), "3d");
  const world = new BuiltinEnvironment(task);
  const env: Environment = {
    manifest: world.manifest,
    reset: () => world.reset(),
    step: (a) => world.step(a),
    checkReference: (r) => world.checkReference(r),
    ...(truth ? { truth: () => world.truth() } : {}),
    close: () => world.close(),
  };
  const out = await runActiveEpisode({ task, config, arm, agent, env, trueRelations: trueRelations(task) });
  return activeRecord(task, config, arm, reasoner, out, key);
}

/**
 * The in-process reference of a session's LLM episode whose simulator reports no moves (no `moved` in its view
 * headers), against a model server of its own answering with `script`: the service's diagnosis cannot know the
 * moves, so the episode it equals is one over the built-in world without its truth.
 */
async function inProcessUnreported(task: Task, episode: Record<string, unknown>, script: Handler[], apiKey: string): Promise<ItemRecord> {
  const llm = await startServer(...script);
  try {
    return await inProcessLlmRecord(task, episode, `${llm.url}/v1`, apiKey, false);
  } finally {
    await llm.close();
  }
}

/** The environment's form of an action reply: a camera move, or a manipulation with the objects the reply carries. */
function envActionOfReply(a: { action: string; objects?: ObjectRef[] }): EnvAction {
  const p = parseAgentAction(a.action, "all");
  if ("error" in p) throw new Error(`the server gave an action the simulator cannot read: ${a.action} (${p.error})`);
  if (p.action.kind === "stop") throw new Error("the server gave stop as an action");
  if (p.action.kind === "camera") return p.action;
  expect(a.objects?.map((o) => o.text)).toEqual(p.action.objects);
  return { kind: "hands", name: p.action.name, objects: a.objects! };
}

describe("active sessions with the hands: a manipulation crosses the protocol", () => {
  it("an LLM agent picks the basketball up, then fails to pick it up again: action_result and acted_on reach the record, equal to the in-process episode", async () => {
    await loadPhysics();
    // a Rigid Containment task (a basketball and open packing boxes) with the agent standing within reach of the ball
    const base = generateTask("rigid_containment", "probe", 0);
    const ball = base.objects.find((o) => o.name === "the basketball")!;
    const from: [number, number, number] = [-1.2, 1.0, 1.2];
    const { yaw, pitch } = lookAt(from, [ball.position[0], ball.position[1], ball.position[2]]);
    const task: Task = {
      ...base,
      camera: { ...base.camera, width: 320, height: 240 },
      agent_initial: { position: from, yaw, pitch, orientation: poseQuaternion({ position: from, yaw, pitch }) },
    };
    const KEY = "sk-hands-session-test-key";
    const say = (action: string, answer: string, confidence: number) => openaiReply(JSON.stringify({ action, answer, reasoning: "scripted", confidence }));
    const script = () => [say("pick up the basketball", "not sure", 0.2), say("pick_up(basketball)", "not sure", 0.3), say("turn_left", task.answer, 0.9)];
    const llm = await startServer(...script());
    const withModel = await startServe(["--cpu-jobs", "1"], { env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${llm.url}/v1` } });
    try {
      const episode = { arm: "3d", source: "gt", reasoner: "openai:test-model", maxSteps: 5, minSteps: 2, actions: "all" } as const;
      const { env, id } = await open(task, episode, {}, withModel.url);
      const url = `${withModel.url}/v1/sim/sessions/${id}`;
      const replies: Array<Record<string, unknown>> = [];
      let v = await env.reset();
      for (let n = 0; ; n++) {
        // acted_on is checked: ids of the session's objects, one per object named, only after a manipulation that happened
        const wrongActedOn = n === 1 ? [9999] : n === 2 ? [ball.id] : null;
        if (wrongActedOn) {
          const bad = await http("PUT", `${url}/views/${n}`, viewBody(v, { acted_on: wrongActedOn }));
          expect(bad.status, bad.text).toBe(400);
          expect(bad.body.error.field).toBe(`views.${n}.acted_on`);
        }
        const put = await http("PUT", `${url}/views/${n}`, viewBody(v));
        expect(put.status, put.text).toBe(201);
        let a = (await http("GET", `${url}/action?after=${n}&wait=20`)).body;
        while (a.next === "wait") a = (await http("GET", `${url}/action?after=${n}&wait=20`)).body;
        if (a.next !== "act") {
          expect(a.next, JSON.stringify(a)).toBe("stop");
          break;
        }
        replies.push(a);
        v = await env.step(envActionOfReply(a));
      }
      // the action reply: canonical text, the objects beside it (text only: "basketball" names no node of the graph)
      expect(replies[0]).toMatchObject({ action: "pick_up(basketball)", objects: [{ text: "basketball" }] });
      expect(replies[1]).toMatchObject({ action: "pick_up(basketball)", objects: [{ text: "basketball" }] });
      // the confident answer at step 3 stops the episode before its turn is taken
      expect(replies).toHaveLength(2);
      const record = (await http("GET", `${url}/item`)).body as ItemRecord;
      const steps = record.active!.steps;
      expect(steps.map((x) => [x.action, x.blocked, x.action_result, x.acted_on])).toEqual([
        ["pick_up(basketball)", false, "ok", [ball.id]],
        ["pick_up(basketball)", true, "the hands already hold basketball", undefined],
        [null, null, null, undefined],
      ]);
      expect(record.active!.actions).toBe("all");
      // the same episode in-process over the built-in environment, against the same script
      expect(timelessRecord(record)).toEqual(timelessRecord(await inProcessUnreported(task, episode, script(), KEY)));
    } finally {
      expect(await withModel.stop()).toBe(0);
      await llm.close();
    }
  }, 120_000);
});

/**
 * A remote simulator reports what its actions moved (the view header's `moved`), and the episode's diagnosis
 * judges the graph against where the objects are now, as the built-in environment's truth lets it. The task:
 * spatial_distance #1 of seed "inc" (the memory's manipulation test), the agent standing within reach of the
 * white cardboard box and the table; a scripted LLM picks the box up, turns with it and puts it on the table.
 */
describe("active sessions with the hands: the simulator reports what moved", () => {
  const base = generateTask("spatial_distance", "inc", 1, generatorContext(GeneratorOptionsSchema.parse({}), { width: 160, height: 120, hfov_deg: 70 }));
  const box = base.objects.find((o) => o.name === "the white cardboard box")!;
  const table = base.objects.find((o) => o.category === "table")!;
  const from: [number, number, number] = [1.5, -0.1, 1.0];
  const task: Task = {
    ...base,
    agent_initial: { position: from, yaw: -2.4, pitch: -0.5, orientation: poseQuaternion({ position: from, yaw: -2.4, pitch: -0.5 }) },
  };
  const episode = { arm: "3d", source: "gt", reasoner: "openai:test-model", maxSteps: 6, minSteps: 2, actions: "all" } as const;
  const KEY = "sk-moved-session-test-key";
  const say = (action: string, answer: string, confidence: number) => openaiReply(JSON.stringify({ action, answer, reasoning: "scripted", confidence }));
  /** `ref`: how the agent names the box; the confident answer after put_on stops the episode before its turn */
  const script = (ref: string) => [
    say(`pick_up(${ref})`, "not sure", 0.2),
    say("turn_right", "not sure", 0.3),
    say(`put_on(${ref}, the table)`, "not sure", 0.3),
    say("turn_left", task.answer, 0.9),
  ];
  const samePose = (a: TaskObject, b: TaskObject) =>
    a.position.every((x, k) => x === b.position[k]) && JSON.stringify(a.orientation) === JSON.stringify(b.orientation);

  let llm: Awaited<ReturnType<typeof startServer>>;
  let withModel: Serve;
  beforeAll(async () => {
    await loadPhysics();
    llm = await startServer();
    withModel = await startServe(["--cpu-jobs", "1"], { env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${llm.url}/v1` } });
  });
  afterAll(async () => {
    expect(await withModel.stop()).toBe(0);
    await llm.close();
  });

  /**
   * Serves the episode with the built-in world through the protocol; `report`: each view's header lists the
   * objects the action moved. `probe`: first, each view is sent with a `moved` the server must refuse.
   */
  async function remote(ref: string, report: boolean, probe = false): Promise<ItemRecord> {
    llm.script(...script(ref));
    const { env, id } = await open(task, episode, {}, withModel.url);
    const url = `${withModel.url}/v1/sim/sessions/${id}`;
    let v = await env.reset();
    let before = env.truth().objects;
    for (let n = 0; ; n++) {
      const now = env.truth().objects;
      const moved = now
        .filter((o) => !samePose(o, before.find((b) => b.id === o.id)!))
        .map((o) => ({ id: o.id, position: o.position, orientation: o.orientation }));
      before = now;
      const refused = (bad: Header["moved"]) => ({ status: 400, field: `views.${n}.moved`, body: viewBody(v, { moved: bad }) });
      const probes = !probe
        ? []
        : moved.length === 0
          ? [refused([{ id: box.id, position: [0, 0, 0] }])]
          : [
              { ...refused([{ id: 9999, position: [0, 0, 0] }]), field: `views.${n}.moved.0.id`, says: "9999 is no object of the session's task" },
              { ...refused([...moved, moved[0]!]), field: `views.${n}.moved.${moved.length}.id`, says: "listed twice" },
              { ...refused([{ id: box.id, position: [0, 0] as never }]), field: `views.${n}.moved.0.position` },
            ];
      for (const p of probes) {
        const bad = await http("PUT", `${url}/views/${n}`, p.body);
        expect(bad.status, bad.text).toBe(p.status);
        expect(bad.body.error.field, bad.text).toBe(p.field);
        if ("says" in p) expect(bad.body.error.message).toContain(p.says);
      }
      const put = await http("PUT", `${url}/views/${n}`, viewBody(v, report && moved.length ? { moved } : {}));
      expect(put.status, put.text).toBe(201);
      let a = (await http("GET", `${url}/action?after=${n}&wait=20`)).body;
      while (a.next === "wait") a = (await http("GET", `${url}/action?after=${n}&wait=20`)).body;
      if (a.next !== "act") break;
      v = await env.step(envActionOfReply(a));
    }
    expect(env.truth().moved.map((m) => m.id)).toEqual([box.id]);
    return (await http("GET", `${url}/item`)).body as ItemRecord;
  }

  /** The same episode in-process over the built-in world, with its truth (`truth`) or without. */
  function inProcess(ref: string, truth: boolean): Promise<ItemRecord> {
    llm.script(...script(ref));
    return inProcessLlmRecord(task, episode, `${llm.url}/v1`, KEY, truth);
  }

  it("named by text, the memory follows the box: reported, the diagnosis matches its node at the new place (none stale), as over the built-in world; unreported, that node counts as hallucinated", async () => {
    const reported = await remote("the white cardboard box", true, true);
    expect(reported.active!.steps.map((s) => [s.action, s.blocked, s.acted_on])).toEqual([
      // the canonical text the server sends the simulator
      ["pick_up(white cardboard box)", false, [box.id]],
      ["turn_right", false, undefined],
      ["put_on(white cardboard box, table)", false, [box.id, table.id]],
      [null, null, undefined],
    ]);
    expect(timelessRecord(reported)).toEqual(timelessRecord(await inProcess("the white cardboard box", true)));
    expect(reported.graph_quality!.stale).toBe(0);
    const unreported = await remote("the white cardboard box", false);
    expect(timelessRecord(unreported)).toEqual(timelessRecord(await inProcess("the white cardboard box", false)));
    expect(unreported.graph_quality!.stale).toBe(0);
    // judged against the box's start, its node on the table is near no true box of its own
    expect(unreported.graph_quality!.hallucinated).toBe(reported.graph_quality!.hallucinated! + 1);
    expect(unreported.graph_quality!.matched).toBe(reported.graph_quality!.matched! - 1);
  }, 180_000);

  it("named by instance id, the memory cannot follow: reported, the node left where the box was is stale; unreported, it passes for the box", async () => {
    const ref = `#${box.id}`;
    const reported = await remote(ref, true);
    expect(reported.active!.steps.map((s) => s.acted_on)).toEqual([[box.id], undefined, [box.id, table.id], undefined]);
    expect(reported.graph_quality!.stale).toBe(1);
    const unreported = await remote(ref, false);
    expect(unreported.graph_quality!.stale).toBe(0);
    expect(timelessRecord(unreported)).toEqual(timelessRecord(await inProcess(ref, false)));
  }, 180_000);
});
