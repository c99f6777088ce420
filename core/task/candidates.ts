/**
 * The ground-truth view set of a task that carries candidate views (imported ESI-Bench tasks; the records
 * have no ground-truth trajectory, ESI-Bench's released view sets): the candidate views whose visibility
 * flags show every object the question is about. When no single view does (counting: each close-up shows
 * one target), the fewest flagged views that together show them all, chosen greedily in the record's order.
 * Null when the flags cannot cover every relevant object (a flag is missing, or says never visible).
 */
import type { CandidateView } from "./schema.js";

export interface CandidateTask {
  candidate_views?: CandidateView[];
  relevant_object_ids: number[];
}

const shown = (v: CandidateView): Set<number> => new Set(v.visibility.filter((f) => f.visible).map((f) => f.id));

export function gtCandidateViews(t: CandidateTask): CandidateView[] | null {
  const views = t.candidate_views ?? [];
  const need = [...new Set(t.relevant_object_ids)];
  if (need.length === 0 || views.length === 0) return null;
  const all = views.filter((v) => {
    const s = shown(v);
    return need.every((id) => s.has(id));
  });
  if (all.length) return all;
  const left = new Set(need);
  const chosen: CandidateView[] = [];
  while (left.size) {
    let best: CandidateView | null = null,
      gain = 0;
    for (const v of views) {
      const g = [...shown(v)].filter((id) => left.has(id)).length;
      if (g > gain) [best, gain] = [v, g];
    }
    if (!best) return null;
    chosen.push(best);
    for (const id of shown(best)) left.delete(id);
  }
  return views.filter((v) => chosen.includes(v));
}
