/**
 * What an offline program returns, and the reasoner around it. A program either decides (an answer, a
 * confidence and its trace) or declines: when the evidence lacks what the question needs, it says so
 * (`unanswerable`, with what is missing). Like an unreadable model reply, a decline is counted: the headline
 * score credits it at chance (1/k), and coverage shows how much was answered.
 * Guessing the first option would score luck as evidence.
 */
import { queryOf, type Query } from "./query.js";
import type { Reasoner, ReasonerAnswer, ReasonerInput } from "./types.js";

export type Decision = { answer: string; confidence: number; trace: string[] } | { unanswerable: string; trace: string[] };

/** A program that declines, saying why in a sentence ("the red mug is not in the graph"). */
export const declined = (why: string, trace: string[]): Decision => ({ unanswerable: why, trace: [...trace, `unanswerable: ${why}`] });

/** Confidence from a margin: 0.5 at the threshold, rising to 1 at `scale` away from it. */
export function marginConfidence(margin: number, scale: number): number {
  return Math.round((0.5 + 0.5 * Math.min(1, Math.max(0, margin) / scale)) * 1000) / 1000;
}

/** The integer option nearest to a count (the lower one on ties). */
export function nearestOption(options: string[], value: number): string {
  return options.reduce((best, o) =>
    Math.abs(Number(o) - value) < Math.abs(Number(best) - value) || (Math.abs(Number(o) - value) === Math.abs(Number(best) - value) && Number(o) < Number(best))
      ? o
      : best,
  );
}

/** The option a label or category names (underscores read as spaces), or null. */
export function optionNaming(options: readonly string[], text: string): string | null {
  return options.find((o) => o === text || o === text.replace(/_/g, " ")) ?? null;
}

/** An offline reasoner from a decision program: the answer, a confidence and the program's trace. */
export function programReasoner(id: string, needs: "graph" | "bundle", method: string, run: (input: ReasonerInput, q: Query) => Decision): Reasoner {
  return {
    id,
    needs,
    async answer(input: ReasonerInput): Promise<ReasonerAnswer> {
      const t = performance.now();
      // the detector's label vocabulary: what the graph's nodes or the bundle's masks can be called; the room's
      // floor and walls are not objects a question asks about ("standing on the floor" names no referent)
      const objects = input.bundle?.manifest.instances.filter((e) => !e.structure).map((e) => e.category) ?? [];
      const q = queryOf(input.task, [...(input.graph?.nodes.map((n) => n.label) ?? []), ...objects]);
      let d: Decision;
      try {
        d = run(input, q);
      } catch (e) {
        // a program fault costs its item, recorded with its cause, never the run (the other items stand)
        const message = e instanceof Error ? e.message : String(e);
        return {
          raw: [message],
          method: `${method}:${q.subcategory}`,
          latencyMs: Math.round((performance.now() - t) * 100) / 100,
          status: "error",
          answer: null,
          confidence: null,
          reason: `program failed: ${message}`,
          failure: { class: "ProgramError", message },
        };
      }
      const latencyMs = Math.round((performance.now() - t) * 100) / 100;
      const base = { raw: d.trace, method: `${method}:${q.subcategory}`, latencyMs };
      if ("unanswerable" in d) return { ...base, status: "unanswerable", answer: null, confidence: null, reason: `unanswerable: ${d.unanswerable}` };
      // a program answers with an option as written (or an integer's value): matched by its text
      return { ...base, status: "parsed", answer: d.answer, confidence: d.confidence, match: "text", reason: d.trace[d.trace.length - 1] };
    },
  };
}
