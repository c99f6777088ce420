/**
 * Models and tasks the way harness users expect (issue 18), on the built CLI against a loopback server that
 * speaks the OpenAI wire format: several reasoners in one run with a leaderboard, generation flags, repeated
 * sampling with a majority vote, and the response cache shared across runs.
 */
import { afterAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { esi3dAsync } from "../apps/cli/helpers.js";
import { itemKey, readRecords, reasonerOfKey, type ItemRecord } from "../../../src/eval/records.js";
import { ResponseCache } from "../../../src/llm/cache.js";
import { RunConfigSchema } from "../../../src/eval/config.js";
import { methodOf, splitMethod } from "../../../src/eval/summary.js";
import { openaiReply, startServer, type Handler } from "../llm/server.js";

const root = mkdtempSync(join(tmpdir(), "esi3d-reasoners-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// 2 tasks x 1 paradigm: a yes/no question (linear alignment) and a choice between two objects (spatial distance)
const TASKS = [
  "--per-subcategory",
  "1",
  "--subcategories",
  "linear_alignment,spatial_distance",
  "--paradigm",
  "single",
  "--source",
  "gt",
  "--labels",
  "oracle",
  "--concurrency",
  "1",
];
const records = (dir: string) => readRecords(join(dir, "items.jsonl")).records;
const userText = (body: unknown) => JSON.stringify((body as { messages: unknown[] }).messages);

/** A model that says yes to yes/no questions and cannot read the choice question (so its items end invalid). */
const yesModel: Handler = (req, res) =>
  (userText(req.body).includes("the candle") ? openaiReply("I cannot tell from here.") : openaiReply(JSON.stringify({ answer: "yes", confidence: 0.9 })))(
    req,
    res,
  );

/** What two runs of the same item must share: everything but time and the key. */
const verdict = (r: ItemRecord) => ({
  task: r.task_id,
  arm: r.arm,
  source: r.source,
  reasoner: r.reasoner,
  status: r.status,
  answer: r.answer,
  correct: r.correct,
  raw: r.raw,
});
/** The verdicts of some records, in one fixed order. */
const verdicts = (xs: ItemRecord[]) => xs.map(verdict).sort((p, q) => JSON.stringify(p).localeCompare(JSON.stringify(q)));

describe("reasoners in keys, configs and methods", () => {
  it("reads a config.json of one reasoner (a string, as runs before several reasoners wrote it) as a list of one", () => {
    expect(RunConfigSchema.parse({ reasoner: "openai:gpt-4o" }).reasoner).toEqual(["openai:gpt-4o"]);
    expect(RunConfigSchema.parse({ reasoner: "symbolic, gemini:gemini-2.5-pro" }).reasoner).toEqual(["symbolic", "gemini:gemini-2.5-pro"]);
    expect(RunConfigSchema.safeParse({ reasoner: ["openai:a|b"] }).success).toBe(false);
  });

  it("names the reasoner in a key only when given, and reads it back; single-reasoner keys and methods are as before", () => {
    expect(itemKey("t-000", "single", "3d", "gt")).toBe("t-000|single|3d:gt");
    expect(itemKey("t-000", "single", "3d", "noisy@1.5", "openai:gpt-4o")).toBe("t-000|single|3d:noisy@1.5|openai:gpt-4o");
    expect(reasonerOfKey("t-000|single|3d:gt")).toBeNull();
    expect(reasonerOfKey("t-000|single|shortcut")).toBeNull();
    expect(reasonerOfKey("t-000|single|2d|symbolic")).toBe("symbolic");
    expect(reasonerOfKey("t-000|single|3d:noisy@1.5|openai:gpt-4o")).toBe("openai:gpt-4o");
    expect(methodOf({ arm: "3d", source: "gt", key: "t|single|3d:gt" })).toBe("GT-3D");
    expect(methodOf({ arm: "3d", source: "gt", key: "t|single|3d:gt-appearance|gemini:g", labels: "appearance" })).toBe("GT-3D appearance [gemini:g]");
    expect(splitMethod("GT-3D appearance [gemini:g]")).toEqual({ arm: "GT-3D appearance", reasoner: "gemini:g" });
    expect(splitMethod("Noisy-3D@1.5")).toEqual({ arm: "Noisy-3D@1.5", reasoner: null });
  });
});

describe("esi3d run --reasoner a,b", () => {
  it("evaluates every item with each reasoner (keys name the reasoner), prints and reports a leaderboard, and a second run is answered from the shared cache", async () => {
    const server = await startServer(yesModel);
    const cacheHome = join(root, "xdg-multi");
    const env = { OPENAI_API_KEY: "sk-test", XDG_CACHE_HOME: cacheHome };
    try {
      const out = join(root, "multi");
      const r = await esi3dAsync(["run", ...TASKS, "--reasoner", "symbolic,openai:test-model", "--base-url", `${server.url}/v1`, "--out", out], { env });
      expect(r.code, r.stderr).toBe(0);
      const rs = records(out);
      // per task: 3D and 2D for each reasoner, and the one shortcut item
      expect(rs.length).toBe(10);
      expect(new Set(rs.map((x) => x.key)).size).toBe(10);
      expect(rs.filter((x) => x.key.endsWith("|symbolic")).length).toBe(4);
      expect(rs.filter((x) => x.key.endsWith("|openai:test-model")).length).toBe(4);
      expect(
        rs
          .filter((x) => x.arm === "shortcut")
          .map((x) => x.key)
          .sort(),
      ).toEqual(["linear_alignment-000|single|shortcut", "spatial_distance-000|single|shortcut"]);
      const model = rs.filter((x) => x.reasoner === "openai:test-model");
      expect(model.map((x) => `${x.task_id} ${x.arm} ${x.status} ${x.answer}`).sort()).toEqual([
        "linear_alignment-000 2d parsed yes",
        "linear_alignment-000 3d parsed yes",
        "spatial_distance-000 2d invalid null",
        "spatial_distance-000 3d invalid null",
      ]);
      // one request per yes/no item, two (the re-prompt) per unreadable one
      expect(server.requests.length).toBe(6);

      // the symbolic reasoner's items are what a run of it alone gives, under the old single-reasoner keys
      const alone = join(root, "alone");
      const a = await esi3dAsync(["run", ...TASKS, "--out", alone], { env });
      expect(a.code, a.stderr).toBe(0);
      const aloneRecords = records(alone);
      expect(aloneRecords.every((x) => !x.key.includes("|symbolic"))).toBe(true);
      const symbolicOf = (xs: ItemRecord[]) => verdicts(xs.filter((x) => x.reasoner.startsWith("symbolic")));
      expect(symbolicOf(rs)).toEqual(symbolicOf(aloneRecords));

      const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
      expect(summary.methods).toEqual(["Shortcut", "2D [openai:test-model]", "GT-3D [openai:test-model]", "2D [symbolic]", "GT-3D [symbolic]"]);
      expect(summary.overall["GT-3D [openai:test-model]"].all).toMatchObject({ n: 2, nScored: 1, invalid: 1 });
      // a 3D arm is set against the 2D arm of its own reasoner
      expect(new Set(summary.differences.map((d: { a: string; b: string }) => `${d.a} - ${d.b}`))).toEqual(
        new Set(["GT-3D [openai:test-model] - 2D [openai:test-model]", "GT-3D [symbolic] - 2D [symbolic]"]),
      );

      // the leaderboard: one row per reasoner and arm (the shared shortcut last), in the three forms with n, the
      // invalid reply counted apart and credited at chance in the accuracy over all items
      const board = r.stdout.slice(r.stdout.indexOf("Reasoner "));
      const rows = board.split("\n").map((l) => l.split(/\s{2,}/));
      const header = [
        "Reasoner",
        "Arm",
        "accuracy, all items [95 %]",
        "n",
        "coverage",
        "accuracy, answered [95 %]",
        "answered",
        "invalid",
        "unanswerable",
        "errors",
      ];
      expect(rows[0]).toEqual(header);
      const gtModel = summary.overall["GT-3D [openai:test-model]"].all;
      const interval = (i: { p: number; lo: number; hi: number }) => `${(i.p * 100).toFixed(1)} [${(i.lo * 100).toFixed(0)}, ${(i.hi * 100).toFixed(0)}]`;
      const allItems = interval(gtModel.score),
        answered = interval(gtModel.accuracy);
      // one of the two items answered, the other invalid: its credit is chance, 1/2 of its yes/no options
      expect(gtModel.score.p).toBeCloseTo((gtModel.k + 0.5) / 2, 14);
      expect(rows.find((x) => x[0] === "openai:test-model" && x[1] === "GT-3D")).toEqual([
        "openai:test-model",
        "GT-3D",
        allItems,
        "2",
        "50.0 %",
        answered,
        "1*",
        "1",
        "0",
        "0",
      ]);
      expect(rows.map((x) => x[0]).slice(2, 7)).toEqual(["symbolic", "symbolic", "openai:test-model", "openai:test-model", "shortcut"]);
      expect(rows.find((x) => x[0] === "shortcut")!.slice(1, 4)).toEqual(["Shortcut", expect.stringMatching(/^\d+\.\d \[\d+, \d+\]$/), "2"]);
      const report = readFileSync(join(out, "report.md"), "utf8");
      const section = report
        .slice(report.indexOf("## Leaderboard"))
        .split("\n")
        .filter((l) => l.startsWith("|"));
      const cells = (l: string | undefined) =>
        (l ?? "")
          .slice(1, -1)
          .split("|")
          .map((c) => c.trim());
      expect(cells(section[0])).toEqual(header);
      expect(cells(section.find((l) => l.startsWith("| openai:test-model ") && /\|\s+GT-3D\s+\|/.test(l)))).toEqual([
        "openai:test-model",
        "GT-3D",
        allItems,
        "2",
        "50.0 %",
        answered,
        "1*",
        "1",
        "0",
        "0",
      ]);

      // one cache for every run of this user: a second run in another directory asks the model nothing
      expect(existsSync(join(cacheHome, "esi3d", "llm-cache.sqlite"))).toBe(true);
      const again = join(root, "multi-again");
      const b = await esi3dAsync(["run", ...TASKS, "--reasoner", "symbolic,openai:test-model", "--base-url", `${server.url}/v1`, "--out", again], { env });
      expect(b.code, b.stderr).toBe(0);
      expect(server.requests.length).toBe(6);
      expect(verdicts(records(again))).toEqual(verdicts(rs));
      expect(existsSync(join(again, "llm-cache.sqlite"))).toBe(false);
    } finally {
      await server.close();
    }
  }, 240_000);

  it("refuses a reasoner named twice or one that is not a reasoner, naming --reasoner (exit 2)", async () => {
    const twice = await esi3dAsync(["run", ...TASKS, "--reasoner", "symbolic,symbolic", "--out", join(root, "twice")]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/--reasoner: a reasoner is named twice/);
    const bad = await esi3dAsync(["run", ...TASKS, "--reasoner", "symbolic,shortcut", "--out", join(root, "bad")]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--reasoner: expected symbolic, openai:<model> or gemini:<model>/);
    expect(existsSync(join(root, "twice")) || existsSync(join(root, "bad"))).toBe(false);
  });
});

describe("generation flags and repeated sampling", () => {
  it("--temperature, --max-tokens and --system-prompt reach the request; --samples 3 asks three times (three cache entries), votes, and records the agreement", async () => {
    // the replies in arrival order: two samples say yes, one says no
    let n = 0;
    const alternating: Handler = (req, res) => openaiReply(JSON.stringify({ answer: n++ % 3 === 1 ? "no" : "yes", confidence: 0.8 }))(req, res);
    const server = await startServer(alternating);
    const cacheHome = join(root, "xdg-samples");
    const env = { OPENAI_API_KEY: "sk-test", XDG_CACHE_HOME: cacheHome };
    const system = join(root, "system.txt");
    writeFileSync(system, "You are a careful spatial reasoner. Answer in JSON.\n");
    const args = [
      "run",
      "--per-subcategory",
      "1",
      "--subcategories",
      "linear_alignment",
      "--paradigm",
      "single",
      "--source",
      "gt",
      "--labels",
      "oracle",
      "--baseline",
      "none",
      "--reasoner",
      "openai:test-model",
      "--base-url",
      `${server.url}/v1`,
      "--temperature",
      "0.7",
      "--max-tokens",
      "64",
      "--system-prompt",
      system,
      "--samples",
      "3",
    ];
    try {
      const out = join(root, "samples");
      const r = await esi3dAsync([...args, "--out", out], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(server.requests.length).toBe(3);
      for (const q of server.requests) {
        const body = q.body as { temperature: number; max_tokens: number; messages: Array<{ role: string; content: string }> };
        expect(body.temperature).toBe(0.7);
        expect(body.max_tokens).toBe(64);
        expect(body.messages[0]).toEqual({ role: "system", content: "You are a careful spatial reasoner. Answer in JSON.\n" });
      }
      const [item] = records(out);
      expect(item!.answer).toBe("yes");
      expect(item!.raw.length).toBe(3);
      expect(item!.sampling!.k).toBe(3);
      expect([...item!.sampling!.answers].sort()).toEqual(["no", "yes", "yes"]);
      expect(item!.sampling!.agreement).toBeCloseTo(2 / 3, 12);
      const config = JSON.parse(readFileSync(join(out, "config.json"), "utf8")).config;
      expect(config.llm).toMatchObject({
        temperature: 0.7,
        maxOutputTokens: 64,
        samples: 3,
        systemPrompt: "You are a careful spatial reasoner. Answer in JSON.\n",
      });
      const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
      expect(summary.overall["GT-3D"].all.agreement).toEqual({ mean: 0.666667, n: 1 });
      expect(r.stdout).toMatch(/agreement\n[-\s]+\nopenai:test-model .* 0\.667\n/);
      // each sample has its own cache entry, and a rerun replays the same three samples
      const cache = ResponseCache.open(join(cacheHome, "esi3d", "llm-cache.sqlite"));
      expect(cache.size()).toBe(3);
      cache.close();
      const again = join(root, "samples-again");
      const b = await esi3dAsync([...args, "--out", again], { env });
      expect(b.code, b.stderr).toBe(0);
      expect(server.requests.length).toBe(3);
      expect(records(again)[0]!.sampling).toEqual(item!.sampling);
      // a fourth sample is one new request: samples 0-2 are the stored ones
      const more = join(root, "samples-more");
      const c = await esi3dAsync([...args.slice(0, -1), "4", "--out", more], { env });
      expect(c.code, c.stderr).toBe(0);
      expect(server.requests.length).toBe(4);
    } finally {
      await server.close();
    }
  }, 240_000);

  it("a generation option without a model reasoner is refused naming it (the symbolic programs send no prompt)", async () => {
    const r = await esi3dAsync(["run", ...TASKS, "--samples", "3", "--out", join(root, "idle")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--samples: only model reasoners \(openai:<model>, gemini:<model>\) take it; this run's reasoners are symbolic/);
    expect(existsSync(join(root, "idle"))).toBe(false);
    // nor do they read option labels: they answer with an option's text
    const labels = await esi3dAsync(["run", ...TASKS, "--option-labels", "letters", "--out", join(root, "idle-labels")]);
    expect(labels.code).toBe(2);
    expect(labels.stderr).toMatch(
      /--option-labels: only model reasoners \(openai:<model>, gemini:<model>\) read prompts, where the options are labelled; this run's reasoners are symbolic/,
    );
    expect(existsSync(join(root, "idle-labels"))).toBe(false);
  });

  it("--system-prompt naming a missing file: exit 2 naming the flag and the file, no run directory", async () => {
    const out = join(root, "no-system");
    const missing = join(root, "nowhere", "system.txt");
    const r = await esi3dAsync(
      ["run", ...TASKS, "--reasoner", "openai:test-model", "--base-url", "http://127.0.0.1:9/v1", "--system-prompt", missing, "--out", out],
      { env: { OPENAI_API_KEY: "sk-test", XDG_CACHE_HOME: join(root, "xdg-none") } },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--system-prompt: ${missing}: no such file`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
  });
});
