/** Reading our own prompts back, as a loopback model server that answers without looking would. */
import type { RecordedRequest } from "../src/llm/server.js";

type Body = { messages: Array<{ role: string; content: string | Array<{ type: string; text?: string }> }> };

/** The user text of an OpenAI Chat Completions request (its text parts, joined). */
export function openaiUserText(r: RecordedRequest): string {
  const c = (r.body as Body).messages.find((m) => m.role === "user")!.content;
  return typeof c === "string"
    ? c
    : c
        .filter((p) => p.type === "text")
        .map((p) => p.text)
        .join("\n");
}

/**
 * The first option the answer template lists, after its "Question:" line (the scene above it may hold list
 * lines of its own): a bulleted or lettered list, the integer template's "Options: 2, 3, 4", or the yes/no
 * template's `Answer "yes" or "no".`.
 */
export function firstListedOption(user: string): string {
  const lines = user.slice(user.lastIndexOf("Question: ")).split("\n").slice(1);
  for (const line of lines) {
    const inline = /^Options: (.+)$/.exec(line);
    if (inline) return inline[1]!.split(", ")[0]!;
    const item = /^(?:- |[A-Z]\. )(.+)$/.exec(line);
    if (item) return item[1]!;
    const yesNo = /^Answer "([^"]+)" or "([^"]+)"\.$/.exec(line);
    if (yesNo) return yesNo[1]!;
  }
  throw new Error(`no option list in the prompt:\n${user.slice(-600)}`);
}
