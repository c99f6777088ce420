/** The report lists the answers a tolerant rule read (record match "fuzzy"), and nothing when there are none. */
import { describe, expect, it } from "vitest";
import { fuzzyMatches, fuzzyMatchSection } from "../../../src/eval/fuzzyMatches.js";
import { reportMarkdown } from "../../../src/eval/report.js";
import { reportHtml } from "../../../src/eval/reportHtml.js";
import { summarizeRun } from "../../../src/eval/summary.js";
import { DEFAULT_RUN_CONFIG } from "../../../src/eval/config.js";
import { ItemRecordSchema, type ItemRecord } from "../../../src/eval/records.js";
import { scoredItem } from "../../helpers/items.js";

const withMatch = (r: ItemRecord, match: ItemRecord["match"], raw: string[]): ItemRecord => ItemRecordSchema.parse({ ...r, match, raw });

describe("fuzzy matches in the report", () => {
  const text = withMatch(scoredItem("t1", "single", "gt", true), "text", ['{"answer": "yes"}']);
  const letter = withMatch(scoredItem("t2", "single", "gt", true), "letter", ['{"answer": "A"}']);
  const synonym = withMatch(scoredItem("t3", "single", "gt", true), "fuzzy", ['{"answer": true, "confidence": 0.8} | with a pipe and\na new line']);
  const contained = withMatch(scoredItem("t0", "multi", "2d", false), "fuzzy", ["I think the answer is no, since the mug is ".padEnd(200, "x")]);

  it("lists only fuzzy matches, in key order, one line per item", () => {
    const list = fuzzyMatches([text, letter, synonym, contained]);
    expect(list.map((m) => m.key)).toEqual([contained.key, synonym.key]);
    expect(list[1]).toEqual({ key: synonym.key, reply: '{"answer": true, "confidence": 0.8} ¦ with a pipe and a new line', answer: "yes" });
    expect(list[0]!.reply.length).toBe(80);
    expect(list[0]!.reply.endsWith("…")).toBe(true);
  });

  it("is a table in report.md and report.html, and no section at all without fuzzy matches", () => {
    const records = [text, letter, synonym, contained];
    const meta = { runId: "r", version: "test", fuzzyMatches: fuzzyMatches(records) };
    const md = reportMarkdown(summarizeRun(records), DEFAULT_RUN_CONFIG, meta);
    expect(md).toContain("## Fuzzy matches (answers read by a tolerant rule)\n\n| Task");
    expect(md).toMatch(/\(2 answer\(s\) were not given as an option's own text/);
    const html = reportHtml(summarizeRun(records), DEFAULT_RUN_CONFIG, meta);
    expect(html).toMatch(
      /<h2>Fuzzy matches \(answers read by a tolerant rule\)<\/h2><div class="scroll"><table><thead><tr><th>Task<\/th><th>Paradigm<\/th><th>Arm<\/th><th>Reply<\/th><th>Option matched<\/th><\/tr><\/thead><tbody><tr><td>t0<\/td><td>multi<\/td><td>2d<\/td><td class="long">I think the answer is no/,
    );
    const none = reportMarkdown(summarizeRun([text, letter]), DEFAULT_RUN_CONFIG, { runId: "r", version: "test", fuzzyMatches: fuzzyMatches([text, letter]) });
    expect(none).not.toContain("Fuzzy matches");
  });

  it("lists at most 50 items and says how many more", () => {
    const many = Array.from({ length: 53 }, (_, i) => withMatch(scoredItem(`t${String(i).padStart(3, "0")}`, "single", "gt", true), "fuzzy", ["yep"]));
    const section = fuzzyMatchSection(fuzzyMatches(many)).join("\n");
    expect(section.split("\n").filter((l) => l.startsWith("| t0"))).toHaveLength(50);
    expect(section).toContain("; 3 more in items.jsonl.)");
  });
});
