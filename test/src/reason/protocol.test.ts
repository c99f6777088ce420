import { afterEach, describe, expect, it } from "vitest";
import { createLlmClient } from "../../../src/llm/client.js";
import { LlmError, type LlmClient } from "../../../src/llm/types.js";
import type { AnswerQuestion } from "../../../src/reason/parse.js";
import { answerWithReprompt, type AnswerOutcome } from "../../../src/reason/protocol.js";
import { repromptText } from "../../../src/prompt/reminder.js";
import { scoreAnswer } from "../../../src/eval/score.js";

/** What the runner scores of a protocol outcome: its parsed answer, or its status. */
const scored = (out: AnswerOutcome) => (out.status === "parsed" ? out.parsed : out);
import { json, openaiReply, startServer, type TestServer } from "../llm/server.js";

/** The reminder a re-prompt adds to the prompt it repeats. */
const reminder = (q: Parameters<typeof repromptText>[1]) => repromptText("", q);

const yesNo: AnswerQuestion = { answer_format: "yes_no", options: ["yes", "no"] };
const count = { answer_format: "integer" as const, options: ["2", "3", "4", "5"], answer: "4" };
const choice = { answer_format: "choice" as const, options: ["mug", "bowl", "plate"], answer: "bowl" };

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A real client against the loopback server; the caller binds system text and images, as a reasoner would. */
function askVia(c: LlmClient, images = [{ mimeType: "image/png", data: new Uint8Array([1, 2, 3]) }]) {
  return async (userText: string) => (await c.chat({ system: "You answer spatial questions.", user: userText, images, temperature: 0 })).text;
}

describe("answerWithReprompt over real HTTP", () => {
  it("re-prompts once when the first reply has no answer, with the same inputs plus the reminder", async () => {
    server = await startServer(
      openaiReply("Let me look at the scene carefully. The objects are interesting."),
      openaiReply('{"answer": "no", "confidence": 0.6}'),
    );
    const c = createLlmClient("openai:m", { cache: null, baseUrl: `${server.url}/v1`, env: { OPENAI_API_KEY: "sk-protocol-test-key" } });
    const out = await answerWithReprompt(askVia(c), "Is the mug left of the bowl?", yesNo);
    expect(out).toMatchObject({ status: "parsed", reprompted: true, parsed: { answer: "no", confidence: 0.6, method: "json" } });
    expect(out.replies).toHaveLength(2);
    expect(out.status === "parsed" && out.firstFailure).toMatch(/matches none|no answer/);
    expect(server.requests).toHaveLength(2);
    type Body = { messages: Array<{ role: string; content: unknown }> };
    const [a, b] = server.requests.map((r) => r.body as Body);
    expect(b!.messages[0]).toEqual(a!.messages[0]); // same system
    const userA = a!.messages[1]!.content as Array<{ type: string; text?: string; image_url?: unknown }>;
    const userB = b!.messages[1]!.content as Array<{ type: string; text?: string; image_url?: unknown }>;
    expect(userB[1]).toEqual(userA[1]); // same image
    expect(userA[0]!.text).toBe("Is the mug left of the bowl?");
    expect(userB[0]!.text).toBe(repromptText("Is the mug left of the bowl?", yesNo));
    expect(userB[0]!.text).toContain('{"answer": <answer>, "confidence": <a number from 0 to 1>}');
  });

  it("returns invalid with both raw replies after two unreadable replies, never a guess", async () => {
    server = await startServer(openaiReply("Hmm, hard to say."), openaiReply("It could be either, honestly."));
    const c = createLlmClient("openai:m", { cache: null, baseUrl: `${server.url}/v1`, env: { OPENAI_API_KEY: "sk-protocol-test-key" } });
    const out = await answerWithReprompt(askVia(c), "Is it?", yesNo);
    expect(out).toMatchObject({ status: "invalid", reprompted: true, replies: ["Hmm, hard to say.", "It could be either, honestly."] });
    expect(out).not.toHaveProperty("parsed");
    expect(server.requests).toHaveLength(2);
    expect(scoreAnswer(scored(out), { ...yesNo, answer: "yes" })).toEqual({ scored: false, status: "invalid" });
  });

  it("does not re-prompt an answer read at once", async () => {
    server = await startServer(openaiReply('```json\n{"answer": 4, "confidence": 0.9}\n```'));
    const c = createLlmClient("openai:m", { cache: null, baseUrl: `${server.url}/v1`, env: { OPENAI_API_KEY: "sk-protocol-test-key" } });
    const out = await answerWithReprompt(askVia(c), "How many?", count);
    expect(out).toMatchObject({ status: "parsed", reprompted: false, parsed: { answer: "4" } });
    expect(server.requests).toHaveLength(1);
    expect(scoreAnswer(scored(out), count)).toEqual({ scored: true, correct: true, mra: 1 });
  });

  it("records an empty reply as empty, not invalid, without a re-prompt", async () => {
    server = await startServer(openaiReply(""));
    const c = createLlmClient("openai:m", { cache: null, baseUrl: `${server.url}/v1`, env: { OPENAI_API_KEY: "sk-protocol-test-key" } });
    const out = await answerWithReprompt(askVia(c), "Is it?", yesNo);
    expect(out).toMatchObject({ status: "empty", reprompted: false, replies: [""] });
    expect(server.requests).toHaveLength(1);
  });

  it("records a client error as error with its message, distinct from invalid", async () => {
    server = await startServer(json(400, { error: { message: "image too large" } }));
    const c = createLlmClient("openai:m", { cache: null, baseUrl: `${server.url}/v1`, env: { OPENAI_API_KEY: "sk-protocol-test-key" } });
    const out = await answerWithReprompt(askVia(c), "Is it?", yesNo);
    expect(out).toMatchObject({ status: "error", reprompted: false, replies: [] });
    expect(out.status === "error" && out.message).toMatch(/HTTP 400: image too large/);
    expect(scoreAnswer(scored(out), { ...count })).toEqual({ scored: false, status: "error", mraWorstCase: 0 });
  });
});

describe("answerWithReprompt with a scripted ask", () => {
  const scripted = (...replies: Array<string | Error>) => {
    const prompts: string[] = [];
    const ask = async (t: string) => {
      prompts.push(t);
      const r = replies[prompts.length - 1];
      if (r instanceof Error) throw r;
      if (r === undefined) throw new Error("asked too often");
      return r;
    };
    return { ask, prompts };
  };

  it("keeps the first reply when the re-prompt errors", async () => {
    const s = scripted("no idea", new Error("socket hang up"));
    const out = await answerWithReprompt(s.ask, "p", yesNo);
    expect(out).toMatchObject({ status: "error", message: "socket hang up", replies: ["no idea"], reprompted: true });
  });

  it("marks an empty reply to the re-prompt as empty", async () => {
    const s = scripted("dunno", "  ");
    expect(await answerWithReprompt(s.ask, "p", yesNo)).toMatchObject({ status: "empty", reprompted: true, replies: ["dunno", "  "] });
  });

  it("re-throws cancellations instead of recording them", async () => {
    const s = scripted(new LlmError("cancelled", { kind: "aborted" }));
    await expect(answerWithReprompt(s.ask, "p", yesNo)).rejects.toThrow("cancelled");
    const abort = new Error("stop");
    abort.name = "AbortError";
    await expect(answerWithReprompt(scripted(abort).ask, "p", yesNo)).rejects.toThrow("stop");
  });

  it("asks at most twice", async () => {
    const s = scripted("x", "z", '{"answer": "yes"}');
    expect((await answerWithReprompt(s.ask, "p", yesNo)).status).toBe("invalid");
    expect(s.prompts).toHaveLength(2);
  });
});

describe("the re-prompt's reminder", () => {
  it("names the options or the integer form", () => {
    expect(reminder(yesNo)).toContain('one of "yes", "no"');
    expect(reminder(choice)).toContain('copied as written: "mug", "bowl", "plate"');
    expect(reminder(count)).toContain("an integer written with digits");
    expect(reminder(count)).toContain("one of these options, an integer written with digits: ");
  });
  it("shows no option as an example answer (a re-prompt must not nudge towards a position)", () => {
    for (const q of [yesNo, choice, count]) expect(reminder(q)).not.toMatch(/Example/);
    expect(reminder({ answer_format: "integer", options: [] })).toContain("for example 3");
  });
  it("asks for a letter when the options were lettered", () => {
    expect(reminder({ ...choice, optionLabels: "letters" })).toContain('the letter of exactly one of these options: A. "mug", B. "bowl", C. "plate"');
  });
});
