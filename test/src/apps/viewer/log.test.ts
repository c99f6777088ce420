/**
 * The run log viewer of `esi3d inspect RUN [RUN2 …] --serve` in Chromium, over two runs of the same tasks in
 * one server: a real LLM run against a loopback OpenAI-compatible server (one subcategory's replies
 * unreadable, so its items are invalid) and an offline symbolic run. The search finds questions, replies and
 * program traces; every column sorts; the filters (run included) change the visible rows; opening an item
 * shows the prompt text of its prompt file (= what the model server received), its reply, and the links to its
 * 3D page and to its question; the question page sets every arm and reasoner of both runs side by side with
 * their graphs' quality; the token totals are the records' and the costs come from the price table given,
 * never invented. A served run with a token refuses the log's routes without it.
 * Screenshots go to $ESI3D_SCREENSHOTS when set (to look at them), else to the test's temporary directory.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { Browser, Page } from "playwright-core";
import type { FastifyInstance } from "fastify";
import { resolveRunConfig } from "../../../../src/eval/config.js";
import { runEvaluation } from "../../../../src/eval/runner.js";
import { readRecords, type ItemRecord } from "../../../../src/eval/records.js";
import { readPromptFile } from "../../../../src/eval/promptFiles.js";
import type { PriceTable } from "../../../../src/eval/usage.js";
import { promptTexts } from "../../../../src/reason/promptFile.js";
import { serveRun } from "../../../../src/apps/viewer/server.js";
import { openRun } from "../../../../src/apps/viewer/run.js";
import { OUTCOMES } from "../../../../src/apps/viewer/log/data.js";
import { openaiReply, startServer, type Handler, type RecordedRequest, type TestServer } from "../../llm/server.js";
import { launchChromium, needsChromium } from "./helpers.js";

const chromium = needsChromium();

const YES = openaiReply(JSON.stringify({ answer: "yes", confidence: 0.7 }));
const REFUSAL = openaiReply("I cannot tell from this.");
/** Linear alignment questions ask about "a straight line": those get an unreadable reply, every time. */
const byQuestion: Handler = (req, res) => (JSON.stringify(req.body).includes("straight line") ? REFUSAL : YES)(req, res);

const userOf = (q: RecordedRequest) => {
  const u = (q.body as { messages: Array<{ role: string; content: string | Array<{ type: string; text?: string }> }> }).messages.find(
    (m) => m.role === "user",
  )!.content;
  return typeof u === "string"
    ? u
    : u
        .filter((p) => p.type === "text")
        .map((p) => p.text)
        .join("\n");
};

/** A price table written for the test (the figures are the test's, not any provider's). */
const PRICES: PriceTable = { format: "esi3d-prices/1", currency: "EUR", per: 1_000_000, prices: { "openai:test-model": { input: 3, output: 12 } } };

let llm: TestServer;
let runLlm: string;
let runSym: string;
let records: ItemRecord[];
let symRecords: ItemRecord[];
let app: FastifyInstance;
let url: string;
let browser: Browser;
let shots: string;
const SUBCATEGORIES = ["physical_contact", "linear_alignment"] as const;

beforeAll(async () => {
  llm = await startServer(byQuestion);
  const saved = process.env.OPENAI_API_KEY;
  process.env.OPENAI_API_KEY = "sk-log-viewer-test";
  const base = mkdtempSync(join(tmpdir(), "esi3d-logview-"));
  try {
    runLlm = join(base, "llm-run");
    const config = resolveRunConfig({
      perSubcategory: 1,
      subcategories: SUBCATEGORIES,
      paradigms: ["single"],
      sources: ["gt"],
      labels: ["oracle"],
      reasoner: "openai:test-model",
      images: { images: "single" },
      llm: { baseUrl: `${llm.url}/v1`, cachePath: null, maxRetries: 0 },
    });
    await runEvaluation({ config, out: runLlm, resume: false, version: "test", log: () => {}, workers: false });
  } finally {
    if (saved === undefined) delete process.env.OPENAI_API_KEY;
    else process.env.OPENAI_API_KEY = saved;
  }
  runSym = join(base, "symbolic-run");
  await runEvaluation({
    config: resolveRunConfig({ perSubcategory: 1, subcategories: SUBCATEGORIES, paradigms: ["single"], sources: ["gt"], labels: ["oracle"] }),
    out: runSym,
    resume: false,
    version: "test",
    log: () => {},
    workers: false,
  });
  records = readRecords(join(runLlm, "items.jsonl")).records;
  symRecords = readRecords(join(runSym, "items.jsonl")).records;
  ({ app, url } = await serveRun({
    runs: [openRun(runLlm), openRun(runSym)],
    version: "test",
    host: "127.0.0.1",
    port: 0,
    token: null,
    prices: { table: PRICES, file: "prices.json" },
  }));
  shots = process.env.ESI3D_SCREENSHOTS ?? join(base, "shots");
  mkdirSync(shots, { recursive: true });
  if (!chromium.skip) browser = await launchChromium();
}, 240_000);

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

const LLM = "llm-run",
  SYM = "symbolic-run";
const id = (run: string, key: string) => `${run} ${key}`;
const allIds = () => [...records.map((r) => id(LLM, r.key)), ...symRecords.map((r) => id(SYM, r.key))];
/** The rows the browser actually shows (rendered, not hidden), in their order on screen, as "run key". */
const shownRows = (p: Page) =>
  p
    .locator("#rows tr")
    .evaluateAll((trs) => trs.filter((t) => t.checkVisibility()).map((t) => `${(t as HTMLElement).dataset.run} ${(t as HTMLElement).dataset.key}`));

describe("the run log viewer (inspect RUN1 RUN2 --serve, /items)", () => {
  it("the runs have the items the test needs: parsed and invalid LLM items, offline items of the same tasks", () => {
    expect(basename(runLlm)).toBe(LLM);
    expect(records.length).toBe(6);
    expect(
      records
        .filter((r) => r.status === "invalid")
        .map((r) => r.key.split("|")[2])
        .sort(),
    ).toEqual(["2d", "3d:gt"]);
    expect(records.filter((r) => r.arm === "shortcut").length).toBe(2);
    expect(symRecords.map((r) => r.key).sort()).toEqual(records.map((r) => r.key).sort());
  });

  it("serves both runs: / lists them, each run's task index is below /run/<name>/, the item API covers both", async () => {
    const index = await (await fetch(url)).text();
    expect(index).toContain(`href="/run/${LLM}/"`);
    expect(index).toContain(`href="/run/${SYM}/"`);
    const tasks = await fetch(`${url}run/${SYM}/`);
    expect(tasks.status).toBe(200);
    expect(await tasks.text()).toContain(`href="/run/${SYM}/task/physical_contact-000"`);
    const rows = (await (await fetch(`${url}api/items`)).json()) as Array<{ run: string; key: string }>;
    expect(rows.map((r) => id(r.run, r.key)).sort()).toEqual(allIds().sort());
    // an item is named by its run: the same key in each run is its own item
    const key = records[0]!.key;
    const a = (await (await fetch(`${url}api/item?key=${encodeURIComponent(key)}&run=${LLM}`)).json()) as { record: ItemRecord };
    const b = (await (await fetch(`${url}api/item?key=${encodeURIComponent(key)}&run=${SYM}`)).json()) as { record: ItemRecord };
    expect([a.record.reasoner, b.record.reasoner]).toEqual([record(key).reasoner, symRecords.find((r) => r.key === key)!.reasoner]);
  });

  it("token totals per reasoner are the records' sums, and costs come only from the price table given", async () => {
    const u = (await (await fetch(`${url}api/usage`)).json()) as {
      prices: string;
      runs: Array<{
        run: string;
        rows: Array<{
          reasoner: string;
          calls: number;
          input_tokens: number;
          output_tokens: number;
          billed_input_tokens: number;
          cost: { amount: number; currency: string } | null;
        }>;
      }>;
    };
    expect(u.prices).toBe("prices.json");
    const llmRows = u.runs.find((r) => r.run === LLM)!.rows;
    expect(llmRows.map((r) => r.reasoner)).toEqual(["openai:test-model"]);
    const calls = records.flatMap((r) => r.calls ?? []);
    expect(llmRows[0]!.calls).toBe(calls.length);
    expect(llmRows[0]!.calls).toBe(llm.requests.length);
    const input = records.reduce((s, r) => s + (r.usage?.input_tokens ?? 0), 0),
      output = records.reduce((s, r) => s + (r.usage?.output_tokens ?? 0), 0);
    expect([llmRows[0]!.input_tokens, llmRows[0]!.output_tokens]).toEqual([input, output]);
    expect(input).toBe(11 * calls.length); // the loopback server reports 11 prompt tokens per call
    expect(llmRows[0]!.cost).toEqual({ amount: (input * 3 + output * 12) / 1e6, currency: "EUR" });
    // the offline run made no calls: nothing to total
    expect(u.runs.find((r) => r.run === SYM)!.rows).toEqual([]);
    // without a price table, the cost is unknown
    const bare = await serveRun({ runs: [openRun(runLlm)], version: "test", host: "127.0.0.1", port: 0, token: null });
    try {
      const b = (await (await fetch(`${bare.url}api/usage`)).json()) as { runs: Array<{ rows: Array<{ cost: unknown; cost_note: string }> }> };
      expect(b.runs[0]!.rows[0]!.cost).toBeNull();
      expect(b.runs[0]!.rows[0]!.cost_note).toMatch(/unknown: no price table/);
    } finally {
      await bare.app.close();
    }
  });

  it.skipIf(chromium.skip)(
    chromium.title("the search finds questions, replies and traces; the run filter and the others change the visible rows"),
    async () => {
      const { p, errors } = await openItems();
      expect((await shownRows(p)).sort()).toEqual(allIds().sort());
      // a question's words: the linear alignment items of both runs
      await p.fill("#search", "straight line");
      expect((await shownRows(p)).sort()).toEqual(
        allIds()
          .filter((x) => x.includes("linear_alignment"))
          .sort(),
      );
      // a reply's words: the invalid LLM items
      await p.fill("#search", "cannot tell");
      expect((await shownRows(p)).sort()).toEqual(
        records
          .filter((r) => r.raw.some((t) => t.includes("cannot tell")))
          .map((r) => id(LLM, r.key))
          .sort(),
      );
      // a program trace's words: the symbolic run's items whose trace says them
      const word = symRecords
        .find((r) => r.arm === "3d")!
        .raw[0]!.split(" ")
        .slice(1, 3)
        .join(" ");
      await p.fill("#search", word);
      const withWord = [...records.map((r) => ({ run: LLM, r })), ...symRecords.map((r) => ({ run: SYM, r }))]
        .filter(({ r }) => `${r.question}\n${r.raw.join("\n")}\n${r.key}`.toLowerCase().includes(word.toLowerCase()))
        .map(({ run, r }) => id(run, r.key));
      expect(withWord.length).toBeGreaterThan(0);
      expect((await shownRows(p)).sort()).toEqual(withWord.sort());
      await p.fill("#search", "");
      await p.selectOption("#f-run", SYM);
      await p.selectOption("#f-arm", "shortcut");
      expect((await shownRows(p)).sort()).toEqual(
        symRecords
          .filter((r) => r.arm === "shortcut")
          .map((r) => id(SYM, r.key))
          .sort(),
      );
      await p.selectOption("#f-run", "");
      await p.selectOption("#f-arm", "");
      await p.selectOption("#f-outcome", "invalid");
      expect((await shownRows(p)).sort()).toEqual(
        records
          .filter((r) => r.status === "invalid")
          .map((r) => id(LLM, r.key))
          .sort(),
      );
      expect(await p.locator("#count").textContent()).toBe("2 of 12 items");
      // the filters and the search are in the URL: a reload keeps them
      await p.fill("#search", "line");
      await p.reload();
      await p.waitForSelector("body[data-ready]");
      expect(await p.locator("#f-outcome").inputValue()).toBe("invalid");
      expect(await p.locator("#search").inputValue()).toBe("line");
      expect(errors).toEqual([]);
      await p.close();
    },
  );

  it.skipIf(chromium.skip)(chromium.title("every column sorts, both ways; confidence shows as a percentage, with the match column beside it"), async () => {
    const { p, errors } = await openItems();
    const heads = await p.locator("#list th[data-sort]").evaluateAll((ths) => ths.map((t) => (t as HTMLElement).dataset.sort!));
    expect(heads).toEqual(["run", "task_id", "question", "paradigm", "arm", "reasoner", "outcome", "answer", "truth", "confidence", "match", "f1", "tokens"]);
    const rows = (await (await fetch(`${url}api/items`)).json()) as Array<Record<string, unknown> & { run: string; key: string }>;
    for (const field of heads) {
      await p.click(`#list th[data-sort="${field}"]`);
      for (const dir of [1, -1]) {
        if (dir < 0) await p.click(`#list th[data-sort="${field}"]`);
        expect(await p.locator(`#list th[data-sort="${field}"]`).getAttribute("aria-sort")).toBe(dir > 0 ? "ascending" : "descending");
        const shown = await shownRows(p);
        const values = shown.map((x) => rows.find((r) => id(r.run, r.key) === x)![field] ?? null);
        // non-empty values in order (numbers numerically, text by locale), empty ones last
        const present = values.filter((v) => v !== null);
        expect(
          values.slice(present.length).every((v) => v === null),
          `${field}: empty values last`,
        ).toBe(true);
        const cmp = (a: unknown, b: unknown) =>
          typeof a === "number"
            ? (a as number) - (b as number)
            : field === "outcome"
              ? OUTCOMES.indexOf(a as (typeof OUTCOMES)[number]) - OUTCOMES.indexOf(b as (typeof OUTCOMES)[number])
              : String(a).localeCompare(String(b), undefined, { numeric: true });
        for (let i = 1; i < present.length; i++)
          expect(dir * cmp(present[i - 1], present[i]), `${field} ${dir > 0 ? "ascending" : "descending"} at ${i}`).toBeLessThanOrEqual(0);
      }
    }
    // confidence: the LLM's 0.7 as 70 %
    const conf = await p.locator('#rows tr[data-run="llm-run"] td:nth-child(10)').allTextContents();
    expect(conf).toContain("70 %");
    await p.screenshot({ path: join(shots, "log-viewer-sorted.png") });
    expect(errors).toEqual([]);
    await p.close();
  });

  it.skipIf(chromium.skip)(
    chromium.title("opening an item shows its prompt text (the prompt file = what the server received), replies, its 3D page and its question"),
    async () => {
      const r = records.find((x) => x.subcategory === "linear_alignment" && x.key.endsWith("|3d:gt"))!;
      const { p, errors } = await openItems();
      await p.click(`#rows tr[data-run="${LLM}"][data-key="${r.key}"]`);
      await p.waitForFunction((k) => document.getElementById("detail")!.dataset.key === k, r.key);
      const shownUser = (await p.locator("#prompt-user").textContent())!;
      const file = promptTexts(readPromptFile(runLlm, r.prompt_file!));
      expect(shownUser).toBe(file.user);
      expect(shownUser).toContain(r.question);
      expect(llm.requests.some((q) => userOf(q) === shownUser)).toBe(true);
      expect(await p.locator("#prompt-system").textContent()).toBe(file.system);
      // invalid: both replies, the re-prompt's text, the error class
      expect(await p.locator("#detail pre.reply").allTextContents()).toEqual(r.raw);
      expect(await p.locator("#reprompt").textContent()).toBe(r.reprompt);
      expect(await p.locator("#error").textContent()).toBe(r.error!.message);
      expect(await p.locator("#page-link").getAttribute("href")).toBe(`/run/${LLM}/task/${encodeURIComponent(r.task_id)}?v=single__gt`);
      expect(await p.locator("#question-link").getAttribute("href")).toBe(`/question?task=${r.task_id}`);
      await p.screenshot({ path: join(shots, "log-viewer.png") });
      // the 2D arm's item shows the image it sent, served below its run's prefix
      const r2 = records.find((x) => x.subcategory === "physical_contact" && x.arm === "2d")!;
      await p.click(`#rows tr[data-run="${LLM}"][data-key="${r2.key}"]`);
      await p.waitForFunction((k) => document.getElementById("detail")!.dataset.key === k, r2.key);
      await p.waitForFunction(
        () =>
          [...document.querySelectorAll<HTMLImageElement>("#detail .imgs img")].every((i) => i.complete && i.naturalWidth > 0) &&
          document.querySelectorAll("#detail .imgs img").length > 0,
      );
      expect(await p.locator("#detail .imgs img").count()).toBe(1);
      expect(await p.locator("#detail .imgs img").getAttribute("src")).toMatch(new RegExp(`^/run/${LLM}/prompts/images/[0-9a-f]{64}\\.png$`));
      // the symbolic run's shortcut item says it sends no prompt
      const sc = symRecords.find((x) => x.subcategory === "physical_contact" && x.arm === "shortcut")!;
      await p.click(`#rows tr[data-run="${SYM}"][data-key="${sc.key}"]`);
      await p.waitForFunction(
        (k) => document.getElementById("detail")!.dataset.run === "symbolic-run" && document.getElementById("detail")!.dataset.key === k,
        sc.key,
      );
      expect(await p.locator("#detail").textContent()).toMatch(/shortcut sends no prompt: it is an offline program/);
      expect(errors).toEqual([]);
      await p.close();
    },
  );

  it.skipIf(chromium.skip)(chromium.title("the question page sets every arm and reasoner of both runs side by side, with their graphs' quality"), async () => {
    const task = "physical_contact-000";
    const p = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    p.on("pageerror", (e) => errors.push(e.message));
    await p.goto(`${url}question?task=${task}`);
    await p.waitForSelector("body[data-ready]");
    const cards = await p
      .locator('[data-testid="arm"]')
      .evaluateAll((cs) => cs.map((c) => `${(c as HTMLElement).dataset.run} ${(c as HTMLElement).dataset.key}`));
    const expected = allIds().filter((x) => x.includes(task));
    expect(cards.sort()).toEqual(expected.sort());
    expect(await p.locator("#question").textContent()).toBe(record(`${task}|single|3d:gt`).question);
    // each 3D card names its graph's quality; the symbolic card's trace and the LLM card's reply are shown
    for (const [run, recs] of [
      [LLM, records],
      [SYM, symRecords],
    ] as const) {
      const r = recs.find((x) => x.key === `${task}|single|3d:gt`)!;
      const card = p.locator(`[data-testid="arm"][data-run="${run}"][data-key="${r.key}"]`);
      expect(await card.textContent()).toContain(`node F1 ${r.graph_quality!.f1_observed!.toFixed(2)}`);
      expect(await card.locator("pre.reply").textContent()).toBe(r.raw.join("\n\n"));
      expect(await card.locator(".o").textContent()).toBe(r.status === "parsed" ? (r.correct ? "correct" : "wrong") : r.status);
    }
    await p.screenshot({ path: join(shots, "log-question.png"), fullPage: true });
    expect(errors).toEqual([]);
    await p.close();
  });

  it("with a token, the log's routes need it like the rest of the viewer; an unknown item is a 400 naming the key", async () => {
    const guarded = await serveRun({ runs: [openRun(runLlm)], version: "test", host: "127.0.0.1", port: 0, token: "log-viewer-token-0123456789" });
    const get = (path: string, token?: string) => fetch(new URL(path.slice(1), guarded.url), token ? { headers: { authorization: `Bearer ${token}` } } : {});
    try {
      for (const path of ["/items", "/api/items", "/api/usage", `/question?task=x`, `/api/item?key=${encodeURIComponent(records[0]!.key)}`])
        expect((await get(path)).status, path).toBe(401);
      const ok = await get("/api/items", "log-viewer-token-0123456789");
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as unknown[]).length).toBe(6);
      const missing = await get("/api/item?key=nope", "log-viewer-token-0123456789");
      expect(missing.status).toBe(400);
      expect(await missing.text()).toMatch(/no item "nope" in this run/);
      const noTask = await get("/api/question?task=nope", "log-viewer-token-0123456789");
      expect(noTask.status).toBe(400);
      expect(await noTask.text()).toMatch(/no task "nope" in the served run/);
    } finally {
      await guarded.app.close();
    }
  });
});

const record = (key: string) => records.find((r) => r.key === key)!;
