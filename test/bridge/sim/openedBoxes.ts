/**
 * Test helpers for Structural Enclosure until the manipulation engine lands: a task's boxes opened the way the
 * engine will open them (each lid swung up 100 degrees about the box's rim edge farthest from the camera, so it stands
 * behind the box; its support stays the box), and a frame bundle rendered from poses that look into the boxes.
 */
import type { AgentPose } from "../../../core/math/camera.js";
import { intrinsicsFromHfov, poseToExtrinsic } from "../../../core/math/camera.js";
import type { Quat } from "../../../core/math/quat.js";
import type { Task, TaskObject } from "../../../core/task/schema.js";
import type { FrameBundle } from "../../../core/bundle/io.js";
import { viewData, viewFileNames } from "../../../core/bundle/io.js";
import { captureBundle } from "../../../bridge/sim/capture.js";
import { buildScene } from "../../../bridge/sim/scene.js";
import { render } from "../../../bridge/sim/raster.js";
import { lookAt } from "../../../bridge/sim/agent.js";
import { objectBox } from "../../../core/objects/geometry.js";

/** How far the engine swings a lid open (deg): the shared design of issue 46. */
const OPEN_ANGLE_DEG = 100;

const mul = (a: Quat, b: Quat): Quat => ({
  w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
  x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
  y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
  z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
});

/** Rotates v about the unit axis a by theta (Rodrigues). */
function rotate(v: number[], a: number[], theta: number): number[] {
  const c = Math.cos(theta),
    s = Math.sin(theta);
  const dot = a[0]! * v[0]! + a[1]! * v[1]! + a[2]! * v[2]!;
  const cross = [a[1]! * v[2]! - a[2]! * v[1]!, a[2]! * v[0]! - a[0]! * v[2]!, a[0]! * v[1]! - a[1]! * v[0]!];
  return v.map((x, k) => x * c + cross[k]! * s + a[k]! * dot * (1 - c));
}

/** The lid of `box` swung open about the rim edge farthest from `eye`. */
function openLid(lid: TaskObject, box: TaskObject, eye: readonly number[]): TaskObject {
  const b = objectBox(box);
  const ex = [Math.cos(b.yaw), Math.sin(b.yaw)],
    ey = [-Math.sin(b.yaw), Math.cos(b.yaw)];
  // the four rim edges' outward normals and distances from the centre (the lid's half sizes: it pivots on its own edge)
  const edges = [
    { n: ex, d: lid.extent[0] / 2 },
    { n: [-ex[0]!, -ex[1]!], d: lid.extent[0] / 2 },
    { n: ey, d: lid.extent[1] / 2 },
    { n: [-ey[0]!, -ey[1]!], d: lid.extent[1] / 2 },
  ];
  const far = edges.reduce((best, e) => {
    const dist = (x: { n: number[]; d: number }) => Math.hypot(b.centre[0] + x.n[0]! * x.d - eye[0]!, b.centre[1] + x.n[1]! * x.d - eye[1]!);
    return dist(e) > dist(best) ? e : best;
  });
  const lidBottom = lid.position[2] - lid.extent[2] / 2;
  const hinge = [b.centre[0] + far.n[0]! * far.d, b.centre[1] + far.n[1]! * far.d, lidBottom];
  // the axis that turns the lid's inward direction (-n) up: (-n) x z
  const axis = [-far.n[1]!, far.n[0]!, 0];
  const theta = (OPEN_ANGLE_DEG * Math.PI) / 180;
  const r = rotate([lid.position[0] - hinge[0]!, lid.position[1] - hinge[1]!, lid.position[2] - hinge[2]!], axis, theta);
  const q: Quat = { w: Math.cos(theta / 2), x: axis[0]! * Math.sin(theta / 2), y: axis[1]! * Math.sin(theta / 2), z: 0 };
  return { ...lid, position: [hinge[0]! + r[0]!, hinge[1]! + r[1]!, hinge[2]! + r[2]!], orientation: mul(q, lid.orientation) };
}

/** The task with every lid swung open, as seen from its initial pose. */
export function openedTask(t: Task): Task {
  const eye = t.agent_initial.position;
  return {
    ...t,
    objects: t.objects.map((o) => {
      if (o.role !== "lid") return o;
      const box = t.objects.find((x) => x.id === o.support)!;
      return openLid(o, box, eye);
    }),
  };
}

/** A pose on the camera's side of each box, `up` m above its rim, looking at its inner bottom: into the open box. */
export function posesIntoBoxes(t: Task, boxes: readonly TaskObject[], up = 0.7, back = 0.45): AgentPose[] {
  const eye = t.agent_initial.position;
  return boxes.map((b) => {
    const dx = eye[0] - b.position[0],
      dy = eye[1] - b.position[1],
      L = Math.hypot(dx, dy);
    const from: [number, number, number] = [b.position[0] + (dx / L) * back, b.position[1] + (dy / L) * back, b.position[2] + b.extent[2] / 2 + up];
    const { yaw, pitch } = lookAt(from, [b.position[0], b.position[1], b.position[2] - b.extent[2] / 4]);
    return { position: from, yaw, pitch };
  });
}

/** The task's views from these poses as an in-memory frame bundle (the task's camera; the manifest of its single view). */
export function bundleAt(t: Task, poses: readonly AgentPose[]): FrameBundle {
  const { manifest } = captureBundle(t, "single");
  const scene = buildScene(t);
  const { width, height, hfov_deg } = t.camera;
  const K = intrinsicsFromHfov(width, height, hfov_deg);
  const views = poses.map((pose, i) => ({ index: i, ...viewFileNames(i), intrinsics: K, extrinsic: poseToExtrinsic(pose), action: null }));
  const m = { ...manifest, views };
  const payloads = views.map((v) => {
    const out = render(scene, { width, height, K, E: v.extrinsic });
    return { rgb: out.rgb!, depth: out.depth, ids: out.ids };
  });
  return { dir: "", manifest: m, views: payloads.map((p, i) => viewData(m, i, p)) };
}
