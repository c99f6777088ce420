/**
 * The report's list of fuzzy matches: answers a tolerant rule read (a yes/no synonym such as "true", one option's
 * text found inside a longer reply), which a reader should be able to check against the reply. Answers matched by
 * an option's own text or a lettered option's letter are not listed.
 */
import { formatTable } from "../../core/table.js";
import type { ItemRecord } from "./records.js";

export interface FuzzyMatch {
  key: string;
  /** the reply (every reply of the item, joined), clipped to one line */
  reply: string;
  /** the option the reply was matched to (each rotation's, for a circular item) */
  answer: string;
}

/** Characters of a reply shown in the list: enough for a short reply, one line of a table. */
const FUZZY_REPLY_EXCERPT_CHARS = 80;
/** Items listed at most; the section says how many more there are (a long list belongs in items.jsonl). */
const FUZZY_LIST_LIMIT = 50;

/** One table cell of text: one line, no table separator, clipped. */
function cellText(s: string, max: number): string {
  const one = s.replace(/\s+/g, " ").replace(/\|/g, "¦").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The fuzzy matches of a run's records, in key order. */
export function fuzzyMatches(records: readonly ItemRecord[]): FuzzyMatch[] {
  return records
    .filter((r) => r.match === "fuzzy")
    .map((r) => ({
      key: r.key,
      reply: cellText(r.raw.join(" / "), FUZZY_REPLY_EXCERPT_CHARS),
      answer: cellText(r.circular ? r.circular.answers.map((a) => a ?? "-").join(" / ") : (r.answer ?? "-"), FUZZY_REPLY_EXCERPT_CHARS),
    }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** An item key (task|paradigm|arm[|reasoner]) as three columns: task, paradigm, and the arm with its reasoner. */
function keyColumns(key: string): [string, string, string] {
  const [task = "", paradigm = "", ...arm] = key.split("|");
  return [task, paradigm, arm.join(" ")];
}

/** The report section (Markdown lines, a table then a note): nothing when no answer was matched fuzzily. */
export function fuzzyMatchSection(matches: readonly FuzzyMatch[]): string[] {
  if (matches.length === 0) return [];
  const shown = matches.slice(0, FUZZY_LIST_LIMIT);
  const more = matches.length - shown.length;
  return [
    "## Fuzzy matches (answers read by a tolerant rule)",
    "",
    // the key's parts as columns: a table cell holds no "|"
    formatTable(
      ["Task", "Paradigm", "Arm", "Reply", "Option matched"],
      shown.map((m) => [...keyColumns(m.key), m.reply, m.answer]),
      { markdown: true },
    ),
    `(${matches.length} answer(s) were not given as an option's own text or a lettered option's letter: a yes/no synonym or an option's text inside a longer reply was read instead; the record's match is fuzzy${more > 0 ? `; ${more} more in items.jsonl` : ""}.)`,
    "",
  ];
}
