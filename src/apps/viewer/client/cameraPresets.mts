/**
 * Camera presets of the 3D view (world Z up, metres): straight down from the top, level from the front
 * (along the agent's first view direction, so left and right read as in the question), and fit, which
 * keeps the direction and frames a box (the selected node's, or the whole scene).
 */
import * as THREE from "three";

export type CameraPreset = "top" | "front" | "fit";

/** Room left around the framed box: its bounding sphere fills this share of the narrower view angle. */
const FIT_FILL = 0.8;
/**
 * The top view looks down with this tilt (rad) towards +Y: exactly straight down, OrbitControls (Z up)
 * loses the azimuth and the picture can spin; 1e-3 rad is invisible.
 */
const TOP_TILT_RAD = 1e-3;

/** Distance at which a sphere of `radius` fills FIT_FILL of the camera's narrower field of view. */
function fitDistance(radius: number, camera: THREE.PerspectiveCamera): number {
  const vfov = THREE.MathUtils.degToRad(camera.fov);
  const hfov = 2 * Math.atan(Math.tan(vfov / 2) * camera.aspect);
  return radius / Math.sin((Math.min(vfov, hfov) / 2) * FIT_FILL);
}

/**
 * Where the camera goes for a preset: `box` is what to frame, `viewYaw` the agent's first view direction
 * (front), `current` the camera's direction now (fit keeps it).
 */
export function presetPose(
  preset: CameraPreset,
  box: THREE.Box3,
  camera: THREE.PerspectiveCamera,
  viewYaw: number,
  current: THREE.Vector3,
): { position: THREE.Vector3; target: THREE.Vector3 } {
  const target = box.getCenter(new THREE.Vector3());
  const radius = Math.max(0.05, box.getBoundingSphere(new THREE.Sphere()).radius);
  const d = fitDistance(radius, camera);
  let dir: THREE.Vector3;
  if (preset === "top") dir = new THREE.Vector3(0, Math.sin(TOP_TILT_RAD), -Math.cos(TOP_TILT_RAD));
  else if (preset === "front") dir = new THREE.Vector3(Math.cos(viewYaw), Math.sin(viewYaw), 0);
  else dir = current.clone().normalize();
  return { position: target.clone().addScaledVector(dir, -d), target };
}
