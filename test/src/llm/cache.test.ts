import { mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ResponseCache, cacheKey, defaultCachePath, isCacheable } from "../../../src/llm/cache.js";
import { createLlmClient, type LlmClientOptions } from "../../../src/llm/client.js";
import { geminiReply, json, openaiReply, startServer, type TestServer } from "./server.js";

let dir: string;
let server: TestServer | undefined;
const opened: ResponseCache[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "esi3d-cache-"));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const c of opened.splice(0)) c.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(path = join(dir, "llm", "cache.sqlite")): ResponseCache {
  const c = ResponseCache.open(path);
  opened.push(c);
  return c;
}

function opts(url: string, cache: LlmClientOptions["cache"]): LlmClientOptions {
  return { cache, baseUrl: `${url}/v1`, env: { OPENAI_API_KEY: "sk-cache-test-key-123456" }, backoffBaseMs: 1, random: () => 0 };
}

describe("response cache through the client", () => {
  it("serves a repeated deterministic request from the cache without calling the server", async () => {
    server = await startServer(openaiReply("first"), openaiReply("second"));
    const cache = open();
    const c = createLlmClient("openai:m", opts(server.url, cache));
    const a = await c.chat({ user: "q", temperature: 0 });
    const b = await c.chat({ user: "q", temperature: 0 });
    expect(a).toMatchObject({ text: "first", cached: false, attempts: 1 });
    expect(b).toMatchObject({ text: "first", cached: true, attempts: 0, model: "test-model-0001", usage: { inputTokens: 11, outputTokens: 7 } });
    expect(server.requests).toHaveLength(1);
    expect(cache.size()).toBe(1);
  });

  it("treats an unset temperature as cacheable but distinct from 0", async () => {
    server = await startServer(openaiReply("a"), openaiReply("b"), openaiReply("c"));
    const c = createLlmClient("openai:m", opts(server.url, open()));
    expect((await c.chat({ user: "q" })).text).toBe("a");
    expect((await c.chat({ user: "q", temperature: 0 })).text).toBe("b");
    expect(await c.chat({ user: "q" })).toMatchObject({ text: "a", cached: true });
    expect(server.requests).toHaveLength(2);
  });

  it("misses when any part of the request changes", async () => {
    server = await startServer(openaiReply("r"));
    const c = createLlmClient("openai:m", opts(server.url, open()));
    const img = (b: number) => ({ mimeType: "image/png", data: new Uint8Array([1, 2, b]) });
    const variants = [
      { user: "q" },
      { user: "q2" },
      { user: "q", system: "s" },
      { user: "q", maxOutputTokens: 10 },
      { user: "q", images: [img(3)] },
      { user: "q", images: [img(4)] },
      { user: "q", images: [{ ...img(3), mimeType: "image/jpeg" }] },
    ];
    for (const v of variants) expect((await c.chat(v)).cached).toBe(false);
    expect(server.requests).toHaveLength(variants.length);
    for (const v of variants) expect((await c.chat(v)).cached).toBe(true);
    expect(server.requests).toHaveLength(variants.length);
  });

  it("keys on model and base URL", async () => {
    server = await startServer(openaiReply("r"));
    const other = await startServer(openaiReply("r2"));
    try {
      const cache = open();
      await createLlmClient("openai:m", opts(server.url, cache)).chat({ user: "q" });
      expect((await createLlmClient("openai:m2", opts(server.url, cache)).chat({ user: "q" })).cached).toBe(false);
      expect((await createLlmClient("openai:m", opts(other.url, cache)).chat({ user: "q" })).cached).toBe(false);
      expect((await createLlmClient("openai:m", opts(server.url, cache)).chat({ user: "q" })).cached).toBe(true);
    } finally {
      await other.close();
    }
  });

  it("never caches a sampled request (temperature > 0)", async () => {
    server = await startServer(openaiReply("r"));
    const cache = open();
    const c = createLlmClient("openai:m", opts(server.url, cache));
    await c.chat({ user: "q", temperature: 0.7 });
    await c.chat({ user: "q", temperature: 0.7 });
    expect(server.requests).toHaveLength(2);
    expect(cache.size()).toBe(0);
  });

  it("keys numbered samples apart: sample i of a request is stored once and replayed, sample 0 shares the unnumbered request's entry", async () => {
    server = await startServer(openaiReply("s0"), openaiReply("s1"), openaiReply("s2"), openaiReply("greedy"));
    const cache = open();
    const c = createLlmClient("openai:m", opts(server.url, cache));
    const first = [];
    for (const sample of [0, 1, 2]) first.push((await c.chat({ user: "q", temperature: 0.7, sample })).text);
    expect(first).toEqual(["s0", "s1", "s2"]);
    expect(cache.size()).toBe(3);
    const again = [];
    for (const sample of [2, 0, 1]) again.push(await c.chat({ user: "q", temperature: 0.7, sample }));
    expect(again.map((r) => `${r.text} ${r.cached}`)).toEqual(["s2 true", "s0 true", "s1 true"]);
    expect(server.requests).toHaveLength(3);
    // the sample index is never sent
    expect(server.requests.every((r) => !("sample" in (r.body as object)))).toBe(true);
    // sample 0 at temperature 0 is the greedy request itself
    expect((await c.chat({ user: "q", temperature: 0 })).text).toBe("greedy");
    expect(await c.chat({ user: "q", temperature: 0, sample: 0 })).toMatchObject({ text: "greedy", cached: true });
    expect(server.requests).toHaveLength(4);
  });

  it("never caches an empty reply or a failure", async () => {
    server = await startServer(openaiReply("   "), json(400, { error: { message: "bad" } }), openaiReply("real"));
    const cache = open();
    const c = createLlmClient("openai:m", opts(server.url, cache));
    expect((await c.chat({ user: "q" })).text).toBe("   ");
    await expect(c.chat({ user: "q" })).rejects.toMatchObject({ status: 400 });
    expect(cache.size()).toBe(0);
    expect(await c.chat({ user: "q" })).toMatchObject({ text: "real", cached: false });
    expect(await c.chat({ user: "q" })).toMatchObject({ text: "real", cached: true });
  });

  it("cache: null always calls the server", async () => {
    server = await startServer(openaiReply("r"));
    const c = createLlmClient("openai:m", opts(server.url, null));
    await c.chat({ user: "q", temperature: 0 });
    await c.chat({ user: "q", temperature: 0 });
    expect(server.requests).toHaveLength(2);
  });

  it("persists across processes' worth of reopening, given a path, in WAL mode", async () => {
    server = await startServer(geminiReply("persisted"));
    const path = join(dir, "nested", "c.sqlite");
    const env = { GEMINI_API_KEY: "AIza-cache-test-key" };
    const c1 = createLlmClient("gemini:g", { cache: path, baseUrl: server.url, env });
    await c1.chat({ user: "q" });
    const cache = open(path);
    const c2 = createLlmClient("gemini:g", { cache, baseUrl: server.url, env });
    expect(await c2.chat({ user: "q" })).toMatchObject({ text: "persisted", cached: true, model: "gemini-test-001" });
    expect(server.requests).toHaveLength(1);
    const db = new Database(path, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });
});

describe("cache key", () => {
  const base = { provider: "openai", model: "m", baseUrl: "http://h/v1", params: { temperature: 0 }, user: "u" };
  it("is stable, ignores key order and a trailing slash on the base URL", () => {
    const k = cacheKey(base);
    expect(k).toMatch(/^[0-9a-f]{64}$/);
    expect(cacheKey({ ...base, baseUrl: "http://h/v1/" })).toBe(k);
    expect(cacheKey({ user: "u", params: { temperature: 0 }, baseUrl: "http://h/v1", model: "m", provider: "openai" })).toBe(k);
  });
  it("changes with every determining field", () => {
    const k = cacheKey(base);
    for (const v of [
      { ...base, provider: "gemini" },
      { ...base, model: "m2" },
      { ...base, baseUrl: "http://h2/v1" },
      { ...base, params: { temperature: null } },
      { ...base, system: "s" },
      { ...base, user: "u2" },
      { ...base, images: [{ mimeType: "image/png", data: new Uint8Array([1]) }] },
      { ...base, sample: 1 },
    ]) {
      expect(cacheKey(v)).not.toBe(k);
    }
  });
  it("keys samples 1, 2, ... apart and sample 0 as the unnumbered request", () => {
    expect(cacheKey({ ...base, sample: 0 })).toBe(cacheKey(base));
    expect(new Set([1, 2, 3].map((sample) => cacheKey({ ...base, sample }))).size).toBe(3);
  });
  it("caches temperature 0 or unset, and numbered samples at any temperature", () => {
    expect(isCacheable({})).toBe(true);
    expect(isCacheable({ temperature: 0 })).toBe(true);
    expect(isCacheable({ temperature: 0.2 })).toBe(false);
    expect(isCacheable({ temperature: 0.2, sample: 0 })).toBe(true);
    expect(isCacheable({ temperature: 0.2, sample: 4 })).toBe(true);
  });
  it("lives per user: under an absolute XDG_CACHE_HOME, else ~/.cache (a relative XDG_CACHE_HOME is ignored, as the spec says)", () => {
    expect(defaultCachePath({ XDG_CACHE_HOME: "/var/cache/u" })).toBe("/var/cache/u/esi3d/llm-cache.sqlite");
    expect(defaultCachePath({ XDG_CACHE_HOME: "rel/dir" })).toBe(join(homedir(), ".cache", "esi3d", "llm-cache.sqlite"));
    expect(defaultCachePath({})).toBe(join(homedir(), ".cache", "esi3d", "llm-cache.sqlite"));
  });
  it("refuses to store empty text", () => {
    const c = open(":memory:");
    expect(c.put("k", { provider: "p", model: "m", baseUrl: "u" }, { text: "", model: "m" })).toBe(false);
    expect(c.put("k", { provider: "p", model: "m", baseUrl: "u" }, { text: "x", model: "m" })).toBe(true);
    expect(c.get("k")).toEqual({ text: "x", model: "m" });
  });
});
