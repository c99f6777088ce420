/**
 * The active paradigm through the OmniGibson bridge: bridge/omnigibson/capture.py --paradigm active, on our
 * OmniGibson 3.9.2 stand-in (test/bridge/omnigibson/standin/v3_9), serves the steps of an episode a live
 * `esi3d serve` runs (docs/protocol.md "Active sessions").
 *
 * What is compared with the built-in simulator, and why not the whole record: the stand-in ray-casts the
 * models' boxes (assets.json) where the built-in renderer rasterises its proxy models, so the pixels differ,
 * and with them the graphs, the answers and every choice that depends on them. What must agree:
 * - the record the server stored equals the record the in-process loop (src/eval/active.ts, the loop of
 *   `esi3d run`) gives when it is fed the same views: every pixel, pose and blocked flag crossed the
 *   protocol unchanged, and the server ran the same episode;
 * - the actions capture.py applied and the blocked flags it reported are the record's;
 * - the poses are those of esi3d's motion model (bridge/sim/agent.ts) replaying the same actions in the
 *   same task, as esi3d_agent.py computes them in Python;
 * - the 2D arm's explorer is a seeded random walk whose choices depend on the task and the blocked moves
 *   only, so its episode in the built-in environment (the task's proxy scene, bridge/esibench/proxy.ts)
 *   takes the same actions, is blocked at the same steps, passes through the same poses and stops for the
 *   same reason. The 3D arm's nbv explorer plans from the rendered depth: there the episodes part once the
 *   renders differ (measured on esi-2805: the same first two actions, then turn_right against turn_up).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importRecords } from "../../../../bridge/esibench/importer.js";
import { proxyTask } from "../../../../bridge/esibench/proxy.js";
import { BuiltinEnvironment } from "../../../../bridge/sim/env.js";
import { readBundle, type FrameBundle } from "../../../../core/bundle/io.js";
import type { EnvAction, Environment, EnvView } from "../../../../bridge/env/types.js";
import { applyAction, worldOf } from "../../../../bridge/sim/agent.js";
import type { NavigationAction } from "../../../../core/task/actions.js";
import { trueRelations } from "../../../../scenegraph/truth.js";
import { activeRecord, runActiveEpisode } from "../../../../src/eval/active.js";
import type { ActiveStep, ItemRecord } from "../../../../src/eval/records.js";
import { createExplorerAgent } from "../../../../src/reason/active/explorers.js";
import type { AgentPose } from "../../../../core/math/camera.js";
import { REPO_ROOT } from "../cli/helpers.js";
import { SAMPLE } from "../../../bridge/esibench/esibenchHelpers.js";
import { http, runReference, timelessRecord, startServe, type Serve } from "./helpers.js";
import { needs } from "../../../helpers/system.js";
import { openaiReply, startServer } from "../../llm/server.js";

const standin = needs("python3-numpy", "python3-torch");

const PYTHON = "/usr/bin/python3";
const BRIDGE = join(REPO_ROOT, "bridge", "omnigibson");
const STANDIN = join(REPO_ROOT, "test", "bridge", "omnigibson", "standin");

const tasks = mkdtempSync(join(tmpdir(), "esi3d-og-active-"));
const imported = importRecords(SAMPLE).imported.filter((x) => ["0789", "2805"].includes(x.record.raw.id));
for (const x of imported) writeFileSync(join(tasks, `${x.task!.task_id}.json`), JSON.stringify(x.task));

function captureEnv() {
  return {
    ...process.env,
    PYTHONPATH: `${join(STANDIN, "v3_9")}:${BRIDGE}`,
    PYTHONDONTWRITEBYTECODE: "1",
    ESI3D_OG_STANDIN_ASSETS: join(STANDIN, "assets.json"),
    ESI3D_STANDIN_TASKS: tasks,
  };
}

/** capture.py without blocking this process (whose loopback model server must answer meanwhile). */
function captureAsync(task: string, url: string, episode: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(PYTHON, [join(BRIDGE, "capture.py"), join(tasks, task), "--paradigm", "active", "--episode", episode, "--server", url], {
      env: captureEnv(),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function capture(task: string, url: string, episode: string) {
  const env = captureEnv();
  const r = spawnSync(PYTHON, [join(BRIDGE, "capture.py"), join(tasks, task), "--paradigm", "active", "--episode", episode, "--server", url], {
    env,
    encoding: "utf8",
    timeout: 600_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Serves a stored episode's views again, in order, with the poses and blocked flags its record gives. */
class ReplayEnvironment implements Environment {
  readonly manifest: Environment["manifest"];
  private k = 0;
  constructor(
    private readonly bundle: FrameBundle,
    private readonly steps: ActiveStep[],
  ) {
    const { views: _views, ...rest } = bundle.manifest;
    this.manifest = rest;
  }
  private at(k: number, blocked: boolean): EnvView {
    const v = this.bundle.views[k]!;
    const p = this.steps[k]!.pose;
    return {
      view: v,
      pose: { position: [...p.position], yaw: p.yaw, pitch: p.pitch },
      blocked,
      action: v.action,
      actionResult: k === 0 ? null : blocked ? "blocked" : "ok",
    };
  }
  async reset() {
    this.k = 0;
    return this.at(0, false);
  }
  async step(a: EnvAction) {
    this.k++;
    const action = a.kind === "camera" ? a.name : null;
    expect(action, `the action before view ${this.k}`).toBe(this.bundle.views[this.k]!.action);
    return this.at(this.k, this.steps[this.k - 1]!.blocked!);
  }
  async close() {}
}

let serve: Serve;
beforeAll(async () => {
  serve = await startServe(["--cpu-jobs", "1"]);
});
afterAll(async () => {
  expect(await serve.stop()).toBe(0);
});

describe.skipIf(standin.skip)(standin.title("capture.py --paradigm active on the OmniGibson 3.9.2 stand-in"), () => {
  it.each([
    ["3d gt, nbv explorer", { arm: "3d", source: "gt", explorer: "nbv", maxSteps: 6 }],
    ["2d arm, seeded random walk", { arm: "2d", maxSteps: 6, minSteps: 6 }],
  ] as const)(
    "%s: the whole episode is served from Python and stored as the in-process loop records it",
    async (_name, episode) => {
      const r = capture("esi-2805.json", serve.url, JSON.stringify(episode));
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout.trim().split("\n").pop()!);
      const served = out.active_episode as { session: string; stop_reason: string; views: number; actions: string[]; blocked: boolean[] };
      expect(out.active).toBe(served.session.replace(/^s-/, "b-"));
      const item = await http("GET", `${serve.url}/v1/sim/sessions/${served.session}/item`);
      expect(item.status, item.text).toBe(200);
      const record = item.body as ItemRecord;
      const steps = record.active!.steps;
      expect(record).toMatchObject({ paradigm: "active", arm: episode.arm, views: served.views });
      expect(record.active!.stop_reason).toBe(served.stop_reason);
      expect(steps.length).toBeGreaterThan(1);
      // what capture.py did is what the record says was done
      const executed = steps.filter((s) => s.blocked !== null);
      expect(executed.map((s) => s.action)).toEqual(served.actions);
      expect(executed.map((s) => s.blocked)).toEqual(served.blocked);

      // the in-process loop over the same views gives the same record
      const bundle = readBundle(join(serve.data, "bundles", out.active));
      expect(bundle.manifest.simulator).toBe("omnigibson/3.9.2");
      expect(bundle.views.length).toBe(served.views);
      const task = bundle.manifest.task!;
      const { config, arm, key, reasoner } = runReference(episode, task);
      const replay = await runActiveEpisode({
        task,
        config,
        arm,
        agent: createExplorerAgent(config.active.explorer, task, arm ? "3d" : "2d"),
        env: new ReplayEnvironment(bundle, steps),
        trueRelations: trueRelations(task),
      });
      expect(timelessRecord(activeRecord(task, config, arm, reasoner, replay, key))).toEqual(timelessRecord(record));

      // the poses are esi3d's motion model replaying the actions in the same task (the stand-in scene's own
      // furniture, an extra obstacle in Python, blocks none of these moves)
      let pose: AgentPose = steps[0]!.pose;
      executed.forEach((s, k) => {
        const next = applyAction(worldOf(task), pose, s.action as NavigationAction);
        expect(next === null, `step ${s.step} blocked`).toBe(s.blocked);
        pose = next ?? pose;
        const want = steps[k + 1]!.pose;
        pose.position.forEach((x, i) => expect(x).toBeCloseTo(want.position[i]!, 9));
        expect(pose.yaw).toBeCloseTo(want.yaw, 9);
        expect(pose.pitch).toBeCloseTo(want.pitch, 9);
      });

      if (episode.arm !== "2d") return;
      // the random walk in the built-in environment, over the task's proxy scene
      const proxy = proxyTask(imported.find((x) => x.task!.task_id === "esi-2805")!.task!);
      if ("skip" in proxy) throw new Error(proxy.skip);
      const builtin = await runActiveEpisode({
        task: proxy.task,
        config,
        arm,
        agent: createExplorerAgent(config.active.explorer, proxy.task, "2d"),
        env: new BuiltinEnvironment(proxy.task),
      });
      const walk = (xs: ActiveStep[]) =>
        xs.map((s) => ({
          action: s.action,
          blocked: s.blocked,
          position: s.pose.position.map((x) => Math.round(x * 1e6) / 1e6),
          yaw: Math.round(s.pose.yaw * 1e6) / 1e6,
          pitch: Math.round(s.pose.pitch * 1e6) / 1e6,
        }));
      expect(walk(builtin.episode.steps)).toEqual(walk(steps));
      expect(builtin.episode.stop_reason).toBe(record.active!.stop_reason);
    },
    600_000,
  );

  it("bad episode options exit 2 naming the field, before any view is uploaded", () => {
    const r = capture("esi-0789.json", serve.url, JSON.stringify({ maxSteps: 0 }));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/body\.episode\.maxSteps/);
    expect(r.stderr).not.toMatch(/view 1 after/);
    const j = capture("esi-0789.json", serve.url, "[1]");
    expect(j.code).toBe(2);
    expect(j.stderr).toMatch(/--episode: expected a JSON object/);
  }, 300_000);
});

describe.skipIf(standin.skip)(standin.title("the hands through capture.py on the OmniGibson 3.9.2 stand-in"), () => {
  it("an LLM agent opens a box and picks up a ball over the protocol, served from Python; a failed pick-up's action_result reaches the record", async () => {
    // esi-2805 with an openable packing box and a ball in the open (stand-in models: assets.json)
    const base = JSON.parse(readFileSync(join(tasks, "esi-2805.json"), "utf8"));
    const unrotated = { x: 0, y: 0, z: 0, w: 1 };
    base.objects.push(
      {
        id: 18,
        name: "the packing box",
        category: "packing_box",
        model: "packing_box/qbxwmx",
        role: "target",
        position: [-8.6, 8.15, 0.15],
        orientation: unrotated,
        extent: [0.4, 0.3, 0.3],
        scale: 1,
        color: "brown",
        transparent: false,
      },
      {
        id: 19,
        name: "the toy ball",
        category: "baseball",
        model: "baseball/zanmar",
        role: "target",
        position: [-8.45, 8.4, 0.04],
        orientation: unrotated,
        extent: [0.076, 0.074, 0.076],
        scale: 1,
        color: "white",
        transparent: false,
      },
    );
    writeFileSync(join(tasks, "esi-2805-hands.json"), JSON.stringify(base));
    const KEY = "sk-og-hands-test-key";
    const say = (action: string, confidence: number) => openaiReply(JSON.stringify({ action, answer: "not sure", reasoning: "scripted", confidence }));
    const llm = await startServer(say("open(packing box)", 0.1), say("pick up the skateboard deck", 0.1), say("pick_up(toy ball)", 0.1), say("stop", 0.1));
    const withModel = await startServe(["--cpu-jobs", "1"], { env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${llm.url}/v1` } });
    try {
      const episode = { arm: "3d", source: "gt", reasoner: "openai:test-model", maxSteps: 6, minSteps: 0, actions: "all" };
      const r = await captureAsync("esi-2805-hands.json", withModel.url, JSON.stringify(episode));
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout.trim().split("\n").pop()!);
      const served = out.active_episode as { session: string; actions: string[]; blocked: boolean[]; action_results: string[] };
      expect(served.actions).toEqual(["open(packing box)", "pick_up(skateboard deck)", "pick_up(toy ball)"]);
      expect(served.blocked).toEqual([false, true, false]);
      expect(served.action_results).toEqual(["ok", "skateboard deck is too large to pick up (1.05 m; at most 0.6 m)", "ok"]);
      const item = await http("GET", `${withModel.url}/v1/sim/sessions/${served.session}/item`);
      expect(item.status, item.text).toBe(200);
      const steps = (item.body as ItemRecord).active!.steps;
      expect(steps.map((s) => [s.action, s.blocked, s.action_result, s.acted_on])).toEqual([
        ["open(packing box)", false, "ok", [18]],
        ["pick_up(skateboard deck)", true, "skateboard deck is too large to pick up (1.05 m; at most 0.6 m)", undefined],
        ["pick_up(toy ball)", false, "ok", [19]],
        ["stop", null, null, undefined],
      ]);
      // the ball left the view's lower right for the hold pose: the last view shows it where the hands carry it
      const bundle = readBundle(join(withModel.data, "bundles", out.active));
      const pixelsOf = (k: number, id: number) => bundle.views[k]!.ids.reduce((n, x) => n + (x === id ? 1 : 0), 0);
      expect(pixelsOf(3, 19)).not.toBe(pixelsOf(2, 19));
    } finally {
      expect(await withModel.stop()).toBe(0);
      await llm.close();
    }
  }, 600_000);
});
