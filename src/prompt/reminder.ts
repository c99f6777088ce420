/**
 * The re-prompt's reminder of the reply form (the answer protocol in src/reason/protocol.ts asks once more with
 * it). It is prompt text, so it lives here under `PROMPT_VERSION` with the templates: a change to it changes the
 * version, and with it every prompt hash (code-review.md: the reminder once had its own, unversioned owner).
 */
import type { Task } from "../../bridge/task/schema.js";
import { structuredShape } from "./structured.js";
import { REPLY_LINE } from "./templates.js";

/** What the reminder needs to know of the question. */
export interface ReminderQuestion {
  answer_format: Task["answer_format"];
  options: readonly string[];
  answer_spec?: Task["answer_spec"];
}

/** Text between the original prompt and the reminder in the re-prompt. */
export const REPROMPT_SEPARATOR = "\n\n";

/** How the answer field should look, per answer format. */
function answerShape(q: ReminderQuestion): string {
  const list = q.options.map((o) => JSON.stringify(o)).join(", ");
  switch (q.answer_format) {
    case "yes_no":
      return q.options.length ? `one of ${list}` : `"yes" or "no"`;
    case "integer":
      return "an integer written with digits, for example 3";
    case "choice":
    case "ordering":
      return `exactly one of these options, copied as written: ${list}`;
    default:
      return q.answer_spec ? structuredShape(q.answer_spec).shape : `the ${q.answer_format} answer`;
  }
}

/** The reminder appended to the prompt for the one re-prompt. */
export function formatReminder(q: ReminderQuestion): string {
  const example = q.answer_spec ? structuredShape(q.answer_spec).example : q.answer_format === "integer" ? `{"answer": 3, "confidence": 0.8}` : `{"answer": ${JSON.stringify(q.options[0] ?? "yes")}, "confidence": 0.8}`;
  return [
    "Your previous reply could not be read as an answer.",
    REPLY_LINE,
    `{"answer": <answer>, "confidence": <a number from 0 to 1>}`,
    `where <answer> is ${answerShape(q)}.`,
    `Example: ${example}`,
  ].join("\n");
}

/** The full user text of the re-prompt: the same prompt plus the reminder. */
export function repromptText(prompt: string, q: ReminderQuestion): string {
  return `${prompt}${REPROMPT_SEPARATOR}${formatReminder(q)}`;
}
