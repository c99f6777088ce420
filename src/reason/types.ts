/**
 * Reasoners: everything that turns a question (plus a scene graph, or images/masks for the 2D
 * baselines) into `{answer, confidence}`. Offline programs (`symbolic`, `symbolic-2d`) and language
 * models (`openai:<model>`, `gemini:<model>`) share this interface, so the runner treats them alike.
 */
import type { FrameBundle } from "../../bridge/bundle/io.js";
import type { Task } from "../../bridge/task/schema.js";
import type { SceneGraph } from "../../scenegraph/types.js";

export const GRAPH_FORMATS = ["json", "text", "relations", "cogmap"] as const;
export type GraphFormat = (typeof GRAPH_FORMATS)[number];

export interface ReasonerInput {
  /** The task record. LLM reasoners read only its question fields (question, answer_format, options,
   *  agent_initial for the stated viewpoint); offline programs also read the referents' descriptions
   *  (category, colour, role) of `relevant_object_ids`, never object positions. */
  task: Task;
  /** The scene graph (3D arms). */
  graph?: SceneGraph;
  /** The frame bundle (2D arms: images for VLMs, per-view masks for symbolic-2d). */
  bundle?: FrameBundle;
  /** Graph serialization for LLM prompts. */
  format?: GraphFormat;
  /** Uncertainty-aware serialization: node support and flags, relation margins. */
  uncertainty?: boolean;
  /** VLM baselines: send images instead of a graph ("single": the first view; "multi": up to maxImages views). */
  images?: "single" | "multi";
  maxImages?: number;
}

export type AnswerStatus = "parsed" | "invalid" | "empty" | "error";

export interface ReasonerAnswer {
  status: AnswerStatus;
  /** Canonical answer (one of the options, or the integer as a string), null unless parsed. */
  answer: string | null;
  confidence: number | null;
  /** Raw replies (LLMs) or the program's trace (offline reasoners), kept for records. */
  raw: string[];
  /** How the answer was obtained: the program name, or the parse path ("json", "rule-option", ...). */
  method: string;
  /** The exact prompt text (LLMs), for records and the inspection page. */
  prompt?: string;
  /** sha256 of everything that determines the reply. */
  promptHash?: string;
  reprompted?: boolean;
  /** Why the answer is what it is, or why there is none. */
  reason?: string;
  latencyMs: number;
  cached?: boolean;
  usage?: { inputTokens?: number; outputTokens?: number };
}

export interface Reasoner {
  readonly id: string;
  /** What the reasoner needs: a scene graph (3D arms) or the bundle (2D arms). */
  readonly needs: "graph" | "bundle";
  answer(input: ReasonerInput, signal?: AbortSignal): Promise<ReasonerAnswer>;
}
