/**
 * When an active episode ends (ESI-Bench's released active runner, `should_stop` and its
 * task overrides): on `stop`; or when the answer is conclusive with confidence at
 * least the threshold, from --min-steps on; or when the step budget is spent. A final answer that is not
 * conclusive gets one forced-choice prompt (`force_final_choice`).
 */
import { STOP_ACTION } from "../../../core/task/actions.js";
import type { ActiveOptions } from "./options.js";
import type { AgentDecision } from "./types.js";

export const STOP_REASONS = ["stop_action", "confident", "budget", "error"] as const;
export type StopReason = (typeof STOP_REASONS)[number];

/** An answer the episode can end on: parsed, and an option (not "not sure"). */
export function isConclusive(d: Pick<AgentDecision, "status" | "answer">): boolean {
  return d.status === "parsed" && d.answer !== null;
}

/** Why the episode stops after this step's decision, or null to go on. `step` is 1-based. */
export function stopReason(d: AgentDecision, step: number, o: Pick<ActiveOptions, "maxSteps" | "threshold" | "minSteps">): StopReason | null {
  if (d.status === "error") return "error";
  if (d.action === STOP_ACTION) return "stop_action";
  if (isConclusive(d) && d.confidence !== null && d.confidence >= o.threshold && step >= o.minSteps) return "confident";
  if (step >= o.maxSteps) return "budget";
  return null;
}
