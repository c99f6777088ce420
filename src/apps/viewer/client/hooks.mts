import type { StepShown } from "./view3d.mjs";

/** What the page exposes to tests and to a person at the console as `window.__esi3d` (test/apps/viewer). */
export interface Hooks {
  ready: boolean;
  error: string | null;
  timings: Record<string, number>;
  key: string;
  select(nodeId: string | null): void;
  screenPoint(nodeId: string): { x: number; y: number } | null;
  show(key: string): Promise<void>;
  /** Active episodes: the step shown (1-based), null without an episode. */
  step: number | null;
  setStep(k: number): void;
  /** What the 3D view draws at the current step (boxes, frustums, points, camera path). */
  stepShown(): StepShown | null;
}

declare global {
  interface Window {
    __esi3d: Hooks;
  }
}
