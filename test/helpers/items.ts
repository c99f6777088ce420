/** Scored item records built by hand, for tests whose statistics are known in advance. */
import { ItemRecordSchema, itemKey, type ItemRecord } from "../../src/eval/records.js";
import { SUBCATEGORY_CATEGORY, type Subcategory } from "../../core/task/taxonomy.js";

/** The arm of an item: the 2D baseline, the gt 3D source, or the noisy source at a level. */
export type TestArm = "2d" | "gt" | { noisy: number };

/** A declined yes/no item of `task`: a program's `unanswerable` (the graph lacked what the question needs). */
export function declinedItem(task: string, paradigm: string, arm: TestArm, subcategory = "linear_alignment"): ItemRecord {
  return ItemRecordSchema.parse({ ...scoredItem(task, paradigm, arm, true, subcategory), status: "unanswerable", answer: null, correct: null });
}

/** One scored yes/no item of `task` (subcategory linear_alignment unless given), right or wrong. */
export function scoredItem(task: string, paradigm: string, arm: TestArm, correct: boolean, subcategory = "linear_alignment"): ItemRecord {
  const is3d = arm !== "2d";
  const source = arm === "2d" ? null : arm === "gt" ? "gt" : "noisy";
  const level = typeof arm === "object" ? arm.noisy : null;
  return ItemRecordSchema.parse({
    key: itemKey(task, paradigm, is3d ? "3d" : "2d", level === null ? source : `noisy@${level}`),
    task_id: task,
    subcategory,
    category: SUBCATEGORY_CATEGORY[subcategory as Subcategory],
    paradigm,
    arm: is3d ? "3d" : "2d",
    source,
    noise_level: level,
    reasoner: "symbolic",
    masks: is3d ? "instance" : null,
    instances: is3d ? "fusion" : null,
    labels: "oracle",
    format: is3d ? "json" : null,
    uncertainty: is3d ? false : null,
    question: "q",
    answer_format: "yes_no",
    options: ["yes", "no"],
    truth: "yes",
    status: "parsed",
    answer: correct ? "yes" : "no",
    confidence: null,
    correct,
    mra: null,
    prompt_hash: null,
    raw: [],
    method: "json",
    reprompted: false,
    views: 1,
    graph_quality: null,
    timings_ms: { reason: 1 },
  });
}
