/**
 * What the prompt stage (and every reasoner after it) is given for one question: the task, and the scene
 * graph (3D arms) or the frame bundle (2D arms).
 */
import type { FrameBundle } from "../../core/bundle/io.js";
import type { Task } from "../../core/task/schema.js";
import type { SceneGraph } from "../../scenegraph/types.js";
import type { OptionLabels } from "./formats.js";

export interface PromptInput {
  /** The task record. LLM reasoners read only its question fields (question, answer_format, options,
   *  agent_initial for the stated viewpoint); offline programs also read the referents' descriptions
   *  (category, colour, role) of `relevant_object_ids`, never object positions. */
  task: Task;
  /** The scene graph (3D arms). */
  graph?: SceneGraph;
  /** The frame bundle (2D arms: images for VLMs, per-view masks for symbolic-2d). */
  bundle?: FrameBundle;
  /** Uncertainty-aware serialization: node support and flags, relation margins. */
  uncertainty?: boolean;
  /** VLM baselines: send images instead of a graph ("single": the first view; "multi": up to maxImages views). */
  images?: "single" | "multi";
  maxImages?: number;
  /** How the options are listed: "letters" ("A. text", a letter may answer) or "none" (their texts only; the default). */
  optionLabels?: OptionLabels;
}
