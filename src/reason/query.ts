/**
 * What an offline reasoner may know about a question: the program to run (the subcategory), the answer
 * format and options, the viewpoint, and descriptions of the objects the question names (category and
 * colour, the words a question uses), never their positions. Label-answer questions (View Hallucination,
 * Partial Occlusion) name their target only by where it is, so its category is withheld.
 */
import type { Task } from "../../bridge/task/schema.js";

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

const LABEL_ANSWER = new Set(["partial_occlusion", "view_hallucination"]);

export function queryOf(task: Task): Query {
  const rel = task.relevant_object_ids.map((id) => task.objects.find((o) => o.id === id)!);
  const referents = rel
    .filter((o) => !(LABEL_ANSWER.has(task.subcategory) && o.role === "target"))
    .map((o) => ({ category: o.category, color: o.color, name: o.name, role: o.role }));
  const countCategory = task.answer_format === "integer" ? (task.label_metadata.category as string | undefined) ?? rel[0]?.category ?? null : null;
  return {
    subcategory: task.subcategory,
    question: task.question,
    answer_format: task.answer_format,
    options: task.options,
    referents,
    countCategory,
    viewpoint: { position: task.agent_initial.position, yaw: task.agent_initial.yaw, pitch: task.agent_initial.pitch },
  };
}
