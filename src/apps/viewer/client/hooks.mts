import type { StepShown } from "./view3d.mjs";
import type { PickedPoint } from "./measure.mjs";

type Camera = { position: [number, number, number]; target: [number, number, number] };

/** What the page exposes to tests and to a person at the console as `window.__esi3d` (test/src/apps/viewer). */
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
  /** The node ids whose boxes the main view draws now (after the status filter). */
  boxesShown(): string[];
  /** The main view's camera, and the side-by-side view's (null when off). */
  camera(): Camera;
  compareCamera(): Camera | null;
  /** The side-by-side view: its variant and whether it is drawn. */
  compare(): { key: string | null; ready: boolean };
  /** The size three.js draws the cloud's points with (px). */
  pointSize(): number | null;
  /** The last picked point and the ruler's ends and distance. */
  picks(): { point: PickedPoint | null; ruler: PickedPoint[]; distance_m: number | null };
  /** A drawn cloud point by index: position and node index (for checking picks). */
  cloudPoint(i: number): { position: [number, number, number]; node: number | null } | null;
  /** Client (page) coordinates of a world point in the main view, null behind the camera. */
  project(p: [number, number, number]): { x: number; y: number } | null;
}

declare global {
  interface Window {
    __esi3d: Hooks;
  }
}
