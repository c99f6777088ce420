/**
 * The active paradigm's environment: `step(action) -> view`. A simulator behind it renders on demand
 * (the built-in one: bridge/sim/env.ts; an external one over HTTP: src/apps/service/remoteEnv.ts). The agent's
 * vocabulary and step sizes are core/task/actions.ts; whether a move is possible is the simulator's.
 */
import type { AgentPose } from "../../core/math/camera.js";
import type { ViewData } from "../../core/bundle/io.js";
import type { BundleManifest } from "../../core/bundle/schema.js";
import type { NavigationAction } from "../../core/task/actions.js";

/** One observation: the rendered view (RGB, depth, instance ids, camera) and the pose it was taken from. */
export interface EnvView {
  view: ViewData;
  pose: AgentPose;
  /** true when the action was blocked: the pose is the one before it (paper, Appendix N: a physical failure). */
  blocked: boolean;
  /** The action that led here (null for the initial view). */
  action: NavigationAction | null;
}

export interface Environment {
  /** The bundle's static parts: image size, instance table, task (views are added by the caller). */
  readonly manifest: Omit<BundleManifest, "views">;
  /** The initial view (view 0), at the task's initial pose. */
  reset(): Promise<EnvView>;
  /** Applies one navigation action and renders the view from the resulting pose (view index = steps taken). */
  step(action: NavigationAction): Promise<EnvView>;
  /** Releases what the simulator holds (a remote session). */
  close(): Promise<void>;
}
