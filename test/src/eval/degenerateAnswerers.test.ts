/**
 * Degenerate answerers (issue 41, "No free points"): two loopback OpenAI-compatible servers that answer without
 * looking, run through the real CLI and the real `openai:` client over HTTP on the default suite's first 54 tasks.
 *   - "first option": always the first option the prompt lists (read from the prompt's option list);
 *   - "A": always `{"answer": "A"}`.
 * Each must score within the 95 % interval of uniform chance over all items, a declined or unreadable item
 * counted at chance (1/k). With the options unlettered (the default), "A" names no option (but Spatial Relations
 * (mirror)'s, whose options are ESI's "A" and "B") and is recorded as unmatched; with `--option-labels letters` it is read as a letter (match "letter") and still scores as chance.
 *
 * Chance over n items: each item i has k_i options and scores 1 (right), 0 (answered wrong) or 1/k_i (no answer);
 * a uniform random answerer scores p_i = 1/k_i in expectation with variance p_i(1 - p_i), so its mean is
 * Σp_i/n ± Z_95·sqrt(Σ p_i(1 - p_i))/n.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readRecords, type ItemRecord } from "../../../src/eval/records.js";
import { openaiReply, startServer, type Handler, type TestServer } from "../llm/server.js";
import { firstListedOption, openaiUserText } from "../../helpers/prompts.js";
import { esi3dAsync } from "../apps/cli/helpers.js";
import { BUILTIN_SUBCATEGORIES } from "../../../core/task/taxonomy.js";

/**
 * The suite's subcategories whose answer is one option: Stacking & Stability asks for an order and Action Order
 * Inference for one relation per role (structured answers).
 */
const PLAIN_CHOICE = BUILTIN_SUBCATEGORIES.filter((s) => s !== "stacking_stability" && s !== "action_order_inference");

/** The default suite's first 54 tasks (round-robin over its 27 plain-choice subcategories: two each; the issue ran 40 over 19). */
const TASKS = 54;
/** Two-sided 95 % normal quantile. */
const Z_95 = 1.96;
const KEY = "sk-degenerate-answerer-test";

const alwaysFirstOption: Handler = (req, res) => openaiReply(JSON.stringify({ answer: firstListedOption(openaiUserText(req)), confidence: 0.9 }))(req, res);
const alwaysA: Handler = openaiReply(JSON.stringify({ answer: "A" }));

/** An item's score as the issue counts it: right 1, answered wrong 0, no answer 1/k. */
function itemScore(r: ItemRecord): number {
  if (r.status === "parsed") return r.correct ? 1 : 0;
  return 1 / r.options.length;
}

interface ChanceComparison {
  n: number;
  accuracy: number;
  chance: number;
  halfWidth: number;
  within: boolean;
}

/** The records' score against uniform chance and its 95 % interval (see the file comment). */
function againstChance(records: readonly ItemRecord[]): ChanceComparison {
  const p = records.map((r) => 1 / r.options.length);
  const n = records.length;
  const accuracy = records.reduce((t, r) => t + itemScore(r), 0) / n;
  const chance = p.reduce((t, x) => t + x, 0) / n;
  const halfWidth = (Z_95 * Math.sqrt(p.reduce((t, x) => t + x * (1 - x), 0))) / n;
  return { n, accuracy, chance, halfWidth, within: Math.abs(accuracy - chance) <= halfWidth };
}

const fmt = (c: ChanceComparison) =>
  `${(c.accuracy * 100).toFixed(1)} % over ${c.n} items; chance ${(c.chance * 100).toFixed(1)} % ± ${(c.halfWidth * 100).toFixed(1)}`;

let server: TestServer;
/** The last run's directory. */
let lastOut = "";
beforeAll(async () => {
  server = await startServer(alwaysFirstOption);
});
afterAll(async () => {
  await server.close();
});

/**
 * One run of the CLI against the loopback server: one paradigm, the 3D arm over ground truth, no baselines.
 * `exitCode`: 1 for a run in which no item got an answer (the CLI says so rather than report a table of nothing).
 */
async function run(handler: Handler, extra: string[] = [], exitCode = 0): Promise<{ records: ItemRecord[]; stderr: string }> {
  server.script(handler);
  const out = join(mkdtempSync(join(tmpdir(), "esi3d-degenerate-")), "run");
  const args = [
    "run",
    "--limit",
    String(TASKS),
    "--subcategories",
    PLAIN_CHOICE.join(","),
    "--paradigm",
    "single",
    "--source",
    "gt",
    "--labels",
    "oracle",
    "--baseline",
    "none",
    "--reasoner",
    "openai:degenerate",
    "--base-url",
    `${server.url}/v1`,
    "--no-cache",
    "--out",
    out,
    ...extra,
  ];
  const r = await esi3dAsync(args, { env: { OPENAI_API_KEY: KEY }, timeoutMs: 600_000 });
  expect(r.code, r.stderr).toBe(exitCode);
  const records = readRecords(join(out, "items.jsonl")).records;
  expect(records).toHaveLength(TASKS);
  lastOut = out;
  // every item is a plain choice among 2 or more options (the subcategories asked for have no structured format)
  for (const rec of records) expect(rec.options.length, rec.key).toBeGreaterThanOrEqual(2);
  return { records, stderr: r.stderr };
}

describe("degenerate answerers score as chance (issue 41)", () => {
  it("always the first option listed: every answer read by its text, the score within chance", async () => {
    const { records } = await run(alwaysFirstOption);
    for (const r of records) expect(r, r.key).toMatchObject({ status: "parsed", match: "text", answer: r.options[0] });
    const c = againstChance(records);
    console.log(`always the first option: ${fmt(c)}`);
    expect(c.within, fmt(c)).toBe(true);
  }, 600_000);

  it('always "A", options unlettered: recorded as unmatched, never as the first option', async () => {
    // one item answered (below), so the run succeeds
    const { records } = await run(alwaysA, [], 0);
    // Spatial Relations (mirror) asks "A or B?" (ESI's own options): there "A" is an option's text, read as that option
    const named = records.filter((r) => r.options.includes("A"));
    expect([...new Set(named.map((r) => r.subcategory))]).toEqual(["mirror_spatial_relations"]);
    for (const r of named) expect(r, r.key).toMatchObject({ status: "parsed", answer: "A" });
    for (const r of records.filter((x) => !named.includes(x))) {
      expect(r, r.key).toMatchObject({ status: "invalid", answer: null, match: null, correct: null, reprompted: true });
      expect(r.error?.message, r.key).toMatch(/"A" matches none of the options; the options were not lettered/);
    }
    const c = againstChance(records);
    console.log(`always "A", unlettered: ${fmt(c)}`);
    expect(c.within, fmt(c)).toBe(true);
  }, 600_000);

  it('always "A", --option-labels letters: read as the letter of the first option, the score within chance', async () => {
    const { records } = await run(alwaysA, ["--option-labels", "letters"]);
    // "A" names Spatial Relations (mirror)'s first option by its text; elsewhere it is read as a letter
    for (const r of records) expect(r, r.key).toMatchObject({ status: "parsed", match: r.options.includes("A") ? "text" : "letter", answer: r.options[0] });
    const c = againstChance(records);
    console.log(`always "A", lettered: ${fmt(c)}`);
    expect(c.within, fmt(c)).toBe(true);
  }, 600_000);

  it("--circular: the first option is right in at most one rotation of k, so never right; each rotation is a prompt of its own", async () => {
    server.requests.length = 0;
    const { records } = await run(alwaysFirstOption, ["--circular"]);
    const rotations = records.reduce((t, r) => t + r.options.length, 0);
    // one call per rotation (nothing re-prompted), each with its own prompt, stored as its own prompt file
    expect(server.requests).toHaveLength(rotations);
    expect(new Set(server.requests.map(openaiUserText)).size).toBe(rotations);
    expect(readdirSync(join(lastOut, "prompts")).filter((f) => f.endsWith(".json"))).toHaveLength(rotations);
    for (const r of records) {
      const k = r.options.length;
      expect(r.circular, r.key).toEqual({ rotations: k, answers: r.options, correct: r.options.map((o) => o === r.truth) });
      expect(r, r.key).toMatchObject({ status: "parsed", answer: r.options[0], match: "text", correct: false });
    }
  }, 600_000);
});
