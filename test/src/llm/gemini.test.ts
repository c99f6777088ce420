import { afterEach, describe, expect, it } from "vitest";
import { createLlmClient, type LlmClientOptions } from "../../../src/llm/client.js";
import { geminiReply, hang, json, raw, startServer, type TestServer } from "./server.js";

/** What the client tells its onRetry of each retry. */
type RetryEvent = Parameters<NonNullable<LlmClientOptions["onRetry"]>>[0];

const KEY = "AIzaTEST-0123456789-secret-gemini";
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function opts(baseUrl: string, extra: Partial<LlmClientOptions> = {}): LlmClientOptions {
  return { cache: null, baseUrl, env: { GEMINI_API_KEY: KEY }, backoffBaseMs: 1, backoffCapMs: 5, random: () => 0, ...extra };
}

describe("gemini client over real HTTP", () => {
  it("posts to <baseUrl>/v1beta/models/<model>:generateContent with the key header, system, params and inline images", async () => {
    server = await startServer(geminiReply('{"answer": 3}'));
    const c = createLlmClient("gemini:gemini-test", opts(server.url));
    expect(c.id).toBe("gemini:gemini-test");
    const img = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 9, 8, 7]);
    const r = await c.chat({ system: "sys text", user: "how many?", temperature: 0, maxOutputTokens: 32, images: [{ mimeType: "image/png", data: img }] });
    expect(r).toMatchObject({
      text: '{"answer": 3}',
      model: "gemini-test-001",
      attempts: 1,
      cached: false,
      usage: { inputTokens: 13, outputTokens: 5 },
      finishReason: "STOP",
    });
    const req = server.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.url).toBe("/v1beta/models/gemini-test:generateContent");
    expect(req.headers["x-goog-api-key"]).toBe(KEY);
    expect(req.body).toMatchObject({
      contents: [{ role: "user", parts: [{ text: "how many?" }, { inlineData: { mimeType: "image/png", data: Buffer.from(img).toString("base64") } }] }],
      systemInstruction: { parts: [{ text: "sys text" }] },
      generationConfig: { temperature: 0, maxOutputTokens: 32 },
    });
  });

  it("uses the apiVersion option in the path", async () => {
    server = await startServer(geminiReply("ok"));
    const c = createLlmClient("gemini:g", opts(server.url, { apiVersion: "v1" }));
    await c.chat({ user: "q" });
    expect(server.requests[0]!.url).toBe("/v1/models/g:generateContent");
  });

  it("skips thought parts and joins text parts", async () => {
    server = await startServer(
      json(200, { candidates: [{ content: { parts: [{ text: "thinking…", thought: true }, { text: "A" }, { text: "B" }] }, finishReason: "STOP" }] }),
    );
    const c = createLlmClient("gemini:g", opts(server.url));
    expect((await c.chat({ user: "q" })).text).toBe("AB");
  });

  it("returns empty text with a BLOCKED finish reason for a blocked prompt", async () => {
    server = await startServer(json(200, { promptFeedback: { blockReason: "SAFETY" } }));
    const c = createLlmClient("gemini:g", opts(server.url));
    expect(await c.chat({ user: "q" })).toMatchObject({ text: "", finishReason: "BLOCKED:SAFETY" });
  });

  it("honours retry-after-ms on 429, then succeeds", async () => {
    server = await startServer(
      json(429, { error: { code: 429, message: "quota", status: "RESOURCE_EXHAUSTED" } }, { "retry-after-ms": "200" }),
      geminiReply("ok"),
    );
    const events: RetryEvent[] = [];
    const c = createLlmClient("gemini:g", opts(server.url, { onRetry: (e) => events.push(e) }));
    const r = await c.chat({ user: "q" });
    expect(r.attempts).toBe(2);
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(190);
    expect(events[0]).toMatchObject({ status: 429, delayMs: 200, serverRequested: true });
  });

  it("honours the RetryInfo retryDelay in a Google error body", async () => {
    server = await startServer(
      json(429, {
        error: {
          code: 429,
          message: "quota",
          status: "RESOURCE_EXHAUSTED",
          details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "0.25s" }],
        },
      }),
      geminiReply("ok"),
    );
    const events: RetryEvent[] = [];
    const c = createLlmClient("gemini:g", opts(server.url, { onRetry: (e) => events.push(e) }));
    await c.chat({ user: "q" });
    expect(events[0]).toMatchObject({ delayMs: 250, serverRequested: true });
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(240);
  });

  it("retries a 500 then succeeds", async () => {
    server = await startServer(json(500, { error: { code: 500, message: "internal" } }), geminiReply("ok"));
    const c = createLlmClient("gemini:g", opts(server.url));
    expect(await c.chat({ user: "q" })).toMatchObject({ text: "ok", attempts: 2 });
  });

  it("fails a 400 at once with the server's message", async () => {
    server = await startServer(json(400, { error: { code: 400, message: "API key not valid. Please pass a valid API key.", status: "INVALID_ARGUMENT" } }));
    const c = createLlmClient("gemini:g", opts(server.url));
    const err = await c.chat({ user: "q" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "http", status: 400, attempts: 1 });
    expect((err as Error).message).toContain("HTTP 400: API key not valid");
    expect(server.requests).toHaveLength(1);
  });

  it("reads a non-JSON error body", async () => {
    server = await startServer(raw(404, "no such model", { "content-type": "text/plain" }));
    const c = createLlmClient("gemini:g", opts(server.url));
    await expect(c.chat({ user: "q" })).rejects.toThrow(/HTTP 404: no such model/);
  });

  it("times out a server that never answers", async () => {
    server = await startServer(hang);
    const c = createLlmClient("gemini:g", opts(server.url, { timeoutMs: 200, maxRetries: 0 }));
    const t0 = Date.now();
    await expect(c.chat({ user: "q" })).rejects.toMatchObject({ kind: "timeout", attempts: 1 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
  });

  it("retries a malformed (cut) JSON body, and reports bad_response once the retries are spent", async () => {
    server = await startServer(raw(200, "{candidates: oops", { "content-type": "application/json" }));
    const c = createLlmClient("gemini:g", { ...opts(server.url), maxRetries: 1, backoffBaseMs: 1, backoffCapMs: 2 });
    await expect(c.chat({ user: "q" })).rejects.toMatchObject({ kind: "bad_response", attempts: 2 });
    expect(server.requests).toHaveLength(2);
  });

  it("names GEMINI_API_KEY when it is missing", () => {
    expect(() => createLlmClient("gemini:g", { cache: null, env: {} })).toThrow(/GEMINI_API_KEY is not set/);
  });
});

describe("the RetryInfo delay of a 429's body", () => {
  const retried = async (...bodies: string[]) => {
    server = await startServer(...bodies.map((b) => raw(429, b, { "content-type": "application/json" })), geminiReply("ok"));
    const events: RetryEvent[] = [];
    await createLlmClient("gemini:g", opts(server.url, { onRetry: (e) => events.push(e) })).chat({ user: "q" });
    return events.map((e) => ({ delayMs: e.delayMs, serverRequested: e.serverRequested }));
  };
  const body = (d: string) => JSON.stringify({ error: { details: [{ "@type": "x" }, { retryDelay: d }] } });

  it("reads protobuf Duration strings, whole or fractional seconds, in any entry of error.details", async () => {
    expect(await retried(body("1s"), body("0.05s"))).toEqual([
      { delayMs: 1000, serverRequested: true },
      { delayMs: 50, serverRequested: true },
    ]);
  });
  it("falls back to the client's own backoff on a delay it cannot read, or a body that is not JSON", async () => {
    const events = await retried(body("soon"), "not json");
    expect(events.map((e) => e.serverRequested)).toEqual([false, false]);
    expect(events.every((e) => e.delayMs <= 5)).toBe(true); // backoffCapMs
  });
});
