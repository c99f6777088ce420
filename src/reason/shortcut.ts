/**
 * The `shortcut` reasoner: the question-only baseline of ESI-Bench's Appendix H (
 * Gemini 3.1 question-only 36.6 %). It answers from the question's text and options alone, never the
 * scene, a graph, images, masks, `label_metadata`, the objects or the answer, so whatever it scores above
 * chance is what a subcategory gives away without perception: an answer form that is more common than the
 * others, an option position that holds the answer, or options drawn around the answer.
 *
 * Two programs:
 * - `prior`: a fixed answer per subcategory, the form most common in ESI-Bench's released records (a yes/no
 *   label, a triangle class, an option position, or for an ordering the items as listed), each with its source below;
 * - `majority-option`: for integer options, the option nearest the options' mean. Options drawn around
 *   the answer (answer ± k) put the answer in the middle, and this program finds it there;
 * - `exclusion`: for Cognitive Mapping's path questions, the options the text itself rules out are dropped
 *   (the path's endpoints, the start and the steps already written: src/reason/pathQuestions.ts), then the
 *   first open option is taken. ESI's options repeat those rooms, so the text alone narrows them.
 */
import type { Task } from "../../core/task/schema.js";
import { nearestOption } from "./decision.js";
import { openOptions, parsePathQuestion } from "./pathQuestions.js";
import { parseActionOrderQuestion } from "./actionOrderPrograms.js";
import type { Reasoner, ReasonerAnswer } from "./types.js";

/** Everything the shortcut reasoner may read of a task: the question as it is asked. */
type ShortcutQuestion = Pick<Task, "subcategory" | "question" | "answer_format" | "options">;

/**
 * A prior: a named answer (matched against the options' text), an option position, or (orderings) the items in their
 * listed order; `share` is how often it is ESI's answer.
 */
type Prior =
  | { kind: "answer"; pattern: RegExp; share: number; source: string }
  | { kind: "position"; index: number; share: number; source: string }
  | { kind: "listed-order"; share: number; source: string }
  | { kind: "first-named-parts"; share: number; source: string };

/**
 * The prior per subcategory (the class balances of ESI-Bench's released records, its released sample
 * where those give none; each `source` says which). Subcategories not listed take the generic prior of their
 * answer format (GENERIC_PRIORS).
 */
const SHORTCUT_PRIORS: Partial<Record<Task["subcategory"], Prior>> = {
  geometric_configuration: {
    kind: "answer",
    pattern: /equilateral/i,
    share: 168 / 284,
    source: "esi-released §3.3: 168 eq / 75 iso / 41 random unique configurations",
  },
  linear_alignment: { kind: "answer", pattern: /^no$/i, share: 63 / 94, source: "esi-released §3.3: 31 yes / 63 no" },
  physical_contact: { kind: "answer", pattern: /^no$/i, share: 82 / 119, source: "esi-released §3.3: 37 yes / 82 no" },
  material_transparency: {
    kind: "answer",
    pattern: /^no$/i,
    share: 2 / 3,
    source: "esi-bench-sample Perceptual Grounding: 2 no / 1 yes (§3.3 states no balance)",
  },
  spatial_distance: { kind: "position", index: 1, share: 85 / 152, source: "esi-released §4.1: the near object is named first in 67, second in 85" },
  dimensional_size: { kind: "position", index: 1, share: 1, source: "esi-released §3.3: the answer is option 2 in 167/167" },
  partial_occlusion: { kind: "position", index: 0, share: 1, source: "esi-bench-sample Perceptual Grounding: the answer is option 1 in 6/6 label records" },
  view_hallucination: { kind: "position", index: 0, share: 1, source: "esi-bench-sample Perceptual Grounding: the answer is option 1 in 6/6 label records" },
  inclined_plane: {
    kind: "answer",
    pattern: /^no$/i,
    share: 35 / 61,
    source: "esi-released records, Physical Dynamics/Inclined Plane: 26 yes / 35 no (slid or fell)",
  },
  // ESI's options list the items alphabetically; of the six orders of three, the listed one (bottom first) is the
  // one ESI's records accept most often (the others: 37, 32, 21, 19, 16 of 89)
  stacking_stability: {
    kind: "listed-order",
    share: 38 / 89,
    source: "esi-released records, Physical Dynamics/Stacking & Stability: the listed order is accepted in 38 of 89 (1/2/3 accepted orders in 34/36/19)",
  },
  // ESI's question names each role's right candidate's relation first ("The A to the <right> or <wrong> of B?")
  action_order_inference: {
    kind: "first-named-parts",
    share: 77 / 77,
    source: "esi-released records, Action Sequencing/Action Order Inference: each part's answer is its first-named relation in 77 of 77",
  },
  // ESI's released records (dataset/json_clean, Specular Reflection): the more common answer of each
  reflection_authoring: {
    kind: "answer",
    pattern: /^no$/i,
    share: 50 / 99,
    source: "esi-released records, Specular Reflection/Reflection Authoring: 49 yes / 50 no",
  },
  mirror_spatial_relations: { kind: "position", index: 1, share: 57 / 113, source: "esi-released records, Specular Reflection/Spatial Relations: 56 A / 57 B" },
  mirror_correspondence: {
    kind: "answer",
    pattern: /^left$/i,
    share: 35 / 88,
    source: "esi-released records, Specular Reflection/Correspondence: 35 left / 34 middle / 19 right",
  },
  // three question types, each form's most common answer (one option of each form matches)
  unobserved_change: {
    kind: "answer",
    pattern: /^(no|no_change|yellow box)$/i,
    share: 69 / 148,
    source:
      "esi-released records, Temporal Understanding/Unobserved Change: detection 26 yes / 34 no; identification 16 no_change / 10 add / 9 replace / 7 remove; current-state 19 yellow / 16 red / 11 brown",
  },
  // options 0-3 in every record: the most common count, not the options' middle
  agent_observation: {
    kind: "answer",
    pattern: /^1$/,
    share: 55 / 133,
    source: "esi-released records, Temporal Understanding/Agent Observation: true_count 0/1/2/3 in 7/55/35/36",
  },
};

/** Without a subcategory prior: "no" for yes/no questions, else the first option. */
const GENERIC_PRIORS = {
  yes_no: { kind: "answer", pattern: /^no$/i, share: 0.5, source: "generic" },
  choice: { kind: "position", index: 0, share: 0, source: "generic" },
} as const satisfies Record<string, Prior>;

interface ShortcutDecision {
  answer: string;
  confidence: number;
  program: "prior" | "majority-option" | "exclusion";
  trace: string;
}

/** The shortcut's answer to a question, from its text and options only. */
function shortcutDecision(q: ShortcutQuestion): ShortcutDecision | null {
  const options = q.options;
  if (options.length === 0) return null;
  const chance = 1 / options.length;
  if (q.answer_format === "integer" && !SHORTCUT_PRIORS[q.subcategory] && options.every((o) => Number.isFinite(Number(o)))) {
    const mean = options.reduce((s, o) => s + Number(o), 0) / options.length;
    const answer = nearestOption(options, mean);
    return {
      answer,
      confidence: chance,
      program: "majority-option",
      trace: `options ${options.join(", ")}: mean ${mean.toFixed(2)}, nearest option ${answer}`,
    };
  }
  const path = q.answer_format === "choice" ? parsePathQuestion(q.question) : null;
  if (path) {
    const open = openOptions(path, options);
    const ruledOut = options.filter((o) => !open.includes(o));
    return {
      answer: open[0]!,
      confidence: Math.round(1000 / open.length) / 1000,
      program: "exclusion",
      trace: `the text rules out ${ruledOut.join(", ") || "no option"}; first open option ${open[0]} of ${open.length}`,
    };
  }
  const prior: Prior = SHORTCUT_PRIORS[q.subcategory] ?? (q.answer_format === "yes_no" ? GENERIC_PRIORS.yes_no : GENERIC_PRIORS.choice);
  if (prior.kind === "first-named-parts") {
    const parsed = parseActionOrderQuestion(q.question);
    if (!parsed) return null;
    const answer = JSON.stringify(Object.fromEntries(parsed.parts.map((p) => [p.key, p.options[0]])));
    return { answer, confidence: Math.round(prior.share * 1000) / 1000, program: "prior", trace: `prior (${prior.source}): ${answer}` };
  }
  if (prior.kind === "listed-order") {
    const answer = JSON.stringify(options);
    return { answer, confidence: Math.round(prior.share * 1000) / 1000, program: "prior", trace: `prior (${prior.source}): ${answer}` };
  }
  const byText = prior.kind === "answer" ? options.find((o) => prior.pattern.test(o)) : undefined;
  const answer = byText ?? options[Math.min(prior.kind === "position" ? prior.index : 0, options.length - 1)]!;
  const confidence = Math.round(Math.max(chance, byText || prior.kind === "position" ? prior.share : chance) * 1000) / 1000;
  return { answer, confidence, program: "prior", trace: `prior (${prior.source}): ${answer}` };
}

/** The question fields of a task, and nothing else: the reasoner is handed only these. */
const shortcutQuestionOf = (t: Task): ShortcutQuestion => ({
  subcategory: t.subcategory,
  question: t.question,
  answer_format: t.answer_format,
  options: [...t.options],
});

export function createShortcutReasoner(): Reasoner {
  return {
    id: "shortcut",
    needs: "bundle",
    async answer(input): Promise<ReasonerAnswer> {
      const t = performance.now();
      const q = shortcutQuestionOf(input.task);
      const d = shortcutDecision(q);
      const latencyMs = Math.round((performance.now() - t) * 100) / 100;
      if (!d)
        return {
          status: "unanswerable",
          answer: null,
          confidence: null,
          raw: ["unanswerable: the question has no options"],
          method: `shortcut:${q.subcategory}`,
          reason: "unanswerable: the question has no options",
          latencyMs,
        };
      return {
        status: "parsed",
        answer: d.answer,
        confidence: d.confidence,
        match: "text",
        raw: [d.trace],
        method: `shortcut-${d.program}:${q.subcategory}`,
        reason: d.trace,
        latencyMs,
      };
    },
  };
}
