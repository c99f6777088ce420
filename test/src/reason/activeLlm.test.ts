/**
 * The LLM active agent over real HTTP: a loopback server (test/src/llm/server.ts) answers each step with
 * scripted step JSON. Early stop, threshold stop, budget exhaustion with the forced choice, invalid actions
 * under both policies, malformed replies, the 2D arm's image window, and a run killed with SIGKILL in the
 * middle of an episode that resumes (through the response cache) to the records of an uninterrupted run.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { generatorContext, GeneratorOptionsSchema } from "../../../bridge/sim/generate/options.js";
import { activeRecord, llmAgentOptions, runActiveEpisode } from "../../../src/eval/active.js";
import { DEFAULT_RUN_CONFIG, resolveRunConfig, type ThreeDArm } from "../../../src/eval/config.js";
import { createLlmClient } from "../../../src/llm/client.js";
import { createLlmAgent } from "../../../src/reason/active/llmAgent.js";
import { promptTarget } from "../../../src/reason/llm.js";
import { promptFileHash, promptTexts } from "../../../src/reason/promptFile.js";
import { openaiReply, startServer, type Handler, type RecordedRequest, type TestServer } from "../llm/server.js";
import { openaiUserText as userText } from "../../helpers/prompts.js";
import { completedRun, expectSameRecords, killedAndResumed, newRunDir, type ActiveLlmRunSpec } from "../../helpers/activeLlmCli.js";

const CAMERA = { width: 160, height: 120, hfov_deg: 70 };
const KEY = "sk-active-agent-test-key";
const GT: ThreeDArm = { source: "gt", noise: DEFAULT_RUN_CONFIG.noise, labels: "oracle", label: "gt" };
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Body = { temperature?: number; messages: Array<{ role: string; content: string | Array<{ type: string; text?: string; image_url?: { url: string } }> }> };
const systemText = (r: RecordedRequest) => (r.body as Body).messages.find((m) => m.role === "system")!.content as string;
const imageCount = (r: RecordedRequest) => {
  const c = (r.body as Body).messages.find((m) => m.role === "user")!.content;
  return typeof c === "string" ? 0 : c.filter((p) => p.type === "image_url").length;
};
const step = (action: string, answer: string, confidence: number, reasoning = "scripted") =>
  openaiReply(JSON.stringify({ action, answer, reasoning, confidence }));

const task = generateTask("linear_alignment", "inc", 0, generatorContext(GeneratorOptionsSchema.parse({}), CAMERA));
const truth = task.answer,
  wrong = task.options.find((o) => o !== task.answer)!;

async function episode(handlers: Handler[], config: Record<string, unknown>, arm: "2d" | "3d" = "3d") {
  server = await startServer(...handlers);
  const client = createLlmClient("openai:test-model", { baseUrl: `${server.url}/v1`, env: { OPENAI_API_KEY: KEY }, maxRetries: 0, cache: null });
  const c = resolveRunConfig(config);
  const target = promptTarget("openai:test-model", { baseUrl: `${server.url}/v1` });
  const agent = createLlmAgent(client, task, { ...llmAgentOptions(c), target }, arm);
  return runActiveEpisode({ task, config: c, arm: arm === "3d" ? GT : null, agent });
}

describe("LLM active agent over HTTP", () => {
  it("early stop: `stop` ends the episode before --min-steps; the prompt carries ESI's contract", async () => {
    const out = await episode([step("turn_left", "not sure", 0.2), step("stop", truth, 0.6)], {});
    expect(out.episode.stop_reason).toBe("stop_action");
    expect(out.episode.steps_used).toBe(2);
    expect(out.answer.answer).toBe(truth);
    expect(out.episode.forced_choice).toBe(false);
    expect(server!.requests.length).toBe(2);
    const [first, second] = server!.requests;
    expect(systemText(first!)).toMatch(/Confidence threshold to conclude: 0\.80/);
    expect(systemText(first!)).toMatch(/"not sure"/);
    expect(systemText(first!)).toMatch(/stop/);
    expect(userText(first!)).toMatch(/Action history so far: none/);
    expect(userText(first!)).toMatch(/Scene graph of every view so far \(1 views\)/);
    expect(userText(first!)).toMatch(/Unexplored space within 3 m/);
    expect(userText(second!)).toMatch(/step 1: action=turn_left, answer=not sure, confidence=0.2, result=done/);
    expect(userText(second!)).toMatch(/\(2 views\)/);
    // each step's request is its prompt file: the texts the server received, named by their hash
    expect(out.prompts.length).toBe(2);
    out.prompts.forEach((log, k) => {
      expect(promptFileHash(log.file)).toBe(log.file.prompt_hash);
      expect(out.episode.steps[k]!.prompt_file).toBe(`prompts/${log.file.prompt_hash}.json`);
      expect(promptTexts(log.file).user).toBe(userText(server!.requests[k]!));
      expect(promptTexts(log.file).system).toBe(systemText(server!.requests[k]!));
    });
    expect(activeRecord(task, resolveRunConfig({}), GT, "openai:test-model", out, "k").prompt_file).toBe(out.episode.steps[1]!.prompt_file);
  });

  it("threshold stop: a confident conclusive answer stops at --min-steps", async () => {
    const out = await episode([step("turn_left", truth, 0.95)], { active: { minSteps: 3 } });
    expect(out.episode.stop_reason).toBe("confident");
    expect(out.episode.steps_used).toBe(3);
    expect(out.answer).toMatchObject({ answer: truth, confidence: 0.95 });
    expect(out.episode.steps.map((s) => s.correct)).toEqual([true, true, true]);
  });

  it("budget exhaustion: 'not sure' to the end gets one forced choice at temperature 0", async () => {
    const out = await episode(
      [
        step("turn_right", "not sure", 0.3),
        step("turn_right", "not sure", 0.3),
        step("turn_right", "not sure", 0.3),
        step("turn_right", "not sure", 0.3),
        step("stop", wrong, 0.55),
      ],
      { active: { maxSteps: 4 }, llm: { temperature: 0.2 } },
    );
    expect(out.episode.stop_reason).toBe("budget");
    expect(out.episode.steps_used).toBe(4);
    expect(out.episode.forced_choice).toBe(true);
    expect(out.answer).toMatchObject({ status: "parsed", answer: wrong });
    expect(server!.requests.length).toBe(5);
    const last = server!.requests.at(-1)!;
    expect((last.body as Body).temperature).toBe(0);
    expect(userText(last)).toMatch(/you must commit now/);
    expect((server!.requests[0]!.body as Body).temperature).toBe(0.2);
    // the record's usage covers every call of the episode, the forced choice included (openaiReply: 11 + 7 tokens each)
    const rec = activeRecord(task, resolveRunConfig({ maxSteps: 4 }), GT, "openai:test-model", out, "k");
    expect(rec.calls!.length).toBe(5);
    expect(rec.usage).toEqual({ input_tokens: 55, output_tokens: 35 });
    expect(rec.served_model).toBe("test-model-0001");
  });

  it("an invalid action under `reprompt` (the paper): one re-prompt, then the agent stays and the step counts", async () => {
    const out = await episode([step("fly_up", "not sure", 0.1), step("teleport", "not sure", 0.1), step("stop", truth, 0.9)], {
      active: { invalidAction: "reprompt" },
    });
    const s1 = out.episode.steps[0]!;
    expect(s1).toMatchObject({ requested_action: "teleport", valid: false, action: null, blocked: null, reprompted: true });
    expect(userText(server!.requests[1]!)).toMatch(/could not be used \("fly_up" is not one of the actions \(move_forward, .*, pick_up, .*, stop\)\)/);
    expect(out.views).toBe(1); // the agent stayed: no new view
    expect(out.episode.steps[1]!.pose).toEqual(s1.pose);
    expect(out.episode.steps_used).toBe(2);
  });

  it("an invalid action under `forward` (the released code): no re-prompt, move_forward", async () => {
    const out = await episode([step("fly_up", "not sure", 0.1), step("stop", truth, 0.9)], { active: { invalidAction: "forward" } });
    expect(out.episode.steps[0]).toMatchObject({ requested_action: "fly_up", valid: false, action: "move_forward", reprompted: false });
    expect(server!.requests.length).toBe(2);
    expect(out.views).toBe(2);
  });

  it("a malformed reply is re-prompted once; a second malformed one is invalid, and the episode goes on", async () => {
    const out = await episode(
      [openaiReply("Probably yes, they look aligned."), openaiReply("still no JSON"), step("turn_left", "maybe", 0.4), step("stop", truth, 0.8)],
      {},
    );
    const [s1, s2] = out.episode.steps;
    expect(s1).toMatchObject({ status: "invalid", answer: null, valid: false, action: null, reprompted: true });
    expect(s1!.trace).toEqual(["Probably yes, they look aligned.", "still no JSON"]);
    // "maybe" is no choice: re-prompted, then the stop with the answer
    expect(s2).toMatchObject({ status: "parsed", answer: truth, action: "stop", reprompted: true });
    expect(out.answer.answer).toBe(truth);
  });

  it("the 2D/VLM arm sees its last 5 past views and the current one", async () => {
    const out = await episode([step("turn_left", "not sure", 0.1)], { active: { maxSteps: 8 }, baseline: ["2d"] }, "2d");
    expect(out.episode.steps_used).toBe(8);
    const counts = server!.requests.slice(0, 8).map(imageCount);
    expect(counts).toEqual([1, 2, 3, 4, 5, 6, 6, 6]);
    expect(userText(server!.requests[7]!)).toMatch(/\[Past view from step 3\].*\[Past view from step 7\] \[CURRENT VIEW - step 8\]/);
    // the step's prompt file names the images sent, by the sha256 of their bytes, with their views
    const sent = ((server!.requests[7]!.body as Body).messages.find((m) => m.role === "user")!.content as Array<{ type: string; image_url?: { url: string } }>)
      .filter((p) => p.type === "image_url")
      .map((p) =>
        createHash("sha256")
          .update(Buffer.from(p.image_url!.url.split(",")[1]!, "base64"))
          .digest("hex"),
      );
    const named = promptTexts(out.prompts[7]!.file).images;
    expect(named.map((im) => im.sha256)).toEqual(sent);
    expect(named.map((im) => im.view)).toEqual([2, 3, 4, 5, 6, 7]);
  });
});

/** Replies that depend only on the request: the step number and whether it is the forced choice. */
const deterministic: Handler = (req, res) => {
  const u = userText(req);
  const forced = /must commit now/.test(u);
  const n = Number(/Step (\d+) of/.exec(u)?.[1] ?? 0);
  const actions = ["turn_left", "move_forward", "turn_right", "move_left", "turn_down"];
  const body = forced
    ? { action: "stop", answer: "yes", reasoning: "forced", confidence: 0.5 }
    : { action: actions[n % actions.length], answer: "not sure", reasoning: `step ${n}`, confidence: 0.3 };
  setTimeout(() => openaiReply(JSON.stringify(body))(req, res), 30);
};

/** Two linear-alignment episodes of at most 5 steps. */
const RUN: ActiveLlmRunSpec = { subcategories: "linear_alignment", perSubcategory: 2, maxSteps: 5, apiKey: KEY };

describe("esi3d run --paradigm active with an LLM agent", () => {
  it("killed with SIGKILL mid-episode, --resume gives the records of an uninterrupted run", async () => {
    server = await startServer(deterministic);
    const whole = newRunDir("esi3d-active-whole-");
    const wholeRecs = await completedRun(RUN, server, whole, 2);
    const perEpisode = server.requests.length / 2;

    const killed = newRunDir("esi3d-active-kill-");
    // the first episode's third request: in the middle of it, nothing written yet
    const { records: resumed, resumeRequests } = await killedAndResumed(RUN, server, deterministic, killed, 3);
    expectSameRecords(resumed, wholeRecs);
    // the steps answered before the kill came from the response cache
    expect(resumeRequests).toBeLessThan(2 * perEpisode);
    expect(resumed.flatMap((r) => r.calls!).some((c) => c.cached && c.attempts === 0)).toBe(true);
    // every step's prompt file is in the run directory, the same as the uninterrupted run's
    const files = resumed.flatMap((r) => r.active!.steps.map((s) => s.prompt_file!));
    expect(files.length).toBeGreaterThan(2);
    for (const f of files) expect(readFileSync(join(killed, f), "utf8")).toBe(readFileSync(join(whole, f), "utf8"));
  }, 240_000);
});
