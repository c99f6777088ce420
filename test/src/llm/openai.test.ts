import { afterEach, describe, expect, it } from "vitest";
import { createLlmClient, type LlmClientOptions } from "../../../src/llm/client.js";
import { LlmError } from "../../../src/llm/types.js";
import { delayed, hang, json, openaiReply, raw, startServer, type TestServer } from "./server.js";

/** What the client tells its onRetry of each retry. */
type RetryEvent = Parameters<NonNullable<LlmClientOptions["onRetry"]>>[0];

const KEY = "sk-test-0123456789abcdefSECRET";
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** fast settings for tests: millisecond backoff, no cache unless asked */
function opts(baseUrl: string, extra: Partial<LlmClientOptions> = {}): LlmClientOptions {
  return {
    cache: null,
    baseUrl: `${baseUrl}/v1`,
    env: { OPENAI_API_KEY: KEY },
    backoffBaseMs: 1,
    backoffCapMs: 5,
    random: () => 0,
    ...extra,
  };
}

describe("openai client over real HTTP", () => {
  it("sends a Chat Completions request and reads text, usage and model", async () => {
    server = await startServer(openaiReply('{"answer": "yes", "confidence": 0.9}'));
    const c = createLlmClient("openai:gpt-test", opts(server.url));
    expect(c.id).toBe("openai:gpt-test");
    const r = await c.chat({ system: "be brief", user: "Is it?", temperature: 0, maxOutputTokens: 64 });
    expect(r.text).toBe('{"answer": "yes", "confidence": 0.9}');
    expect(r).toMatchObject({ model: "test-model-0001", attempts: 1, cached: false, usage: { inputTokens: 11, outputTokens: 7 }, finishReason: "stop" });
    expect(r.latencyMs).toBeGreaterThanOrEqual(0);
    const req = server.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.url).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.body).toMatchObject({
      model: "gpt-test",
      temperature: 0,
      max_tokens: 64, // a custom base URL gets max_tokens by default
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "Is it?" },
      ],
    });
  });

  it("sends images as image_url parts with base64 data URLs", async () => {
    server = await startServer(openaiReply("ok"));
    const c = createLlmClient("openai:gpt-test", opts(server.url));
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 250]);
    const jpg = new Uint8Array([0xff, 0xd8, 0xff, 7]);
    await c.chat({
      user: "look",
      images: [
        { mimeType: "image/png", data: png },
        { mimeType: "image/jpeg", data: jpg },
      ],
    });
    const body = server.requests[0]!.body as { messages: Array<{ role: string; content: unknown }> };
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${Buffer.from(png).toString("base64")}` } },
          { type: "image_url", image_url: { url: `data:image/jpeg;base64,${Buffer.from(jpg).toString("base64")}` } },
        ],
      },
    ]);
    expect(body).not.toHaveProperty("temperature");
  });

  it("honours Retry-After (seconds) on 429, then succeeds", async () => {
    server = await startServer(json(429, { error: { message: "slow down" } }, { "retry-after": "1" }), openaiReply("fine"));
    const events: RetryEvent[] = [];
    const c = createLlmClient("openai:gpt-test", opts(server.url, { onRetry: (e) => events.push(e) }));
    const r = await c.chat({ user: "q" });
    expect(r.text).toBe("fine");
    expect(r.attempts).toBe(2);
    expect(server.requests).toHaveLength(2);
    const gap = server.requests[1]!.at - server.requests[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(950); // backoff alone would be ~1 ms
    expect(events).toEqual([expect.objectContaining({ attempt: 1, kind: "http", status: 429, delayMs: 1000, serverRequested: true })]);
    expect(events[0]!.message).toContain("slow down");
  });

  it("honours retry-after-ms before Retry-After", async () => {
    server = await startServer(raw(503, "overloaded", { "retry-after-ms": "150", "retry-after": "30" }), openaiReply("fine"));
    const c = createLlmClient("openai:gpt-test", opts(server.url));
    const r = await c.chat({ user: "q" });
    expect(r.attempts).toBe(2);
    const gap = server.requests[1]!.at - server.requests[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(140);
    expect(gap).toBeLessThan(5000);
  });

  it("retries a 500 with exponential backoff, then succeeds", async () => {
    server = await startServer(json(500, { error: { message: "boom" } }), json(502, { error: { message: "bad gw" } }), openaiReply("ok"));
    const events: RetryEvent[] = [];
    const c = createLlmClient("openai:gpt-test", opts(server.url, { backoffBaseMs: 20, backoffCapMs: 1000, onRetry: (e) => events.push(e) }));
    const r = await c.chat({ user: "q" });
    expect(r.attempts).toBe(3);
    expect(events.map((e) => [e.status, e.delayMs, e.serverRequested])).toEqual([
      [500, 20, false],
      [502, 40, false],
    ]);
  });

  it("gives up after maxRetries and reports the attempts", async () => {
    server = await startServer(json(500, { error: { message: "still broken" } }));
    const c = createLlmClient("openai:gpt-test", opts(server.url, { maxRetries: 2 }));
    const err = await c.chat({ user: "q" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect(err).toMatchObject({ kind: "http", status: 500, attempts: 3 });
    expect((err as Error).message).toMatch(/HTTP 500: still broken \(3 attempts\)/);
    expect(server.requests).toHaveLength(3);
  });

  it("fails a 400 at once with the server's message", async () => {
    server = await startServer(json(400, { error: { message: "Invalid image data", type: "invalid_request_error" } }));
    const c = createLlmClient("openai:gpt-test", opts(server.url));
    const err = await c.chat({ user: "q" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "http", status: 400, attempts: 1, retryable: false });
    expect((err as Error).message).toContain("HTTP 400: Invalid image data");
    expect(server.requests).toHaveLength(1);
  });

  it("times out a server that never answers, after the configured ms", async () => {
    server = await startServer(hang);
    const c = createLlmClient("openai:gpt-test", opts(server.url, { timeoutMs: 200, maxRetries: 0 }));
    const t0 = Date.now();
    const err = await c.chat({ user: "q" }).catch((e: unknown) => e);
    const dt = Date.now() - t0;
    expect(err).toMatchObject({ kind: "timeout", attempts: 1 });
    expect((err as Error).message).toContain("within 200 ms");
    expect(dt).toBeGreaterThanOrEqual(190);
    expect(dt).toBeLessThan(3000);
  });

  it("retries a timeout when retries are allowed", async () => {
    server = await startServer(hang, openaiReply("late but fine"));
    const c = createLlmClient("openai:gpt-test", opts(server.url, { timeoutMs: 150, maxRetries: 1 }));
    const r = await c.chat({ user: "q" });
    expect(r).toMatchObject({ text: "late but fine", attempts: 2 });
  });

  it("retries a malformed (cut) JSON body, and reports bad_response once the retries are spent", async () => {
    server = await startServer(raw(200, '{"choices": [ this is not json', { "content-type": "application/json" }));
    const c = createLlmClient("openai:gpt-test", { ...opts(server.url), maxRetries: 1, backoffBaseMs: 1, backoffCapMs: 2 });
    const err = await c.chat({ user: "q" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "bad_response", attempts: 2 });
    expect((err as Error).message).toMatch(/malformed JSON/);
    expect(server.requests).toHaveLength(2);
  });

  it("reports a body without choices as bad_response", async () => {
    server = await startServer(json(200, { hello: "world" }));
    const c = createLlmClient("openai:gpt-test", opts(server.url));
    await expect(c.chat({ user: "q" })).rejects.toMatchObject({ kind: "bad_response" });
  });

  it("returns an empty text for null content (not an error)", async () => {
    server = await startServer(openaiReply(null));
    const c = createLlmClient("openai:gpt-test", opts(server.url));
    const r = await c.chat({ user: "q" });
    expect(r.text).toBe("");
  });

  it("retries connection errors and then fails with kind connection", async () => {
    server = await startServer(openaiReply("x"));
    const url = server.url;
    await server.close();
    server = undefined;
    const events: RetryEvent[] = [];
    const c = createLlmClient("openai:gpt-test", opts(url, { maxRetries: 2, onRetry: (e) => events.push(e) }));
    const err = await c.chat({ user: "q" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "connection", attempts: 3 });
    expect(events).toHaveLength(2);
  });

  it("stops when the caller aborts", async () => {
    server = await startServer(hang);
    const c = createLlmClient("openai:gpt-test", opts(server.url, { timeoutMs: 10_000 }));
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 50);
    await expect(c.chat({ user: "q" }, ctl.signal)).rejects.toMatchObject({ kind: "aborted" });
  });

  it("keeps at most maxConcurrency requests in flight", async () => {
    server = await startServer(delayed(40, openaiReply("ok")));
    const c = createLlmClient("openai:gpt-test", opts(server.url, { maxConcurrency: 2 }));
    await Promise.all(Array.from({ length: 6 }, (_, i) => c.chat({ user: `q${i}` })));
    expect(server.requests).toHaveLength(6);
    expect(server.maxInFlight).toBe(2);
  });

  it("sends max_completion_tokens when maxTokensParam asks for it", async () => {
    server = await startServer(openaiReply("ok"));
    const c = createLlmClient("openai:gpt-test", opts(server.url, { maxTokensParam: "max_completion_tokens" }));
    await c.chat({ user: "q", maxOutputTokens: 5 });
    expect(server.requests[0]!.body).toMatchObject({ max_completion_tokens: 5 });
    expect(server.requests[0]!.body).not.toHaveProperty("max_tokens");
  });
});

describe("openai keys", () => {
  it("names OPENAI_API_KEY when it is missing and no server was chosen", () => {
    expect(() => createLlmClient("openai:gpt-4o", { cache: null, env: {} })).toThrow(/OPENAI_API_KEY is not set/);
  });

  it("allows a keyless local server and sends a placeholder", async () => {
    server = await startServer(openaiReply("local"));
    const c = createLlmClient("openai:llama", { cache: null, baseUrl: `${server.url}/v1`, env: {} });
    expect((await c.chat({ user: "q" })).text).toBe("local");
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-no-key-required");
  });

  it("reads OPENAI_BASE_URL from the environment", async () => {
    server = await startServer(openaiReply("env"));
    const c = createLlmClient("openai:llama", { cache: null, env: { OPENAI_BASE_URL: `${server.url}/v1` } });
    expect((await c.chat({ user: "q" })).text).toBe("env");
  });

  it("rejects an unknown provider", () => {
    expect(() => createLlmClient("anthropic:claude", { cache: null, env: {} })).toThrow(/expected "openai:<model>" or "gemini:<model>"/);
  });
});
