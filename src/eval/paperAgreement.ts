/**
 * Does a run find 3D helping and hurting where the ESI-Bench paper did? Each esi3d 3D arm stands for one of the
 * paper's "3D + LLM" models against its "2D + VLM" Gemini 3.1 (Table 4, src/eval/paper/esiTable4.ts): GT-3D (and
 * its appearance-label arm) for GT 3D + Gemini, the noise model and a real VGGT reconstruction for VGGT + Gemini.
 * Over the cells (subcategory x paradigm) where the paper's difference is large, we count those where the run's
 * difference (the 3D arm minus the same reasoner's 2D arm, over all items, paired by task: summary.differences)
 * has the same sign, and how many of those are significant.
 *
 * The comparison is of signs, not of sizes: the paper's models are a VLM and an LLM, esi3d's default reasoner is a
 * symbolic program, and the scenes differ (the built-in simulator against BEHAVIOR-1K).
 */
import type { Subcategory } from "../../core/task/taxonomy.js";
import { SUBCATEGORY_TITLES } from "../../core/task/taxonomy.js";
import { formatTable } from "../../core/table.js";
import { publishedDifference, TABLE4_MODEL_TITLES, type Table4Model, type Table4Paradigm } from "./paper/esiTable4.js";
import { significant, splitMethod, type Difference, type RunSummary } from "./summary.js";

/**
 * The least size (points) of a paper difference whose sign is compared: issue 41 asks for "the sign agreement
 * with the paper's Table 4 over the cells where the paper's difference is at least 5 points". Smaller ones are
 * within a few tasks of zero on the paper's subsets (one task is 3.3 points at 30 tasks).
 */
export const PAPER_DIFFERENCE_MIN_POINTS = 5;

/** The paper's 2D model every 3D model is set against. */
const PAPER_BASELINE: Table4Model = "gemini31";

/** esi3d's paradigms as the paper's columns. */
export const PAPER_PARADIGM_OF: Readonly<Record<string, Table4Paradigm>> = {
  single: "passive_single",
  multi: "passive_multi",
  active: "active",
  gt: "gt_passive",
};

/** One letter per paradigm, for marks beside a plot's rows: Single, Multi, Active, GT (ground-truth passive). */
export const PARADIGM_LETTERS: Readonly<Record<string, string>> = { single: "S", multi: "M", active: "A", gt: "G" };

/** The paper's 3D model an esi3d method stands for: oracle and appearance labels, noise levels and reasoners alike. */
export function paperModelOf(method: string): Extract<Table4Model, "gt3d_gemini" | "vggt_gemini"> | null {
  const source = splitMethod(method)
    .arm.replace(/ appearance$/, "")
    .replace(/@.*$/, "");
  if (source === "GT-3D") return "gt3d_gemini";
  if (source === "Noisy-3D" || source === "VGGT-3D") return "vggt_gemini";
  return null;
}

/** "GT 3D + Gemini − Gemini 3.1". */
export const paperComparisonTitle = (model: Table4Model): string => `${TABLE4_MODEL_TITLES[model]} − ${TABLE4_MODEL_TITLES[PAPER_BASELINE]}`;

/** The paper's difference (points) for a subcategory and an esi3d paradigm, or null where it has none. */
export function paperDifferenceOf(model: Table4Model, subcategory: string, paradigm: string): number | null {
  const column = PAPER_PARADIGM_OF[paradigm];
  if (!column || !(subcategory in SUBCATEGORY_TITLES)) return null;
  return publishedDifference(subcategory as Subcategory, model, PAPER_BASELINE, column);
}

type SignRelation = "same" | "opposite" | "zero";

interface AgreementCell {
  subcategory: string;
  /** esi3d's paradigm */
  paradigm: string;
  /** the paper's difference, in points */
  paperPoints: number;
  /** the run's difference (a share: 0.1 is 10 points), its 95 % interval, its p (null: unpaired) and whether significant */
  difference: Pick<Difference, "diff" | "lo" | "hi" | "p" | "test">;
  significant: boolean;
  /** "zero": the run found no difference, neither sign */
  relation: SignRelation;
}

export interface ArmAgreement {
  method: string;
  paperModel: Table4Model;
  thresholdPoints: number;
  /** the cells compared: the paper's difference at least the threshold, and the run has a difference there */
  cells: AgreementCell[];
  same: number;
  sameSignificant: number;
  opposite: number;
  oppositeSignificant: number;
  zero: number;
}

const signOf = (x: number) => (x > 0 ? 1 : x < 0 ? -1 : 0);

/**
 * Per 3D method of the run that stands for one of the paper's models: the sign agreement with the paper over
 * the cells where the paper's difference is at least `thresholdPoints` in size. Paradigms pooled ("all") are
 * not compared: the paper reports no pooled column.
 */
export function paperAgreement(s: Pick<RunSummary, "methods" | "differences">, thresholdPoints: number = PAPER_DIFFERENCE_MIN_POINTS): ArmAgreement[] {
  const out: ArmAgreement[] = [];
  for (const method of s.methods) {
    const paperModel = paperModelOf(method);
    if (!paperModel) continue;
    const cells: AgreementCell[] = [];
    for (const d of s.differences) {
      if (d.a !== method || d.paradigm === "all") continue;
      const paperPoints = paperDifferenceOf(paperModel, d.subcategory, d.paradigm);
      if (paperPoints === null || Math.abs(paperPoints) < thresholdPoints) continue;
      const sign = signOf(d.diff);
      cells.push({
        subcategory: d.subcategory,
        paradigm: d.paradigm,
        paperPoints,
        difference: { diff: d.diff, lo: d.lo, hi: d.hi, p: d.p ?? null, test: d.test },
        significant: significant(d),
        relation: sign === 0 ? "zero" : sign === signOf(paperPoints) ? "same" : "opposite",
      });
    }
    if (!cells.length && !s.differences.some((d) => d.a === method)) continue;
    const count = (rel: SignRelation, sig?: boolean) => cells.filter((c) => c.relation === rel && (sig === undefined || c.significant === sig)).length;
    out.push({
      method,
      paperModel,
      thresholdPoints,
      cells,
      same: count("same"),
      sameSignificant: count("same", true),
      opposite: count("opposite"),
      oppositeSignificant: count("opposite", true),
      zero: count("zero"),
    });
  }
  return out;
}

/** "+12.5", "-3.0". */
export const signedPoints = (x: number): string => `${x > 0 ? "+" : ""}${x.toFixed(1)}`;

const cellName = (c: AgreementCell) => `${SUBCATEGORY_TITLES[c.subcategory as Subcategory] ?? c.subcategory} ${PARADIGM_LETTERS[c.paradigm] ?? c.paradigm}`;

/** The agreement as a table (markdown for report.md, plain for a terminal), one row per arm, with what it counts. */
export function agreementTable(rows: readonly ArmAgreement[], opts: { markdown?: boolean } = {}): string {
  const header = ["Arm", "paper comparison", "cells", "same sign", "same, significant", "opposite sign", "opposite, significant", "no difference"];
  const body = rows.map((r) => [
    r.method,
    paperComparisonTitle(r.paperModel),
    String(r.cells.length),
    String(r.same),
    String(r.sameSignificant),
    String(r.opposite),
    String(r.oppositeSignificant),
    String(r.zero),
  ]);
  const threshold = rows[0]?.thresholdPoints ?? PAPER_DIFFERENCE_MIN_POINTS;
  const against = [
    ...new Set(
      rows.flatMap((r) =>
        r.cells
          .filter((c) => c.relation === "opposite" && c.significant)
          .map((c) => `${r.method} on ${cellName(c)} (${signedPoints(c.difference.diff * 100)} points against the paper's ${signedPoints(c.paperPoints)})`),
      ),
    ),
  ];
  return [
    formatTable(header, body, { markdown: !!opts.markdown, align: "numbers" }),
    `(cells: subcategory x paradigm where the paper's difference (ESI-Bench Table 4, same paradigm) is at least ${threshold} points in size; the run's difference is the arm minus 2D over all items, paired by task, significant at p < 0.05; S single, M multi, A active, G GT passive)`,
    ...(against.length ? ["", `Significantly against the paper: ${against.join("; ")}.`] : []),
  ].join("\n");
}
