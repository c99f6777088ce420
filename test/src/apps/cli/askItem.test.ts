/**
 * `esi3d ask` over what esi3d itself writes: one item of a run asked again (RUN --item KEY) with the run's
 * configuration or with another reasoner and format (a loopback OpenAI-compatible server); a run's own graph
 * file (its task found beside it); the file `inspect --graph-json` writes; a task JSON rendered in a paradigm;
 * a free question over a graph file with no task record.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readRecords, type ItemRecord } from "../../../../src/eval/records.js";
import { openaiReply, startServer, type TestServer } from "../../llm/server.js";
import { esi3d, esi3dAsync } from "./helpers.js";

const TASK = "counting_with_occlusion-000";
let dir: string;
let run: string;
let records: ItemRecord[];
let llm: TestServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "esi3d-ask-item-"));
  run = join(dir, "run");
  const r = await esi3dAsync([
    "run",
    "--per-subcategory",
    "1",
    "--subcategories",
    "counting_with_occlusion",
    "--paradigm",
    "multi",
    "--source",
    "gt,noisy",
    "--labels",
    "oracle",
    "--noise-level",
    "0.8",
    "--out",
    run,
  ]);
  expect(r.code, r.stderr).toBe(0);
  records = readRecords(join(run, "items.jsonl")).records;
  llm = await startServer(openaiReply(JSON.stringify({ answer: "3", confidence: 0.6 })));
}, 300_000);

afterAll(async () => {
  await llm?.close();
});

const record = (key: string) => records.find((r) => r.key === key)!;

describe("esi3d ask RUN --item KEY", () => {
  it("asks the item again with the run's configuration: the same graph, answer and score as the stored record", () => {
    const key = `${TASK}|multi|3d:noisy`;
    const r = esi3d(["ask", run, "--item", key]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`item: ${key} of ${run}`);
    expect(r.stdout).toContain("asked again with: the run's configuration (config.json)\n");
    expect(r.stdout).toMatch(/rebuilt from the task: the same as the run's stored graph/);
    expect(r.stdout).toMatch(/program trace:\n {2}\d+ node\(s\) labelled/);
    const stored = record(key);
    const row = (name: string) =>
      r.stdout
        .split("\n")
        .find((l) => l.startsWith(`${name} `))!
        .split(/\s{2,}/)
        .slice(1);
    expect(row("answer")).toEqual([String(stored.answer), String(stored.answer)]);
    expect(row("correct")).toEqual([stored.correct ? "yes" : "no", stored.correct ? "yes" : "no"]);
    // the 2D and shortcut arms too
    for (const arm of ["2d", "shortcut"]) {
      const a = esi3d(["ask", run, "--item", `${TASK}|multi|${arm}`]);
      expect(a.code, a.stderr).toBe(0);
      expect(
        a.stdout
          .split("\n")
          .find((l) => l.startsWith("answer "))!
          .split(/\s{2,}/)
          .slice(1),
      ).toEqual([String(record(`${TASK}|multi|${arm}`).answer), String(record(`${TASK}|multi|${arm}`).answer)]);
    }
  });

  it("with another reasoner and format: the model gets the run's graph as text, and its answer stands beside the stored one", async () => {
    const key = `${TASK}|multi|3d:gt`;
    const before = llm.requests.length;
    const r = await esi3dAsync(
      ["ask", run, "--item", key, "--reasoner", "openai:test-model", "--base-url", `${llm.url}/v1`, "--format", "text", "--no-cache"],
      { env: { OPENAI_API_KEY: "sk-ask-item" } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(llm.requests.length).toBe(before + 1);
    expect(r.stdout).toContain("changed by --reasoner openai:test-model --format text");
    expect(r.stdout).toMatch(/--- prompt ---\n=== system ===[\s\S]*=== user ===[\s\S]*--- end of prompt ---\n\nreply:\n {2}\{"answer":"3"/);
    // the text serialization, not JSON: the user text holds the question and no JSON node objects
    const user = r.stdout.split("=== user ===\n")[1]!.split("--- end of prompt ---")[0]!;
    expect(user).toContain(record(key).question);
    expect(user).not.toMatch(/"label":/);
    const row = (name: string) =>
      r.stdout
        .split("\n")
        .find((l) => l.startsWith(`${name} `))!
        .split(/\s{2,}/)
        .slice(1);
    expect(row("reasoner")).toEqual(["symbolic", "openai:test-model"]);
    expect(row("answer")).toEqual([String(record(key).answer), "3"]);
    expect(row("format")).toEqual(["–", "text"]);
    expect(row("correct")[1]).toBe(record(key).truth === "3" ? "yes" : "no");
    expect(r.stdout + r.stderr).not.toContain("sk-ask-item");
  });

  it("refuses what it cannot do, exit 2 naming the flag: no --item, an unknown key, a question of one's own, --item elsewhere", () => {
    const none = esi3d(["ask", run]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--item: .* is a run directory; name the item to ask again with --item KEY/);
    const unknown = esi3d(["ask", run, "--item", `${TASK}|multi|3d:nosy`]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no such item in .*items\.jsonl \(\d+ items\); items such as: counting_with_occlusion-000\|multi\|/);
    const bad = esi3d(["ask", run, "--item", "nonsense"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/expected an item key task\|paradigm\|arm\[\|reasoner\]/);
    const q = esi3d(["ask", run, "--item", `${TASK}|multi|3d:gt`, "--question", "How many?"]);
    expect(q.code).toBe(2);
    expect(q.stderr).toMatch(/--question: not with --item/);
    const arm = esi3d(["ask", run, "--item", `${TASK}|multi|shortcut`, "--reasoner", "symbolic"]);
    expect(arm.code).toBe(2);
    expect(arm.stderr).toMatch(/the shortcut arm .* is answered by the question-only shortcut program alone/);
    const elsewhere = esi3d(["ask", join(run, "tasks", `${TASK}.json`), "--item", "x|y|2d"]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toMatch(/--item: only with a run directory/);
  });
});

describe("esi3d ask reads every graph file esi3d writes", () => {
  it("a run's graphs/<task>/<paradigm>__<source>.json: its task record is found beside it", () => {
    const r = esi3d(["ask", join(run, "graphs", TASK, "multi__noisy.json")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/ask: the task record is the run's .*tasks\/counting_with_occlusion-000\.json/);
    expect(r.stdout).toMatch(/correct: (yes|no) \(truth: \d+\)/);
    // the same answer the run stored for that arm
    expect(r.stdout).toContain(`answer: ${record(`${TASK}|multi|3d:noisy`).answer} `);
  });

  it("the file inspect --graph-json writes, with --task; and a free question on a copy with no task record", async () => {
    const exported = join(dir, "exported.json");
    const e = esi3d(["inspect", run, "--task", TASK, "--paradigm", "multi", "--source", "gt", "--graph-json", exported]);
    expect(e.code, e.stderr).toBe(0);
    const r = esi3d(["ask", exported, "--task", join(run, "tasks", `${TASK}.json`)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`answer: ${record(`${TASK}|multi|3d:gt`).answer} `);
    // alone, without a task: it says what is missing; a question of one's own needs none
    const alone = join(dir, "alone.json");
    copyFileSync(exported, alone);
    const missing = esi3d(["ask", alone]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--task: .*alone\.json has no task record beside it/);
    const free = await esi3dAsync(
      [
        "ask",
        alone,
        "--question",
        "How many vases are there?",
        "--options",
        "1,2,3,4",
        "--reasoner",
        "openai:test-model",
        "--base-url",
        `${llm.url}/v1`,
        "--no-cache",
      ],
      { env: { OPENAI_API_KEY: "k" } },
    );
    expect(free.code, free.stderr).toBe(0);
    expect(free.stdout).toMatch(/answer: 3 \(confidence 0\.6\)/);
    expect(free.stdout).not.toMatch(/correct:/);
    // an esi3d-graph/1 file (esi3d graph -o) reads as before; something else says which shapes it takes
    const notGraph = join(dir, "not-graph.json");
    copyFileSync(join(run, "config.json"), notGraph);
    const wrong = esi3d(["ask", notGraph]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/not-graph\.json: not a scene graph \(its format is "esi3d-run\/1"\): expected esi3d-graph\/1 .* or \{graph, diagnosis\}/);
    expect(JSON.parse(readFileSync(exported, "utf8")).graph.format).toBe("esi3d-graph/1");
  });

  it("a task JSON with --paradigm multi is rendered and asked like the run's unit", () => {
    const r = esi3d(["ask", join(run, "tasks", `${TASK}.json`), "--paradigm", "multi", "--source", "gt"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`answer: ${record(`${TASK}|multi|3d:gt`).answer} `);
    const none = esi3d(["ask", join(run, "tasks", `${TASK}.json`)]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--paradigm: .* is a task record; say which views to ask over: --paradigm single \| multi \| gt \| active/);
  });
});
