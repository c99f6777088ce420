/**
 * Answers and options (ESI-Bench's released records): ESI's options_json is a list of
 * strings, a list of lists (Long-Term Navigation), a list of {option_id, text} (Deformable) or a dict
 * (Action Order Inference, Agent Observation); the answer is plain text or JSON text. Every change made to
 * fit esi3d's formats is recorded as a fix, and an answer that cannot be mapped into its options is
 * reported (the record is then kept out of the task set).
 */
import { canonicalAnswer, type AnswerSpec } from "../../core/task/schema.js";
import type { AnswerFix, DraftAnswer } from "./draft.js";
import { RecordRefusal, type EsiRecord, type Json } from "./record.js";

const refuse = (r: EsiRecord, field: string, why: string): never => {
  throw new RecordRefusal(r.file, field, why);
};

export function stringList(r: EsiRecord, v: Json, field: string): string[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string" && x.length > 0)) refuse(r, field, "expected a list of non-empty strings");
  return v as string[];
}

const isInteger = (s: string) => /^-?\d+$/.test(s);
const lower = (s: string) => s.trim().toLowerCase();

/**
 * The common case: a list of string options and a text answer. yes/no options become esi3d's yes_no
 * format (lower case), integer options its integer format; a case-only difference is fixed and reported.
 */
export function plainAnswer(
  r: EsiRecord,
  options: string[] = stringList(r, r.options, "options_json"),
  answer = r.raw.answer,
  fixes: AnswerFix[] = [],
): DraftAnswer {
  const yesNo = options.length === 2 && options.map(lower).sort().join() === "no,yes";
  if (yesNo) {
    const opts = ["yes", "no"];
    const a = lower(answer);
    if (!opts.includes(a)) return { format: "yes_no", answer, options: opts, fixes, outside: `answer "${answer}" is neither yes nor no` };
    // an answer that differed from its own option only by case is a finding; normalising both is not
    if (!options.includes(answer)) fixes.push({ field: "answer", from: answer, to: a, why: `case only: the options are ${JSON.stringify(options)}` });
    return { format: "yes_no", answer: a, options: opts, fixes };
  }
  const format = options.every(isInteger) ? "integer" : "choice";
  if (options.includes(answer)) return { format, answer, options, fixes };
  const ci = options.filter((o) => lower(o) === lower(answer));
  if (ci.length === 1) {
    fixes.push({ field: "answer", from: answer, to: ci[0]!, why: "case only" });
    return { format, answer: ci[0]!, options, fixes };
  }
  return { format, answer, options, fixes, outside: `answer "${answer}" is not one of ${JSON.stringify(options)}` };
}

/** A structured answer with its canonical text; sub-answers outside their options are reported. */
export function structuredAnswer(spec: AnswerSpec, options: string[], fixes: AnswerFix[], outside?: string): DraftAnswer {
  return { format: spec.kind, answer: canonicalAnswer(spec), options, spec, fixes, ...(outside ? { outside } : {}) };
}

export function parseJsonAnswer(r: EsiRecord): Json {
  try {
    return JSON.parse(r.raw.answer) as Json;
  } catch (e) {
    return refuse(r, "answer", `expected JSON text for a ${r.raw.small_task} answer (${(e as Error).message})`);
  }
}

/** Matches a sub-answer to its options exactly, or case-insensitively (recorded as a fix). */
export function matchOption(value: string, options: string[], fixes: AnswerFix[], where: string): string | null {
  if (options.includes(value)) return value;
  const ci = options.filter((o) => lower(o) === lower(value));
  if (ci.length === 1) {
    fixes.push({ field: "answer", from: value, to: ci[0]!, why: `case only (${where})` });
    return ci[0]!;
  }
  return null;
}
