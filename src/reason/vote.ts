/**
 * Majority vote over an item's repeated samples (`esi3d run --samples k`), as self-consistency decoding
 * does (Wang et al. 2023): the answer most samples gave wins; a tie goes to the answer reached first in sample
 * order, so the vote is a function of the samples alone. Samples without a parsed answer take no part in
 * the vote but count in the agreement's denominator: the agreement is the share of all k samples that gave
 * the majority answer.
 */
import type { ReasonerAnswer } from "./types.js";

export interface Vote {
  /** the item's answer: the majority sample's, with the samples' replies, usage, calls and time pooled */
  answer: ReasonerAnswer;
  /** each sample's canonical answer, in sample order (null: not parsed) */
  answers: Array<string | null>;
  /** share of the samples whose answer is the majority answer (0 when none parsed) */
  agreement: number;
}

export function majorityVote(samples: readonly ReasonerAnswer[]): Vote {
  if (samples.length === 0) throw new RangeError("majorityVote: no samples");
  const answers = samples.map((s) => (s.status === "parsed" ? s.answer : null));
  const counts = new Map<string, number>();
  for (const a of answers) if (a !== null) counts.set(a, (counts.get(a) ?? 0) + 1);
  // Map keeps first-insertion order, so the first answer to reach the highest count is the one reached first
  let majority: string | null = null;
  for (const [a, n] of counts) if (majority === null || n > counts.get(majority)!) majority = a;
  const winners = majority === null ? [] : samples.filter((_, i) => answers[i] === majority);
  // with no parsed sample the item ends as its first sample did (invalid, empty or error)
  const lead = winners[0] ?? samples[0]!;
  const stated = winners.map((w) => w.confidence).filter((c): c is number => c !== null);
  const usage = sumUsage(samples);
  const answer: ReasonerAnswer = {
    ...lead,
    // the majority's mean stated confidence: what the samples that agree said, not the agreement itself
    confidence: winners.length ? (stated.length ? stated.reduce((t, c) => t + c, 0) / stated.length : null) : lead.confidence,
    raw: samples.flatMap((s) => s.raw),
    reprompted: samples.some((s) => s.reprompted === true),
    latencyMs: Math.max(...samples.map((s) => s.latencyMs)),
    cached: samples.every((s) => s.cached === true),
    ...(usage ? { usage } : {}),
    // every sample's model calls, in sample order, so the record accounts for all k requests
    ...(samples.some((s) => s.calls) ? { calls: samples.flatMap((s) => s.calls ?? []) } : {}),
  };
  return { answer, answers, agreement: majority === null ? 0 : counts.get(majority)! / samples.length };
}

/** Token usage summed over calls or samples (undefined when none reported any). */
export function sumUsage(calls: ReadonlyArray<{ usage?: ReasonerAnswer["usage"] }>): ReasonerAnswer["usage"] {
  const withUsage = calls.filter((s) => s.usage);
  if (!withUsage.length) return undefined;
  const sum = (k: "inputTokens" | "outputTokens") => {
    const v = withUsage.map((s) => s.usage![k]).filter((x): x is number => typeof x === "number");
    return v.length ? v.reduce((a, b) => a + b, 0) : undefined;
  };
  const i = sum("inputTokens"),
    o = sum("outputTokens");
  return { ...(i !== undefined ? { inputTokens: i } : {}), ...(o !== undefined ? { outputTokens: o } : {}) };
}
