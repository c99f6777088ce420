/**
 * Circular evaluation (`--circular`): every rotation of an item's options is asked on its own (a model call with
 * its own prompt hash and response-cache entry, or the offline program again), and the item is right only when
 * every rotation is. A program that picks by position (the shortcut's position priors) is caught; a failed
 * rotation makes the item's status; a resumed run writes the same records.
 */
import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rotateOptions, withCircular } from "../../../src/reason/circular.js";
import type { Reasoner } from "../../../src/reason/types.js";
import type { Task } from "../../../core/task/schema.js";
import { createLlmReasoner, type LlmReasonerOptions } from "../../../src/reason/llm.js";
import { LlmOptionsSchema } from "../../../src/llm/options.js";
import { OptionPresentationSchema, PromptFormatSchema } from "../../../src/prompt/formats.js";
import { createShortcutReasoner } from "../../../src/reason/shortcut.js";
import { resolveRunConfig } from "../../../src/eval/config.js";
import { makeRecord } from "../../../src/eval/pipeline.js";
import { readRecords, type ItemRecord } from "../../../src/eval/records.js";
import { creditOf } from "../../../src/eval/summary.js";
import { runEvaluation } from "../../../src/eval/runner.js";
import { ResponseCache } from "../../../src/llm/cache.js";
import { openaiReply, startServer, type TestServer } from "../llm/server.js";
import { firstListedOption, openaiUserText } from "../../helpers/prompts.js";
import { smallTask } from "../prompt/bundles.js";
import { tableScene } from "../prompt/graphs.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("rotations", () => {
  it("rotation r lists the options from index r, wrapping; structured and short lists are asked once", () => {
    expect(rotateOptions(["a", "b", "c"], 0)).toEqual(["a", "b", "c"]);
    expect(rotateOptions(["a", "b", "c"], 1)).toEqual(["b", "c", "a"]);
    expect(rotateOptions(["a", "b", "c"], 2)).toEqual(["c", "a", "b"]);
  });

  it("asks the inner reasoner each rotation of a list of 2 or more, the same question and answer; structured and short lists once", async () => {
    const t = smallTask("dimensional_size");
    const asked = async (over: Partial<Task>, circular = true): Promise<Task[]> => {
      const tasks: Task[] = [];
      const inner = createShortcutReasoner();
      const recording: Reasoner = { ...inner, answer: (input, signal) => (tasks.push(input.task), inner.answer(input, signal)) };
      await withCircular(recording, circular).answer({ task: { ...t, ...over } });
      return tasks;
    };
    const three = await asked({ answer_format: "choice", options: ["a", "b", "c"], answer: "b" });
    expect(three.map((x) => x.options)).toEqual([0, 1, 2].map((r) => rotateOptions(["a", "b", "c"], r)));
    for (const x of three) expect(x).toMatchObject({ question: t.question, answer: "b" });
    expect((await asked({ answer_format: "yes_no", options: ["yes", "no"], answer: "yes" })).map((x) => x.options)).toEqual([
      ["yes", "no"],
      ["no", "yes"],
    ]);
    expect(await asked({ answer_format: "integer", options: [], answer: "3" })).toHaveLength(1);
    expect(await asked({ answer_format: "assignment", options: ["box", "bin"] })).toHaveLength(1);
    // without --circular: once, as is
    expect(await asked({ answer_format: "choice", options: ["a", "b", "c"], answer: "b" }, false)).toHaveLength(1);
  });
});

describe("a circular item's chance credit", () => {
  it("is what a uniform guess scores on every rotation, (1/k)^rotations, when no answer came", () => {
    const base = { options: ["a", "b", "c"], status: "unanswerable" as const, correct: null };
    expect(creditOf(base)).toBeCloseTo(1 / 3, 15);
    const circular = { ...base, circular: { rotations: 3, answers: [null, null, null], correct: [null, null, null] } };
    expect(creditOf(circular)).toBeCloseTo(1 / 27, 15);
    expect(creditOf({ ...circular, status: "parsed", correct: true })).toBe(1);
  });
});

describe("a position prior under --circular", () => {
  it("the shortcut's 'option 2' prior answers a different option in each rotation, so the item is never right", async () => {
    const task = smallTask("dimensional_size");
    const k = task.options.length;
    const a = await withCircular(createShortcutReasoner(), true).answer({ task });
    expect(a.rotations).toHaveLength(k);
    expect(a.rotations!.map((r) => r.answer)).toEqual(task.options.map((_, r) => rotateOptions(task.options, r)[1]));
    const config = resolveRunConfig({ prompt: { circular: true } });
    const record = makeRecord({
      task,
      paradigm: "single",
      arm: "shortcut",
      source: null,
      config,
      reasoner: "shortcut",
      answer: a,
      views: 0,
      quality: null,
      timings: {},
    });
    expect(record.circular).toEqual({ rotations: k, answers: a.rotations!.map((r) => r.answer), correct: a.rotations!.map((r) => r.answer === task.answer) });
    expect(record.circular!.correct.filter(Boolean)).toHaveLength(1);
    expect(record).toMatchObject({ status: "parsed", answer: rotateOptions(task.options, 0)[1], match: "text", correct: false });
  });
});

describe("an LLM under --circular, over HTTP", () => {
  const KEY = "sk-circular-test";
  /** The schemas' defaults but for the loopback endpoint, its key and no retries. */
  const loopback = (url: string): LlmReasonerOptions => ({
    llm: LlmOptionsSchema.parse({ baseUrl: `${url}/v1`, maxRetries: 0 }),
    prompt: { ...PromptFormatSchema.parse({}), optionLabels: OptionPresentationSchema.shape.optionLabels.parse(undefined) },
    clientOptions: { env: { OPENAI_API_KEY: KEY } },
  });
  const task = smallTask("spatial_distance");
  const graph = tableScene();

  it("asks each rotation with a prompt of its own, caches each, and is right only when every rotation is", async () => {
    // a model that reads the options and answers the true one, whatever its position
    server = await startServer(openaiReply(JSON.stringify({ answer: task.answer, confidence: 0.9 })));
    const cacheFile = join(mkdtempSync(join(tmpdir(), "esi3d-circular-")), "cache.sqlite");
    const make = (cache: ResponseCache) => withCircular(createLlmReasoner("openai:m", { ...loopback(server!.url), cache }), true);
    const cache = ResponseCache.open(cacheFile);
    const a = await make(cache).answer({ task, graph });
    const k = task.options.length;
    expect(server.requests).toHaveLength(k);
    // rotation r's prompt lists the options from index r
    expect(server.requests.map((r) => firstListedOption(openaiUserText(r)))).toEqual(task.options.map((_, r) => rotateOptions(task.options, r)[0]));
    const hashes = a.rotations!.map((r) => r.promptHash);
    expect(new Set(hashes).size).toBe(k);
    expect(a).toMatchObject({ status: "parsed", answer: task.answer, match: "text", promptHash: hashes[0] });
    const record = makeRecord({
      task,
      paradigm: "single",
      arm: "3d",
      source: "gt",
      config: resolveRunConfig({ prompt: { circular: true }, reasoner: ["openai:m"] }),
      reasoner: "openai:m",
      answer: a,
      views: 1,
      quality: null,
      timings: {},
    });
    expect(record).toMatchObject({ correct: true, circular: { rotations: k, answers: Array(k).fill(task.answer), correct: Array(k).fill(true) } });
    // every rotation's reply comes back from its own cache entry
    const again = await make(cache).answer({ task, graph });
    expect(server.requests).toHaveLength(k);
    expect(again.cached).toBe(true);
    expect(again.rotations!.map((r) => r.promptHash)).toEqual(hashes);
    cache.close();
  });

  it("a rotation without an answer makes the item's status, with its reason; the other rotations are kept", async () => {
    // answers the first listed option, except when the true answer is listed first: then a reply naming no option
    server = await startServer((req, res) => {
      const first = firstListedOption(openaiUserText(req));
      openaiReply(JSON.stringify({ answer: first === task.answer ? "A" : first }))(req, res);
    });
    const a = await withCircular(createLlmReasoner("openai:m", loopback(server.url)), true).answer({ task, graph });
    const bad = task.options.map((_, r) => rotateOptions(task.options, r)[0]).indexOf(task.answer);
    expect(a).toMatchObject({
      status: "invalid",
      answer: null,
      confidence: null,
      reason: expect.stringMatching(new RegExp(`^rotation ${bad} of ${task.options.length}: .*"A" matches none of the options; the options were not lettered`)),
    });
    expect(a.failure).toMatchObject({ class: "invalid_reply", message: expect.stringMatching(new RegExp(`^rotation ${bad} of `)) });
    const record = makeRecord({
      task,
      paradigm: "single",
      arm: "3d",
      source: "gt",
      config: resolveRunConfig({ prompt: { circular: true }, reasoner: ["openai:m"] }),
      reasoner: "openai:m",
      answer: a,
      views: 1,
      quality: null,
      timings: {},
    });
    expect(record).toMatchObject({ status: "invalid", answer: null, correct: null, match: null });
    expect(record.circular!.answers[bad]).toBeNull();
    expect(record.circular!.correct[bad]).toBeNull();
    expect(record.circular!.answers.filter((x) => x !== null)).toHaveLength(task.options.length - 1);
  });
});

describe("esi3d run --circular, offline", () => {
  const config = resolveRunConfig({
    prompt: { circular: true },
    perSubcategory: 1,
    subcategories: ["dimensional_size", "partial_occlusion", "linear_alignment", "counting_with_occlusion"],
    paradigms: ["single"],
    sources: ["gt"],
    labels: ["oracle"],
    baseline: ["shortcut"],
    concurrency: 1,
  });
  const run = (out: string, resume: boolean) => runEvaluation({ config, out, resume, version: "test", log: () => {}, workers: false });
  // what differs between an uninterrupted and a resumed run is when, not what
  const comparable = (r: ItemRecord) => JSON.stringify({ ...r, timings_ms: null });

  it("asks the symbolic program and the shortcut every rotation; a resumed run writes the same records", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "esi3d-circular-run-")), "run");
    const whole = (await run(out, false)).records;
    expect(whole).toHaveLength(8);
    for (const r of whole) {
      expect(r.circular?.rotations, r.key).toBe(r.options.length);
      for (const x of r.circular!.answers) if (x !== null) expect(r.options).toContain(x);
      if (r.status === "parsed") expect(r.correct, r.key).toBe(r.circular!.correct.every(Boolean));
      if (r.status === "parsed") expect(r.match, r.key).toBe("text");
    }
    // the shortcut's position priors (dimensional size: option 2; partial occlusion: option 1) are never right
    for (const sub of ["dimensional_size", "partial_occlusion"])
      expect(whole.find((r) => r.arm === "shortcut" && r.subcategory === sub)).toMatchObject({ correct: false });
    // drop the last half of the records, as an interrupted run would have left them, and resume
    const lines = readFileSync(join(out, "items.jsonl"), "utf8").split("\n").filter(Boolean);
    writeFileSync(join(out, "items.jsonl"), lines.slice(0, 4).join("\n") + "\n");
    const resumed = (await run(out, true)).records;
    expect(readRecords(join(out, "items.jsonl")).records).toHaveLength(8);
    expect(resumed.map(comparable).sort()).toEqual(whole.map(comparable).sort());
    // the run directory was made with --circular: a resume without it is refused
    await expect(
      runEvaluation({
        config: { ...config, prompt: { ...config.prompt, circular: false } },
        out,
        resume: true,
        version: "test",
        log: () => {},
        workers: false,
      }),
    ).rejects.toThrow(/different configuration/);
  }, 300_000);
});
