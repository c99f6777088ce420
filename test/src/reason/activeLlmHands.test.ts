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
import { runActiveEpisode } from "../../../src/eval/active.js";
import { DEFAULT_RUN_CONFIG, resolveRunConfig, type ThreeDArm } from "../../../src/eval/config.js";
import { createLlmClient } from "../../../src/llm/client.js";
import { createLlmAgent } from "../../../src/reason/active/llmAgent.js";
import { openaiReply, startServer, type Handler, type RecordedRequest, type TestServer } from "../llm/server.js";

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
  const agent = createLlmAgent(
    client,
    task,
    {
      invalidAction: c.active.invalidAction,
      threshold: c.active.threshold,
      temperature: c.llm.temperature,
      format: c.prompt.format,
      uncertainty: c.prompt.uncertainty,
    },
    "3d",
  );
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
