/** Where the answer sits among a set of tasks' options: a skew is what answering by position collects. */
import type { TaskRecord } from "../../core/task/schema.js";
import { wilsonInterval } from "../../core/math/proportion.js";

const r3 = (x: number) => Math.round(x * 1000) / 1000;

export interface AnswerPositions {
  /** tasks whose answer is one of their options */
  tasks: number;
  /** tasks with the answer at each option slot (0-based) */
  counts: number[];
  /** the expected count at each slot with the answer's slot drawn uniformly per task */
  expected: number[];
  /** the slot holding the most answers, and its share of the tasks */
  top: { slot: number; share: number; expected_share: number } | null;
  /** the top slot's share is above its expected share by more than the 95 % Wilson interval */
  biased: boolean;
}

/** The answer's position among the options of these tasks (those whose answer is an option). */
export function answerPositions(tasks: ReadonlyArray<Pick<TaskRecord, "answer" | "options">>): AnswerPositions {
  const counts: number[] = [],
    expected: number[] = [];
  let n = 0;
  for (const t of tasks) {
    const slot = t.options.indexOf(t.answer);
    if (slot < 0) continue;
    n++;
    for (let j = 0; j < t.options.length; j++) {
      counts[j] ??= 0;
      expected[j] = (expected[j] ?? 0) + 1 / t.options.length;
    }
    counts[slot]!++;
  }
  if (n === 0) return { tasks: 0, counts: [], expected: [], top: null, biased: false };
  const slot = counts.indexOf(Math.max(...counts));
  const share = counts[slot]! / n,
    expectedShare = expected[slot]! / n;
  return {
    tasks: n,
    counts,
    expected: expected.map(r3),
    top: { slot, share: r3(share), expected_share: r3(expectedShare) },
    biased: wilsonInterval(counts[slot]!, n).lo > expectedShare,
  };
}
