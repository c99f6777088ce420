/**
 * The sentence a run starts with: how many items it has, with every factor named, so the count can be checked
 * by hand ("190 tasks × 3 paradigms × 6 arms (…) = 3420 items"). An item is one arm of one task in one
 * paradigm; the arms of a unit are its item keys (runner.ts unitKeys), which may differ by paradigm (the
 * shortcut takes no active episode).
 */

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The arm part of an item key: "2d", "shortcut", "3d:gt", with the reasoner after a "|" when a run has several. */
const armOfKey = (key: string) => key.split("|").slice(2).join("|");

export interface ItemCountInput {
  tasks: number;
  paradigms: readonly string[];
  /** a unit's item keys, per paradigm (the same for every task) */
  keysOf: (paradigm: string) => readonly string[];
  reasoners: number;
  /** units the suite skips (skipped.json), and their items */
  skippedUnits: number;
  skippedItems: number;
  /** the items of the units that run: what the progress counts to */
  total: number;
}

/** "gt, noisy, 2d, shortcut" for one reasoner; "2 reasoners × 3 arms (…) + shortcut" for several. */
function armsText(keys: readonly string[], reasoners: number): string {
  const arms = keys.map(armOfKey);
  if (reasoners <= 1) return `${plural(arms.length, "arm")} (${arms.join(", ")})`;
  const shared = arms.filter((a) => !a.includes("|"));
  const perReasoner = [...new Set(arms.filter((a) => a.includes("|")).map((a) => a.split("|")[0]!))];
  return `${plural(arms.length, "arm")} (${reasoners} reasoners × ${perReasoner.length} (${perReasoner.join(", ")})${shared.length ? ` + ${shared.join(", ")}` : ""})`;
}

export function itemCountText(c: ItemCountInput): string {
  const byParadigm = c.paradigms.map((p) => ({ p, keys: c.keysOf(p) }));
  const same = byParadigm.every((x) => x.keys.length === byParadigm[0]!.keys.length);
  const planned = c.tasks * byParadigm.reduce((n, x) => n + x.keys.length, 0);
  const factors = same
    ? `${plural(c.tasks, "task")} × ${plural(c.paradigms.length, "paradigm")} (${c.paradigms.join(", ")}) × ${armsText(byParadigm[0]!.keys, c.reasoners)}`
    : `${plural(c.tasks, "task")} × (${byParadigm.map((x) => `${x.p}: ${armsText(x.keys, c.reasoners)}`).join("; ")})`;
  const skipped = c.skippedUnits ? `, less ${c.skippedItems} in ${plural(c.skippedUnits, "skipped task-paradigm unit")} (skipped.json): ${c.total} to run` : "";
  return `${factors} = ${planned} items${skipped}`;
}
