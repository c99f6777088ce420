/**
 * The active agent's per-step contract (ESI-Bench's released active runner):
 * each step the agent sees the current view (and, for 3D arms, the graph so far) with the history of its
 * earlier steps, and returns {action, answer, reasoning, confidence}, "not sure" allowed.
 */
import type { ModelCall } from "../types.js";
import type { PromptLog } from "../promptFile.js";
import type { FrameBundle } from "../../../core/bundle/io.js";
import type { Task } from "../../../core/task/schema.js";
import type { AgentPose } from "../../../core/math/camera.js";
import type { SceneGraph } from "../../../scenegraph/types.js";
import type { AnswerStatus } from "../types.js";
import type { AnswerMatch, GraphFormat } from "../../prompt/formats.js";
import type { ActionVocabulary } from "../../../core/task/actions.js";

/** The answer text meaning "I cannot tell yet" (ESI's choices always include it). */
export const NOT_SURE = "not sure";

/** One step as the agent's history shows it (and as the record keeps it). */
export interface StepView {
  /** 1-based step number. */
  step: number;
  /** The action the agent asked for (raw text for LLMs), and the one executed (null: none, the episode ended or the agent stayed). */
  requested_action: string;
  action: string | null;
  /** Whether the executed action did not happen: a blocked move, a failed manipulation (null when nothing was executed). */
  blocked: boolean | null;
  /** What came of the executed action ("ok", or why it failed); null when nothing was executed. */
  action_result: string | null;
  pose: { position: [number, number, number]; yaw: number; pitch: number };
  status: AnswerStatus;
  /** A canonical option, or null ("not sure", unparsed, declined). */
  answer: string | null;
  confidence: number | null;
  reasoning: string;
}

export interface AgentContext {
  task: Task;
  /** 1-based step number; the agent is looking at view step-1. */
  step: number;
  maxSteps: number;
  pose: AgentPose;
  /** Whether the action that led to this view was blocked or failed. */
  lastBlocked: boolean;
  /** The agent's vocabulary (--actions). */
  actions: ActionVocabulary;
  /**
   * What is wrong with an action the agent is about to give, in words it can act on (unknown action, wrong number of
   * objects, outside --actions, an object it cannot name), or null when it can be executed.
   */
  checkAction(text: string): string | null;
  history: readonly StepView[];
  /** Every view so far (the current one last). */
  bundle: FrameBundle;
  /** 3D arms: the graph of every view so far. */
  graph: SceneGraph | null;
  /** 3D LLM arms: how the graph is serialized. */
  format?: GraphFormat;
  uncertainty?: boolean;
  /** A world that changes (a task with phases): the phase the agent is in now, of how many. */
  phase?: { index: number; count: number; label: string };
}

export interface AgentDecision {
  /** What the agent asked for (raw, may be invalid). */
  requestedAction: string;
  /** An action as text that core/task/actions.ts parseAgentAction reads, or null when it gave none usable. */
  action: string | null;
  status: AnswerStatus;
  answer: string | null;
  /** How the answer was matched to its option (src/reason/types.ts ReasonerAnswer.match); unset without an answer. */
  match?: AnswerMatch;
  confidence: number | null;
  reasoning: string;
  /** Program trace (offline) or raw replies (LLM). */
  trace: string[];
  reprompted: boolean;
  promptHash?: string | null;
  latencyMs: number;
  /** LLM agents: what each model call of the decision reported (none for offline agents). */
  calls?: ModelCall[];
  /** LLM agents: the decision's request (a re-prompt sends it with a reminder appended), for the run's prompt files. */
  promptLog?: PromptLog;
}

export interface ActiveAgent {
  readonly id: string;
  step(ctx: AgentContext, signal?: AbortSignal): Promise<AgentDecision>;
  /** The budget is spent or the agent stopped with "not sure": one prompt that must commit (ESI `force_final_choice`). */
  forceChoice(ctx: AgentContext, signal?: AbortSignal): Promise<AgentDecision>;
}
