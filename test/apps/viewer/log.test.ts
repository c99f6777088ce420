/**
 * The run log viewer of `esi3d inspect RUN --serve` (issue 18) in Chromium: a real LLM run against a
 * loopback OpenAI-compatible server (one subcategory's replies unreadable, so its items are invalid), served
 * by the viewer's own app on loopback. The filters change the visible rows; opening an item shows the
 * prompt text of its prompt file (= what the model server received), its reply, and the link to its 3D
 * page; a served run with a token refuses the log's routes without it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import type { FastifyInstance } from "fastify";
import { resolveRunConfig } from "../../../src/eval/config.js";
import { runEvaluation } from "../../../src/eval/runner.js";
import { readRecords, type ItemRecord } from "../../../src/eval/records.js";
import { readPromptFile } from "../../../src/eval/promptFiles.js";
import { promptTexts } from "../../../src/reason/promptFile.js";
import { buildViewerApp, serveRun } from "../../../src/apps/viewer/server.js";
import { openRun } from "../../../src/apps/viewer/run.js";
import { openaiReply, startServer, type Handler, type RecordedRequest, type TestServer } from "../../llm/server.js";
import { launchChromium } from "./helpers.js";

const YES = openaiReply(JSON.stringify({ answer: "yes", confidence: 0.7 }));
const REFUSAL = openaiReply("I cannot tell from this.");
/** Linear alignment questions ask about "a straight line": those get an unreadable reply, every time. */
const byQuestion: Handler = (req, res) => (JSON.stringify(req.body).includes("straight line") ? REFUSAL : YES)(req, res);

const userOf = (q: RecordedRequest) => {
  const u = (q.body as { messages: Array<{ role: string; content: string | Array<{ type: string; text?: string }> }> }).messages.find((m) => m.role === "user")!.content;
  return typeof u === "string" ? u : u.filter((p) => p.type === "text").map((p) => p.text).join("\n");
};

let llm: TestServer;
let run: string;
let records: ItemRecord[];
let app: FastifyInstance;
let url: string;
let browser: Browser;

beforeAll(async () => {
  llm = await startServer(byQuestion);
  const saved = process.env.OPENAI_API_KEY;
  process.env.OPENAI_API_KEY = "sk-log-viewer-test";
  try {
    run = join(mkdtempSync(join(tmpdir(), "esi3d-logview-")), "run");
    const config = resolveRunConfig({ perSubcategory: 1, subcategories: ["physical_contact", "linear_alignment"], paradigms: ["single"], sources: ["gt"], labels: ["oracle"], reasoner: "openai:test-model", images: "single", llm: { baseUrl: `${llm.url}/v1`, cachePath: null, maxRetries: 0 } });
    await runEvaluation({ config, out: run, resume: false, version: "test", log: () => {}, workers: false });
  } finally {
    if (saved === undefined) delete process.env.OPENAI_API_KEY;
    else process.env.OPENAI_API_KEY = saved;
  }
  records = readRecords(join(run, "items.jsonl")).records;
  ({ app, url } = await serveRun({ run: openRun(run), version: "test", host: "127.0.0.1", port: 0, token: null }));
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await llm?.close();
});

async function openItems(hash = ""): Promise<{ p: Page; errors: string[] }> {
  const p = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  p.on("pageerror", (e) => errors.push(e.message));
  await p.goto(`${url}items${hash}`);
  await p.waitForSelector("body[data-ready]");
  return { p, errors };
}

/** The keys of the rows the browser actually shows (rendered, not hidden). */
const rowKeys = (p: Page) => p.locator("#rows tr").evaluateAll((trs) => trs.filter((t) => t.checkVisibility()).map((t) => (t as HTMLElement).dataset.key!));

describe("the run log viewer (inspect RUN --serve, /items)", () => {
  it("the run has the items the test needs: parsed and invalid LLM items, offline shortcut items", () => {
    expect(records.length).toBe(6);
    expect(records.filter((r) => r.status === "invalid").map((r) => r.key.split("|")[2]).sort()).toEqual(["2d", "3d:gt"]);
    expect(records.filter((r) => r.arm === "shortcut").length).toBe(2);
  });

  it("filters by subcategory, arm and outcome change the visible rows", async () => {
    const { p, errors } = await openItems();
    expect((await rowKeys(p)).sort()).toEqual(records.map((r) => r.key).sort());
    await p.selectOption("#f-subcategory", "physical_contact");
    expect((await rowKeys(p)).sort()).toEqual(records.filter((r) => r.subcategory === "physical_contact").map((r) => r.key).sort());
    await p.selectOption("#f-arm", "shortcut");
    const shortcut = records.filter((r) => r.subcategory === "physical_contact" && r.arm === "shortcut").map((r) => r.key);
    expect(shortcut.length).toBe(1);
    expect(await rowKeys(p)).toEqual(shortcut);
    expect(await p.locator("#count").textContent()).toBe("1 of 6 items");
    await p.selectOption("#f-subcategory", "");
    await p.selectOption("#f-arm", "");
    await p.selectOption("#f-outcome", "invalid");
    expect((await rowKeys(p)).sort()).toEqual(records.filter((r) => r.status === "invalid").map((r) => r.key).sort());
    // the filters are in the URL: a reload keeps them
    await p.reload();
    await p.waitForSelector("body[data-ready]");
    expect(await p.locator("#f-outcome").inputValue()).toBe("invalid");
    expect((await rowKeys(p)).length).toBe(2);
    expect(errors).toEqual([]);
    await p.close();
  });

  it("opening an item shows its prompt text (the prompt file = what the server received), replies and its 3D page", async () => {
    const r = records.find((x) => x.subcategory === "linear_alignment" && x.key.endsWith("|3d:gt"))!;
    const { p, errors } = await openItems();
    await p.click(`#rows tr[data-key="${r.key}"]`);
    await p.waitForFunction((k) => document.getElementById("detail")!.dataset.key === k, r.key);
    const shownUser = (await p.locator("#prompt-user").textContent())!;
    const file = promptTexts(readPromptFile(run, r.prompt_file!));
    expect(shownUser).toBe(file.user);
    expect(shownUser).toContain(r.question);
    expect(llm.requests.some((q) => userOf(q) === shownUser)).toBe(true);
    expect(await p.locator("#prompt-system").textContent()).toBe(file.system);
    // invalid: both replies, the re-prompt's text, the error class
    expect(await p.locator("#detail pre.reply").allTextContents()).toEqual(r.raw);
    expect(await p.locator("#reprompt").textContent()).toBe(r.reprompt);
    expect(await p.locator("#error").textContent()).toBe(r.error!.message);
    expect(await p.locator("#page-link").getAttribute("href")).toBe(`/task/${encodeURIComponent(r.task_id)}?v=single__gt`);
    if (process.env.ESI3D_SCREENSHOTS) await p.screenshot({ path: join(process.env.ESI3D_SCREENSHOTS, "log-viewer.png") });
    expect(errors).toEqual([]);
    await p.close();
  });

  it("the 2D arm's item shows the images it sent; the shortcut's says it sends no prompt", async () => {
    const r2 = records.find((x) => x.subcategory === "physical_contact" && x.arm === "2d")!;
    const { p, errors } = await openItems(`#item=${encodeURIComponent(r2.key)}`);
    await p.waitForFunction((k) => document.getElementById("detail")!.dataset.key === k, r2.key);
    await p.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>("#detail .imgs img")].every((i) => i.complete && i.naturalWidth > 0) && document.querySelectorAll("#detail .imgs img").length > 0);
    expect(await p.locator("#detail .imgs img").count()).toBe(1);
    const sc = records.find((x) => x.subcategory === "physical_contact" && x.arm === "shortcut")!;
    await p.click(`#rows tr[data-key="${sc.key}"]`);
    await p.waitForFunction((k) => document.getElementById("detail")!.dataset.key === k, sc.key);
    expect(await p.locator("#detail").textContent()).toMatch(/shortcut sends no prompt: it is an offline program/);
    expect(errors).toEqual([]);
    await p.close();
  });

  it("with a token, the log's routes need it like the rest of the viewer; an unknown item is a 400 naming the key", async () => {
    const guarded = buildViewerApp({ run: openRun(run), version: "test", token: "log-viewer-token-0123456789" });
    try {
      for (const path of ["/items", "/api/items", `/api/item?key=${encodeURIComponent(records[0]!.key)}`]) expect((await guarded.inject({ url: path })).statusCode, path).toBe(401);
      const ok = await guarded.inject({ url: "/api/items", headers: { authorization: "Bearer log-viewer-token-0123456789" } });
      expect(ok.statusCode).toBe(200);
      expect((JSON.parse(ok.body) as unknown[]).length).toBe(6);
      const missing = await guarded.inject({ url: "/api/item?key=nope", headers: { authorization: "Bearer log-viewer-token-0123456789" } });
      expect(missing.statusCode).toBe(400);
      expect(missing.body).toMatch(/no item "nope" in this run/);
    } finally {
      await guarded.close();
    }
  });
});
