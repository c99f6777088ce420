/**
 * Reading a structured answer (imported ESI-Bench tasks, core/task/schema.ts AnswerSpecSchema): an ordering of
 * items (Stacking & Stability), an item → container assignment (Rigid Containment), one answer per step
 * (Long-Term Navigation) or named sub-answers (Action Order Inference). The model is asked for
 * `{"answer": <list or object>, "confidence": …}`; every element is matched to its own options with the plain
 * parser's rules (parse.ts resolveString: exact, normalised, contained; never a letter: these options are not
 * lettered), and the whole answer must be complete: an element missing, repeated, unknown or ambiguous makes the
 * reply `unparsed` (re-prompted, then `invalid`), never a partly guessed answer.
 *
 * The parsed answer is written in the canonical text of its kind (schema.ts canonicalAnswer), so that scoring
 * compares texts and records keep one string; `decodeStructured` reads it back.
 */
import { isStructuredFormat, type AnswerSpec } from "../../core/task/schema.js";
import {
  confidenceMention,
  confidenceProblem,
  findAnswerObjects,
  normalizeAnswerText,
  orderingItems,
  parseAnswer,
  parseJsonLoose,
  readConfidence,
  resolveString,
  stripReasoning,
  type AnswerQuestion,
  type ParseResult,
} from "./parse.js";

/** A parsed structured answer, in the form of its kind. */
export type StructuredValue =
  | { kind: "any_ordering"; order: string[] }
  | { kind: "assignment"; pairs: Array<{ item: string; target: string }> }
  | { kind: "step_sequence"; steps: string[] }
  | { kind: "parts"; parts: Array<{ key: string; answer: string }> };

type Read = StructuredValue | { error: string };
const isError = (r: Read): r is { error: string } => "error" in r;

/** Separator of step answers in the canonical text and in free-text replies ("turn right | turn left"). */
const STEP_SEPARATOR = " | ";

/** One element matched to its options (parse.ts rules for a choice), or why not. */
function pick(value: unknown, options: readonly string[], what: string): string | { error: string } {
  if (typeof value !== "string" && typeof value !== "number") return { error: `${what} is not a text` };
  const r = resolveString(String(value), { answer_format: "choice", options });
  return "error" in r ? { error: `${what}: ${r.error}` } : r.answer;
}

/** A list given as a JSON list, or as text split the way parse.ts splits orderings (or on "|"). */
function asList(v: unknown): unknown[] | null {
  if (Array.isArray(v)) return v;
  if (typeof v !== "string") return null;
  const t = v.trim();
  if (t.startsWith("[")) {
    const j = parseJsonLoose(t);
    if (Array.isArray(j)) return j;
  }
  return t.includes("|")
    ? t
        .split("|")
        .map((x) => x.trim())
        .filter((x) => x !== "")
    : orderingItems(t);
}

function readOrdering(v: unknown, spec: Extract<AnswerSpec, { kind: "any_ordering" }>): Read {
  const list = asList(v);
  if (!list) return { error: "the answer is not a list of items" };
  if (list.length !== spec.items.length) return { error: `the order has ${list.length} item(s), the question ${spec.items.length}` };
  const order: string[] = [];
  for (const [i, x] of list.entries()) {
    const p = pick(x, spec.items, `item ${i + 1}`);
    if (typeof p !== "string") return p;
    if (order.includes(p)) return { error: `"${p}" appears twice in the order` };
    order.push(p);
  }
  return { kind: "any_ordering", order };
}

function readAssignment(v: unknown, spec: Extract<AnswerSpec, { kind: "assignment" }>): Read {
  const items = spec.pairs.map((p) => p.item);
  let entries: Array<[unknown, unknown]>;
  if (typeof v === "string" && items.length === 1 && !v.trim().startsWith("{") && !v.trim().startsWith("["))
    entries = [[items[0], v]]; // one item: the container alone
  else if (Array.isArray(v))
    entries = v.map((x) =>
      x && typeof x === "object" && !Array.isArray(x)
        ? [
            (x as Record<string, unknown>).item ?? (x as Record<string, unknown>)._key,
            (x as Record<string, unknown>).target ?? (x as Record<string, unknown>).value,
          ]
        : [undefined, undefined],
    );
  else if (v && typeof v === "object") entries = Object.entries(v as Record<string, unknown>);
  else if (typeof v === "string" && typeof parseJsonLoose(v.trim()) === "object") return readAssignment(parseJsonLoose(v.trim()), spec);
  else return { error: "the answer is not an item → container mapping" };
  const got = new Map<string, string>();
  for (const [k, t] of entries) {
    const item = pick(k, items, "an item");
    if (typeof item !== "string") return item;
    if (got.has(item)) return { error: `"${item}" is assigned twice` };
    const target = pick(t, spec.targets, `the container of ${item}`);
    if (typeof target !== "string") return target;
    got.set(item, target);
  }
  const missing = items.filter((i) => !got.has(i));
  if (missing.length) return { error: `no container for ${missing.map((m) => `"${m}"`).join(", ")}` };
  return { kind: "assignment", pairs: items.map((item) => ({ item, target: got.get(item)! })) };
}

function readSteps(v: unknown, spec: Extract<AnswerSpec, { kind: "step_sequence" }>): Read {
  const list = spec.steps.length === 1 && typeof v === "string" && !v.includes("|") && !v.trim().startsWith("[") ? [v] : asList(v);
  if (!list) return { error: "the answer is not a list of steps" };
  if (list.length !== spec.steps.length) return { error: `${list.length} step answer(s) for ${spec.steps.length} blank(s)` };
  const steps: string[] = [];
  for (const [i, x] of list.entries()) {
    const p = pick(x, spec.steps[i]!.options, `step ${i + 1}`);
    if (typeof p !== "string") return p;
    steps.push(p);
  }
  return { kind: "step_sequence", steps };
}

/** A part's key as a reply may write it: "A", "answer_A", "a" (ESI's raw answers use answer_<key>). */
const partKey = (k: string) => normalizeAnswerText(k.replace(/^answer[_ ]?/i, ""));

function readParts(v: unknown, spec: Extract<AnswerSpec, { kind: "parts" }>): Read {
  if (typeof v === "string" && v.trim().startsWith("{")) v = parseJsonLoose(v.trim());
  if (!v || typeof v !== "object" || Array.isArray(v))
    return { error: `the answer is not an object with the parts ${spec.parts.map((p) => p.key).join(", ")}` };
  const entries = Object.entries(v as Record<string, unknown>);
  const parts: Array<{ key: string; answer: string }> = [];
  for (const part of spec.parts) {
    const hits = entries.filter(([k]) => partKey(k) === partKey(part.key));
    if (hits.length !== 1) return { error: hits.length ? `part ${part.key} is given twice` : `part ${part.key} is missing` };
    const p = pick(hits[0]![1], part.options, `part ${part.key}`);
    if (typeof p !== "string") return p;
    parts.push({ key: part.key, answer: p });
  }
  const extra = entries.filter(([k]) => !spec.parts.some((p) => partKey(p.key) === partKey(k)));
  if (extra.length) return { error: `unknown part(s) ${extra.map(([k]) => `"${k}"`).join(", ")}` };
  return { kind: "parts", parts };
}

/** Reads one answer value (from a JSON `answer` field or a free-text reply) in the form the spec asks for. */
function readStructuredValue(v: unknown, spec: AnswerSpec): Read {
  if (v === null || v === undefined) return { error: "the answer is empty (null)" };
  switch (spec.kind) {
    case "any_ordering":
      return readOrdering(v, spec);
    case "assignment":
      return readAssignment(v, spec);
    case "step_sequence":
      return readSteps(v, spec);
    case "parts":
      return readParts(v, spec);
  }
}

/** The canonical text of a parsed answer: the same form as the task's own answer (schema.ts canonicalAnswer). */
function structuredText(v: StructuredValue): string {
  switch (v.kind) {
    case "any_ordering":
      return JSON.stringify(v.order);
    case "assignment":
      return JSON.stringify(Object.fromEntries(v.pairs.map((p) => [p.item, p.target])));
    case "step_sequence":
      return v.steps.join(STEP_SEPARATOR);
    case "parts":
      return JSON.stringify(Object.fromEntries(v.parts.map((p) => [p.key, p.answer])));
  }
}

/** Reads a canonical text back into its value (the scorer and the records use it), or null when it is not one. */
export function decodeStructured(text: string, spec: AnswerSpec): StructuredValue | null {
  const v = spec.kind === "step_sequence" ? text.split(STEP_SEPARATOR) : parseJsonLoose(text);
  const r = readStructuredValue(v, spec);
  return isError(r) || structuredText(r) !== text ? null : r;
}

/** The answer of a free-text reply: an "answer: …" line, else a JSON list/object in the text, else the whole text. */
function freeTextValue(text: string): unknown {
  const t = text.replace(/```[a-z]*\n?/gi, "").trim();
  const line = /\b(?:final\s+answer|answer)\b["']?\s*(?:is\s*:?|:|=)\s*(.+)$/im.exec(t);
  const body = line ? line[1]!.trim().replace(/[.]$/, "") : t;
  const bracket = /[[{][\s\S]*[\]}]/.exec(body);
  if (bracket) {
    const j = parseJsonLoose(bracket[0]);
    if (j !== undefined) return j;
  }
  return body;
}

/**
 * Parses a reply to a structured question. Method `json` (an answer object) or `rule-text` (free text); the
 * answer is the canonical text. Several JSON answers must agree.
 */
function parseStructuredReply(reply: string, spec: AnswerSpec): ParseResult {
  const text = stripReasoning(reply ?? "");
  if (text.trim() === "") return { status: "unparsed", reason: "empty reply" };
  const objects = findAnswerObjects(text);
  const stated = objects.length ? objects[objects.length - 1]!.confidence : confidenceMention(text);
  const confidence = readConfidence(stated);
  const problem = confidenceProblem(stated);
  const values = objects.length ? objects.map((o) => o.answer) : [freeTextValue(text)];
  const reads = values.map((v) => readStructuredValue(v, spec));
  const bad = reads.find(isError);
  const withConf = <T extends object>(o: T) => (confidence === undefined ? o : { ...o, confidence });
  if (bad) return withConf({ status: "unparsed" as const, reason: `${objects.length ? "JSON answer" : "reply"}: ${bad.error}` });
  const texts = new Set(reads.map((r) => structuredText(r as StructuredValue)));
  if (texts.size > 1) return withConf({ status: "unparsed" as const, reason: `several answers disagree (${[...texts].join("; ")})` });
  const answer = [...texts][0]!;
  return withConf({
    status: "parsed" as const,
    answer,
    method: objects.length ? ("json" as const) : ("rule-text" as const),
    match: "structured" as const,
    ...(problem ? { confidenceProblem: problem } : {}),
  });
}

/** ESI's score of a structured answer, and the share of its parts that are right (diagnostic, not ESI's score). */
export interface StructuredScore {
  /** ESI's runner: exact match, every part right (stacking: the order is one of the accepted ones) */
  correct: boolean;
  /** parts right / parts asked; null for orderings, which ESI scores only whole */
  parts_correct: number | null;
  parts_total: number | null;
}

export function scoreStructured(v: StructuredValue, spec: AnswerSpec): StructuredScore {
  const tally = (hits: boolean[]): StructuredScore => ({ correct: hits.every(Boolean), parts_correct: hits.filter(Boolean).length, parts_total: hits.length });
  if (spec.kind === "any_ordering" && v.kind === "any_ordering")
    return { correct: spec.accepted.some((o) => o.join("\u0000") === v.order.join("\u0000")), parts_correct: null, parts_total: null };
  if (spec.kind === "assignment" && v.kind === "assignment") return tally(spec.pairs.map((p) => v.pairs.find((q) => q.item === p.item)?.target === p.target));
  if (spec.kind === "step_sequence" && v.kind === "step_sequence") return tally(spec.steps.map((s, i) => v.steps[i] === s.answer));
  if (spec.kind === "parts" && v.kind === "parts") return tally(spec.parts.map((p) => v.parts.find((q) => q.key === p.key)?.answer === p.answer));
  throw new RangeError(`a ${v.kind} answer cannot be scored against a ${spec.kind} task`);
}

/** Parses any reply: a structured question through parseStructuredReply, the plain formats through parse.ts. */
export function parseReply(reply: string, q: AnswerQuestion): ParseResult {
  if (!isStructuredFormat(q.answer_format)) return parseAnswer(reply, q);
  if (!q.answer_spec || q.answer_spec.kind !== q.answer_format) throw new RangeError(`a ${q.answer_format} question needs its answer_spec`);
  return parseStructuredReply(reply, q.answer_spec);
}
