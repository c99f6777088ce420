/**
 * Test helpers for Structural Enclosure: a task's boxes opened by the built-in world's hands (each lid swung up about
 * the box's rim edge farthest from the agent, so it stands behind the box), and a frame bundle rendered from poses
 * that look into the boxes.
 */
import type { AgentPose } from "../../../core/math/camera.js";
import { intrinsicsFromHfov, poseToExtrinsic } from "../../../core/math/camera.js";
import type { Task, TaskObject } from "../../../core/task/schema.js";
import type { FrameBundle } from "../../../core/bundle/io.js";
import { viewData, viewFileNames } from "../../../core/bundle/io.js";
import { captureBundle } from "../../../bridge/sim/capture.js";
import { buildScene } from "../../../bridge/sim/scene.js";
import { render } from "../../../bridge/sim/raster.js";
import { lookAt } from "../../../bridge/sim/agent.js";
import { Hands } from "../../../bridge/sim/manipulation/hands.js";

/** The task with every box opened by the built-in world's hands (`open(#id)`), each from its pose of posesIntoBoxes. */
export function openedTask(t: Task): Task {
  const boxes = t.objects.filter((o) => o.role === "container");
  const poses = posesIntoBoxes(t, boxes);
  const hands = new Hands(t.objects, t.room.size as [number, number]);
  const { width, height, hfov_deg } = t.camera;
  const K = intrinsicsFromHfov(width, height, hfov_deg);
  boxes.forEach((box, k) => {
    // the hands act on what the view shows: the pixels per id of the world as it is now
    const ids = render(buildScene({ ...t, objects: hands.current() }), { width, height, K, E: poseToExtrinsic(poses[k]!) }).ids;
    const seen = new Map<number, number>();
    for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + 1);
    const r = hands.apply("open", [{ text: `#${box.id}` }], poses[k]!, seen);
    if (!r.ok) throw new Error(`${t.task_id}: open(#${box.id}) failed: ${r.result}`);
  });
  return { ...t, objects: hands.current() };
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
