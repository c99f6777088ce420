import { afterEach, describe, expect, it } from "vitest";
import type { ServerResponse } from "node:http";
import { decodePng } from "../../../core/bundle/png.js";
import type { Task } from "../../../core/task/schema.js";
import { ResponseCache } from "../../../src/llm/cache.js";
import { serializeGraph } from "../../../src/prompt/serialize.js";
import { buildPrompt, promptRecord } from "../../../src/prompt/templates.js";
import { createLlmReasoner, type LlmReasonerOptions } from "../../../src/reason/llm.js";
import { LlmOptionsSchema, type LlmOptions } from "../../../src/llm/options.js";
import { ImageOptionsSchema, OptionPresentationSchema, PromptFormatSchema } from "../../../src/prompt/formats.js";
import { repromptText } from "../../../src/prompt/reminder.js";
import { geminiReply, hang, json, openaiReply, startServer, type Handler, type RecordedRequest, type TestServer } from "../llm/server.js";
import { selectViews } from "../../../src/prompt/viewSelection.js";
import { bundleOf, smallTask } from "../prompt/bundles.js";
import { tableScene } from "../prompt/graphs.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const OPENAI_KEY = "sk-llm-reasoner-test-key";
const GEMINI_KEY = "AIzaLLM-reasoner-test-key";

/** A task about the hand-built table scene (tableScene): the mug n1 sits on the table n0. */
function tableTask(): Task {
  return {
    ...smallTask(),
    question: "Is the white mug on the table?",
    answer_format: "yes_no",
    options: ["yes", "no"],
    answer: "yes",
    subcategory: "physical_contact",
  };
}

/** The prompt options of a run that sets none. */
const PROMPT_DEFAULTS: LlmReasonerOptions["prompt"] = {
  ...PromptFormatSchema.parse({}),
  optionLabels: OptionPresentationSchema.shape.optionLabels.parse(undefined),
};

/** A reasoner's options against the loopback server: the schemas' defaults but for the endpoint and no retries. */
function openaiOpts(url: string, llm: Partial<LlmOptions> = {}, extra: Partial<LlmReasonerOptions> = {}): LlmReasonerOptions {
  return {
    llm: LlmOptionsSchema.parse({ baseUrl: `${url}/v1`, maxRetries: 0, ...llm }),
    prompt: PROMPT_DEFAULTS,
    clientOptions: { env: { OPENAI_API_KEY: OPENAI_KEY }, backoffBaseMs: 1, backoffCapMs: 2 },
    ...extra,
  };
}

type OpenAiBody = {
  model: string;
  temperature?: number;
  messages: Array<{ role: string; content: string | Array<{ type: string; text?: string; image_url?: { url: string } }> }>;
};

function userText(req: RecordedRequest): string {
  const c = (req.body as OpenAiBody).messages.find((m) => m.role === "user")!.content;
  return typeof c === "string" ? c : c.find((p) => p.type === "text")!.text!;
}

/** Answers "yes" only if the request carries the graph's facts; otherwise a 400, so a test cannot pass without them. */
function graphChecking(reply: string): Handler {
  return (req, res: ServerResponse) => {
    const text = userText(req);
    const ok = text.includes('{"subject": "n1", "predicate": "on", "object": "n0"') && text.includes('"label": "mug", "colour": "white"');
    if (!ok) return json(400, { error: { message: "the scene graph is missing from the prompt" } })(req, res);
    return openaiReply(reply)(req, res);
  };
}

describe("createLlmReasoner over real HTTP (OpenAI wire format)", () => {
  it("answers a question over a scene graph, recording prompt, hash, replies and usage", async () => {
    server = await startServer(graphChecking('{"answer": "yes", "confidence": 0.85}'));
    const r = createLlmReasoner("openai:test-model", openaiOpts(server.url));
    expect(r).toMatchObject({ id: "openai:test-model", needs: "graph" });
    const task = tableTask();
    const graph = tableScene();
    const a = await r.answer({ task, graph });
    expect(a).toMatchObject({
      status: "parsed",
      answer: "yes",
      confidence: 0.85,
      method: "json",
      raw: ['{"answer": "yes", "confidence": 0.85}'],
      reprompted: false,
      cached: false,
      usage: { inputTokens: 11, outputTokens: 7 },
    });
    expect(a.promptHash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.latencyMs).toBeGreaterThanOrEqual(0);
    const built = buildPrompt({ task, graph }, PROMPT_DEFAULTS);
    expect(a.prompt).toBe(promptRecord(built));
    expect(server.requests).toHaveLength(1);
    const body = server.requests[0]!.body as OpenAiBody;
    expect(body.model).toBe("test-model");
    expect(body.temperature).toBe(0);
    expect(body.messages[0]).toEqual({ role: "system", content: built.system });
    expect(body.messages[1]!.content).toBe(built.user); // text only: no image parts
    expect(built.user).toContain(serializeGraph(graph, { format: "relations", uncertainty: false }));
  });

  it("re-prompts once when the first reply has no answer", async () => {
    server = await startServer(openaiReply("I would need to look at the scene more carefully."), graphChecking('{"answer": "no", "confidence": 0.4}'));
    const r = createLlmReasoner("openai:test-model", openaiOpts(server.url));
    const a = await r.answer({ task: tableTask(), graph: tableScene() });
    expect(a).toMatchObject({ status: "parsed", answer: "no", confidence: 0.4, reprompted: true, usage: { inputTokens: 22, outputTokens: 14 } });
    expect(a.raw).toHaveLength(2);
    expect(a.reason).toMatch(/^re-prompted \(first reply: /);
    expect(server.requests).toHaveLength(2);
    expect(userText(server.requests[1]!)).toBe(repromptText(userText(server.requests[0]!), tableTask()));
  });

  it("records `invalid` after two unreadable replies, without throwing", async () => {
    server = await startServer(openaiReply("Hmm."), openaiReply("Perhaps; it depends on the lighting."));
    const r = createLlmReasoner("openai:test-model", openaiOpts(server.url));
    const a = await r.answer({ task: tableTask(), graph: tableScene() });
    expect(a).toMatchObject({
      status: "invalid",
      answer: null,
      confidence: null,
      method: "none",
      reprompted: true,
      raw: ["Hmm.", "Perhaps; it depends on the lighting."],
    });
    expect(a.reason).toMatch(/\(first reply: .+\)$/);
    expect(a.prompt).toContain("=== user ===");
  });

  it("records `error` for a failing server and `empty` for an empty reply, without throwing", async () => {
    server = await startServer(json(400, { error: { message: "model not found" } }));
    const r = createLlmReasoner("openai:test-model", openaiOpts(server.url));
    const e = await r.answer({ task: tableTask(), graph: tableScene() });
    expect(e).toMatchObject({ status: "error", answer: null, raw: [], reprompted: false });
    expect(e.reason).toContain("model not found");
    server.script(
      json(200, {
        id: "x",
        object: "chat.completion",
        created: 1,
        model: "m",
        choices: [{ index: 0, message: { role: "assistant", content: "" }, finish_reason: "length" }],
      }),
    );
    const m = await r.answer({ task: tableTask(), graph: tableScene() });
    expect(m).toMatchObject({ status: "empty", answer: null, raw: [""] });
    expect(m.reason).toContain("finish reason length");
  });

  it("records `error` when the input lacks what the arm needs", async () => {
    const r = createLlmReasoner("openai:test-model", openaiOpts("http://127.0.0.1:9"));
    const a = await r.answer({ task: tableTask() });
    expect(a).toMatchObject({ status: "error", answer: null, raw: [] });
    expect(a.reason).toMatch(/needs a scene graph/);
  });

  it("re-throws a cancellation", async () => {
    server = await startServer(hang);
    const r = createLlmReasoner("openai:test-model", openaiOpts(server.url));
    const ctl = new AbortController();
    const p = r.answer({ task: tableTask(), graph: tableScene() }, ctl.signal);
    setTimeout(() => ctl.abort(), 50);
    await expect(p).rejects.toMatchObject({ kind: "aborted" });
  });

  it("serves a repeated question from the cache, and the hash covers model, server and parameters", async () => {
    server = await startServer(openaiReply('{"answer": "yes", "confidence": 0.9}'));
    const cache = ResponseCache.open(":memory:");
    try {
      const r = createLlmReasoner("openai:test-model", openaiOpts(server.url, {}, { cache }));
      const input = { task: tableTask(), graph: tableScene() };
      const a = await r.answer(input);
      const b = await r.answer(input);
      expect(a.cached).toBe(false);
      expect(b).toMatchObject({ status: "parsed", answer: "yes", cached: true });
      expect(b.promptHash).toBe(a.promptHash);
      expect(server.requests).toHaveLength(1);
      const other = await createLlmReasoner("openai:other-model", openaiOpts(server.url)).answer(input);
      const hot = await createLlmReasoner("openai:test-model", openaiOpts(server.url, { temperature: 0.7 })).answer(input);
      const elsewhere = await createLlmReasoner("openai:test-model", openaiOpts(`${server.url}/proxy`)).answer(input);
      const hashes = new Set([a.promptHash, other.promptHash, hot.promptHash, elsewhere.promptHash]);
      expect(hashes.size).toBe(4);
    } finally {
      cache.close();
    }
  });

  it("is the VLM 2D baseline with images: base64 PNGs of the bundle's views, and no graph", async () => {
    server = await startServer(openaiReply('{"answer": "the candle", "confidence": 0.5}'));
    const task = smallTask();
    const bundle = bundleOf(task, "gt");
    const r = createLlmReasoner("openai:vlm-test", openaiOpts(server.url, {}, { images: ImageOptionsSchema.parse({ images: "multi", maxImages: 4 }) }));
    expect(r.needs).toBe("bundle");
    const a = await r.answer({ task, bundle });
    expect(a).toMatchObject({ status: "parsed", answer: "the candle" });
    const body = server.requests[0]!.body as OpenAiBody;
    const parts = body.messages[1]!.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    expect(parts[0]!.type).toBe("text");
    expect(parts[0]!.text).not.toContain("Scene graph");
    const imgs = parts.slice(1);
    expect(imgs).toHaveLength(4);
    const shown = selectViews(bundle.views.length, "multi", 4);
    expect([shown[0], shown[3]]).toEqual([0, bundle.views.length - 1]);
    imgs.forEach((p, k) => {
      expect(p.type).toBe("image_url");
      const m = /^data:image\/png;base64,(.+)$/.exec(p.image_url!.url)!;
      const dec = decodePng(Buffer.from(m[1]!, "base64"));
      const v = bundle.views[shown[k]!]!;
      expect([dec.width, dec.height]).toEqual([v.width, v.height]);
      expect(Buffer.from(dec.data as Uint8Array).equals(Buffer.from(v.rgb))).toBe(true);
      expect(parts[0]!.text).toContain(`- image ${k + 1}: view ${shown[k]}`);
    });
    expect(a.prompt).toMatch(/=== images ===\nimage 1: view 0, image\/png, sha256 [0-9a-f]{64}/);
  });
});

describe("createLlmReasoner over real HTTP (Gemini wire format)", () => {
  it("round-trips a graph question through generateContent", async () => {
    server = await startServer(geminiReply('```json\n{"answer": "yes", "confidence": 0.75}\n```'));
    const r = createLlmReasoner("gemini:gemini-test", {
      llm: LlmOptionsSchema.parse({ baseUrl: server.url, maxRetries: 0 }),
      prompt: { ...PROMPT_DEFAULTS, format: "text" },
      clientOptions: { env: { GEMINI_API_KEY: GEMINI_KEY } },
    });
    expect(r).toMatchObject({ id: "gemini:gemini-test", needs: "graph" });
    const task = tableTask();
    const graph = tableScene();
    const a = await r.answer({ task, graph, uncertainty: true });
    expect(a).toMatchObject({ status: "parsed", answer: "yes", confidence: 0.75, method: "json", usage: { inputTokens: 13, outputTokens: 5 } });
    const req = server.requests[0]!;
    expect(req.url).toBe("/v1beta/models/gemini-test:generateContent");
    expect(req.headers["x-goog-api-key"]).toBe(GEMINI_KEY);
    const body = req.body as {
      contents: Array<{ parts: Array<{ text?: string }> }>;
      systemInstruction: { parts: Array<{ text: string }> };
      generationConfig: { temperature: number };
    };
    expect(body.systemInstruction.parts[0]!.text).toBe(buildPrompt({ task, graph, uncertainty: true }, { ...PROMPT_DEFAULTS, format: "text" }).system);
    expect(body.generationConfig.temperature).toBe(0);
    const text = body.contents[0]!.parts[0]!.text!;
    expect(text).toContain("n1 is a white mug at (1.20, 0.40, 0.80) m");
    expect(text).toContain("possible duplicate of n1 (a mug)");
    expect(text).toBe(buildPrompt({ task, graph, uncertainty: true }, { format: "text" }).user);
    expect(a.prompt).not.toContain(GEMINI_KEY);
  });
});
