/**
 * The viewpoint a bundle's scene graph takes left/right/front/behind from: its task's initial pose, or, for
 * a bundle of one's own (no task), the camera of its first view. Yaw and pitch follow the agent convention
 * (core/math/camera.ts): yaw 0 looks along +X, counter-clockwise seen from above; pitch positive looks up.
 */
import { cameraCentre } from "../math/camera.js";
import type { Mat34, Vec3 } from "../math/vec.js";
import type { BundleManifest } from "./schema.js";

export interface Viewpoint {
  position: Vec3;
  yaw: number;
  pitch: number;
}

export function bundleViewpoint(manifest: Pick<BundleManifest, "task" | "views">): Viewpoint {
  const a = manifest.task?.agent_initial;
  if (a) return { position: a.position, yaw: a.yaw, pitch: a.pitch };
  const E = manifest.views[0]!.extrinsic as Mat34;
  // the camera's forward axis in the world is the third row of its rotation (camera-from-world)
  const f: Vec3 = [E[2][0], E[2][1], E[2][2]];
  return { position: cameraCentre(E), yaw: Math.atan2(f[1], f[0]), pitch: Math.asin(Math.max(-1, Math.min(1, f[2]))) };
}
