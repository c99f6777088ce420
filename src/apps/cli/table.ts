/** Plain-text tables for the terminal (and Markdown when asked). */
export function formatTable(header: string[], rows: Array<Array<string | number>>, opts: { markdown?: boolean } = {}): string {
  const cells = rows.map((r) => r.map((c) => String(c)));
  const width = header.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => (opts.markdown ? `| ${r.map((c, i) => c.padEnd(width[i]!)).join(" | ")} |` : r.map((c, i) => c.padEnd(width[i]!)).join("  ").trimEnd());
  const sep = opts.markdown ? `|${width.map((w) => "-".repeat(w + 2)).join("|")}|` : width.map((w) => "-".repeat(w)).join("  ");
  return [line(header), sep, ...cells.map(line)].join("\n");
}

export const pct = (x: number | null | undefined, dp = 1) => (x === null || x === undefined || Number.isNaN(x) ? "-" : `${(x * 100).toFixed(dp)}%`);
export const fix = (x: number | null | undefined, dp = 3) => (x === null || x === undefined || Number.isNaN(x) ? "-" : x.toFixed(dp));
