/** Small frame bundles on disk for the vggt tests: a minimal valid task, and views that may be RGBA. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { encode as fastPngEncode } from "fast-png";
import { viewFileNames, writeBundle } from "../../core/bundle/io.js";
import { BUNDLE_CONVENTIONS, BUNDLE_FORMAT, type BundleManifest } from "../../core/bundle/schema.js";
import type { Task } from "../../core/task/schema.js";
import type { Mat34 } from "../../core/math/vec.js";
import type { Intrinsics } from "../../core/math/camera.js";

export const TEST_INSTANCES = [
  { id: 1, category: "chair", structure: false },
  { id: 2, category: "floor", structure: true },
];

/** A minimal valid task whose camera is w x h with horizontal field of view `hfov` (radians). */
function taskOf(w: number, h: number, hfov: number): Task {
  return {
    schema: "esi3d-task/1",
    task_id: "vggt-test",
    seed: "0",
    category: "spatial_relations",
    subcategory: "linear_alignment",
    simulator: "test",
    scene: "test",
    room: { id: "r", type: "room", size: [5, 5], height: 3 },
    floor: 0,
    objects: [],
    lighting: { ambient: 1, sun: null, lights: [] },
    camera: { width: w, height: h, hfov_deg: (hfov * 180) / Math.PI },
    agent_initial: { position: [0, 0, 1.5], orientation: { x: 0, y: 0, z: 0, w: 1 }, yaw: 0, pitch: 0 },
    action_trajectory: [],
    view_object_existence: [],
    question: "q?",
    answer: "yes",
    answer_format: "yes_no",
    options: ["yes", "no"],
    relevant_object_ids: [],
    label_metadata: {},
  };
}

export interface TestView {
  /** RGB (3 bytes per pixel), or RGBA (4): an RGBA view is written as an RGBA PNG. */
  pixels: Uint8Array;
  depth: Float32Array;
  ids: Uint16Array;
  K: Intrinsics;
  E: Mat34;
}

/** Writes a bundle of w x h views to `dir` (RGBA views as RGBA PNGs, which readBundle accepts). */
export function writeTestBundle(dir: string, w: number, h: number, views: readonly TestView[]): void {
  const manifest: BundleManifest = {
    format: BUNDLE_FORMAT,
    task_id: "vggt-test",
    paradigm: "multi",
    simulator: "test",
    image: { width: w, height: h },
    conventions: BUNDLE_CONVENTIONS,
    instances: TEST_INSTANCES,
    task: taskOf(w, h, 2 * Math.atan(w / 2 / views[0]!.K.fx)),
    views: views.map((v, index) => ({ index, ...viewFileNames(index), intrinsics: v.K, extrinsic: v.E, action: index ? "move_forward" : null })),
  };
  const rgbOf = (v: TestView) =>
    v.pixels.length === w * h * 3 ? v.pixels : Uint8Array.from({ length: w * h * 3 }, (_, i) => v.pixels[4 * Math.floor(i / 3) + (i % 3)]!);
  writeBundle(
    dir,
    manifest,
    views.map((v) => ({ rgb: rgbOf(v), depth: v.depth, ids: v.ids })),
  );
  views.forEach((v, i) => {
    if (v.pixels.length === w * h * 4)
      writeFileSync(join(dir, viewFileNames(i).rgb), fastPngEncode({ width: w, height: h, data: v.pixels, channels: 4, depth: 8 }));
  });
}
