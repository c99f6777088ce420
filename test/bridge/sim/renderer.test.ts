import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { render } from "../../../bridge/sim/raster.js";
import { runOutsideView, triangleRuns } from "../../../bridge/sim/cull.js";
import { Rng } from "../../../core/math/rng.js";
import { captureBundle } from "../../../bridge/sim/capture.js";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { readTasks } from "../../../core/task/io.js";
import { join } from "node:path";
import { REPO_ROOT } from "../../src/apps/cli/helpers.js";
import { buildScene, FLOOR_TILE_M } from "../../../bridge/sim/scene.js";
import { FLOOR_ID } from "../../../core/task/instanceIds.js";
import { intrinsicsFromHfov, poseToExtrinsic, projectPoint, cameraCentre, type AgentPose } from "../../../core/math/camera.js";
import { buildModel } from "../../../core/objects/library.js";
import { quatFromYaw } from "../../../core/math/quat.js";
import type { TaskObject } from "../../../core/task/schema.js";
import type { Vec3 } from "../../../core/math/vec.js";

const W = 160,
  H = 120;
const K = intrinsicsFromHfov(W, H, 70);

function obj(id: number, model: string, pos: [number, number], yaw = 0): TaskObject {
  const e = buildModel(model).extent;
  return {
    id,
    category: model.split("/")[0]!,
    model,
    name: "x",
    role: "target",
    position: [pos[0], pos[1], e[2] / 2],
    orientation: quatFromYaw(yaw),
    extent: e,
    scale: 1,
    color: "red",
    transparent: false,
  };
}

const room = { id: "r", type: "test", size: [6, 5] as [number, number], height: 2.6 };
const lighting = { ambient: 0.4, sun: { direction: [0.3, 0.2, -1] as Vec3, intensity: 0.6 }, lights: [] };

describe("software rasterizer", () => {
  it("renders the floor plane at its exact depth (within 1 mm)", () => {
    const scene = buildScene({ room, objects: [], lighting });
    const pose: AgentPose = { position: [0.3, -0.2, 1.3], yaw: 0.4, pitch: -0.6 };
    const E = poseToExtrinsic(pose);
    const out = render(scene, { width: W, height: H, K, E });
    const C = cameraCentre(E);
    let checked = 0,
      maxErr = 0;
    for (let j = 0; j < H; j++)
      for (let i = 0; i < W; i++) {
        const p = j * W + i;
        if (out.ids[p] !== FLOOR_ID) continue;
        // ray through pixel (i, j) in world coordinates: R^T [ (i-cx)/fx, (j-cy)/fy, 1 ]
        const xn = (i - K.cx) / K.fx,
          yn = (j - K.cy) / K.fy;
        const d: Vec3 = [0, 1, 2].map((k) => E[0][k]! * xn + E[1][k]! * yn + E[2][k]!) as Vec3;
        const s = -C[2] / d[2]; // hits z = 0 at C + s d, and the camera-axis depth is s (camera z of d is 1)
        maxErr = Math.max(maxErr, Math.abs(out.depth[p]! - s));
        checked++;
      }
    expect(checked).toBeGreaterThan(W * H * 0.3);
    expect(maxErr).toBeLessThan(0.001);
  });

  it("puts each object's id at its projected centre", () => {
    const objects = [obj(16, "cardboard_box/0", [1.5, 0.4]), obj(17, "basketball/0", [1.8, -0.5]), obj(18, "toy_block/0", [1.2, -0.1])];
    const scene = buildScene({ room, objects, lighting });
    const pose: AgentPose = { position: [-0.5, 0, 0.8], yaw: 0, pitch: -0.3 };
    const E = poseToExtrinsic(pose);
    const out = render(scene, { width: W, height: H, K, E });
    for (const o of objects) {
      const { u, v } = projectPoint(E, K, o.position as Vec3);
      expect(out.ids[Math.round(v) * W + Math.round(u)]).toBe(o.id);
    }
  });

  it("lets nearer objects occlude farther ones, in depth and ids", () => {
    const near = obj(16, "cardboard_box/0", [1.0, 0]);
    const far = obj(17, "cardboard_box/0", [2.0, 0]);
    const scene = buildScene({ room, objects: [near, far], lighting });
    const pose: AgentPose = { position: [-0.5, 0, 0.075], yaw: 0, pitch: 0 };
    const E = poseToExtrinsic(pose);
    const out = render(scene, { width: W, height: H, K, E });
    const { u, v } = projectPoint(E, K, [1.0, 0, 0.075]);
    const p = Math.round(v) * W + Math.round(u);
    expect(out.ids[p]).toBe(16);
    // the near box's front face is at x = 1.0 - 0.1 (box depth 0.2 along x), 1.4 m from the camera
    expect(out.depth[p]).toBeCloseTo(1.4, 3);
    // rendering the far box alone shows it at the same pixel
    const alone = render(scene, { width: W, height: H, K, E }, { onlyIds: new Set([17]) });
    expect(alone.ids[p]).toBe(17);
    expect(alone.depth[p]).toBeCloseTo(2.4, 3);
  });

  it("renders glass: RGB shows what is behind, depth and ids show the first surface", () => {
    const glass = { ...obj(16, "glass/0", [1.0, 0]), transparent: true };
    const box = obj(17, "cardboard_box/0", [1.6, 0]);
    const scene = buildScene({ room, objects: [glass, box], lighting });
    const pose: AgentPose = { position: [0, 0, 0.06], yaw: 0, pitch: 0 };
    const E = poseToExtrinsic(pose);
    const out = render(scene, { width: W, height: H, K, E });
    const withoutGlass = render(buildScene({ room, objects: [box], lighting }), { width: W, height: H, K, E });
    const { u, v } = projectPoint(E, K, [1.0, 0, 0.06]);
    const p = Math.round(v) * W + Math.round(u);
    expect(out.ids[p]).toBe(16);
    expect(out.depth[p]).toBeLessThan(1.0);
    // the box's colour shows through: the blended pixel is closer to it than to the glass tint
    const d = (a: Uint8Array | null, b: number[]) => Math.hypot(a![p * 3]! - b[0]!, a![p * 3 + 1]! - b[1]!, a![p * 3 + 2]! - b[2]!);
    const boxRgb = [withoutGlass.rgb![p * 3]!, withoutGlass.rgb![p * 3 + 1]!, withoutGlass.rgb![p * 3 + 2]!];
    expect(d(out.rgb, boxRgb)).toBeLessThan(d(out.rgb, [200, 230, 240]));
  });

  it("a scene without glass renders the same after a scene with glass (its glass buffers are neither cleared nor read)", () => {
    const E = poseToExtrinsic({ position: [0, 0, 0.06], yaw: 0, pitch: 0 });
    const cam = { width: W, height: H, K, E };
    const plain = buildScene({ room, objects: [obj(17, "cardboard_box/0", [1.6, 0])], lighting });
    const first = render(plain, cam),
      firstIds = render(plain, cam, { rgb: false });
    const glassy = render(
      buildScene({ room, objects: [{ ...obj(16, "glass/0", [1.0, 0]), transparent: true }, obj(17, "cardboard_box/0", [1.6, 0])], lighting }),
      cam,
    );
    expect(glassy.ids.includes(16)).toBe(true);
    const after = render(plain, cam),
      afterIds = render(plain, cam, { rgb: false });
    expect(Buffer.from(after.rgb!).equals(Buffer.from(first.rgb!))).toBe(true);
    expect(Buffer.from(after.depth.buffer).equals(Buffer.from(first.depth.buffer))).toBe(true);
    expect(Buffer.from(afterIds.ids.buffer).equals(Buffer.from(firstIds.ids.buffer))).toBe(true);
    expect(Buffer.from(afterIds.depth.buffer).equals(Buffer.from(first.depth.buffer))).toBe(true);
  });

  it("is deterministic", () => {
    const scene = buildScene({ room, objects: [obj(16, "mug/0", [1, 0])], lighting });
    const cam = { width: W, height: H, K, E: poseToExtrinsic({ position: [0, 0, 0.5], yaw: 0, pitch: -0.2 }) };
    const a = render(scene, cam),
      b = render(scene, cam);
    expect(Buffer.from(a.rgb!).equals(Buffer.from(b.rgb!))).toBe(true);
    expect(Buffer.from(a.depth.buffer).equals(Buffer.from(b.depth.buffer))).toBe(true);
  });

  // sha256 of every view's rgb, depth (float32) and ids of a 30-view multi bundle, recorded with the
  // whole-bounding-box rasteriser this span walk replaced (commit 8f61b9f): the speed work of issue 19
  // keeps the renders bit-identical. Glass, point lights and a large multi-room layout are covered. The
  // scenes are the tasks that commit generated (seed "golden", index 0), kept in fixtures/render-golden/ since
  // the generator has changed its draws (balanced answer positions, issue 41).
  const BOX_SCAN_BUNDLE_SHA256: Record<string, string> = {
    material_transparency: "13903ebf540a818f5fdc96f907ab939784f475eaa762a40f91e5d31354fd8032",
    illumination_variability: "5467f81cfff7128d856eee05c5a432c4eea100bb5aef6237579d717f5ad8885d",
    connectivity: "8ade4c1dc072d19164731b6df416087d3bb976af9cd6613b0500f4c4688c3181",
  };
  it.each(Object.keys(BOX_SCAN_BUNDLE_SHA256))("renders %s's multi bundle bit-identically to the whole-box rasteriser", (sub) => {
    const c = captureBundle(readTasks(join(REPO_ROOT, "fixtures", "render-golden", `${sub}-000.json`))[0]!, "multi");
    const h = createHash("sha256");
    for (const v of c.payloads) for (const a of [v.rgb, v.depth, v.ids]) h.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    expect(h.digest("hex")).toBe(BOX_SCAN_BUNDLE_SHA256[sub]);
  });

  it("keeps the floor tile a power of two, so the shading's multiplication by tiles per metre is its division", () => {
    expect(Number.isInteger(Math.log2(FLOOR_TILE_M))).toBe(true);
  });

  it("copies a view whose pose the trajectory already rendered: the same pixels as rendering it, in arrays of its own", () => {
    const task = generateTask("spatial_distance", "bench", 0);
    const c = captureBundle(task, "multi");
    const scene = buildScene(task);
    const { width, height, hfov_deg } = task.camera;
    const K = intrinsicsFromHfov(width, height, hfov_deg);
    const firstAt = new Map<string, number>();
    let repeats = 0;
    c.manifest.views.forEach((v, i) => {
      const key = v.extrinsic.flat().join(" ");
      const first = firstAt.get(key);
      if (first === undefined) return void firstAt.set(key, i);
      repeats++;
      const copy = c.payloads[i]!,
        fresh = render(scene, { width, height, K, E: v.extrinsic });
      for (const part of ["rgb", "depth", "ids"] as const) {
        expect(copy[part].buffer, `view ${i} ${part}`).not.toBe(c.payloads[first]![part].buffer);
        expect(Buffer.from(copy[part].buffer).equals(Buffer.from(fresh[part]!.buffer)), `view ${i} ${part}`).toBe(true);
      }
    });
    expect(repeats).toBeGreaterThan(0);
  });

  it("sees each triangle's side per triangle exactly as a test per pixel does, the camera in a face's plane included", () => {
    const box = obj(16, "cardboard_box/0", [1.2, 0.1], 0.3);
    const top = box.extent[2];
    const scene = buildScene({ room, objects: [box, obj(17, "mug/0", [1.6, -0.4])], lighting });
    // at the box top's height exactly the top face is edge-on (its side is then found per pixel); just off it,
    // and at ordinary heights, per triangle
    const heights = [top, top + 1e-9, top - 1e-9, 0.4, 1.5];
    let edgeOnSeen = 0;
    for (const z of heights)
      for (const yaw of [0, 0.5, -0.7]) {
        const cam = { width: W, height: H, K, E: poseToExtrinsic({ position: [0, 0, z], yaw, pitch: z === top ? 0 : -0.3 }) };
        const fast = render(scene, cam),
          reference = render(scene, cam, { sidesPerPixel: true });
        expect(Buffer.from(fast.rgb!).equals(Buffer.from(reference.rgb!)), `z ${z}, yaw ${yaw}`).toBe(true);
        if (z === top && fast.ids.includes(16)) edgeOnSeen++;
      }
    expect(edgeOnSeen).toBeGreaterThan(0);
  });
  it("culls whole objects off the image or behind the camera without changing a pixel, objects crossing the image's edges included", () => {
    const rng = new Rng("cull");
    let culled = 0,
      kept = 0;
    for (const sub of ["counting_with_occlusion", "material_transparency", "illumination_variability", "spatial_distance"] as const) {
      const task = generateTask(sub, "cull", 0);
      const scene = buildScene(task);
      const runs = triangleRuns(scene);
      const [sx, sy] = task.room.size;
      for (let i = 0; i < 24; i++) {
        // random poses in and around the room, and yaw sweeps in small steps, so objects cross every edge of the
        // image at many sub-pixel offsets
        const sweep = i >= 12;
        const pose: AgentPose = {
          position: sweep ? [0, 0, 1.2] : [rng.uniform(-sx / 2 - 1, sx / 2 + 1), rng.uniform(-sy / 2 - 1, sy / 2 + 1), rng.uniform(0.1, 2.5)],
          yaw: sweep ? (i - 12) * 0.013 + rng.uniform(0, 0.5) : rng.uniform(-Math.PI, Math.PI),
          pitch: sweep ? -0.35 + (i % 3) * 0.3 : rng.uniform(-1.3, 1.3),
        };
        for (const scale of [1, 0.25]) {
          const width = Math.round(task.camera.width * scale),
            height = Math.round(task.camera.height * scale);
          const cam = { width, height, K: intrinsicsFromHfov(width, height, task.camera.hfov_deg), E: poseToExtrinsic(pose) };
          const fast = render(scene, cam),
            reference = render(scene, cam, { cull: false });
          for (const part of ["rgb", "depth", "ids"] as const) {
            expect(Buffer.from(fast[part]!.buffer).equals(Buffer.from(reference[part]!.buffer)), `${sub} pose ${i} scale ${scale} ${part}`).toBe(true);
          }
          const view = { E: cam.E, fx: cam.K.fx, fy: cam.K.fy, cx: cam.K.cx, cy: cam.K.cy, W: width, H: height, near: 0.05 }; // the renderer's near plane
          for (let r = 0; r < runs.count; r++) {
            if (runOutsideView(runs, r, view)) culled++;
            else kept++;
          }
        }
      }
    }
    // the comparison means something only if both kinds of run occur often
    expect(culled).toBeGreaterThan(200);
    expect(kept).toBeGreaterThan(200);
  });
});
