/**
 * Small samples shown as small: a table cell of fewer than SMALL_CELL_ITEMS items is marked, in the terminal,
 * report.md, report.html, the ablation and `esi3d compare`, so 0 / 50 / 100 % from one or two items do not read
 * as measurements.
 */

/**
 * Below 10 items a cell is marked. Why 10: one item moves its accuracy by more than 10 points; the 95 % Wilson
 * interval at 50 % spans more than 55 points (n = 9: [21, 79] %); and the usual condition for a normal
 * approximation of a proportion, n·p >= 5 and n·(1 − p) >= 5, needs n >= 10 even at p = 0.5.
 */
export const SMALL_CELL_ITEMS = 10;

/** The mark a count below SMALL_CELL_ITEMS carries after it ("*"), or nothing. */
export const smallMark = (n: number): string => (n < SMALL_CELL_ITEMS ? "*" : "");

/** The legend line for tables that use the mark. */
export const SMALL_CELL_LEGEND = `* = fewer than ${SMALL_CELL_ITEMS} scored items: one item moves the cell by more than ${Math.floor(100 / SMALL_CELL_ITEMS)} points`;
