/**
 * The active paradigm's options, declared once: CLI flags, RunConfig, service bodies and OpenAPI derive
 * from this schema. Defaults are those of ESI-Bench's released active runner:
 * 30 steps (the paper's step budget T_max), confidence threshold 0.80 (the prompt's "Confidence threshold to
 * conclude: 0.80"), min_steps 3 (`should_stop`'s default).
 */
import * as z from "zod";
import type { FlagSpec } from "../../../core/flags.js";
import { ACTION_VOCABULARIES } from "../../../core/task/actions.js";

/** The ESI-Bench paper's step budget: T_max = 30 steps. */
const DEFAULT_MAX_STEPS = 30;
/** An upper bound on --max-steps, so a typo cannot start a 10^6-step episode. */
const MAX_MAX_STEPS = 500;
/** ESI released prompt: "Confidence threshold to conclude: 0.80". */
const DEFAULT_CONFIDENCE_THRESHOLD = 0.8;
/** ESI released `should_stop`: min_steps 3. */
const DEFAULT_MIN_STEPS = 3;

/**
 * `reprompt`: the paper (Appendix N): an invalid action gets one re-prompt, then the agent stays in place (the
 * step counts); `forward`: the released code, which turns an invalid action into `move_forward`.
 */
export const INVALID_ACTION_POLICIES = ["reprompt", "forward"] as const;
export type InvalidActionPolicy = (typeof INVALID_ACTION_POLICIES)[number];

/** Offline explorers for the symbolic reasoner (src/reason/active/explorers.ts). */
const EXPLORERS = ["nbv", "verify", "random"] as const;
export type ExplorerName = (typeof EXPLORERS)[number];

export const ActiveOptionsSchema = z
  .object({
    maxSteps: z.number().int().min(1).max(MAX_MAX_STEPS).default(DEFAULT_MAX_STEPS).describe("active: step budget T_max (views after the initial one)"),
    threshold: z
      .number()
      .min(0)
      .max(1)
      .default(DEFAULT_CONFIDENCE_THRESHOLD)
      .describe("active: stop once confidence >= this with a conclusive answer (after --min-steps)"),
    minSteps: z.number().int().min(0).max(MAX_MAX_STEPS).default(DEFAULT_MIN_STEPS).describe("active: the confidence stop applies from this step on"),
    invalidAction: z
      .enum(INVALID_ACTION_POLICIES)
      .default("reprompt")
      .describe("active: an invalid action is re-prompted once then stays (reprompt, the paper) or becomes move_forward (forward, the released code)"),
    actions: z
      .enum(ACTION_VOCABULARIES)
      .default("all")
      .describe(
        "active: the agent's vocabulary: all (camera moves and the hands: pick_up, put_on, put_inside, put_back, open, close) or camera (the camera's only, for ablation)",
      ),
    explorer: z.enum(EXPLORERS).default("nbv").describe("active, symbolic reasoner: how the offline agent picks views: nbv | verify | random"),
  })
  .strict();
export type ActiveOptions = z.infer<typeof ActiveOptionsSchema>;

export const ACTIVE_FLAGS: readonly FlagSpec[] = [
  { path: "maxSteps", flag: "--max-steps <n>" },
  { path: "threshold", flag: "--threshold <x>" },
  { path: "minSteps", flag: "--min-steps <n>" },
  { path: "invalidAction", flag: "--invalid-action <policy>" },
  { path: "actions", flag: "--actions <vocabulary>" },
  { path: "explorer", flag: "--explorer <name>" },
];
