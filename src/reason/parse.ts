/**
 * Reading a model's answer. The model is asked for a strict JSON object `{"answer": ..., "confidence": 0..1}`;
 * this parser accepts what models actually send and maps it to exactly one of the task's options (or, for
 * integer questions, an integer), or says why it could not. It never guesses: an ambiguous reply is `unparsed`.
 *
 * Order of attempts (the method is recorded with every answer, since users compare extraction protocols,
 * as VLMEvalKit's users do):
 * 1. `json`: a JSON object with an `answer` key anywhere in the reply (code fences, prose around it, single quotes,
 *    unquoted keys, trailing commas, Python True/False/None are tolerated). Several objects must agree.
 * 2. Otherwise rules on the text, VLMEvalKit-style: an "answer: X" / "the answer is X" / `\boxed{X}` line, then the
 *    whole reply as a short answer, then (lettered prompts only) an option letter in the prose ("(B)", "option B"),
 *    then exactly one option text contained in a short reply. Method `rule-option` (a letter), `numeric` (a number)
 *    or `rule-text`.
 *
 * Strict matching: a reply is matched to an option by the option's own text (an integer by its value). A letter
 * counts only when the prompt lettered the options (`optionLabels: "letters"`, src/prompt/formats.ts); otherwise
 * "A" is just a text that names no option, and the reply is unparsed with that reason. A model that answers "A"
 * to everything must not be scored as answering the first option of an unlettered list.
 *
 * The benchmark's exact match ("correct iff ŷ = y*", the ESI-Bench paper's answer rule) leaves normalisation open; ours
 * (`normalizeAnswerText`): Unicode NFKC, lower case, underscores and dashes as spaces (categories like
 * `tennis_ball`), other punctuation removed, the articles a/an/the dropped, whitespace collapsed.
 */
import type { AnswerFormat, AnswerSpec } from "../../core/task/schema.js";
import type { AnswerMatch, OptionLabels } from "../prompt/formats.js";
import { parseIntegerAnswer } from "./numbers.js";

/** What the parser needs to know about the question: a Task has these fields. */
export interface AnswerQuestion {
  answer_format: AnswerFormat;
  options: readonly string[];
  /** the structured answer of an any_ordering, assignment, step_sequence or parts task (structured.ts reads those) */
  answer_spec?: AnswerSpec | undefined;
  /** how the prompt labelled the options: only "letters" lets an option letter stand for its option (default "none") */
  optionLabels?: OptionLabels | undefined;
}

/** Where the answer came from. */
type ParseMethod = "json" | "rule-option" | "rule-text" | "numeric";
/**
 * How the extracted value was matched to the canonical answer: `exact` (byte-equal to an option), `normalized`
 * (equal after normalizeAnswerText), `letter` (option letter A, B, …), `synonym` (yes/no synonym), `number` (an
 * integer, digits or words), `ordering` (the same sequence of items), `contained` (exactly one option's text
 * occurs in the answer), `structured` (every part of a structured answer matched its options, structured.ts).
 */
export type MatchKind = "exact" | "normalized" | "letter" | "synonym" | "number" | "ordering" | "contained" | "structured";

/**
 * What a record says of a match (src/prompt/formats.ts AnswerMatch): `text` when the reply gave an option's own
 * text (exactly, after normalisation, as the same ordering, every part of a structured answer) or an integer's
 * value; `letter` when it gave the letter of a lettered option; `fuzzy` when a tolerant rule read it (a yes/no
 * synonym, one option's text found inside a longer reply). The report lists the fuzzy ones for a reader to check.
 */
export function answerMatchOf(kind: MatchKind): AnswerMatch {
  switch (kind) {
    case "letter":
      return "letter";
    case "synonym":
    case "contained":
      return "fuzzy";
    case "exact":
    case "normalized":
    case "number":
    case "ordering":
    case "structured":
      return "text";
  }
}

export interface ParsedAnswer {
  status: "parsed";
  /** exactly one of the options' strings; for an integer question whose value is not an option, the integer as a string */
  answer: string;
  /** index into options, when the answer is one */
  optionIndex?: number;
  /** in [0, 1]; undefined when the reply gave none (never invented) */
  confidence?: number;
  /** set when the reply stated a confidence that could not be read (e.g. 1.7): it is left out, never rescaled */
  confidenceProblem?: string;
  method: ParseMethod;
  match: MatchKind;
}

interface UnparsedAnswer {
  status: "unparsed";
  reason: string;
  confidence?: number;
}

export type ParseResult = ParsedAnswer | UnparsedAnswer;

const ARTICLES: ReadonlySet<string> = new Set(["a", "an", "the"]);

/** The exact-match normalisation (see the file comment). */
export function normalizeAnswerText(s: string): string {
  return s
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[_\u2010-\u2015-]+/g, " ")
    .replace(/[^\p{L}\p{N}\s]+/gu, " ")
    .split(/\s+/)
    .filter((w) => w !== "" && !ARTICLES.has(w))
    .join(" ");
}

/** Whole-answer synonyms (normalised), the ESI-Bench paper leaves them to us. */
const YES_WORDS: ReadonlySet<string> = new Set(["yes", "y", "true", "correct", "yeah", "yep", "affirmative"]);
const NO_WORDS: ReadonlySet<string> = new Set(["no", "n", "false", "incorrect", "nope", "negative"]);

/** Option letters are A, B, C, … in option order; only this many options can have one. */
const MAX_LETTERED_OPTIONS = 26;
/**
 * A reply is searched for a contained option text only when its normalised length is at most this multiple of
 * the options' total normalised length (VLMEvalKit's can_infer_text uses the same guard against long explanations
 * that happen to mention one option).
 */
const CONTAINED_LENGTH_FACTOR = 2;

interface Resolution {
  answer: string;
  optionIndex?: number;
  match: MatchKind;
}
type Resolved = Resolution | { error: string };

const isError = (r: Resolved): r is { error: string } => "error" in r;

// ---------------------------------------------------------------------------------------------------------------
// entry point

export function parseAnswer(reply: string, q: AnswerQuestion): ParseResult {
  const text = stripReasoning(reply ?? "");
  if (text.trim() === "") return { status: "unparsed", reason: "empty reply" };

  const objects = findAnswerObjects(text);
  if (objects.length > 0) {
    const results = objects.map((o) => resolveValue(o.answer, q));
    const stated = objects[objects.length - 1]!.confidence;
    const confidence = readConfidence(stated);
    const firstError = results.find(isError);
    if (firstError) return unparsed(`JSON answer: ${firstError.error}`, confidence);
    const answers = new Set(results.map((r) => (r as Resolution).answer));
    if (answers.size > 1) return unparsed(`several JSON answers disagree (${[...answers].map((a) => `"${a}"`).join(", ")})`, confidence);
    return parsed(results[results.length - 1] as Resolution, "json", confidence, confidenceProblem(stated));
  }

  const stated = confidenceMention(text);
  const confidence = stated === undefined ? undefined : readConfidence(stated);
  const r = resolveFreeText(text, q);
  if (isError(r)) return unparsed(r.error, confidence);
  return parsed(r, methodOf(r.match, q), confidence, confidenceProblem(stated));
}

function parsed(r: Resolution, method: ParseMethod, confidence: number | undefined, problem?: string): ParsedAnswer {
  const out: ParsedAnswer = { status: "parsed", answer: r.answer, method, match: r.match };
  if (r.optionIndex !== undefined) out.optionIndex = r.optionIndex;
  if (confidence !== undefined) out.confidence = confidence;
  if (problem !== undefined) out.confidenceProblem = problem;
  return out;
}

function unparsed(reason: string, confidence: number | undefined): UnparsedAnswer {
  return confidence === undefined ? { status: "unparsed", reason } : { status: "unparsed", reason, confidence };
}

function methodOf(m: MatchKind, q: AnswerQuestion): ParseMethod {
  if (m === "letter") return "rule-option";
  return m === "number" || q.answer_format === "integer" ? "numeric" : "rule-text";
}

/** Drops `<think>…</think>` reasoning (on by default in lmms-eval), including a dangling close or open tag. */
export function stripReasoning(text: string): string {
  let t = text.replace(/<(think|thinking)>[\s\S]*?<\/\1>/gi, "");
  // a close tag without its open tag (some servers drop the opening one): keep what follows the last one
  let lastClose = -1;
  for (const m of t.matchAll(/<\/think(?:ing)?>/gi)) lastClose = m.index + m[0].length;
  if (lastClose >= 0) t = t.slice(lastClose);
  // an open tag never closed: the rest is unfinished reasoning
  const open = t.search(/<think(?:ing)?>/i);
  if (open >= 0) t = t.slice(0, open);
  return t;
}

// ---------------------------------------------------------------------------------------------------------------
// JSON

interface AnswerObject {
  answer: unknown;
  confidence: unknown;
}

const ANSWER_KEY = /^(final[_ ]?)?answer$/i;
const CONFIDENCE_KEY = /^(confidence|conf)$/i;
/** How deep to look for an object with an answer key inside a parsed JSON value. */
const MAX_JSON_SEARCH_DEPTH = 3;

/** Every JSON(-ish) object in the text that has an `answer` key, in order. */
export function findAnswerObjects(text: string): AnswerObject[] {
  const out: AnswerObject[] = [];
  let i = 0;
  while (i < text.length) {
    const start = text.indexOf("{", i);
    if (start < 0) break;
    let end = matchBrace(text, start, true);
    if (end < 0) end = matchBrace(text, start, false);
    if (end < 0) {
      i = start + 1;
      continue;
    }
    const value = parseJsonLoose(text.slice(start, end + 1));
    const found = value === undefined ? undefined : findAnswerIn(value, 0);
    if (found) {
      out.push(found);
      i = end + 1;
    } else {
      i = start + 1; // an unparsable outer brace may still contain a parsable object
    }
  }
  return out;
}

function findAnswerIn(v: unknown, depth: number): AnswerObject | undefined {
  if (depth > MAX_JSON_SEARCH_DEPTH || !v || typeof v !== "object") return undefined;
  if (!Array.isArray(v)) {
    const entries = Object.entries(v as Record<string, unknown>);
    const a = entries.find(([k]) => ANSWER_KEY.test(k.trim()));
    if (a) return { answer: a[1], confidence: entries.find(([k]) => CONFIDENCE_KEY.test(k.trim()))?.[1] };
  }
  for (const x of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) {
    const f = findAnswerIn(x, depth + 1);
    if (f) return f;
  }
  return undefined;
}

/** Index of the brace closing the one at `start`, skipping strings; -1 when unbalanced. */
function matchBrace(text: string, start: number, singleQuotes: boolean): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || (singleQuotes && c === "'")) quote = c;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i;
  }
  return -1;
}

/** Strict JSON first, then the tolerant reader; undefined when neither accepts the text. */
export function parseJsonLoose(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    try {
      return new LooseJsonReader(text).readDocument();
    } catch {
      return undefined;
    }
  }
}

/**
 * JSON plus what models write instead: single-quoted strings, unquoted keys, trailing commas, Python
 * True/False/None, a leading "+" or "." on numbers.
 */
class LooseJsonReader {
  private i = 0;
  constructor(private readonly s: string) {}

  readDocument(): unknown {
    const v = this.value();
    this.ws();
    if (this.i !== this.s.length) this.fail("trailing text");
    return v;
  }

  private fail(what: string): never {
    throw new Error(`${what} at ${this.i}`);
  }

  private ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }

  private value(): unknown {
    this.ws();
    const c = this.s[this.i];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"' || c === "'") return this.string();
    const num = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(this.s.slice(this.i));
    if (num) {
      this.i += num[0].length;
      return Number(num[0]);
    }
    const word = /^[A-Za-z_][\w-]*/.exec(this.s.slice(this.i));
    if (word) {
      this.i += word[0].length;
      const w = word[0];
      if (w === "true" || w === "True") return true;
      if (w === "false" || w === "False") return false;
      if (w === "null" || w === "None") return null;
      this.fail(`bare word "${w}"`);
    }
    return this.fail("value expected");
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.i++; // {
    for (;;) {
      this.ws();
      if (this.s[this.i] === "}") {
        this.i++;
        return out;
      }
      let key: string;
      const c = this.s[this.i];
      if (c === '"' || c === "'") key = this.string();
      else {
        const m = /^[A-Za-z_$][\w$-]*/.exec(this.s.slice(this.i));
        if (!m) this.fail("key expected");
        key = m[0];
        this.i += key.length;
      }
      this.ws();
      if (this.s[this.i] !== ":") this.fail("':' expected");
      this.i++;
      out[key] = this.value();
      this.ws();
      if (this.s[this.i] === ",") this.i++;
      else if (this.s[this.i] !== "}") this.fail("',' or '}' expected");
    }
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.i++; // [
    for (;;) {
      this.ws();
      if (this.s[this.i] === "]") {
        this.i++;
        return out;
      }
      out.push(this.value());
      this.ws();
      if (this.s[this.i] === ",") this.i++;
      else if (this.s[this.i] !== "]") this.fail("',' or ']' expected");
    }
  }

  private string(): string {
    const q = this.s[this.i]!;
    this.i++;
    let out = "";
    while (this.i < this.s.length) {
      const c = this.s[this.i]!;
      if (c === q) {
        this.i++;
        return out;
      }
      if (c === "\\") {
        const n = this.s[this.i + 1];
        const esc: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", "/": "/", "\\": "\\", '"': '"', "'": "'" };
        if (n === "u") {
          out += String.fromCharCode(parseInt(this.s.slice(this.i + 2, this.i + 6), 16));
          this.i += 6;
          continue;
        }
        out += n !== undefined && esc[n] !== undefined ? esc[n] : (n ?? "");
        this.i += 2;
        continue;
      }
      out += c;
      this.i++;
    }
    return this.fail("unterminated string");
  }
}

// ---------------------------------------------------------------------------------------------------------------
// confidence

/**
 * A confidence in [0, 1]: a number in [0, 1]; a whole number in (1, 100] or a string with "%" is read as a
 * percentage; anything else is undefined. A fraction above 1 such as 1.7 is not a percentage anyone writes:
 * reading it as 1.7 % (0.017) made a confident reply look unsure, so it is left out, and
 * confidenceProblem says why.
 */
export function readConfidence(v: unknown): number | undefined {
  let x: number | undefined;
  let percent = false;
  if (typeof v === "number") x = v;
  else if (typeof v === "string") {
    const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(%)?\s*$/.exec(v);
    if (m) {
      x = Number(m[1]);
      percent = m[2] === "%";
    }
  }
  if (x === undefined || !Number.isFinite(x) || x < 0) return undefined;
  if (percent) return x <= 100 ? x / 100 : undefined;
  if (x <= 1) return x;
  if (x <= 100 && Number.isInteger(x)) return x / 100;
  return undefined;
}

/** Why a stated confidence was left out (a value readConfidence refuses), or undefined when there is none to flag. */
export function confidenceProblem(v: unknown): string | undefined {
  if (v === undefined || v === null || readConfidence(v) !== undefined) return undefined;
  const shown = typeof v === "string" ? JSON.stringify(v.slice(0, 40)) : typeof v === "number" ? String(v) : typeof v;
  return `confidence ${shown} is not in [0, 1], nor a whole percentage up to 100: left out`;
}

/** "confidence: 0.8", "Confidence = 80 %", "confidence of .7" in free text. */
const CONFIDENCE_MENTION = /\bconfidence["']?\s*(?:is|:|=|of)?\s*["']?\s*(\d+(?:\.\d+)?\s*%?|\.\d+)["']?/gi;

/** The last confidence stated in free text, as written (readConfidence reads it). */
export function confidenceMention(text: string): string | undefined {
  const m = [...text.matchAll(CONFIDENCE_MENTION)];
  const last = m[m.length - 1];
  return last ? last[1]!.replace(/\s+/g, "") : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// resolving a value against the question

/** Resolves a JSON `answer` value (string, number, boolean, list) to the canonical answer. */
export function resolveValue(v: unknown, q: AnswerQuestion): Resolved {
  if (typeof v === "string") return resolveString(v, q);
  if (typeof v === "number") {
    if (!Number.isFinite(v)) return { error: `answer ${v} is not a number` };
    if (q.answer_format === "integer") {
      if (!Number.isInteger(v)) return { error: `${v} is not an integer` };
      return integerToOption(v, q);
    }
    if (q.answer_format === "yes_no") return { error: `a number (${v}) is not a yes/no answer` };
    return resolveString(String(v), q);
  }
  if (typeof v === "boolean") {
    if (q.answer_format !== "yes_no") return { error: `a boolean is not a ${q.answer_format} answer` };
    return yesNoOption(v, q, "synonym");
  }
  if (Array.isArray(v)) {
    if (v.length === 1) return resolveValue(v[0], q);
    if (q.answer_format !== "ordering") return { error: `a list of ${v.length} items is not a ${q.answer_format} answer` };
    if (!v.every((x) => typeof x === "string" || typeof x === "number")) return { error: "the ordering list holds non-text items" };
    return orderingToOption(
      v.map((x) => normalizeAnswerText(String(x))).filter((x) => x !== ""),
      q,
    );
  }
  if (v === null || v === undefined) return { error: "the answer is empty (null)" };
  return { error: "the answer is an object, not a value" };
}

/** Trims quotes, brackets, markdown emphasis and a final period around a short answer. */
function stripWrapping(s: string): string {
  let t = s.trim();
  for (let k = 0; k < 4; k++) {
    const before = t;
    t = t.replace(/^(\*\*|__|`+|"|'|“|‘|\[)\s*/, "").replace(/\s*(\*\*|__|`+|"|'|”|’|\])$/, "");
    t = t.replace(/[.!;,]+$/, "").trim();
    if (t === before) break;
  }
  return t;
}

/** Resolves a short answer string. `guardLength` applies the contained-text length guard (free text only). */
export function resolveString(s: string, q: AnswerQuestion, guardLength = false): Resolved {
  const t = stripWrapping(s);
  if (t === "") return { error: "the answer is empty" };
  const opts = q.options;

  const exact = opts.indexOf(t);
  if (exact >= 0) return { answer: opts[exact]!, optionIndex: exact, match: "exact" };
  const norm = normalizeAnswerText(t);
  const same = opts.map((o, i) => (normalizeAnswerText(o) === norm && norm !== "" ? i : -1)).filter((i) => i >= 0);
  if (same.length === 1) return { answer: opts[same[0]!]!, optionIndex: same[0]!, match: "normalized" };
  if (same.length > 1) return { error: `"${clip(t)}" matches several options after normalisation` };

  if (q.answer_format === "yes_no") {
    const yn = leadingYesNo(t);
    if (yn) return "error" in yn ? yn : yesNoOption(yn.yes, q, "synonym");
  }

  const letter = readLetter(t, q);
  if (letter && lettered(q)) return letter;
  // unlettered options: a bare letter names no option (a letter followed by text goes on to be read by its text)
  if (letter && isBareLetter(t)) return { error: `"${clip(t)}" matches none of the options; the options were not lettered` };

  if (q.answer_format === "integer") {
    const n = parseIntegerAnswer(t);
    if ("error" in n) return { error: n.error };
    return integerToOption(n.value, q);
  }

  if (q.answer_format === "ordering") {
    const items = orderingItems(t);
    if (items.length >= 2) return orderingToOption(items, q);
  }

  if (q.answer_format === "choice" || q.answer_format === "ordering") {
    const total = opts.reduce((n, o) => n + normalizeAnswerText(o).length, 0);
    if (!guardLength || norm.length <= CONTAINED_LENGTH_FACTOR * total) {
      const c = containedOption(norm, opts);
      if (c.kind === "one") return { answer: opts[c.index]!, optionIndex: c.index, match: "contained" };
      if (c.kind === "several") return { error: `"${clip(t)}" mentions several options (${c.names.map((n) => `"${n}"`).join(", ")})` };
    }
  }
  return { error: `"${clip(t)}" matches none of the options (${opts.map((o) => `"${o}"`).join(", ")})` };
}

/** Hedges that make a leading "yes"/"no" something other than an answer ("No, I cannot tell"). */
const HEDGE = /\b(can ?not|can't|cannot|unable to|impossible to|not sure|unsure|unclear|uncertain|hard to (?:say|tell)|don't know|either)\b/i;

/**
 * A yes/no answer at the start of a short answer: the whole answer ("Yes", "n", "TRUE") or a synonym followed by
 * punctuation and more text ("Yes, the mug is …", "No. …"). "No idea" and "yes and no" do not count (no punctuation
 * after the word), nor does a hedge after it, nor an opposite synonym right after it ("no, yes").
 */
function leadingYesNo(t: string): { yes: boolean } | { error: string } | undefined {
  const norm = normalizeAnswerText(t);
  if (YES_WORDS.has(norm)) return { yes: true };
  if (NO_WORDS.has(norm)) return { yes: false };
  const m = /^([A-Za-z]+)\s*[,.;:!)\u2013\u2014-]\s*([\s\S]*)$/.exec(t);
  if (!m) return undefined;
  const w = m[1]!.toLowerCase();
  if (w.length < 2 || !(YES_WORDS.has(w) || NO_WORDS.has(w))) return undefined; // "y." / "n," only as whole answers
  const yes = YES_WORDS.has(w);
  const next = normalizeAnswerText(m[2]!).split(" ")[0] ?? "";
  if ((yes ? NO_WORDS : YES_WORDS).has(next)) return { error: `"${clip(t)}" contradicts itself` };
  if (HEDGE.test(m[2]!)) return { error: `"${clip(t)}" hedges` };
  return { yes };
}

/** Whether the prompt lettered the options, so that a letter names one. */
const lettered = (q: AnswerQuestion): boolean => q.optionLabels === "letters";

/** "B", "(B)", "b", "Option B", "choice (b)": a letter alone, with nothing after it. */
const BARE_LETTER = /^(?:option|choice)?\s*[([]?([A-Za-z])[)\]]?$/i;
const isBareLetter = (t: string): boolean => BARE_LETTER.test(t);

/**
 * "B", "(B)", "b", "B.", "B)", "B: the red mug", "B. the red mug", "Option B", "choice (b)": the option the letter
 * names, whether or not the prompt lettered the options (the caller decides whether a letter counts).
 */
function readLetter(t: string, q: AnswerQuestion): Resolved | undefined {
  const opts = q.options;
  if (opts.length === 0 || opts.length > MAX_LETTERED_OPTIONS) return undefined;
  let m = BARE_LETTER.exec(t);
  let trailing = "";
  if (!m) {
    m =
      /^(?:(?:option|choice)\s*)?[([]?([A-Z])(?:[)\].:]|\s*[)\]])\s*(.*)$/s.exec(t) ??
      /^(?:option|choice)\s+[([]?([A-Za-z])[)\]]?(?:[.:,]|\s)\s*(.*)$/is.exec(t);
    if (!m) return undefined;
    trailing = (m[2] ?? "").trim();
  }
  const index = m[1]!.toUpperCase().charCodeAt(0) - 65;
  if (index >= opts.length) return { error: `option letter ${m[1]!.toUpperCase()} is out of range (${opts.length} options)` };
  if (trailing !== "") {
    // the text after the letter must not name a different option
    const norm = normalizeAnswerText(trailing);
    const other = opts.findIndex((o, i) => i !== index && normalizeAnswerText(o) === norm);
    if (other >= 0) return { error: `letter ${m[1]!.toUpperCase()} and text "${clip(trailing)}" name different options` };
  }
  return { answer: opts[index]!, optionIndex: index, match: "letter" };
}

function yesNoOption(yes: boolean, q: AnswerQuestion, match: MatchKind): Resolved {
  const words = yes ? YES_WORDS : NO_WORDS;
  const idx = q.options.map((o, i) => (words.has(normalizeAnswerText(o)) ? i : -1)).filter((i) => i >= 0);
  if (idx.length === 1) return { answer: q.options[idx[0]!]!, optionIndex: idx[0]!, match };
  if (q.options.length === 0) return { answer: yes ? "yes" : "no", match };
  return { error: `no single "${yes ? "yes" : "no"}" option among ${q.options.map((o) => `"${o}"`).join(", ")}` };
}

function integerToOption(n: number, q: AnswerQuestion): Resolved {
  const idx = q.options
    .map((o, i) => {
      const v = parseIntegerAnswer(o);
      return "value" in v && v.value === n ? i : -1;
    })
    .filter((i) => i >= 0);
  if (idx.length === 1) return { answer: q.options[idx[0]!]!, optionIndex: idx[0]!, match: "number" };
  if (idx.length > 1) return { error: `${n} matches several options` };
  return { answer: String(n), match: "number" };
}

/** Items of an ordering: split on commas, semicolons, arrows, ">", "then", new lines; list numbering dropped. */
export function orderingItems(s: string): string[] {
  return s
    .split(/\s*(?:,|;|\n|->|=>|→|>|\bthen\b)\s*/i)
    .map((x) => x.replace(/^\s*(?:and\s+|\d+\s*[.)]\s*|[-*•]\s+)/i, ""))
    .map((x) => x.replace(/^(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|next|finally|lastly|last)\b[,:]?\s*/i, ""))
    .map(normalizeAnswerText)
    .filter((x) => x !== "");
}

function orderingToOption(items: string[], q: AnswerQuestion): Resolved {
  const key = items.join("\u0000");
  const idx = q.options.map((o, i) => (orderingItems(o).join("\u0000") === key ? i : -1)).filter((i) => i >= 0);
  if (idx.length === 1) return { answer: q.options[idx[0]!]!, optionIndex: idx[0]!, match: "ordering" };
  if (idx.length > 1) return { error: "the ordering matches several options" };
  return { error: `the ordering (${items.join(" > ")}) matches none of the options` };
}

/**
 * Which options' normalised texts occur as whole words in `norm`. An option found only inside occurrences of a
 * longer found option ("mug" inside "red mug") does not count.
 */
function containedOption(norm: string, opts: readonly string[]): { kind: "none" } | { kind: "one"; index: number } | { kind: "several"; names: string[] } {
  const padded = ` ${norm} `;
  const hits = opts
    .map((o, index) => ({ index, n: normalizeAnswerText(o) }))
    .filter((h) => h.n !== "")
    .map((h) => ({ ...h, at: occurrences(padded, ` ${h.n} `) }))
    .filter((h) => h.at.length > 0);
  const kept = hits.filter(
    (h) => !h.at.every((s) => hits.some((g) => g.n.length > h.n.length && g.at.some((gs) => gs <= s && s + h.n.length <= gs + g.n.length))),
  );
  const distinct = [...new Map(kept.map((h) => [h.n, h])).values()];
  if (distinct.length === 1) return { kind: "one", index: distinct[0]!.index };
  if (distinct.length > 1) return { kind: "several", names: distinct.map((h) => opts[h.index]!) };
  return { kind: "none" };
}

function occurrences(hay: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) out.push(i);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// free text

/** "answer: X", "the answer is X", "final answer = X", `\boxed{X}`: the captured X, up to the end of its sentence. */
function answerLines(text: string): { value: string; final: boolean }[] {
  const out: { value: string; final: boolean }[] = [];
  const marks = [...text.matchAll(/\b(final\s+answer|answer)\b["']?\s*(?:is\s*:?|:|=|-)\s*/gi)];
  marks.forEach((m, k) => {
    const start = m.index + m[0].length;
    const nl = text.indexOf("\n", start);
    const end = Math.min(nl < 0 ? text.length : nl, marks[k + 1]?.index ?? text.length);
    let v = text.slice(start, end).trim();
    if (v.startsWith('"') || v.startsWith("'")) {
      const close = v.indexOf(v[0]!, 1);
      v = close > 0 ? v.slice(1, close) : v.slice(1);
    } else {
      v = v.split(/[.;!?](?:\s|$)|,\s|\s+because\b|\s+since\b|\s+as\s/i)[0]!;
    }
    if (v.trim() !== "") out.push({ value: v, final: /final/i.test(m[1]!) });
  });
  for (const m of text.matchAll(/\\boxed\{([^{}]*)\}/g)) out.push({ value: m[1]!, final: true });
  return out;
}

function resolveFreeText(text: string, q: AnswerQuestion): Resolved {
  // fences and the confidence statement are not part of the answer ("3 mugs. Confidence: 0.8" is one number)
  const t = text
    .replace(/```[a-z]*\n?/gi, "")
    .replace(CONFIDENCE_MENTION, " ")
    .trim();

  // 1. explicit answer lines; "final answer" wins over plain ones
  const lines = answerLines(t);
  if (lines.length > 0) {
    const pool = lines.some((l) => l.final) ? lines.filter((l) => l.final) : lines;
    const res = pool.map((l) => {
      const r = resolveString(l.value, q);
      if (!isError(r)) return r;
      // "The answer is B because …": the first token alone, when it is the letter of a lettered option
      const tok = lettered(q) ? stripWrapping(l.value.split(/\s+/)[0] ?? "") : "";
      const lr = tok ? readLetter(tok, q) : undefined;
      return lr ?? r;
    });
    const ok = res.filter((r): r is Resolution => !isError(r));
    const answers = new Set(ok.map((r) => r.answer));
    if (ok.length === res.length && answers.size === 1) return ok[ok.length - 1]!;
    if (answers.size > 1) return { error: `the reply names several answers (${[...answers].map((a) => `"${a}"`).join(", ")})` };
    return res.find(isError)!;
  }

  // 2. the whole reply as a short answer (guarded against long prose for contained option texts)
  const whole = resolveString(t, q, true);
  if (!isError(whole)) return whole;

  // 3. an option letter marked as such in prose: "(B)", "option B" (lettered options only)
  if (lettered(q) && q.options.length > 0 && q.options.length <= MAX_LETTERED_OPTIONS) {
    const letters = new Set<string>();
    for (const m of t.matchAll(/\(([A-Z])\)|\b(?:option|choice)\s+\(?([A-Za-z])\b\)?/g)) letters.add((m[1] ?? m[2]!).toUpperCase());
    if (letters.size === 1) {
      const r = readLetter([...letters][0]!, q);
      if (r) return r;
    }
    if (letters.size > 1) return { error: `the reply names several option letters (${[...letters].join(", ")})` };
  }
  return { error: `no answer found in the reply: ${whole.error}` };
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, " ");
  return one.length > 80 ? `${one.slice(0, 80)}…` : one;
}
