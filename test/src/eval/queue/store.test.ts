/**
 * The served store of a queue run (`--store http://HOST:PORT`) over real HTTP on loopback: a worker's
 * view of it (config, tasks, graphs written and read back through the run files' schemas), the token,
 * and the requests it refuses (another token, a path outside the store, a write to anything but a graph).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateTask } from "../../../../bridge/sim/generate/suite.js";
import { writeJsonAtomic } from "../../../../core/fs.js";
import { RunConfigSchema } from "../../../../src/eval/config.js";
import { RUN_FORMAT } from "../../../../src/eval/files.js";
import { openStore } from "../../../../src/eval/queue/store.js";
import { serveStore, type StoreServer } from "../../../../src/eval/queue/storeServer.js";
import { graphOfBundle } from "../../../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../../../scenegraph/pipelineOptions.js";
import { bundleOf } from "../../../scenegraph/helpers.js";
import { REPO_ROOT } from "../../apps/cli/helpers.js";
import { promptLogOf } from "../../../../src/reason/promptFile.js";
import { promptImagePath, readPromptFile } from "../../../../src/eval/promptFiles.js";
import { PROMPT_VERSION, type BuiltPrompt } from "../../../../src/prompt/templates.js";

describe("the served store of a queue run", () => {
  let dir: string;
  let server: StoreServer;
  const task = generateTask("physical_contact", "store", 0);
  // a config.json as esi3d wrote it before the stages' options were nested (fixtures/README.md)
  const FLAT_CONFIG = JSON.parse(readFileSync(join(REPO_ROOT, "fixtures", "flat-config-run", "config.json"), "utf8")).config;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "esi3d-store-"));
    mkdirSync(join(dir, "tasks"));
    writeJsonAtomic(join(dir, "config.json"), {
      format: RUN_FORMAT,
      package_version: "0.0.0",
      node: process.version,
      started_at: new Date(0).toISOString(),
      config: FLAT_CONFIG,
    });
    writeJsonAtomic(join(dir, "tasks", `${task.task_id}.json`), task);
    server = await serveStore(dir, "http://127.0.0.1:0");
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("gives a worker the run's configuration and tasks, and keeps the graphs it writes", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}$/);
    const store = openStore(server.url);
    // the run's config.json in the flat form of earlier versions reaches the worker nested
    const config = await store.config();
    expect(config.seed).toBe(RunConfigSchema.parse({}).seed);
    expect(config.noise.noiseLevel).toBe(FLAT_CONFIG.noiseLevel);
    expect(config.graph.masks).toBe(FLAT_CONFIG.masks);
    expect(await store.task(task.task_id)).toEqual(task);
    const r = await graphOfBundle(bundleOf(task, "single"), GraphPipelineOptionsSchema.parse({ source: "gt" }));
    const stored = { graph: r.graph, diagnosis: r.diagnosis! };
    await store.writeGraph(task.task_id, "single", "gt", stored);
    expect(existsSync(join(dir, "graphs", task.task_id, "single__gt.json"))).toBe(true);
    expect(JSON.parse(JSON.stringify(await store.readGraph(task.task_id, "single", "gt")))).toEqual(JSON.parse(JSON.stringify(stored)));
    await expect(store.task("no-such-task")).rejects.toThrow(/HTTP 404 .*not in the store/);
    // the token stays out of messages
    await expect(store.task("no-such-task")).rejects.not.toThrow(new RegExp(server.url.split("/").pop()!));
  });

  it("keeps the prompt files and images the answer jobs write", async () => {
    const data = new Uint8Array([137, 80, 78, 71, 0, 1, 2, 255]);
    const built = {
      version: PROMPT_VERSION,
      system: "system text",
      user: "user text",
      images: [{ mimeType: "image/png", data }],
      views: [{ view: 4, actions: [] }],
    } as unknown as BuiltPrompt;
    const log = promptLogOf({ provider: "openai", model: "m", baseUrl: "http://127.0.0.1:1/v1", params: { temperature: 0, maxOutputTokens: null } }, built);
    await openStore(server.url).writePrompt(log);
    expect(readPromptFile(dir, `prompts/${log.file.prompt_hash}.json`)).toEqual(log.file);
    expect([...readFileSync(join(dir, promptImagePath(log.images[0]!.sha256, "image/png")))]).toEqual([...data]);
  });

  it("refuses another token, paths outside the store and writes to anything but a graph", async () => {
    const token = server.url.split("/").pop()!;
    const base = server.url.slice(0, -token.length);
    const status = async (path: string, init?: RequestInit) => (await fetch(`${base}${path}`, init)).status;
    expect(await status(`${"0".repeat(32)}/config.json`)).toBe(404);
    expect(await status(`${token}/config.json`)).toBe(200);
    expect(await status(`${token}/tasks/..%2Fconfig.json`)).toBe(404);
    expect(await status(`${token}/.store-token`)).toBe(404);
    expect(await status(`${token}/config.json`, { method: "PUT", body: "{}" })).toBe(404);
    expect(await status(`${token}/tasks/x.json`, { method: "PUT", body: "{}" })).toBe(404);
    expect(JSON.parse(readFileSync(join(dir, "config.json"), "utf8")).format).toBe(RUN_FORMAT);
  });

  it("serves a resumed run at the same token (jobs left on the queue still reach it)", async () => {
    const again = await serveStore(dir, "http://127.0.0.1:0");
    try {
      expect(again.url.split("/").pop()).toBe(server.url.split("/").pop());
    } finally {
      await again.close();
    }
  });

  it("names the option for an address it cannot listen on", async () => {
    await expect(serveStore(dir, "http://192.0.2.1:7070")).rejects.toThrow(
      /--store http:\/\/192\.0\.2\.1:7070: 192\.0\.2\.1 is not an address of this machine/,
    );
    await expect(serveStore(dir, "http://127.0.0.1")).rejects.toThrow(/--store http:\/\/127\.0\.0\.1: expected a directory or http:\/\/HOST:PORT/);
  });
});
