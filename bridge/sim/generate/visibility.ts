/**
 * Visibility checks for the generator: which objects a pose sees, and how much of each. Rendered at a
 * reduced resolution (VISIBILITY_SCALE) to keep generation fast; the thresholds are stated in pixels of
 * that resolution.
 */
import { intrinsicsFromHfov, poseToExtrinsic, type AgentPose } from "../../../core/math/camera.js";
import type { CameraSpec } from "../../../core/task/schema.js";
import { render } from "../raster.js";
import { tallyIds } from "../../../core/idTally.js";
import type { RenderScene } from "../scene.js";

/** Visibility is judged on images at this fraction of the camera's resolution (518x392 -> 130x98). */
export const VISIBILITY_SCALE = 0.25;
/** An object "exists" in a view (ESI's per-view segmentation flag) with at least this many pixels at VISIBILITY_SCALE (about 50 px at full size). */
export const VISIBLE_MIN_PX = 3;

export interface ViewVisibility {
  pose: AgentPose;
  /** instance id -> pixel count at the check resolution. */
  counts: Map<number, number>;
}

function checkCamera(spec: CameraSpec, pose: AgentPose, scale: number) {
  const width = Math.max(8, Math.round(spec.width * scale)),
    height = Math.max(8, Math.round(spec.height * scale));
  return { width, height, K: intrinsicsFromHfov(width, height, spec.hfov_deg), E: poseToExtrinsic(pose) };
}

export function visibleCounts(
  scene: RenderScene,
  spec: CameraSpec,
  pose: AgentPose,
  scale = VISIBILITY_SCALE,
  onlyIds?: ReadonlySet<number>,
): Map<number, number> {
  const { ids, counts: n } = tallyIds(render(scene, checkCamera(spec, pose, scale), { rgb: false, onlyIds }).ids);
  // ids in order of first appearance, as a Map updated per pixel had them; 0 is the background
  const counts = new Map<number, number>();
  ids.forEach((id, j) => id !== 0 && counts.set(id, n[j]!));
  return counts;
}

/**
 * Pixel counts per id of what a pose sees directly (the instance image) and in mirrors (the reflection image: the
 * object each mirror pixel's reflected ray hits), at the check resolution. A scene without mirrors reflects nothing.
 */
export function directAndReflectedCounts(
  scene: RenderScene,
  spec: CameraSpec,
  pose: AgentPose,
  scale = VISIBILITY_SCALE,
): { direct: Map<number, number>; reflected: Map<number, number> } {
  const out = render(scene, checkCamera(spec, pose, scale), { rgb: false });
  const count = (image: Uint16Array | undefined) => {
    const m = new Map<number, number>();
    if (!image) return m;
    const { ids, counts } = tallyIds(image);
    ids.forEach((id, j) => id !== 0 && m.set(id, counts[j]!));
    return m;
  };
  return { direct: count(out.ids), reflected: count(out.reflectedIds) };
}

export function viewVisibility(scene: RenderScene, spec: CameraSpec, pose: AgentPose): ViewVisibility {
  return { pose, counts: visibleCounts(scene, spec, pose) };
}

/**
 * Fraction of an object's pixels that are visible with everything else in place, relative to the object
 * rendered alone from the same pose (0 when it is outside the view).
 */
export function visibleFraction(
  scene: RenderScene,
  spec: CameraSpec,
  pose: AgentPose,
  id: number,
  scale = 0.5,
): { visible: number; alone: number; fraction: number } {
  const visible = visibleCounts(scene, spec, pose, scale).get(id) ?? 0;
  const alone = visibleCounts(scene, spec, pose, scale, new Set([id])).get(id) ?? 0;
  return { visible, alone, fraction: alone > 0 ? visible / alone : 0 };
}

export function isVisible(v: ViewVisibility, id: number, minPx = VISIBLE_MIN_PX): boolean {
  return (v.counts.get(id) ?? 0) >= minPx;
}
