/**
 * The active paradigm's environment: `step(action) -> view`. A simulator behind it renders on demand
 * (the built-in one: bridge/sim/env.ts; an external one over HTTP: src/apps/service/remoteEnv.ts). The agent's
 * vocabulary and step sizes are core/task/actions.ts; whether a move or a manipulation is possible is the simulator's.
 */
import type { AgentPose } from "../../core/math/camera.js";
import type { Vec3 } from "../../core/math/vec.js";
import type { ViewData } from "../../core/bundle/io.js";
import type { BundleManifest } from "../../core/bundle/schema.js";
import type { ManipulationAction, NavigationAction } from "../../core/task/actions.js";
import type { TaskObject } from "../../core/task/schema.js";

/**
 * An object as the agent named it: its text (a name, a category, colour and category, `#<instance id>`), and, when
 * the text was a node of the agent's graph, where that node is and what it is labelled: the simulator takes the
 * object there (a node where no object is names nothing, as a hallucinated node would).
 */
export interface ObjectRef {
  text: string;
  near?: { node: string; point: Vec3; label: string };
}

/** What the environment executes: a camera move, or a manipulation with the objects it names. */
export type EnvAction = { kind: "camera"; name: NavigationAction } | { kind: "hands"; name: ManipulationAction; objects: ObjectRef[] };

/** One observation: the rendered view (RGB, depth, instance ids, camera) and the pose it was taken from. */
export interface EnvView {
  view: ViewData;
  pose: AgentPose;
  /** true when the action did not happen (a blocked move, a failed manipulation): the world is as before (paper, Appendix N: a physical failure). */
  blocked: boolean;
  /** The action that led here, as canonical text (null for the initial view). */
  action: string | null;
  /** What came of the action in words ("ok", or why it failed; ESI's later runner records `action_result`); null for the initial view. */
  actionResult: string | null;
  /** A manipulation that happened: the instance ids it acted on, in the action's order (for the record and a replay; never shown to the agent). */
  actedOn?: number[];
  /** The phase of a world that changes (an index into the task's phases); absent when the world does not change. */
  phase?: number;
}

/** Where the objects truly are now and which have moved: for the diagnosis only, never shown to an agent. */
export interface WorldTruth {
  objects: TaskObject[];
  moved: Array<{ id: number; from: TaskObject; to: TaskObject }>;
}

export interface Environment {
  /** The bundle's static parts: image size, instance table, task (views are added by the caller). */
  readonly manifest: Omit<BundleManifest, "views">;
  /** The initial view (view 0), at the task's initial pose. */
  reset(): Promise<EnvView>;
  /** Applies one action and renders the view from the resulting pose (view index = steps taken). */
  step(action: EnvAction): Promise<EnvView>;
  /** How many phases the world goes through (a task with `phases`); absent: one unchanging world. */
  readonly phases?: number;
  /**
   * The world changes while no one looks: the next phase's objects (whatever the hands did undone), the agent at that
   * phase's primary viewpoint; renders the view from there. Only where `phases` says there is a next one.
   */
  nextPhase?(): Promise<EnvView>;
  /** The true state now (a simulator that cannot say: undefined); the diagnosis of a graph after manipulation needs it. */
  truth?(): WorldTruth;
  /** Why a reference names no object the agent could act on now (null: it names one); a simulator that cannot say leaves it out. */
  checkReference?(ref: ObjectRef): string | null;
  /** Releases what the simulator holds (a remote session). */
  close(): Promise<void>;
}
