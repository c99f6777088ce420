/**
 * What the active paradigm adds to a run's summary (docs/active.md): per method, the mean steps, the stop
 * reasons, forced choices, the anytime accuracy curve (accuracy had the episode stopped after step k),
 * the confidence per step, premature commitment (the share of confident answers given before every
 * object the question needs had been seen: the paper's metacognitive gap, measured), the action
 * histogram, and Active minus Multi per subcategory with Newcombe intervals.
 */
import * as z from "zod";
import { meanCreditInterval } from "../../core/math/proportion.js";
import type { ItemRecord } from "./records.js";
import type { GroupSummary } from "./metrics.js";

/** The anytime curve is reported at these steps (and at every step up to the largest budget in the JSON). */
export const ANYTIME_REPORT_STEPS = [1, 2, 3, 5, 10, 15, 20, 30] as const;

const rate = () => z.number().min(0).max(1).nullable();

export const ActiveRowSchema = z
  .object({
    method: z.string(),
    items: z.number().int().min(0),
    mean_steps: z.number(),
    stop_reasons: z.record(z.string(), z.number().int().min(0)),
    forced_choices: z.number().int().min(0),
    premature_commitment: rate().describe(
      "confident conclusive step answers given before every needed object was seen, over all confident conclusive step answers",
    ),
    confident_answers: z.number().int().min(0),
    final_before_seen: rate().describe("items whose final answer came before every needed object was seen"),
    blocked_share: rate().describe("executed moves that were blocked"),
    actions: z.record(z.string(), z.number().int().min(0)).describe("executed actions (stop included)"),
    anytime: z.array(
      z
        .object({
          step: z.number().int().min(1),
          accuracy: z.number(),
          lo: z.number(),
          hi: z.number(),
          mean_confidence: z.number().nullable(),
          n: z.number().int(),
        })
        .strict(),
    ),
  })
  .strict();
export type ActiveRow = z.infer<typeof ActiveRowSchema>;

export const ParadigmDifferenceSchema = z
  .object({
    subcategory: z.string(),
    method: z.string(),
    a: z.string(),
    b: z.string(),
    diff: z.number(),
    lo: z.number(),
    hi: z.number(),
    na: z.number().int(),
    nb: z.number().int(),
  })
  .strict()
  .describe("accuracy of paradigm a minus paradigm b for one method, with Newcombe's 95 % interval");
export type ParadigmDifference = z.infer<typeof ParadigmDifferenceSchema>;

/**
 * The score an episode would have ended with had it stopped after step k: that step's answer (the final one past
 * the last step), 1 right, 0 wrong, and, with no answer ("not sure", or none parsed), chance (1/k of its options),
 * as a final item without an answer is credited (summary.ts).
 */
function creditAt(r: ItemRecord, k: number): { credit: number; confidence: number | null } {
  const steps = r.active!.steps;
  const chance = r.options.length ? 1 / r.options.length : 0;
  if (k >= steps.length) return { credit: r.status === "parsed" && r.correct !== null ? (r.correct ? 1 : 0) : chance, confidence: r.confidence };
  const s = steps[k - 1]!;
  return { credit: s.answer === null || s.correct === null ? chance : s.correct ? 1 : 0, confidence: s.answer === null ? null : s.confidence };
}

export function activeRows(records: ItemRecord[], methodOf: (r: ItemRecord) => string): ActiveRow[] {
  const act = records.filter((r) => r.paradigm === "active" && r.active);
  const methods = [...new Set(act.map(methodOf))].sort((a, b) => (a === "2D" ? -1 : b === "2D" ? 1 : a.localeCompare(b)));
  return methods.map((method) => {
    const rs = act.filter((r) => methodOf(r) === method);
    const stop_reasons: Record<string, number> = {};
    const actions: Record<string, number> = {};
    let confident = 0,
      premature = 0,
      moves = 0,
      blocked = 0;
    for (const r of rs) {
      const e = r.active!;
      stop_reasons[e.stop_reason] = (stop_reasons[e.stop_reason] ?? 0) + 1;
      for (const s of e.steps) {
        if (s.action) actions[s.action] = (actions[s.action] ?? 0) + 1;
        if (s.blocked !== null) moves++, s.blocked && blocked++;
        if (s.answer !== null && s.status === "parsed" && s.confidence !== null && s.confidence >= e.threshold) confident++, !s.relevant_seen && premature++;
      }
    }
    const maxK = Math.max(1, ...rs.map((r) => r.active!.max_steps));
    const anytime = Array.from({ length: maxK }, (_, i) => {
      const k = i + 1;
      const at = rs.map((r) => creditAt(r, k));
      const w = at.length
        ? meanCreditInterval(
            at.reduce((t, x) => t + x.credit, 0),
            at.length,
          )
        : { p: 0, lo: 0, hi: 0 };
      const confs = at.map((x) => x.confidence).filter((c): c is number => c !== null);
      return {
        step: k,
        accuracy: w.p,
        lo: w.lo,
        hi: w.hi,
        mean_confidence: confs.length ? Math.round((confs.reduce((s, c) => s + c, 0) / confs.length) * 1000) / 1000 : null,
        n: at.length,
      };
    });
    const finalEarly = rs.filter((r) => r.active!.steps.length > 0 && !r.active!.steps.at(-1)!.relevant_seen).length;
    return {
      method,
      items: rs.length,
      mean_steps: rs.length ? Math.round((rs.reduce((s, r) => s + r.active!.steps_used, 0) / rs.length) * 100) / 100 : 0,
      stop_reasons,
      forced_choices: rs.filter((r) => r.active!.forced_choice).length,
      premature_commitment: confident ? premature / confident : null,
      confident_answers: confident,
      final_before_seen: rs.length ? finalEarly / rs.length : null,
      blocked_share: moves ? blocked / moves : null,
      actions,
      anytime,
    };
  });
}

/** Active minus Multi per subcategory and method (both measured), over all items, with Newcombe's hybrid interval. */
/** What activeVsMulti reads of a summary cell (summary.ts Cell), declared here so this module needs nothing of summary.ts. */
type ScoredCell = Pick<GroupSummary, "n" | "score">;

export function activeVsMulti(
  table: Record<string, Record<string, Record<string, ScoredCell>>>,
  newcombe: (a: ScoredCell["score"], b: ScoredCell["score"]) => { diff: number; lo: number; hi: number },
): ParadigmDifference[] {
  const out: ParadigmDifference[] = [];
  for (const [sub, byMethod] of Object.entries(table))
    for (const [method, byParadigm] of Object.entries(byMethod)) {
      const a = byParadigm["active"],
        b = byParadigm["multi"];
      if (!a || !b || a.n === 0 || b.n === 0) continue;
      out.push({ subcategory: sub, method, a: "active", b: "multi", ...newcombe(a.score, b.score), na: a.n, nb: b.n });
    }
  return out;
}
