/**
 * Plain-text and Markdown tables: the terminal's node tables and comparisons, and the reports' accuracy
 * tables. `align: "numbers"` keeps the first column left and right-aligns the rest (Markdown: `--:`).
 */
export interface TableOptions {
  markdown?: boolean;
  align?: "left" | "numbers";
}

type Row = ReadonlyArray<string | number>;

/** The width of each column over every row given (header rows included). */
export function columnWidths(rows: ReadonlyArray<Row>): number[] {
  const n = Math.max(...rows.map((r) => r.length));
  return Array.from({ length: n }, (_, i) => Math.max(0, ...rows.map((r) => String(r[i] ?? "").length)));
}

const rightAligned = (i: number, o: TableOptions) => o.align === "numbers" && i > 0;

export function tableRow(row: Row, widths: readonly number[], o: TableOptions = {}): string {
  const cells = widths.map((w, i) => {
    const c = String(row[i] ?? "");
    return rightAligned(i, o) ? c.padStart(w) : c.padEnd(w);
  });
  return o.markdown ? `| ${cells.join(" | ")} |` : cells.join("  ").trimEnd();
}

export function tableRule(widths: readonly number[], o: TableOptions = {}): string {
  if (!o.markdown) return widths.map((w) => "-".repeat(w)).join("  ");
  return `|${widths.map((w, i) => (rightAligned(i, o) ? "-".repeat(w + 1) + ":" : "-".repeat(w + 2))).join("|")}|`;
}

export function formatTable(header: Row, rows: ReadonlyArray<Row>, o: TableOptions = {}): string {
  const w = columnWidths([header, ...rows]);
  return [tableRow(header, w, o), tableRule(w, o), ...rows.map((r) => tableRow(r, w, o))].join("\n");
}

export const pct = (x: number | null | undefined, dp = 1) => (x === null || x === undefined || Number.isNaN(x) ? "-" : `${(x * 100).toFixed(dp)}%`);
export const fix = (x: number | null | undefined, dp = 3) => (x === null || x === undefined || Number.isNaN(x) ? "-" : x.toFixed(dp));
