/**
 * The data of a forest plot of where 3D helps and where it hurts: per subcategory, each 3D arm minus the same
 * reasoner's 2D arm (summary.differences: over all items, paired by task, with its 95 % interval), and beside
 * it the paper's difference for the same cell (ESI-Bench Table 4, per paradigm). reportCharts.ts draws it.
 */
import { paperDifferenceOf, paperModelOf, PARADIGM_LETTERS } from "./paperAgreement.js";
import type { Table4Model } from "./paper/esiTable4.js";
import { significant, type RunSummary } from "./summary.js";

interface ForestArm {
  method: string;
  /** the difference, a share (0.1 is 10 points), and its 95 % interval */
  diff: number;
  lo: number;
  hi: number;
  /** two-sided p of the paired test (null: no shared item, Newcombe's interval) */
  p: number | null;
  test: string;
  significant: boolean;
  /** items paired (both arms), and the tasks they come from */
  pairs: number | null;
  tasks: number | null;
}

/** The paper's difference (points) for one paradigm of the row's subcategory. */
interface PaperMark {
  paradigm: string;
  letter: string;
  points: number;
}

export interface ForestRow {
  subcategory: string;
  /** the run's 3D methods with a difference, in the summary's method order */
  arms: ForestArm[];
  /** the sort key: the mean difference over the row's arms */
  effect: number;
  /** per paper model the run's arms stand for (GT 3D + Gemini first): its marks, in the run's paradigm order */
  paper: Array<{ model: Table4Model; marks: PaperMark[] }>;
}

/** The paper models in the order their marks are drawn. */
export const PAPER_MODEL_ORDER: readonly Table4Model[] = ["gt3d_gemini", "vggt_gemini"];

/**
 * The rows of a forest plot for one paradigm ("all": paradigms pooled), most helped first: sorted by the mean of
 * the arms' differences, highest first (ties in the summary's subcategory order). The paper's marks are for the
 * paradigms the row pools (the paper has no pooled column: each of them), or the one paradigm.
 */
export function forestRows(s: Pick<RunSummary, "methods" | "paradigms" | "subcategories" | "differences">, paradigm = "all"): ForestRow[] {
  const markParadigms = paradigm === "all" ? s.paradigms : [paradigm];
  const rows: ForestRow[] = [];
  for (const sub of s.subcategories) {
    const arms: ForestArm[] = [];
    for (const method of s.methods) {
      const d = s.differences.find((x) => x.subcategory === sub && x.a === method && x.paradigm === paradigm);
      if (!d) continue;
      arms.push({
        method,
        diff: d.diff,
        lo: d.lo,
        hi: d.hi,
        p: d.p ?? null,
        test: d.test ?? "newcombe",
        significant: significant(d),
        pairs: d.pairs?.n ?? null,
        tasks: d.pairs?.clusters ?? null,
      });
    }
    if (!arms.length) continue;
    const models = PAPER_MODEL_ORDER.filter((m) => arms.some((a) => paperModelOf(a.method) === m));
    // pooled: the paradigms this row's items come from, not every paradigm of the run
    const pooled =
      paradigm === "all"
        ? markParadigms.filter((p) => s.differences.some((d) => d.subcategory === sub && d.paradigm === p && arms.some((a) => a.method === d.a)))
        : markParadigms;
    const paper = models.map((model) => ({
      model,
      marks: pooled.flatMap((p) => {
        const points = paperDifferenceOf(model, sub, p);
        return points === null ? [] : [{ paradigm: p, letter: PARADIGM_LETTERS[p] ?? p, points }];
      }),
    }));
    rows.push({ subcategory: sub, arms, effect: arms.reduce((t, a) => t + a.diff, 0) / arms.length, paper });
  }
  const order = new Map(s.subcategories.map((x, i) => [x, i]));
  return rows.sort((a, b) => b.effect - a.effect || order.get(a.subcategory)! - order.get(b.subcategory)!);
}
