/**
 * Issue 18: every LLM item of a run can be audited from the run directory alone. A real run (in this
 * process, no worker threads) against loopback servers speaking the OpenAI and Gemini wire formats: the
 * stored prompt file holds exactly the messages and images the server received, and the record keeps the
 * served model name, the token usage the server reported, each call's latency and the re-prompt's text.
 * The offline shortcut arm of the same run has no tokens: null, not 0.
 */
import { afterEach, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { resolveRunConfig } from "../../../src/eval/config.js";
import { runEvaluation } from "../../../src/eval/runner.js";
import { readRecords, type ItemRecord } from "../../../src/eval/records.js";
import { promptImagePath, readPromptFile } from "../../../src/eval/promptFiles.js";
import { promptTexts, type PromptFile } from "../../../src/reason/promptFile.js";
import { geminiReply, openaiReply, startServer, type Handler, type RecordedRequest, type TestServer } from "../llm/server.js";

let server: TestServer | undefined;
const savedEnv = { ...process.env };
afterEach(async () => {
  await server?.close();
  server = undefined;
  process.env = { ...savedEnv };
});

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** What the server received, in provider-neutral form: system text, user text, images (MIME type, bytes). */
interface Received {
  system: string | null;
  user: string;
  images: Array<{ mimeType: string; data: Buffer }>;
}

function receivedOpenAi(req: RecordedRequest): Received {
  const body = req.body as { messages: Array<{ role: string; content: string | Array<{ type: string; text?: string; image_url?: { url: string } }> }> };
  const sys = body.messages.find((m) => m.role === "system");
  const user = body.messages.find((m) => m.role === "user")!.content;
  const parts = typeof user === "string" ? [{ type: "text", text: user }] : user;
  return {
    system: sys ? (sys.content as string) : null,
    user: parts
      .filter((p) => p.type === "text")
      .map((p) => p.text!)
      .join("\n"),
    images: parts
      .filter((p) => p.type === "image_url")
      .map((p) => {
        const m = /^data:([^;]+);base64,(.*)$/.exec(p.image_url!.url)!;
        return { mimeType: m[1]!, data: Buffer.from(m[2]!, "base64") };
      }),
  };
}

function receivedGemini(req: RecordedRequest): Received {
  const body = req.body as {
    systemInstruction?: { parts: Array<{ text: string }> };
    contents: Array<{ parts: Array<{ text?: string; inlineData?: { mimeType: string; data: string } }> }>;
  };
  const parts = body.contents[0]!.parts;
  return {
    system: body.systemInstruction ? body.systemInstruction.parts.map((p) => p.text).join("\n") : null,
    user: parts
      .filter((p) => p.text !== undefined)
      .map((p) => p.text!)
      .join("\n"),
    images: parts.filter((p) => p.inlineData).map((p) => ({ mimeType: p.inlineData!.mimeType, data: Buffer.from(p.inlineData!.data, "base64") })),
  };
}

/** A readable yes/no answer (the run's only subcategory, physical contact, asks yes or no). */
const YES = JSON.stringify({ answer: "yes", confidence: 0.6 });

async function smallRun(reasoner: string, baseUrl: string): Promise<{ out: string; records: ItemRecord[] }> {
  const out = join(mkdtempSync(join(tmpdir(), "esi3d-itemlog-")), "r");
  const config = resolveRunConfig({
    perSubcategory: 1,
    subcategories: ["physical_contact"],
    paradigms: ["multi"],
    sources: ["gt"],
    labels: ["oracle"],
    reasoner,
    images: { images: "multi", maxImages: 3 },
    llm: { baseUrl, cachePath: null, maxRetries: 0 },
  });
  await runEvaluation({ config, out, resume: false, version: "test", log: () => {}, workers: false });
  return { out, records: readRecords(join(out, "items.jsonl")).records };
}

/** The record's prompt file equals what the server received for it, images byte for byte. */
function expectPromptFileIsRequest(out: string, r: ItemRecord, received: Received[]): PromptFile {
  expect(r.prompt_file).toBe(`prompts/${r.prompt_hash}.json`);
  const f = readPromptFile(out, r.prompt_file!);
  const t = promptTexts(f);
  const got = received.filter((q) => q.user === t.user);
  expect(got.length, `no request had the user text of ${r.key}`).toBeGreaterThanOrEqual(1);
  const q = got[0]!;
  expect(q.system).toBe(t.system === "" ? null : t.system);
  expect(q.images.map((im) => ({ mimeType: im.mimeType, sha256: sha(im.data) }))).toEqual(t.images.map((im) => ({ mimeType: im.mimeType, sha256: im.sha256 })));
  for (const [k, im] of t.images.entries()) {
    const file = join(out, promptImagePath(im.sha256, im.mimeType));
    expect(existsSync(file)).toBe(true);
    expect(Buffer.compare(readFileSync(file), q.images[k]!.data)).toBe(0);
  }
  return f;
}

function expectOfflineHasNoLog(records: ItemRecord[]): void {
  const shortcut = records.filter((r) => r.arm === "shortcut");
  expect(shortcut.length).toBe(1);
  for (const r of shortcut)
    expect({ usage: r.usage, served_model: r.served_model, calls: r.calls, prompt_file: r.prompt_file, reprompt: r.reprompt }).toEqual({
      usage: null,
      served_model: null,
      calls: null,
      prompt_file: null,
      reprompt: null,
    });
}

describe("the audit log of an LLM run (issue 18)", () => {
  it("OpenAI wire format: prompt file = request (text and images), usage, served model, latency; the shortcut arm has null usage", async () => {
    server = await startServer(openaiReply(YES));
    process.env.OPENAI_API_KEY = "sk-itemlog-test";
    const { out, records } = await smallRun("openai:test-model", `${server.url}/v1`);
    const llm = records.filter((r) => r.arm !== "shortcut");
    expect(llm.map((r) => r.arm).sort()).toEqual(["2d", "3d"]);
    const received = server.requests.map(receivedOpenAi);
    for (const r of llm) {
      expect(r.status, r.error?.message).toBe("parsed");
      const f = expectPromptFileIsRequest(out, r, received);
      expect(f.provider).toBe("openai");
      expect(f.model).toBe("test-model");
      // openaiReply: model "test-model-0001", usage 11 prompt + 7 completion tokens per call
      expect(r.served_model).toBe("test-model-0001");
      expect(r.calls!.length).toBe(1);
      expect(r.usage).toEqual({ input_tokens: 11, output_tokens: 7 });
      expect(r.timings_ms.model_call_1).toBeGreaterThan(0);
      expect(r.timings_ms.model_call_1).toBeLessThanOrEqual(r.timings_ms.reason!);
      expect(r.reprompt).toBeNull();
    }
    // the VLM arm sent images; the graph arm sent none
    expect(received.some((q) => q.images.length === 3)).toBe(true);
    expect(received.some((q) => q.images.length === 0)).toBe(true);
    expectOfflineHasNoLog(records);
  }, 120_000);

  it("Gemini wire format: prompt file = request, usageMetadata and modelVersion recorded; a re-prompt's text is kept", async () => {
    // the first reply of every item is unreadable, so each item is re-prompted once
    const seen = new Set<string>();
    const handler: Handler = (req, res) => {
      const user = receivedGemini(req).user;
      const first = [...seen].every((u) => !user.startsWith(u));
      seen.add(user);
      return first ? geminiReply("I would rather not say.")(req, res) : geminiReply(YES)(req, res);
    };
    server = await startServer(handler);
    process.env.GEMINI_API_KEY = "AIza-itemlog-test";
    const { out, records } = await smallRun("gemini:gemini-test", server.url);
    const received = server.requests.map(receivedGemini);
    const llm = records.filter((r) => r.arm !== "shortcut");
    expect(llm.length).toBe(2);
    for (const r of llm) {
      expect(r.status, r.error?.message).toBe("parsed");
      expect(r.reprompted).toBe(true);
      const f = expectPromptFileIsRequest(out, r, received);
      expect(f.provider).toBe("gemini");
      // the re-prompt the server received is the stored prompt's user text, the separator and the stored reprompt
      const user = promptTexts(f).user;
      expect(received.some((q) => q.user === `${user}\n\n${r.reprompt}`)).toBe(true);
      expect(r.reprompt).toMatch(/could not be read as an answer/);
      // geminiReply: modelVersion "gemini-test-001", 13 prompt + 5 candidate tokens per call, two calls
      expect(r.served_model).toBe("gemini-test-001");
      expect(r.usage).toEqual({ input_tokens: 26, output_tokens: 10 });
      expect(r.calls!.map((c) => c.finish_reason)).toEqual(["STOP", "STOP"]);
      expect(r.timings_ms.model_call_1! + r.timings_ms.model_call_2!).toBeLessThanOrEqual(r.timings_ms.reason!);
      expect(r.raw.length).toBe(2);
    }
    expectOfflineHasNoLog(records);
  }, 120_000);
});
