/** What a subcategory generator returns: a placed scene, its question and how to check it. */
import type { AgentPose } from "../../../core/math/camera.js";
import type { Rng } from "../../../core/math/rng.js";
import type { AnswerFormat, AnswerSpec, CameraSpec, Lighting, TaskObject } from "../../../core/task/schema.js";
import type { RenderScene } from "../scene.js";
import type { Room } from "./common.js";
import type { ViewGoal } from "./gtTrajectory.js";
import type { GeneratorContext } from "./options.js";
import type { AnswerPlan } from "./answerPlan.js";
import type { GtAct } from "./gtReveal.js";

export interface InitialViewProbe {
  scene: RenderScene;
  camera: CameraSpec;
  pose: AgentPose;
  /** Pixel counts per id in the initial view at the visibility-check resolution. */
  counts: Map<number, number>;
  /** Visible fraction of an object (see visibility.ts visibleFraction). */
  fraction(id: number): number;
}

/** One phase of a world that changes while no one acts. */
export interface DraftPhase {
  label: string;
  /** every object in this phase (phase 0's are the draft's own objects) */
  objects: TaskObject[];
  /** the phase's viewpoint (phase 0's is the draft's agent) */
  agent: AgentPose;
}

export interface Draft {
  roomType: string;
  room: Room;
  objects: TaskObject[];
  lighting: Lighting;
  agent: AgentPose;
  question: string;
  answer: string;
  answerFormat: AnswerFormat;
  /** A structured answer (Stacking's accepted orders): `answer` is its canonical text, `options` its items. */
  answerSpec?: AnswerSpec;
  options: string[];
  relevant: number[];
  metadata: Record<string, unknown>;
  /** Per-task overrides of the agent's motion limits (a floor object seen horizontally needs a lower camera). */
  agentLimits?: { min_camera_height_m: number };
  /** Pairs allowed to touch or nest (contact, containment, stacking) in the intersection check. */
  allowedOverlaps?: Array<[number, number]>;
  /**
   * A world that changes between looks (Temporal Understanding): each phase's objects and primary viewpoint, phase 0's
   * being `objects` and `agent`. Absent: one unchanging world.
   */
  phases?: DraftPhase[];
  /** Re-derives the answer from the placed geometry alone (a phased draft's: every phase's objects); must agree with `answer`. */
  derive(objects: readonly TaskObject[], phases?: ReadonlyArray<readonly TaskObject[]>): string;
  /** Options that depend on the initial view (counting tasks offer the count it shows); replaces `options`. */
  finalizeOptions?(probe: InitialViewProbe): string[];
  /** Checks that the initial view (a phased draft's: each phase's primary view) does what the construction rule says; returns a failure reason or null. */
  checkInitialView(probe: InitialViewProbe): string | null;
  /** What the ground-truth trajectory's views must show, and candidate poses to show it from. */
  gtGoals: ViewGoal[];
  gtKeyPoses: AgentPose[];
  /** Acts the ground-truth trajectory does first (open a lid, lift a cloth), each from one of its key poses (gtReveal.ts). */
  gtActs?: GtAct[];
}

/** Draws a task's scene and question; `plan` says which question form to ask and where the right answer must sit (answerPlan.ts). */
export type Generator = (rng: Rng, ctx: GeneratorContext, plan: AnswerPlan) => Draft;
