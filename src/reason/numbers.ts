/**
 * Numbers in model replies: digits ("3", "3.0", "-2", "1,200") and English number words ("three", "twelve",
 * "twenty-one", "one hundred and five"). Used by the answer parser for integer (counting) questions.
 */

const UNITS: Readonly<Record<string, number>> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
};
const TENS: Readonly<Record<string, number>> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};

interface NumberMention {
  value: number;
  /** character offsets in the searched text */
  start: number;
  end: number;
  text: string;
}

/**
 * Parses a whole string of number words, 0–999 ("seven", "twenty one", "twenty-one", "a hundred",
 * "two hundred and five"); undefined when it is not exactly that.
 */
function parseNumberWords(s: string): number | undefined {
  const words = s
    .toLowerCase()
    .trim()
    .split(/[\s-]+/)
    .filter((w) => w !== "" && w !== "and");
  if (words.length === 0) return undefined;
  let i = 0;
  let total = 0;
  // optional "<unit|a> hundred"
  if (words.length >= 2 && words[1] === "hundred") {
    const h = words[0] === "a" ? 1 : UNITS[words[0]!];
    if (h === undefined || h < 1 || h > 9) return undefined;
    total = h * 100;
    i = 2;
  } else if (words[0] === "hundred") {
    total = 100;
    i = 1;
  }
  if (i < words.length) {
    const w = words[i]!;
    if (TENS[w] !== undefined) {
      total += TENS[w]!;
      i++;
      if (i < words.length) {
        const u = UNITS[words[i]!];
        if (u === undefined || u < 1 || u > 9) return undefined;
        total += u;
        i++;
      }
    } else if (UNITS[w] !== undefined) {
      if (total > 0 && UNITS[w] === 0) return undefined;
      total += UNITS[w]!;
      i++;
    } else return undefined;
  }
  return i === words.length ? total : undefined;
}

const WORD_ALTERNATION = [...Object.keys(UNITS), ...Object.keys(TENS), "hundred"].sort((a, b) => b.length - a.length).join("|");
/** a run of number words joined by spaces, hyphens or "and" */
const WORD_RUN = new RegExp(`\\b(?:${WORD_ALTERNATION})(?:(?:\\s+and\\s+|[\\s-]+)(?:${WORD_ALTERNATION}))*\\b`, "gi");
/**
 * A decimal number: an optional sign (only when not glued to a preceding word or digit, so "3-4" is 3 and 4),
 * digits with optional thousands separators ("1,200") and an optional fraction.
 */
const DIGITS = /(?:(?<![\w.])[-+\u2212])?(?<![\d.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\d)/g;

/** Every number mentioned in `text`, in order of appearance. Word runs that do not parse as a whole are skipped. */
function findNumbers(text: string): NumberMention[] {
  const out: NumberMention[] = [];
  for (const m of text.matchAll(DIGITS)) {
    const raw = m[0];
    const value = Number(raw.replace(/,/g, "").replace("\u2212", "-"));
    if (Number.isFinite(value)) out.push({ value, start: m.index, end: m.index + raw.length, text: raw });
  }
  for (const m of text.matchAll(WORD_RUN)) {
    const value = parseNumberWords(m[0]);
    if (value !== undefined) out.push({ value, start: m.index, end: m.index + m[0].length, text: m[0] });
  }
  return out.sort((a, b) => a.start - b.start);
}

/**
 * Reads a short answer as one integer: "3", "3.0", "+3", "three", "3 objects", "three mugs", "none".
 * Returns {value} for exactly one distinct number, {error} when there is none, several, or a non-integer.
 */
export function parseIntegerAnswer(s: string): { value: number } | { error: string } {
  const t = s.trim().replace(/[.!]+$/, "");
  if (/^(none|nothing|no objects?)$/i.test(t)) return { value: 0 };
  const nums = findNumbers(t);
  if (nums.length === 0) return { error: `no number in "${clip(t)}"` };
  const distinct = [...new Set(nums.map((n) => n.value))];
  if (distinct.length > 1) return { error: `several numbers in "${clip(t)}" (${distinct.join(", ")})` };
  const v = distinct[0]!;
  if (!Number.isInteger(v)) return { error: `${v} is not an integer` };
  return { value: v === 0 ? 0 : v }; // no -0
}

function clip(s: string): string {
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
}
