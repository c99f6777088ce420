/**
 * What an offline reasoner may know about a question: the program to run (the subcategory), the answer
 * format and options, the viewpoint, and descriptions of the objects the question names (category and
 * colour, as the question's words give them: mentions.ts), never their positions, the task's true object
 * records or its label_metadata. Label-answer questions (View Hallucination, Partial Occlusion) name their
 * target only by where it is, so it is no referent.
 */
import type { Task } from "../../core/task/schema.js";
import { findMentions, vocabulary, type Mention } from "./mentions.js";

export interface Referent {
  category: string;
  color: string;
  name: string;
  role: string;
}

export interface Query {
  subcategory: Task["subcategory"];
  question: string;
  answer_format: Task["answer_format"];
  options: string[];
  /** Objects the question names, in the task's order (the label-answer target is left out). */
  referents: Referent[];
  /** Category counted by counting questions (the question names it). */
  countCategory: string | null;
  viewpoint: { position: [number, number, number]; yaw: number; pitch: number };
}

/** The question's own words end where an options list starts ("... Options: can, vase."): the options name no referent. */
const OPTIONS_LIST = /\boptions:/i;

/** Words before a mention that make it the container, the reference or the occluder of the question. */
const ROLE_CUES: ReadonlyArray<[RegExp, string]> = [
  [/\binside$/, "container"],
  [/\bcloser to$/, "reference"],
  [/\bbehind$/, "occluder"],
  [/\bnext to$/, "reference"],
];

const asReferent = (m: Mention, role: string): Referent => ({ category: m.category, color: m.color, name: m.name, role });

/**
 * The referents of a question, from its words alone: each mention once ("three cans" three times), in the
 * order the subcategory's program reads them (container first, reference first, the occluder), roles from
 * the preposition before each mention. A dimensional-size question's repeated category is its target.
 */
function referentsOf(subcategory: string, mentions: readonly Mention[]): Referent[] {
  const roled = mentions.map((m) => ({ m, role: ROLE_CUES.find(([re]) => re.test(m.before))?.[1] ?? "target" }));
  if (subcategory === "dimensional_size") {
    const target = mentions.find((m) => m.plural) ?? mentions[0];
    const refs = new Map<string, Mention>();
    for (const m of mentions) if (target && m.category !== target.category && !refs.has(m.category)) refs.set(m.category, m);
    return [
      ...(target ? [asReferent({ ...target, name: `the ${target.category.replace(/_/g, " ")}` }, "target")] : []),
      ...[...refs.values()].map((m) => asReferent(m, "reference")),
    ];
  }
  // the same words twice name one object ("the teddy bear" in the question and in its options)
  const seen = new Set<string>();
  const once = roled.filter(({ m }) => (m.plural || !seen.has(m.name)) && (seen.add(m.name), true));
  const first = once.filter((r) => r.role !== "target");
  const ordered = subcategory === "partial_occlusion" ? first.filter((r) => r.role === "occluder") : [...first, ...once.filter((r) => r.role === "target")];
  return ordered.flatMap(({ m, role }) => Array.from({ length: m.count }, () => asReferent(m, role)));
}

/** The question's text and the vocabulary of its bundle's labels: everything an offline reasoner reads of a task. */
export function queryOf(task: Task, labels: Iterable<string> = []): Query {
  const text = task.question.split(OPTIONS_LIST)[0]!;
  const mentions = findMentions(text, vocabulary(labels));
  const counted = mentions.find((m) => m.plural) ?? mentions[0];
  return {
    subcategory: task.subcategory,
    question: task.question,
    answer_format: task.answer_format,
    options: task.options,
    referents: task.answer_format === "integer" || task.subcategory === "view_hallucination" ? [] : referentsOf(task.subcategory, mentions),
    countCategory: task.answer_format === "integer" ? (counted?.category ?? null) : null,
    viewpoint: { position: task.agent_initial.position, yaw: task.agent_initial.yaw, pitch: task.agent_initial.pitch },
  };
}
