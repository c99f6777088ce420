/** Renders a task's views for a paradigm into a frame bundle. */
import { intrinsicsFromHfov, poseToExtrinsic } from "../../src/core/math/camera.js";
import type { Task } from "../task/schema.js";
import { BUNDLE_CONVENTIONS, BUNDLE_FORMAT, type BundleManifest, type Paradigm } from "../bundle/schema.js";
import type { FrameBundle, ViewPayload } from "../bundle/io.js";
import { viewData, viewFileNames } from "../bundle/io.js";
import { buildScene } from "./scene.js";
import { render } from "./raster.js";
import { paradigmViews } from "./views.js";

export const BUILTIN_SIMULATOR = "esi3d-builtin/1";

export interface CapturedBundle {
  manifest: BundleManifest;
  payloads: ViewPayload[];
}

export function captureBundle(task: Task, paradigm: Paradigm): CapturedBundle {
  const scene = buildScene(task);
  const { width, height, hfov_deg } = task.camera;
  const K = intrinsicsFromHfov(width, height, hfov_deg);
  const planned = paradigmViews(task, paradigm);
  const payloads: ViewPayload[] = [];
  const views: BundleManifest["views"] = [];
  planned.forEach((pv, i) => {
    const E = poseToExtrinsic(pv.pose);
    const out = render(scene, { width, height, K, E });
    payloads.push({ rgb: out.rgb!, depth: out.depth, ids: out.ids });
    views.push({ index: i, ...viewFileNames(i), intrinsics: K, extrinsic: E, action: pv.action });
  });
  const instances = [...scene.categories.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([id, category]) => ({ id, category, structure: category === "floor" || category === "wall" }));
  const manifest: BundleManifest = {
    format: BUNDLE_FORMAT,
    task_id: task.task_id,
    paradigm,
    // a proxy task names itself ("esi3d-builtin/1 proxy of ..."): the bundle says it is a proxy render
    simulator: task.proxy ? task.simulator : BUILTIN_SIMULATOR,
    image: { width, height },
    conventions: BUNDLE_CONVENTIONS,
    views,
    instances,
    task,
  };
  return { manifest, payloads };
}

/** Renders a task's views into an in-memory bundle (nothing is written to disk). */
export function renderBundle(task: Task, paradigm: Paradigm): FrameBundle {
  const { manifest, payloads } = captureBundle(task, paradigm);
  return { dir: "", manifest, views: payloads.map((p, i) => viewData(manifest, i, p)) };
}
