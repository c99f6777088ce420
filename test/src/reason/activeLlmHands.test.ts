/**
 * The LLM active agent's hands over real HTTP (issue 46): a loopback server scripts manipulation steps on a
 * generated Rigid Containment task with the agent standing by the basketball. An object the agent cannot name is
 * an invalid action (re-prompted once), a manipulation that fails changes nothing and its `action_result` reaches
 * the next prompt's history, one that happens moves the object; `--actions camera` refuses the hands.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { loadPhysics } from "../../../bridge/sim/physics/world.js";
import { lookAt } from "../../../bridge/sim/agent.js";
import { BuiltinEnvironment } from "../../../bridge/sim/env.js";
import { poseQuaternion } from "../../../core/math/camera.js";
import type { Task } from "../../../core/task/schema.js";
import { llmAgentOptions, runActiveEpisode } from "../../../src/eval/active.js";
import { DEFAULT_RUN_CONFIG, resolveRunConfig, type ThreeDArm } from "../../../src/eval/config.js";
import { createLlmClient } from "../../../src/llm/client.js";
import { createLlmAgent } from "../../../src/reason/active/llmAgent.js";
import { openaiReply, startServer, type Handler, type RecordedRequest, type TestServer } from "../llm/server.js";
import { completedRun, expectSameRecords, killedAndResumed, newRunDir, type ActiveLlmRunSpec } from "../../helpers/activeLlmCli.js";

const KEY = "sk-active-hands-test-key";
const GT: ThreeDArm = { source: "gt", noise: DEFAULT_RUN_CONFIG.noise, labels: "oracle", label: "gt" };
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Body = { messages: Array<{ role: string; content: string | Array<{ type: string; text?: string }> }> };
const text = (r: RecordedRequest, role: string) => {
  const c = (r.body as Body).messages.find((m) => m.role === role)!.content;
  return typeof c === "string" ? c : c.map((p) => p.text ?? "").join("\n");
};
const step = (action: string, answer: string, confidence: number) => openaiReply(JSON.stringify({ action, answer, reasoning: "scripted", confidence }));

let task: Task;
beforeAll(async () => {
  await loadPhysics();
  const t = generateTask("rigid_containment", "probe", 0);
  const ball = t.objects.find((o) => o.category === "basketball")!;
  const from: [number, number, number] = [-1.2, 1.0, 1.2];
  const { yaw, pitch } = lookAt(from, ball.position);
  task = { ...t, agent_initial: { position: from, yaw, pitch, orientation: poseQuaternion({ position: from, yaw, pitch }) } };
}, 60_000);

async function episode(handlers: Handler[], config: Record<string, unknown>) {
  server = await startServer(...handlers);
  const client = createLlmClient("openai:test-model", { baseUrl: `${server.url}/v1`, env: { OPENAI_API_KEY: KEY }, maxRetries: 0, cache: null });
  const c = resolveRunConfig(config);
  const agent = createLlmAgent(client, task, llmAgentOptions(c), "3d");
  const env = new BuiltinEnvironment(task);
  const out = await runActiveEpisode({ task, config: c, arm: GT, agent, env });
  return { out, truth: env.truth() };
}

describe("the LLM agent's hands", () => {
  it("re-prompts a name it cannot act on, records a failed manipulation and its reason, and moves what it picks up", async () => {
    const { out, truth } = await episode(
      [
        step("pick_up(apple)", "not sure", 0.2), // nothing in view is called apple: invalid, re-prompted
        step("pick_up(basketball)", "not sure", 0.2),
        step("open(basketball)", "not sure", 0.3), // a ball does not open: it fails and says so
        step("stop", task.answer, 0.9),
      ],
      { active: { minSteps: 0 } },
    );
    const [s1, s2, s3] = out.episode.steps;
    expect(s1).toMatchObject({
      requested_action: "pick_up(basketball)",
      valid: true,
      action: "pick_up(basketball)",
      blocked: false,
      action_result: "ok",
      reprompted: true,
    });
    expect(s1!.acted_on).toEqual([task.objects.find((o) => o.category === "basketball")!.id]);
    expect(s2).toMatchObject({ action: "open(basketball)", blocked: true, action_result: "basketball does not open" });
    expect(s3).toMatchObject({ action: "stop" });
    expect(out.episode.actions).toBe("all");
    const reqs = server!.requests;
    expect(text(reqs[0]!, "system")).toMatch(/pick_up\(X\), put_on\(X, Y\), put_inside\(X, Y\), put_back\(X\), open\(X\), close\(X\)/);
    expect(text(reqs[1]!, "user")).toMatch(/could not be used \(pick_up: nothing in view is called "apple"\)/);
    expect(text(reqs[3]!, "user")).toMatch(/step 2: action=open\(basketball\), .* result=failed \(basketball does not open\)/);
    // the ball left the floor and went with the camera
    expect(truth.moved.map((m) => m.id)).toEqual(s1!.acted_on);
  });

  it("--actions camera: a manipulation is outside the vocabulary (re-prompted, then the agent stays)", async () => {
    const { out } = await episode([step("pick_up(basketball)", "not sure", 0.2), step("pick up basketball", "not sure", 0.2), step("stop", task.answer, 0.9)], {
      active: { actions: "camera", minSteps: 0 },
    });
    expect(out.episode.steps[0]).toMatchObject({ valid: false, action: null, blocked: null, reprompted: true });
    expect(out.episode.steps[0]!.action_result).toMatch(/^invalid: pick_up is not available/);
    expect(text(server!.requests[0]!, "system")).not.toMatch(/pick_up/);
  });
});

/**
 * Replies that depend only on the request: lift a cloth or open a box the current view shows (by node id), then
 * name an object that is not there (re-prompted: the retry turns), then camera moves; the forced choice commits.
 */
const handsScript: Handler = (req, res) => {
  const u = text(req, "user");
  const n = Number(/Step (\d+) of/.exec(u)?.[1] ?? 0);
  const inView = /Objects in your current view: (.*)\./.exec(u)?.[1] ?? "";
  const node = (label: RegExp) => [...inView.matchAll(/(n\d+) \(([^)]+)\)/g)].find((m) => label.test(m[2]!))?.[1];
  const cloth = node(/^cloth$/),
    box = node(/box|bin/);
  let action = ["turn_left", "move_forward", "turn_right", "turn_down"][n % 4]!;
  if (/could not be used/.test(u)) action = "turn_left";
  else if (n === 1 && cloth) action = `pick_up(${cloth})`;
  else if (n === 1 && box) action = `open(${box})`;
  else if (n === 2) action = "pick_up(unicorn)";
  const body = /must commit now/.test(u)
    ? { action: "stop", answer: /Answer choices[^:]*: "([^"]+)"/.exec(text(req, "system"))?.[1] ?? "", reasoning: "forced", confidence: 0.5 }
    : { action, answer: "not sure", reasoning: `step ${n}`, confidence: 0.3 };
  setTimeout(() => openaiReply(JSON.stringify(body))(req, res), 20);
};

/** One Structural Enclosure and one Deformable episode of at most 4 steps. */
const RUN: ActiveLlmRunSpec = { subcategories: "structural_enclosure,deformable", perSubcategory: 1, maxSteps: 4, apiKey: KEY };

describe("esi3d run with an LLM agent that acts", () => {
  it("lifts the cloth and opens a box over loopback HTTP, fails and is re-prompted, and resumes after SIGKILL to identical records", async () => {
    server = await startServer(handsScript);
    const wholeRecs = await completedRun(RUN, server, newRunDir("esi3d-hands-whole-"), 2);
    const steps = wholeRecs.flatMap((r) => r.active!.steps);
    // the cloth was lifted, a box's open was tried (from the initial view it may be out of reach: then it says so)
    expect(steps.some((s) => /^pick_up\(n\d+\)$/.test(s.action ?? "") && s.action_result === "ok")).toBe(true);
    expect(steps.some((s) => /^open\(n\d+\)$/.test(s.action ?? "") && s.action_result !== null)).toBe(true);
    // the unknown object was re-prompted and the retry turned
    expect(steps.some((s) => s.reprompted && s.action === "turn_left")).toBe(true);
    expect(wholeRecs.every((r) => r.active!.actions === "all")).toBe(true);

    const { records: resumed } = await killedAndResumed(RUN, server, handsScript, newRunDir("esi3d-hands-kill-"), 3);
    expectSameRecords(resumed, wholeRecs);
  }, 300_000);
});
