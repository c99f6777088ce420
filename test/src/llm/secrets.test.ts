/**
 * API keys must never appear in thrown errors, retry events, results or cache files, whatever goes wrong, even when
 * the server echoes the key back.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLlmClient, type LlmClientOptions } from "../../../src/llm/client.js";
import { redact } from "../../../src/llm/redact.js";
import { hang, json, openaiReply, geminiReply, raw, startServer, type Handler, type TestServer } from "./server.js";

/** What the client tells its onRetry of each retry. */
type RetryEvent = Parameters<NonNullable<LlmClientOptions["onRetry"]>>[0];

const OPENAI_KEY = "sk-proj-SECRETSECRET-0123456789abcdef";
const GEMINI_KEY = "AIzaSyD-SECRETSECRET-9876543210";

let server: TestServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A hostile server that echoes every header (the key included) into its error body. */
const echoHeaders =
  (status: number): Handler =>
  (req, res) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: `you sent ${JSON.stringify(req.headers)}` } }));
  };

function everything(err: unknown, events: RetryEvent[]): string {
  const e = err as Error & Record<string, unknown>;
  return [String(e), e.message, e.stack, JSON.stringify(e), JSON.stringify({ ...e }), JSON.stringify(events)].join("\n");
}

describe.each([
  { provider: "openai", key: OPENAI_KEY, path: (u: string) => `${u}/v1`, env: { OPENAI_API_KEY: OPENAI_KEY }, ok: openaiReply },
  { provider: "gemini", key: GEMINI_KEY, path: (u: string) => u, env: { GEMINI_API_KEY: GEMINI_KEY }, ok: geminiReply },
])("$provider: the key appears nowhere", ({ provider, key, path, env, ok }) => {
  // [name, server script, client options, whether the key reached the error text and had to be scrubbed]
  const scenarios: Array<[string, Handler[], Partial<LlmClientOptions>, boolean]> = [
    ["401 echoing the headers", [echoHeaders(401)], {}, true],
    ["429 echoing the headers, retried until exhausted", [echoHeaders(429)], { maxRetries: 2 }, true],
    ["500 echoing the headers", [echoHeaders(500)], { maxRetries: 1 }, true],
    ["malformed body echoing the key", [raw(200, `{"oops": "${key}`, { "content-type": "application/json" })], {}, false],
    ["timeout", [hang], { timeoutMs: 100, maxRetries: 1 }, false],
    ["text body echoing the key", [raw(403, `forbidden for key=${key}`, { "content-type": "text/plain" })], {}, true],
  ];
  it.each(scenarios)("%s", async (_name, handlers, extra, scrubbed) => {
    server = await startServer(...handlers);
    const events: RetryEvent[] = [];
    const c = createLlmClient(`${provider}:m`, {
      cache: null,
      baseUrl: path(server.url),
      env,
      backoffBaseMs: 1,
      backoffCapMs: 2,
      onRetry: (e) => events.push(e),
      ...extra,
    });
    const err = await c.chat({ user: "q" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    const text = everything(err, events);
    expect(text).not.toContain(key);
    expect(text).not.toContain("SECRETSECRET");
    if (scrubbed) expect((err as Error).message).toContain("[redacted]");
  });

  it("connection refused", async () => {
    server = await startServer(ok("x"));
    const url = server.url;
    await server.close();
    server = undefined;
    const events: RetryEvent[] = [];
    const c = createLlmClient(`${provider}:m`, { cache: null, baseUrl: path(url), env, maxRetries: 1, backoffBaseMs: 1, onRetry: (e) => events.push(e) });
    const err = await c.chat({ user: "q" }).catch((e: unknown) => e);
    expect(everything(err, events)).not.toContain("SECRETSECRET");
  });

  it("the cache file and the result hold no key", async () => {
    dir = mkdtempSync(join(tmpdir(), "esi3d-secret-"));
    server = await startServer(ok(`reply`));
    const c = createLlmClient(`${provider}:m`, { cache: join(dir, "c.sqlite"), baseUrl: path(server.url), env });
    const r = await c.chat({ user: "q" });
    expect(JSON.stringify(r)).not.toContain("SECRETSECRET");
    expect(JSON.stringify(c)).not.toContain("SECRETSECRET");
    for (const f of readdirSync(dir)) expect(readFileSync(join(dir, f)).includes("SECRETSECRET")).toBe(false);
  });
});

describe("redact", () => {
  it("scrubs known secrets and generic credential shapes", () => {
    expect(redact(`a ${OPENAI_KEY} b`, [OPENAI_KEY])).toBe("a [redacted] b");
    expect(redact("Authorization: Bearer abcdefghijklmnop")).toBe("Authorization: Bearer [redacted]");
    expect(redact("GET /v1beta/models?key=AIzaXYZ123&alt=sse")).toBe("GET /v1beta/models?key=[redacted]&alt=sse");
    expect(redact('{"x-goog-api-key":"AIzaXYZ123"}')).toBe('{"x-goog-api-key":"[redacted]"}');
  });
  it("leaves short non-secret values alone", () => {
    expect(redact("the key is abc", ["abc"])).toBe("the key is abc");
  });
});

describe("429 with a JSON body", () => {
  it("is retryable (sanity check for the scenario above)", async () => {
    server = await startServer(json(429, { error: { message: "rate" } }), openaiReply("ok"));
    const c = createLlmClient("openai:m", { cache: null, baseUrl: `${server.url}/v1`, env: { OPENAI_API_KEY: OPENAI_KEY }, backoffBaseMs: 1 });
    expect((await c.chat({ user: "q" })).attempts).toBe(2);
  });
});
