/**
 * The LLM fault modes a reliability review found, each played by a real OpenAI-compatible server on
 * loopback (test/src/llm/server.ts) against the real client and reasoner: what the item records (status, answer,
 * confidence, error class) is asserted for every mode. Waits are scaled down (retry-after-ms, short deadlines)
 * so the whole table runs in a few seconds.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Task } from "../../../core/task/schema.js";
import { createLlmReasoner, type LlmReasonerOptions } from "../../../src/reason/llm.js";
import { LlmOptionsSchema, type LlmOptions } from "../../../src/llm/options.js";
import { OptionPresentationSchema, PromptFormatSchema } from "../../../src/prompt/formats.js";
import type { ReasonerAnswer } from "../../../src/reason/types.js";
import { createLlmClient } from "../../../src/llm/client.js";
import { hang, json, openaiReply, raw, startServer, type Handler, type TestServer } from "./server.js";
import { smallTask } from "../prompt/bundles.js";
import { tableScene } from "../prompt/graphs.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const KEY = "sk-fault-test-SECRET123";

// generating the small task takes a moment: once for the file
let base: Task | undefined;
const small = () => (base ??= smallTask());
function yesNoTask(): Task {
  return {
    ...small(),
    question: "Is the white mug on the table?",
    answer_format: "yes_no",
    options: ["yes", "no"],
    answer: "yes",
    subcategory: "physical_contact",
  };
}
function countTask(): Task {
  return {
    ...small(),
    question: "How many mugs are there?",
    answer_format: "integer",
    options: ["1", "2", "3", "4"],
    answer: "3",
    subcategory: "counting_with_occlusion",
  };
}

/** The prompt options of a run that sets none. */
const PROMPT_DEFAULTS: LlmReasonerOptions["prompt"] = {
  ...PromptFormatSchema.parse({}),
  optionLabels: OptionPresentationSchema.shape.optionLabels.parse(undefined),
};

/** A reasoner's options against the loopback server: short timeouts and backoff, `llm` overriding the model-call options. */
function opts(url: string, llm: Partial<LlmOptions> = {}): LlmReasonerOptions {
  return {
    llm: LlmOptionsSchema.parse({ baseUrl: `${url}/v1`, maxRetries: 2, timeoutMs: 2000, ...llm }),
    prompt: PROMPT_DEFAULTS,
    clientOptions: { env: { OPENAI_API_KEY: KEY }, backoffBaseMs: 5, backoffCapMs: 10 },
  };
}

/** A reply whose finish_reason says the token limit cut it. */
const cutReply = (text: string): Handler =>
  openaiReply(text, { choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "length" }] });
const ok = (answer: string, confidence: unknown = 0.9): Handler => openaiReply(JSON.stringify({ answer, confidence }));
/** 200 with half a Chat Completions body (the connection's data cut mid-JSON). */
const truncatedBody: Handler = raw(200, '{"id": "chatcmpl-x", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assis', {
  "content-type": "application/json",
});

interface Mode {
  name: string;
  handlers: Handler[];
  task?: () => Task;
  extra?: Partial<LlmOptions>;
  expect: Partial<Pick<ReasonerAnswer, "status" | "answer" | "confidence">> & { errorClass?: string | RegExp; attempts?: number; confidenceProblem?: boolean };
}

const MODES: Mode[] = [
  { name: "baseline: a correct JSON answer", handlers: [ok("yes", 0.9)], expect: { status: "parsed", answer: "yes", confidence: 0.9, attempts: 1 } },
  {
    name: "malformed JSON body",
    handlers: [raw(200, "{not json at all", { "content-type": "application/json" }), ok("yes")],
    expect: { status: "parsed", answer: "yes", attempts: 2 },
  },
  { name: "truncated body once, then OK (retried)", handlers: [truncatedBody, ok("yes")], expect: { status: "parsed", answer: "yes", attempts: 2 } },
  { name: "truncated body on every attempt", handlers: [truncatedBody], expect: { status: "error", errorClass: "LlmError:bad_response", attempts: 3 } },
  {
    name: "finish_reason length with a partial answer",
    handlers: [cutReply('{"answer": "y'), cutReply('{"answer": "ye')],
    expect: { status: "invalid", answer: null, errorClass: "truncated_reply", attempts: 2 },
  },
  {
    name: "finish_reason length on an integer, then a complete re-prompt",
    task: countTask,
    handlers: [cutReply('{"answer": "3'), ok("3", 0.7)],
    expect: { status: "parsed", answer: "3", confidence: 0.7, attempts: 2 },
  },
  {
    name: "429 with retry-after-ms, then OK",
    handlers: [json(429, { error: { message: "slow down" } }, { "retry-after-ms": "150" }), ok("yes")],
    expect: { status: "parsed", answer: "yes", attempts: 2 },
  },
  {
    name: "500 with Retry-After: 0, then OK",
    handlers: [json(500, { error: { message: "boom" } }, { "retry-after": "0" }), ok("yes")],
    expect: { status: "parsed", answer: "yes", attempts: 2 },
  },
  { name: "500 forever", handlers: [json(500, { error: { message: "boom" } })], expect: { status: "error", errorClass: "LlmError:http:500", attempts: 3 } },
  {
    name: "401 echoing the key",
    handlers: [json(401, { error: { message: `bad key Bearer ${KEY}` } })],
    expect: { status: "error", errorClass: "LlmError:http:401", attempts: 1 },
  },
  {
    name: "200 with an error object and no choices",
    handlers: [json(200, { error: { message: "overloaded" } })],
    expect: { status: "error", errorClass: "LlmError:bad_response", attempts: 1 },
  },
  {
    name: "empty choices",
    handlers: [json(200, { id: "x", object: "chat.completion", model: "m", choices: [] })],
    expect: { status: "error", errorClass: "LlmError:bad_response", attempts: 1 },
  },
  {
    name: "429 on every attempt (retries spent)",
    handlers: [json(429, { error: { message: "rate limit reached" } })],
    extra: { maxRetries: 0 },
    expect: { status: "error", errorClass: "LlmError:http:429", attempts: 1 },
  },
  {
    name: "hang on every attempt: the per-attempt timeout ends it",
    handlers: [hang],
    extra: { timeoutMs: 1000, maxRetries: 0 },
    expect: { status: "error", errorClass: "LlmError:timeout", attempts: 1 },
  },
  {
    name: "hang on every attempt: the item deadline ends it",
    handlers: [hang],
    extra: { timeoutMs: 60_000, itemDeadlineMs: 1200 },
    expect: { status: "error", errorClass: "LlmError:deadline", attempts: 1 },
  },
  {
    name: "hang once (per-attempt timeout), then OK",
    handlers: [hang, ok("yes")],
    extra: { timeoutMs: 1000 },
    expect: { status: "parsed", answer: "yes", attempts: 2 },
  },
  { name: "confidence 85 (a percentage)", handlers: [ok("yes", 85)], expect: { status: "parsed", answer: "yes", confidence: 0.85 } },
  { name: 'confidence "85%"', handlers: [ok("yes", "85%")], expect: { status: "parsed", answer: "yes", confidence: 0.85 } },
  {
    name: "confidence 1.7 (flagged, not 0.017)",
    handlers: [ok("yes", 1.7)],
    expect: { status: "parsed", answer: "yes", confidence: null, confidenceProblem: true },
  },
  { name: "no confidence", handlers: [openaiReply('{"answer": "yes"}')], expect: { status: "parsed", answer: "yes", confidence: null } },
  {
    name: "<think> before the answer",
    handlers: [openaiReply('<think>the mug rests on it</think>{"answer": "yes", "confidence": 0.8}')],
    expect: { status: "parsed", answer: "yes", confidence: 0.8 },
  },
  { name: "an empty reply", handlers: [openaiReply("")], expect: { status: "empty", errorClass: "empty_reply", attempts: 1 } },
  { name: "a refusal, twice", handlers: [openaiReply("I cannot help with that.")], expect: { status: "invalid", errorClass: "invalid_reply", attempts: 2 } },
];

describe("LLM fault modes over a loopback OpenAI-compatible server", () => {
  for (const m of MODES) {
    it(m.name, async () => {
      server = await startServer(...m.handlers);
      const r = createLlmReasoner("openai:test-model", opts(server.url, m.extra));
      const input = { task: (m.task ?? yesNoTask)(), graph: tableScene() };
      const t0 = Date.now();
      const a = await r.answer(input);
      const { errorClass, attempts, confidenceProblem, ...fields } = m.expect;
      expect(a).toMatchObject(fields);
      if (errorClass) expect(a.failure?.class).toMatch(errorClass instanceof RegExp ? errorClass : new RegExp(`^${errorClass}$`));
      else expect(a.failure).toBeUndefined();
      if (attempts !== undefined) expect(server.requests.length).toBe(attempts);
      if (confidenceProblem) expect(a.confidenceProblem).toMatch(/confidence 1\.7 is not in \[0, 1\]/);
      // nothing a record keeps carries the key
      expect(JSON.stringify(a)).not.toContain(KEY);
      // no mode stalls: the slowest (the deadline) ends within its 1.2 s plus slack for a loaded machine
      expect(Date.now() - t0).toBeLessThan(8000);
    });
  }

  it("an unreachable endpoint is its own class, apart from 429, timeout and a bad key", async () => {
    // a port that was just listening and is closed now: the connection is refused
    const gone = await startServer(ok("yes"));
    const url = gone.url;
    await gone.close();
    const a = await createLlmReasoner("openai:test-model", opts(url, { maxRetries: 0 })).answer({ task: yesNoTask(), graph: tableScene() });
    expect(a.status).toBe("error");
    expect(a.failure?.class).toBe("LlmError:connection");
    expect(a.failure?.message).toMatch(/connection failed/);
    // the four failure classes of issue 18 are distinct
    const classes = ["LlmError:http:429", "LlmError:timeout", "LlmError:http:401", a.failure!.class];
    expect(new Set(classes).size).toBe(4);
    for (const c of classes.slice(0, 3)) expect(MODES.some((m) => m.expect.errorClass === c)).toBe(true);
  });

  it("a request waiting out a Retry-After holds no connection slot: another request goes first", async () => {
    // one slot; request A is told to wait 600 ms; B must get its answer during that wait
    let n = 0;
    server = await startServer((req, res) => {
      n++;
      if (n === 1) return json(429, { error: { message: "later" } }, { "retry-after-ms": "600" })(req, res);
      return openaiReply("done")(req, res);
    });
    const client = createLlmClient("openai:test-model", {
      baseUrl: `${server.url}/v1`,
      env: { OPENAI_API_KEY: KEY },
      cache: null,
      maxConcurrency: 1,
      maxRetries: 1,
    });
    const t0 = Date.now();
    const done: Record<string, number> = {};
    const a = client.chat({ user: "A" }).then(() => (done.A = Date.now() - t0));
    await new Promise((r) => setTimeout(r, 50));
    const b = client.chat({ user: "B" }).then(() => (done.B = Date.now() - t0));
    await Promise.all([a, b]);
    expect(done.B).toBeLessThan(400);
    expect(done.A).toBeGreaterThanOrEqual(600);
    expect(server.maxInFlight).toBe(1);
  });
});
