/** Reading our own prompts back, as a loopback model server that answers without looking would. */
import type { RecordedRequest } from "../src/llm/server.js";
import type { Task } from "../../core/task/schema.js";
import type { SceneGraph } from "../../scenegraph/types.js";
import type { OptionLabels } from "../../src/prompt/formats.js";
import { buildPrompt } from "../../src/prompt/templates.js";

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

/**
 * A question's answer template as its prompt ends with it: the 3D prompt over `graph`, after the scene and its
 * blank line (the template opens with the "Question:" line).
 */
export function answerTemplateOf(
  task: Pick<Task, "task_id" | "question" | "answer_format" | "options" | "subcategory" | "answer_spec">,
  graph: SceneGraph,
  optionLabels: OptionLabels = "none",
): string {
  // the 3D prompt reads only these of a task: the question's own fields, and its id for errors
  const user = buildPrompt({ task: task as Task, graph }, { format: "text", optionLabels }).user;
  return user.slice(user.indexOf("\n\nQuestion: ") + 2);
}
