import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { backprojectViews } from "../../reconstruct/gt/backproject.js";
import { writePly, writeXyzF32 } from "../../reconstruct/ply.js";
import { readPly } from "./readPly.js";
import { render } from "../../bridge/sim/raster.js";
import { buildScene } from "../../bridge/sim/scene.js";
import { FLOOR_ID, WALL_IDS } from "../../core/task/instanceIds.js";
import { intrinsicsFromHfov, poseToExtrinsic, type AgentPose } from "../../core/math/camera.js";
import { buildModel } from "../../core/objects/library.js";
import { quatFromYaw } from "../../core/math/quat.js";
import type { ViewData } from "../../core/bundle/io.js";
import type { TaskObject } from "../../core/task/schema.js";
import { esi3d } from "../src/apps/cli/helpers.js";
import { generateTask } from "../../bridge/sim/generate/suite.js";
import { captureBundle } from "../../bridge/sim/capture.js";
import { writeBundle } from "../../core/bundle/io.js";
import { needs } from "../helpers/system.js";

const o3d = needs("python3-numpy", "python3-open3d");

const W = 200,
  H = 150;
const room = { id: "r", type: "test", size: [6, 5] as [number, number], height: 2.6 };
const lighting = { ambient: 0.5, sun: null, lights: [] };

function boxObject(yaw: number): TaskObject {
  const e = buildModel("cardboard_box/0").extent;
  return {
    id: 16,
    category: "cardboard_box",
    model: "cardboard_box/0",
    name: "the box",
    role: "target",
    position: [1.2, 0.3, e[2] / 2],
    orientation: quatFromYaw(yaw),
    extent: e,
    scale: 1,
    color: "tan",
    transparent: false,
  };
}

function views(objects: TaskObject[], poses: AgentPose[]): ViewData[] {
  const scene = buildScene({ room, objects, lighting });
  const K = intrinsicsFromHfov(W, H, 70);
  return poses.map((pose, index) => {
    const E = poseToExtrinsic(pose);
    const r = render(scene, { width: W, height: H, K, E });
    return { index, width: W, height: H, rgb: r.rgb!, depth: r.depth, ids: r.ids, K, E, action: null };
  });
}

describe("gt source: depth back-projection", () => {
  it("puts points of the floor, walls and a rotated box on those surfaces within 1 mm", () => {
    const box = boxObject(0.6);
    const poses: AgentPose[] = [
      { position: [0, 0, 1.2], yaw: 0.2, pitch: -0.5 },
      { position: [2.2, -0.8, 0.9], yaw: 2.4, pitch: -0.4 },
    ];
    const cloud = backprojectViews(views([box], poses), new Map([[16, "cardboard_box"]]));
    expect(cloud.count).toBeGreaterThan(W * H);
    let floorErr = 0,
      wallErr = 0,
      boxErr = 0,
      nBox = 0,
      nWall = 0;
    const c = Math.cos(0.6),
      s = Math.sin(0.6);
    for (let i = 0; i < cloud.count; i++) {
      const x = cloud.xyz[3 * i]!,
        y = cloud.xyz[3 * i + 1]!,
        z = cloud.xyz[3 * i + 2]!;
      const id = cloud.instance[i]!;
      if (id === FLOOR_ID) floorErr = Math.max(floorErr, Math.abs(z));
      else if ((WALL_IDS as readonly number[]).includes(id)) {
        nWall++;
        wallErr = Math.max(wallErr, Math.min(Math.abs(Math.abs(x) - 3), Math.abs(Math.abs(y) - 2.5)));
      } else if (id === 16) {
        nBox++;
        // distance to the box surface: in box coordinates, the largest |coord| / half extent is 1 on the surface
        const dx = x - box.position[0],
          dy = y - box.position[1],
          dz = z - box.position[2];
        const lx = c * dx + s * dy,
          ly = -s * dx + c * dy;
        const d = Math.max(Math.abs(lx) - box.extent[0] / 2, Math.abs(ly) - box.extent[1] / 2, Math.abs(dz) - box.extent[2] / 2);
        boxErr = Math.max(boxErr, Math.abs(d));
      }
    }
    expect(nBox).toBeGreaterThan(200);
    expect(nWall).toBeGreaterThan(1000);
    expect(floorErr).toBeLessThan(0.001);
    expect(wallErr).toBeLessThan(0.001);
    expect(boxErr).toBeLessThan(0.001);
  });

  it("uses only the views it is given: an object no view sees has no points", () => {
    const box = boxObject(0);
    const lookingAway: AgentPose = { position: [0, 0, 1.2], yaw: Math.PI, pitch: -0.3 };
    const cloud = backprojectViews(views([box], [lookingAway]), new Map());
    expect(Array.from(cloud.instance).includes(16)).toBe(false);
  });

  it("gives arrays of exactly its points, one per valid pixel outside the excluded ids, in view and pixel order", () => {
    const vs = views(
      [boxObject(0.3)],
      [
        { position: [0, 0, 1.2], yaw: 0.2, pitch: -0.5 },
        { position: [2.2, -0.8, 0.9], yaw: 2.4, pitch: -0.4 },
      ],
    );
    const excluded = new Set<number>([FLOOR_ID]);
    const cloud = backprojectViews(vs, new Map([[16, "cardboard_box"]]), { excludeIds: excluded, stride: 2 });
    // the columns are allocated for every pixel the stride visits; the cloud is the prefix it wrote
    const expected: Array<[number, number]> = [];
    for (const v of vs)
      for (let j = 0; j < H; j += 2)
        for (let i = 0; i < W; i += 2) {
          const p = j * W + i;
          if (v.depth[p]! > 0 && Number.isFinite(v.depth[p]!) && !excluded.has(v.ids[p]!)) expected.push([v.index, p]);
        }
    expect(cloud.count).toBe(expected.length);
    expect([cloud.xyz.length, cloud.rgb.length, cloud.confidence.length, cloud.view.length, cloud.pixel.length, cloud.instance.length]).toEqual(
      [3, 3, 1, 1, 1, 1].map((k) => k * expected.length),
    );
    expect(Array.from(cloud.view, (v, k) => [v, cloud.pixel[k]])).toEqual(expected);
    expect(cloud.confidence.every((c) => c === 1)).toBe(true);
  });

  it("visits only each view's region when one is given, the same cloud when the region holds every pixel outside the excluded ids", () => {
    const vs = views(
      [boxObject(0.3)],
      [
        { position: [0, 0, 1.2], yaw: 0.2, pitch: -0.5 },
        { position: [2.2, -0.8, 0.9], yaw: 2.4, pitch: -0.4 },
      ],
    );
    const excluded = new Set<number>([0, FLOOR_ID, ...WALL_IDS]);
    const cats = new Map([[16, "cardboard_box"]]);
    for (const stride of [1, 2, 3]) {
      const whole = backprojectViews(vs, cats, { excludeIds: excluded, stride });
      // each view's tight box of kept ids (an odd first column tests the stride's grid)
      const boxes = vs.map((v) => {
        const box = { x0: W, x1: -1, y1: -1 };
        for (let p = 0; p < W * H; p++)
          if (!excluded.has(v.ids[p]!)) Object.assign(box, { x0: Math.min(box.x0, p % W), x1: Math.max(box.x1, p % W), y1: Math.floor(p / W) });
        return box;
      });
      expect(boxes.every((b) => b.y1 >= 0 && b.x1 - b.x0 < W - 8)).toBe(true);
      const boxed = backprojectViews(vs, cats, { excludeIds: excluded, stride, regions: boxes });
      expect(boxed.count).toBe(whole.count);
      expect(boxed.count).toBeGreaterThan(0);
      for (const k of ["xyz", "rgb", "view", "pixel", "instance"] as const)
        expect(Buffer.from(boxed[k].buffer, 0, boxed[k].byteLength).equals(Buffer.from(whole[k].buffer, 0, whole[k].byteLength)), `stride ${stride} ${k}`).toBe(
          true,
        );
      // a region that leaves part of the object out drops exactly those points
      const cut = boxes.map((b) => ({ ...b, y1: b.y1 - 10 }));
      const fewer = backprojectViews(vs, cats, { excludeIds: excluded, stride, regions: cut });
      const inCut = Array.from(whole.pixel, (p, k) => Math.floor(p / W) <= cut[whole.view[k]!]!.y1).filter(Boolean).length;
      expect(fewer.count).toBe(inCut);
      expect(fewer.count).toBeLessThan(whole.count);
    }
  });

  it.skipIf(o3d.skip)(o3d.title("writes PLY that reads back identically and opens in Open3D with correct colours"), () => {
    const box = boxObject(0.3);
    const cloud = backprojectViews(
      views([box], [{ position: [0, 0, 1.0], yaw: 0.1, pitch: -0.4 }]),
      new Map([
        [16, "cardboard_box"],
        [1, "floor"],
      ]),
    );
    const dir = mkdtempSync(join(tmpdir(), "esi3d-ply-"));
    const ply = join(dir, "c.ply");
    writePly(cloud, ply);
    const back = readPly(ply);
    expect(back.count).toBe(cloud.count);
    expect(Buffer.from(back.xyz.buffer).equals(Buffer.from(cloud.xyz.buffer))).toBe(true);
    expect(back.rgb).toEqual(cloud.rgb);
    expect(back.instance).toEqual(cloud.instance);
    expect(back.pixel).toEqual(cloud.pixel);
    expect(back.categories.get(16)).toBe("cardboard_box");
    writeXyzF32(cloud, join(dir, "c.f32"));
    expect(readFileSync(join(dir, "c.f32")).length).toBe(cloud.count * 12);
    const py = execFileSync(
      "/usr/bin/python3",
      [
        "-c",
        `
import open3d as o3d, numpy as np, json
p = o3d.io.read_point_cloud("${ply}")
x = np.fromfile("${join(dir, "c.f32")}", dtype="<f4").reshape(-1, 3)
c = np.asarray(p.colors)
print(json.dumps({"n": len(p.points), "same": bool(np.array_equal(np.asarray(p.points, dtype=np.float32), x)), "rgb0": (c[0] * 255).round().tolist(), "max": float(c.max())}))
`,
      ],
      { encoding: "utf8" },
    );
    const r = JSON.parse(py);
    expect(r.n).toBe(cloud.count);
    expect(r.same).toBe(true);
    expect(r.rgb0).toEqual([cloud.rgb[0], cloud.rgb[1], cloud.rgb[2]]);
    expect(r.max).toBeLessThanOrEqual(1);
  });

  it("esi3d points writes the cloud of a bundle", () => {
    const dir = mkdtempSync(join(tmpdir(), "esi3d-points-"));
    const task = generateTask("linear_alignment", "points", 0);
    const { manifest, payloads } = captureBundle(task, "single");
    writeBundle(join(dir, "b"), manifest, payloads);
    const r = esi3d(["points", join(dir, "b"), "--source", "gt", "-o", join(dir, "c.ply")]);
    expect(r.code, r.stderr).toBe(0);
    expect(readPly(join(dir, "c.ply")).count).toBeGreaterThan(150_000);
    const bad = esi3d(["points", join(dir, "b"), "--source", "lidar", "-o", join(dir, "x.ply")]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--source: expected one of gt, vggt, noisy/);
  });
});
