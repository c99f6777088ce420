/**
 * The objects a question's text names: "the red mug", "the green can #2", "three cans", "How many vases".
 * The offline reasoners read categories and colours from here, never from the task's true object records or
 * its label_metadata (issue 16: scrambling those must not change an answer). The vocabulary is the label set
 * of the detector (the library's categories, and the instance table's when a bundle brings others, as an
 * open-vocabulary detector gets its class names); a category's plural follows the English rules
 * (-s, -es, -f -> -ves; "tomatoes", "bookshelves").
 */
import { COLORS } from "../../core/task/palette.js";
import { LIBRARY } from "../../core/objects/library.js";
import { Lru } from "../../core/lru.js";

export interface Mention {
  category: string;
  /** the colour word before it, "" when the text names none */
  color: string;
  /** the words as written, singular, with "the" ("the red mug #2") */
  name: string;
  plural: boolean;
  /** "three cans": 3; otherwise 1 */
  count: number;
  /** character offset in the text */
  start: number;
  /** the words just before the mention (lower case), for cues such as "inside", "closer to", "behind" */
  before: string;
}

const NUMBER_WORDS: Readonly<Record<string, number>> = { two: 2, three: 3, four: 4, five: 5, six: 6 };
/** Words read before a mention for its role (the question's preposition): a few words suffice. */
const CUE_CHARS = 24;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const display = (category: string) => category.replace(/_/g, " ");

/** The plural forms of a display name by English rules. */
function plurals(d: string): string[] {
  const out = [`${d}s`, `${d}es`];
  if (/f$/.test(d)) out.push(d.replace(/f$/, "ves"));
  return out;
}

/** Every category a text may name: the library's and the extra ones (an instance table's). */
export function vocabulary(extra: Iterable<string> = []): string[] {
  return [...new Set([...LIBRARY.keys(), ...extra])];
}

interface Form {
  form: string;
  category: string;
  plural: boolean;
  /** "(colour )?form( #k)?" as a whole word; matchAll copies it, so one compiled pattern serves every call */
  pattern: RegExp;
}

/** Compiled forms per vocabulary: a reasoner asks the same vocabulary for every question of a run. */
const FORM_CACHE_ENTRIES = 8;
const formCache = new Lru<string, readonly Form[]>(FORM_CACHE_ENTRIES);

/** Every form of every category (singular and plurals), longest first, with its compiled pattern. */
function formsOf(vocab: readonly string[]): readonly Form[] {
  const key = vocab.join("\n");
  const hit = formCache.get(key);
  if (hit) return hit;
  const colours = Object.keys(COLORS).join("|");
  const forms: Form[] = [];
  const add = (form: string, category: string, plural: boolean) =>
    forms.push({ form, category, plural, pattern: new RegExp(`(?:\\b(${colours})\\s+)?\\b${escape(form)}\\b(\\s*#\\d+)?`, "g") });
  for (const c of vocab) {
    const d = display(c).toLowerCase();
    add(d, c, false);
    for (const p of plurals(d)) add(p, c, true);
  }
  forms.sort((a, b) => b.form.length - a.form.length);
  formCache.set(key, forms);
  return forms;
}

/**
 * Mentions per (vocabulary, text): every arm and paradigm of a task asks its one question again (9 times in
 * a default unit set), and each search runs some 600 patterns (~6 ms).
 */
const MENTION_CACHE_ENTRIES = 64;
const mentionCache = new Lru<string, readonly Mention[]>(MENTION_CACHE_ENTRIES);

/** The mentions of `vocab` categories in `text`, in order; longer names win ("glass bowl" over "glass" and "bowl"). */
export function findMentions(text: string, vocab: readonly string[]): readonly Mention[] {
  const key = `${vocab.join("\n")}\u0000${text}`;
  const hit = mentionCache.get(key);
  if (hit) return hit;
  // frozen, as every caller of this text shares them
  const found = Object.freeze(searchMentions(text, vocab).map((m) => Object.freeze(m)));
  mentionCache.set(key, found);
  return found;
}

const SUBJECT_PRONOUN = /\b(?:i|you|we|they|he|she|it)$/;

function searchMentions(text: string, vocab: readonly string[]): readonly Mention[] {
  const lower = text.toLowerCase();
  const forms = formsOf(vocab);
  const taken = new Uint8Array(lower.length);
  const found: Mention[] = [];
  for (const f of forms) {
    for (const m of lower.matchAll(f.pattern)) {
      const headStart = m.index + (m[1] ? m[0].indexOf(f.form, m[1].length) : 0);
      if (taken.subarray(headStart, headStart + f.form.length).some((x) => x)) continue;
      // a colour word that is itself a category ("orange", "peach") is a colour only before another category
      const color = m[1] ?? "";
      const start = m.index;
      taken.fill(1, start, m.index + m[0].length);
      const before = lower
        .slice(Math.max(0, start - CUE_CHARS), start)
        .replace(/\bthe\s*$/, "")
        .trim();
      // a word right after a subject pronoun is its verb, not an object: "you can see" names no can
      if (!color && SUBJECT_PRONOUN.test(before)) continue;
      const numberWord = /(\w+)\s*$/.exec(before)?.[1] ?? "";
      const count = f.plural ? (NUMBER_WORDS[numberWord] ?? 1) : 1;
      const name = `the ${color ? `${color} ` : ""}${display(f.category)}${m[2] ? ` ${m[2].trim()}` : ""}`;
      found.push({ category: f.category, color, name, plural: f.plural, count, start, before });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}
