/**
 * How a structured answer (imported ESI-Bench tasks: core/task/schema.ts AnswerSpec) is asked for, shared by
 * the answer template (templates.ts) and the re-prompt's reminder (reminder.ts): what `answer` must hold and an
 * example reply of the right shape (built from the task's own options, never from its answer).
 */
import type { AnswerSpec } from "../../core/task/schema.js";

const quoted = (xs: readonly string[]) => xs.map((x) => JSON.stringify(x)).join(", ");

export interface StructuredShape {
  /** lines listing what each part may be */
  options: string[];
  /** what the answer field holds, as a phrase */
  shape: string;
  /** an example JSON reply */
  example: string;
}

export function structuredShape(spec: AnswerSpec): StructuredShape {
  const reply = (answer: unknown) => `{"answer": ${JSON.stringify(answer)}, "confidence": 0.8}`;
  switch (spec.kind) {
    case "any_ordering":
      return {
        options: [`Items: ${quoted(spec.items)}`],
        shape: `a JSON list of all ${spec.items.length} items, each once, in the order asked for`,
        example: reply(spec.items),
      };
    case "assignment": {
      const items = spec.pairs.map((p) => p.item);
      return {
        options: [`Items: ${quoted(items)}`, `Containers: ${quoted(spec.targets)}`],
        shape: `a JSON object mapping each item to one of the containers, e.g. {${JSON.stringify(items[0])}: ${JSON.stringify(spec.targets[0])}}`,
        example: reply(Object.fromEntries(items.map((i) => [i, spec.targets[0]]))),
      };
    }
    case "step_sequence":
      return {
        options: spec.steps.map((s, i) => `Blank ${i + 1}: one of ${quoted(s.options)}`),
        shape: `a JSON list of ${spec.steps.length} answer(s), one per blank in order, each copied from that blank's options`,
        example: reply(spec.steps.map((s) => s.options[0])),
      };
    case "parts":
      return {
        options: spec.parts.map((p) => `Part ${p.key}: one of ${quoted(p.options)}`),
        shape: `a JSON object with the keys ${quoted(spec.parts.map((p) => p.key))}, each holding one of that part's options`,
        example: reply(Object.fromEntries(spec.parts.map((p) => [p.key, p.options[0]]))),
      };
  }
}
