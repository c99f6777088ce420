/**
 * The markdown esi3d's reports write, as HTML: headings, paragraphs, lists and pipe tables, with **bold** and
 * `code` inline. Not a general markdown parser: it knows the forms report.md uses, and renders each block it
 * meets, so a section whose body is a paragraph and then a table shows both. Tables come in a box of their
 * own that scrolls sideways when they are wider than the page.
 */

export const escapeHtml = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** **bold** and `code`, in escaped text. */
function inlineHtml(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
}

/** A table cell longer than this many characters may wrap (report.html's style: td.long): a cell of one form with its interval and n, "100.0 [61, 100] n=114*", is 22, and stays whole. */
const LONG_CELL_CHARS = 28;

const cellsOf = (line: string) =>
  line
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split("|")
    .map((c) => c.trim());
const isRule = (line: string) => /^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(line.trim());

function tableHtml(lines: readonly string[]): string {
  const [head, ...rest] = lines;
  const body = rest.filter((l) => !isRule(l));
  // a figure ("54.8 [46, 64]", "80.7 %", "-3.0", "-"), not a name that starts with a digit ("2D")
  const numeric = (c: string) => /^[-+−±]?\d+(\.\d+)?(%|\s|$)/.test(c) || c === "-";
  // a long cell ("54.8 [46, 64] n=114 · cov 80.7 % · answered ...") may wrap; short ones stay on one line
  const classes = (c: string) => [numeric(c) ? "num" : "", c.length > LONG_CELL_CHARS ? "long" : ""].filter(Boolean).join(" ");
  const row = (l: string, tag: "td" | "th") =>
    `<tr>${cellsOf(l)
      .map((c) => `<${tag}${tag === "td" && classes(c) ? ` class="${classes(c)}"` : ""}>${inlineHtml(c)}</${tag}>`)
      .join("")}</tr>`;
  return `<div class="scroll"><table><thead>${row(head!, "th")}</thead><tbody>${body.map((l) => row(l, "td")).join("")}</tbody></table></div>`;
}

type Block = { kind: "table" | "list" | "paragraph" | "heading"; lines: string[] };

/** Consecutive lines of one kind; a blank line ends every block. */
function blocksOf(md: string): Block[] {
  const out: Block[] = [];
  let open: Block | null = null;
  for (const line of md.split("\n")) {
    if (!line.trim()) {
      open = null;
      continue;
    }
    const kind: Block["kind"] = /^#{1,6} /.test(line) ? "heading" : line.trimStart().startsWith("|") ? "table" : /^\s*[-*] /.test(line) ? "list" : "paragraph";
    if (open && open.kind === kind && kind !== "heading") open.lines.push(line);
    else out.push((open = { kind, lines: [line] }));
  }
  return out;
}

/**
 * The HTML of markdown. A paragraph in brackets right after a table (report.md's notes on a table's figures)
 * is drawn as a note.
 */
export function markdownToHtml(md: string): string {
  const blocks = blocksOf(md);
  return blocks
    .map((b, i) => {
      if (b.kind === "heading") {
        const level = /^#+/.exec(b.lines[0]!)![0].length;
        return `<h${level}>${inlineHtml(b.lines[0]!.slice(level + 1))}</h${level}>`;
      }
      if (b.kind === "table") return tableHtml(b.lines);
      if (b.kind === "list") return `<ul>${b.lines.map((l) => `<li>${inlineHtml(l.replace(/^\s*[-*] /, ""))}</li>`).join("")}</ul>`;
      const text = b.lines.join(" ");
      const note = blocks[i - 1]?.kind === "table" && text.startsWith("(");
      return `<p${note ? ' class="note"' : ""}>${inlineHtml(text)}</p>`;
    })
    .join("\n");
}

/** A markdown document's "## " sections: each heading (without the hashes) and its body; the text before the first is `lead`. */
export function markdownSections(md: string): { lead: string; sections: Array<{ title: string; body: string }> } {
  const [lead, ...rest] = md.split(/^## /m);
  return {
    lead: lead ?? "",
    sections: rest.map((sec) => ({
      title: sec.slice(0, sec.indexOf("\n") < 0 ? sec.length : sec.indexOf("\n")).trim(),
      body: sec.indexOf("\n") < 0 ? "" : sec.slice(sec.indexOf("\n") + 1),
    })),
  };
}
