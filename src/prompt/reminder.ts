/**
 * The re-prompt's reminder of the reply form (the answer protocol in src/reason/protocol.ts asks once more with
 * it). It is prompt text, so it lives here under `PROMPT_VERSION` with the templates: a change to it changes the
 * version, and with it every prompt hash (the reminder once had its own, unversioned owner).
 *
 * The reminder names no option as an example: an example answer taken from the options (it was the first one)
 * would nudge a model that failed once towards one position, which a test of position bias would then score.
 */
import type { Task } from "../../core/task/schema.js";
import type { OptionLabels } from "./formats.js";
import { structuredShape } from "./structured.js";
import { optionLetter, REPLY_LINE } from "./templates.js";

/** What the reminder needs to know of the question. */
export interface ReminderQuestion {
  answer_format: Task["answer_format"];
  options: readonly string[];
  answer_spec?: Task["answer_spec"];
  /** how the prompt listed the options (default "none") */
  optionLabels?: OptionLabels | undefined;
}

/** Text between the original prompt and the reminder in the re-prompt. */
export const REPROMPT_SEPARATOR = "\n\n";

const isStructured = (q: ReminderQuestion) => q.answer_spec !== undefined;

/** How the answer field should look, per answer format. */
function answerShape(q: ReminderQuestion): string {
  const list = q.options.map((o) => JSON.stringify(o)).join(", ");
  if (q.optionLabels === "letters" && q.options.length > 0 && !isStructured(q)) {
    return `the letter of exactly one of these options: ${q.options.map((o, i) => `${optionLetter(i)}. ${JSON.stringify(o)}`).join(", ")}`;
  }
  switch (q.answer_format) {
    case "yes_no":
      return q.options.length ? `one of ${list}` : `"yes" or "no"`;
    case "integer":
      return q.options.length
        ? `one of these options, an integer written with digits: ${q.options.join(", ")}`
        : "an integer written with digits, for example 3";
    case "choice":
    case "ordering":
      return `exactly one of these options, copied as written: ${list}`;
    default:
      return q.answer_spec ? structuredShape(q.answer_spec).shape : `the ${q.answer_format} answer`;
  }
}

/** The reminder appended to the prompt for the one re-prompt. */
function formatReminder(q: ReminderQuestion): string {
  const lines = [
    "Your previous reply could not be read as an answer.",
    REPLY_LINE,
    `{"answer": <answer>, "confidence": <a number from 0 to 1>}`,
    `where <answer> is ${answerShape(q)}.`,
  ];
  // a structured answer's shape is hard to say in words: its example shows the form (structured.ts builds it)
  if (q.answer_spec) lines.push(`Example: ${structuredShape(q.answer_spec).example}`);
  return lines.join("\n");
}

/** The full user text of the re-prompt: the same prompt plus the reminder. */
export function repromptText(prompt: string, q: ReminderQuestion): string {
  return `${prompt}${REPROMPT_SEPARATOR}${formatReminder(q)}`;
}
