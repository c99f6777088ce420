/**
 * End-to-end tests of the `vggt` source on ONNX Runtime's CPU provider, with tiny models built at run time
 * (test/helpers/tinyVggtOnnx.ts) whose outputs are chosen so the truth is known.
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readBundle, type FrameBundle, type ViewData } from "../../core/bundle/io.js";
import type { BundleManifest } from "../../core/bundle/schema.js";
import type { Mat3, Mat34, Vec3 } from "../../core/math/vec.js";
import { matMul, matVec, transpose } from "../../core/math/vec.js";
import { cameraCentre, extrinsicRotation, extrinsicTranslation, invertExtrinsic, poseToExtrinsic, type Intrinsics } from "../../core/math/camera.js";
import { matToQuat } from "../../core/math/quat.js";
import { InputError } from "../../core/errors.js";
import { resolveVggtModel, VggtModelError, vggtPointCloud, type VggtOptions } from "../../reconstruct/vggt/index.js";
import { modelBytesOnDisk, resetVggtRuntime } from "../../reconstruct/vggt/model.js";
import { readOnnxGraph } from "../../reconstruct/vggt/onnxGraph.js";
import { modelToSourcePixel, planPreprocess } from "../../reconstruct/vggt/preprocess.js";
import { percentileLinear } from "../../reconstruct/vggt/percentile.js";
import { FOV_F_EQUALS_SIZE, writeTinyVggt, type TinyVggtSpec } from "../helpers/tinyVggtOnnx.js";
import { TEST_INSTANCES as INSTANCES, writeTestBundle } from "../helpers/vggtBundle.js";
import { VggtOptionsSchema } from "../../reconstruct/options.js";

/** An in-memory bundle (only image size and the instance table are read from the manifest). */
function bundleOf(W: number, H: number, views: Omit<ViewData, "index" | "width" | "height" | "action">[]): FrameBundle {
  const manifest = { image: { width: W, height: H }, instances: INSTANCES } as unknown as BundleManifest;
  return { dir: "(memory)", manifest, views: views.map((v, index) => ({ ...v, index, width: W, height: H, action: index ? "move" : null })) };
}

function rgbOf(W: number, H: number, seed: number): Uint8Array {
  return Uint8Array.from({ length: W * H * 3 }, (_, i) => (i * 31 + seed * 17) % 256);
}
function idsOf(W: number, H: number): Uint16Array {
  return Uint16Array.from({ length: W * H }, (_, p) => (p % W < W / 3 ? 1 : p % W < (2 * W) / 3 ? 2 : 0));
}

const inverses = new Map<Mat34, Mat34>();
/** Metric world point of pixel (u, v) at depth d for a camera (our convention). */
function unproject(E: Mat34, K: Intrinsics, u: number, v: number, d: number): Vec3 {
  let inv = inverses.get(E);
  if (!inv) inverses.set(E, (inv = invertExtrinsic(E)));
  const p = matVec(extrinsicRotation(inv), [((u - K.cx) / K.fx) * d, ((v - K.cy) / K.fy) * d, d]),
    t = extrinsicTranslation(inv);
  return [p[0] + t[0], p[1] + t[1], p[2] + t[2]];
}

// ---------------------------------------------------------------- a scene with known truth (crop mode, identity resize)

const W = 518,
  H = 28; // crop mode keeps 518 x 28 unchanged: model pixel = source pixel
const F = 300;
// The principal point VGGT's decoding gives (W/2, H/2; models/README.md), so the known cameras match it.
const K: Intrinsics = { fx: F, fy: F, cx: W / 2, cy: H / 2 };
const FOV_W = 2 * Math.atan(W / 2 / F),
  FOV_H = 2 * Math.atan(H / 2 / F);
const KNOWN_POSES = [
  poseToExtrinsic({ position: [0, 0, 1.5], yaw: 0.2, pitch: -0.1 }),
  poseToExtrinsic({ position: [1, 0.3, 1.5], yaw: 0.6, pitch: 0 }),
  poseToExtrinsic({ position: [1.3, 1.4, 1.4], yaw: 1.4, pitch: -0.2 }),
  poseToExtrinsic({ position: [-0.2, 1.1, 1.6], yaw: 2.2, pitch: 0.1 }),
];
const SCALE = 2.5; // VGGT's frame is camera 0's, at 1/SCALE metric scale
/** x_world = SCALE · R · x_vggt + t, with R = R_k0ᵀ and t = C_k0 so that VGGT's camera 0 is the identity. */
const TRUE_SIM3 = { R: transpose(extrinsicRotation(KNOWN_POSES[0]!)), t: cameraCentre(KNOWN_POSES[0]!), s: SCALE };

const depths = new Map<number, Float32Array>();
function depthOf(view: number): Float32Array {
  const hit = depths.get(view);
  if (hit) return hit;
  const d = Float32Array.from({ length: W * H }, (_, p) => 2 + 0.5 * Math.sin(0.02 * (p % W) + view) + (0.1 * Math.floor(p / W)) / H);
  depths.set(view, d);
  return d;
}
function confOf(view: number): Float32Array {
  return Float32Array.from({ length: W * H }, (_, p) => 1 + ((p * 7 + view * 3) % 50) / 5);
}

/** VGGT's extrinsic of a known camera: [R_k·R | (R_k·t + t_k)/s]. */
function vggtExtrinsic(E: Mat34): { R: Mat3; t: Vec3 } {
  const Rk = extrinsicRotation(E);
  const Rt = matVec(Rk, TRUE_SIM3.t);
  const tk = extrinsicTranslation(E);
  return { R: matMul(Rk, TRUE_SIM3.R), t: [0, 1, 2].map((i) => (Rt[i]! + tk[i]!) / SCALE) as Vec3 };
}

const modelCache = new Map<string, string>();
function knownSceneModel(views: number[], extra: Partial<TinyVggtSpec> = {}, editPose?: (s: number, row: number[]) => void): string {
  const key = JSON.stringify([views, extra, editPose?.toString()]);
  const hit = modelCache.get(key);
  if (hit) return hit;
  const S0 = views.length;
  const pose = new Float32Array(S0 * 9),
    depth = new Float32Array(S0 * W * H),
    conf = new Float32Array(S0 * W * H),
    wp = new Float32Array(S0 * W * H * 3);
  views.forEach((v, s) => {
    const { R, t } = vggtExtrinsic(KNOWN_POSES[v]!);
    const q = matToQuat(R);
    const k = 1.3; // unnormalised on purpose
    const row = [t[0], t[1], t[2], q.x * k, q.y * k, q.z * k, q.w * k, FOV_H, FOV_W];
    editPose?.(s, row);
    pose.set(row, s * 9);
    const d = depthOf(v);
    for (let p = 0; p < W * H; p++) {
      depth[s * W * H + p] = d[p]! / SCALE;
      // world point in VGGT's frame: Rᵀ(x − t)/s
      const xw = unproject(KNOWN_POSES[v]!, K, p % W, Math.floor(p / W), d[p]!);
      const xv = matVec(transpose(TRUE_SIM3.R), [xw[0] - TRUE_SIM3.t[0], xw[1] - TRUE_SIM3.t[1], xw[2] - TRUE_SIM3.t[2]]);
      wp.set(
        xv.map((x) => x / SCALE),
        (s * W * H + p) * 3,
      );
    }
    conf.set(confOf(v), s * W * H);
  });
  const path = writeTinyVggt({
    shape: "dynamic",
    frames: S0,
    height: H,
    width: W,
    poseEnc: pose,
    depth,
    depthConf: conf,
    worldPoints: wp,
    worldPointsConf: conf,
    ...extra,
  });
  modelCache.set(key, path);
  return path;
}

function knownBundle(views: number[], poses: Mat34[] = KNOWN_POSES): FrameBundle {
  return bundleOf(
    W,
    H,
    views.map((v, i) => ({ rgb: rgbOf(W, H, i), depth: depthOf(v), ids: idsOf(W, H), K, E: poses[i] ?? poses[v]! })),
  );
}

beforeEach(async () => {
  await resetVggtRuntime();
  delete process.env.ESI3D_VGGT_MODEL;
});
afterAll(async () => {
  await resetVggtRuntime();
});

const cpu = (modelPath: string, { log, ...o }: Partial<VggtOptions> = {}): VggtOptions => ({
  ...VggtOptionsSchema.parse({ modelPath, device: "cpu", confPercentile: 0, ...o }),
  ...(log ? { log } : {}),
});

function expectPointsMatchTruth(cloud: Awaited<ReturnType<typeof vggtPointCloud>>, bundle: FrameBundle, depthFor: (view: number) => Float32Array, tol: number) {
  for (let i = 0; i < cloud.count; i += 97) {
    const v = cloud.view[i]!,
      p = cloud.pixel[i]!;
    const want = unproject(bundle.views[v]!.E, K, p % W, Math.floor(p / W), depthFor(v)[p]!);
    for (let c = 0; c < 3; c++) expect(Math.abs(cloud.xyz[3 * i + c]! - want[c]!)).toBeLessThan(tol);
    expect(cloud.instance[i]).toBe(bundle.views[v]!.ids[p]);
    expect([cloud.rgb[3 * i], cloud.rgb[3 * i + 1], cloud.rgb[3 * i + 2]]).toEqual(Array.from(bundle.views[v]!.rgb.subarray(3 * p, 3 * p + 3)));
  }
}

describe("vggt source, crop mode (dynamic-shape model)", () => {
  it("decodes poses and intrinsics exactly and keeps VGGT's frame with align none", async () => {
    const model = knownSceneModel([0, 1, 2, 3]);
    const cloud = await vggtPointCloud(knownBundle([0, 1, 2, 3]), cpu(model, { align: "none" }));
    expect(cloud.source).toBe("vggt");
    expect(cloud.meta.provider).toBe("cpu");
    expect((cloud.meta.preprocess as { mode: string }).mode).toBe("crop");
    const cams = cloud.meta.cameras as { view: number; extrinsic: Mat34; modelIntrinsics: Intrinsics; intrinsics: Intrinsics }[];
    expect(cams.map((c) => c.view)).toEqual([0, 1, 2, 3]);
    cams.forEach((c, s) => {
      const { R, t } = vggtExtrinsic(KNOWN_POSES[s]!);
      for (let r = 0; r < 3; r++) {
        for (let k = 0; k < 3; k++) expect(c.extrinsic[r]![k]).toBeCloseTo(R[r]![k]!, 6);
        expect(c.extrinsic[r]![3]).toBeCloseTo(t[r]!, 6);
      }
      expect(c.modelIntrinsics.fx).toBeCloseTo(F, 3);
      expect(c.modelIntrinsics.fy).toBeCloseTo(F, 3);
      expect(c.modelIntrinsics.cx).toBe(259); // VGGT's W/2
      expect(c.modelIntrinsics.cy).toBe(14);
      expect(c.intrinsics.cx).toBe(259); // identity resize: same at the source
    });
    // Camera 0 of VGGT's frame is the identity.
    expect(cams[0]!.extrinsic[0]![0]).toBeCloseTo(1, 6);
    // Points are VGGT-frame unprojections: x_vggt = (x_world − t)·Rᵀ... / s
    expect(cloud.count).toBe(4 * W * H);
    for (let i = 0; i < cloud.count; i += 211) {
      const v = cloud.view[i]!,
        p = cloud.pixel[i]!;
      const xw = unproject(KNOWN_POSES[v]!, K, p % W, Math.floor(p / W), depthOf(v)[p]!);
      const xv = matVec(transpose(TRUE_SIM3.R), [xw[0] - TRUE_SIM3.t[0], xw[1] - TRUE_SIM3.t[1], xw[2] - TRUE_SIM3.t[2]]).map((x) => x / SCALE);
      for (let c = 0; c < 3; c++) expect(Math.abs(cloud.xyz[3 * i + c]! - xv[c]!)).toBeLessThan(2e-5);
    }
    const t = cloud.meta.timingsMs as Record<string, number>;
    for (const k of ["load", "preprocess", "infer", "postprocess", "total"]) expect(t[k]).toBeGreaterThanOrEqual(0);
  });

  it("Sim(3) alignment recovers the known similarity with near-zero residual; depth unprojects to the true world points", async () => {
    const bundle = knownBundle([0, 1, 2, 3]);
    const cloud = await vggtPointCloud(bundle, cpu(knownSceneModel([0, 1, 2, 3])));
    expect(cloud.meta.alignMethod).toBe("umeyama");
    expect(cloud.meta.alignScale as number).toBeCloseTo(SCALE, 5);
    expect(cloud.meta.alignRmsM as number).toBeLessThan(1e-5);
    const R = (cloud.meta.chunks as { align: { R: Mat3; t: Vec3 } }[])[0]!.align;
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 3; c++) expect(R.R[r]![c]).toBeCloseTo(TRUE_SIM3.R[r]![c]!, 5);
      expect(R.t[r]).toBeCloseTo(TRUE_SIM3.t[r]!, 5);
    }
    // Aligned predicted cameras are the known ones.
    const cams = cloud.meta.cameras as { extrinsic: Mat34 }[];
    cams.forEach((c, s) => c.extrinsic.forEach((row, r) => row.forEach((x, k) => expect(x).toBeCloseTo(KNOWN_POSES[s]![r]![k]!, 4))));
    expect(cloud.count).toBe(4 * W * H);
    expectPointsMatchTruth(cloud, bundle, depthOf, 1e-4);
    expect(cloud.categories.get(1)).toBe("chair");
    expect([cloud.imageWidth, cloud.imageHeight]).toEqual([W, H]);
  });

  it("pointmap mode uses world_points, aligned the same way", async () => {
    const bundle = knownBundle([0, 1, 2, 3]);
    const cloud = await vggtPointCloud(bundle, cpu(knownSceneModel([0, 1, 2, 3]), { points: "pointmap" }));
    expect(cloud.meta.points).toBe("pointmap");
    expect(cloud.count).toBe(4 * W * H);
    expectPointsMatchTruth(cloud, bundle, depthOf, 1e-4);
  });

  it("drops the lowest p % of confidences (numpy percentile over the chunk) and conf ≤ 1e-5", async () => {
    const model = knownSceneModel([0, 1, 2, 3]);
    const cloud = await vggtPointCloud(knownBundle([0, 1, 2, 3]), cpu(model, { confPercentile: 50 }));
    const all = new Float32Array(4 * W * H);
    for (let v = 0; v < 4; v++) all.set(confOf(v), v * W * H);
    const thr = percentileLinear(all, 50);
    expect((cloud.meta.chunks as { confThreshold: number }[])[0]!.confThreshold).toBe(thr);
    expect(cloud.count).toBe(all.filter((c) => c >= thr).length);
    for (let i = 0; i < cloud.count; i++) expect(cloud.confidence[i]!).toBeGreaterThanOrEqual(thr);
    const abs = await vggtPointCloud(knownBundle([0, 1, 2, 3]), cpu(model, { confThreshold: 8 }));
    expect(abs.count).toBe(all.filter((c) => c >= 8).length);
  });

  it("one view: the metric scale comes from the known camera height above the predicted floor, not from the bundle's depth", async () => {
    // A camera 1.4 m above the floor looking down: the lower half of the image sees the floor, the upper half
    // a box in front of it (at 60 % of the floor's distance along the same rays, so above the floor).
    const E = poseToExtrinsic({ position: [0.5, -0.3, 1.4], yaw: 0.3, pitch: -0.5 });
    const Rt = transpose(extrinsicRotation(E)),
      C = cameraCentre(E);
    const depth = new Float32Array(W * H);
    for (let p = 0; p < W * H; p++) {
      const u = p % W,
        v = Math.floor(p / W);
      const ray = matVec(Rt, [(u - K.cx) / K.fx, (v - K.cy) / K.fy, 1]); // world direction per unit z-depth
      const floor = -C[2] / ray[2]; // where the ray meets z = 0
      depth[p] = v >= H / 2 ? floor : 0.6 * floor;
    }
    expect(Math.min(...depth)).toBeGreaterThan(0);
    const model = writeTinyVggt({
      shape: "dynamic",
      frames: 1,
      height: H,
      width: W,
      worldPoints: new Float32Array(W * H * 3),
      poseEnc: [0, 0, 0, 0, 0, 0, 1, FOV_H, FOV_W], // VGGT's frame is camera 0's
      depth: depth.map((d) => d / SCALE),
    });
    // The bundle's depth is zero (no sensor): a depth oracle would have nothing to use.
    const b = bundleOf(W, H, [{ rgb: rgbOf(W, H, 0), depth: new Float32Array(W * H), ids: idsOf(W, H), K, E }]);
    const cloud = await vggtPointCloud(b, cpu(model));
    expect(cloud.meta.alignMethod).toBe("camera0+height");
    expect(cloud.meta.scaleOracle).toBe(false);
    expect(cloud.meta.alignScale as number).toBeCloseTo(SCALE, 4);
    expectPointsMatchTruth(cloud, b, () => depth, 1e-3);
    // Looking straight at the wall (no floor in view) the height cannot give a scale.
    const wall = writeTinyVggt({
      shape: "dynamic",
      frames: 1,
      height: H,
      width: W,
      worldPoints: new Float32Array(W * H * 3),
      poseEnc: [0, 0, 0, 0, 0, 0, 1, FOV_H, FOV_W],
      depth: new Float32Array(W * H).fill(3 / SCALE),
    });
    const c2 = await vggtPointCloud(
      bundleOf(W, H, [
        { rgb: rgbOf(W, H, 0), depth: new Float32Array(W * H), ids: idsOf(W, H), K, E: poseToExtrinsic({ position: [0, 0, 1.4], yaw: 0, pitch: 0 }) },
      ]),
      cpu(wall),
    );
    expect(c2.meta.alignMethod).toBe("camera0-unscaled");
  });

  it("drops a view with a degenerate camera (FoV 0) with a warning, and keeps the others", async () => {
    // View 2's predicted horizontal FoV is exactly 0, as VGGT's ReLU allows (seen when running VGGT's own code with random weights).
    const model = knownSceneModel([0, 1, 2, 3], {}, (s, row) => (s === 2 ? (row[8] = 0) : undefined));
    const logs: string[] = [];
    const cloud = await vggtPointCloud(knownBundle([0, 1, 2, 3]), cpu(model, { log: (m) => logs.push(m) }));
    expect(cloud.meta.droppedViews).toEqual([{ view: 2, reason: "pose_enc[2][8] (field of view) is 0 rad, outside (0, π)" }]);
    expect((cloud.meta.warnings as string[]).some((w) => /view 2 dropped/.test(w))).toBe(true);
    expect(logs.some((l) => /warning: view 2 dropped/.test(l))).toBe(true);
    expect(new Set(cloud.view)).toEqual(new Set([0, 1, 3]));
    expect(cloud.count).toBe(3 * W * H);
    expect((cloud.meta.cameras as { view: number }[]).map((c) => c.view)).toEqual([0, 1, 3]);
    expect(cloud.meta.alignMethod).toBe("umeyama"); // three known cameras remain
    expectPointsMatchTruth(cloud, knownBundle([0, 1, 2, 3]), depthOf, 1e-4);
  });

  it("is an error only when every view is degenerate", async () => {
    const model = knownSceneModel([0, 1], {}, (_, row) => (row[7] = Number.NaN));
    await expect(vggtPointCloud(knownBundle([0, 1]), cpu(model))).rejects.toThrow(
      /no usable camera for any of the 2 view\(s\): view 0: pose_enc\[0\]\[7\] is not finite; view 1/,
    );
  });
});

describe("vggt source on a bundle read from disk", () => {
  it("writeBundle -> readBundle -> vggtPointCloud recovers the true world points", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "esi3d-vggt-bundle-")), "bundle");
    writeTestBundle(
      dir,
      W,
      H,
      [0, 1, 2, 3].map((v) => ({ pixels: rgbOf(W, H, v), depth: depthOf(v), ids: idsOf(W, H), K, E: KNOWN_POSES[v]! })),
    );
    const bundle = readBundle(dir);
    const cloud = await vggtPointCloud(bundle, cpu(knownSceneModel([0, 1, 2, 3])));
    expect(cloud.count).toBe(4 * W * H);
    expect(cloud.meta.alignMethod).toBe("umeyama");
    expectPointsMatchTruth(cloud, bundle, depthOf, 1e-4);
  });
});

describe("an RGBA view (transparency composited onto white, as VGGT's loader does)", () => {
  it("readBundle keeps the alpha and the model sees white where the view is transparent", async () => {
    const Wa = 518,
      Ha = 14;
    const Ka: Intrinsics = { fx: 300, fy: 300, cx: Wa / 2, cy: Ha / 2 };
    // Black pixels, left half fully transparent, right half opaque.
    const rgba = new Uint8Array(Wa * Ha * 4);
    for (let p = 0; p < Wa * Ha; p++) rgba[4 * p + 3] = p % Wa < Wa / 2 ? 0 : 255;
    const dir = join(mkdtempSync(join(tmpdir(), "esi3d-vggt-rgba-")), "bundle");
    writeTestBundle(dir, Wa, Ha, [
      {
        pixels: rgba,
        depth: new Float32Array(Wa * Ha).fill(2),
        ids: new Uint16Array(Wa * Ha),
        K: Ka,
        E: poseToExtrinsic({ position: [0, 0, 1.5], yaw: 0, pitch: 0 }),
      },
    ]);
    const b = readBundle(dir);
    expect(b.views[0]!.alpha).toBeDefined();
    // The default tiny model: depth = channel mean + 1, identity camera: a point's z is its pixel's model depth.
    const cloud = await vggtPointCloud(b, cpu(writeTinyVggt({ shape: "dynamic" }), { align: "none" }));
    for (let i = 0; i < cloud.count; i += 37) expect(cloud.xyz[3 * i + 2]).toBeCloseTo(cloud.pixel[i]! % Wa < Wa / 2 ? 2 : 1, 5);
    // Point colours stay the bundle's RGB.
    expect(cloud.rgb[0]).toBe(0);
  });
});

describe("vggt source, pad mode (fixed 518x518 model like the public export)", () => {
  const SW = 56,
    SH = 28; // -> 518 x 252, 133 rows of padding above and below
  const flat = (W2: number, H2: number, value: number) => new Uint8Array(W2 * H2 * 3).fill(value);
  const bundle = () =>
    bundleOf(
      SW,
      SH,
      [0, 1].map((i) => ({
        rgb: flat(SW, SH, 51), // 0.2 after /255: fake depth = 0.2 + 1 = 1.2
        depth: new Float32Array(SW * SH).fill(3.6), // 3 x the predicted depth
        ids: idsOf(SW, SH),
        K: { fx: 60, fy: 60, cx: 27.5, cy: 13.5 },
        E: poseToExtrinsic({ position: [i * 0.01, 0, 1.5], yaw: 0, pitch: 0 }), // turning in place: no baseline
      })),
    );

  for (const float16 of [false, true]) {
    it(`maps points back through the padding (${float16 ? "float16" : "float32"} outputs), scale from depth for an agent turning in place`, async () => {
      const model = writeTinyVggt({ shape: "fixed518", includeImages: true, float16 });
      const cloud = await vggtPointCloud(bundle(), cpu(model));
      expect((cloud.meta.preprocess as { mode: string }).mode).toBe("pad");
      expect(cloud.meta.outputType).toBe(float16 ? "float16" : "float32");
      // Padding never becomes points: every model pixel inside the image does.
      expect(cloud.count).toBe(2 * 518 * 252);
      const plan = planPreprocess(SW, SH, "pad");
      const map = modelToSourcePixel(plan);
      expect(cloud.pixel.reduce((a, b) => Math.max(a, b), 0)).toBeLessThan(SW * SH);
      // Identity pose, f = 518 (FOV 2·atan(0.5)); no baseline, and the flat image is a wall, not a floor, so the
      // scale falls back to the bundle's depth (3 × the predicted 1.2) and the cloud says it is a scale oracle.
      expect(cloud.meta.alignMethod).toBe("camera0+depth");
      expect(cloud.meta.scaleOracle).toBe(true);
      expect((cloud.meta.warnings as string[]).some((w) => /scale oracle/.test(w))).toBe(true);
      expect(cloud.meta.alignScale as number).toBeCloseTo(3, float16 ? 2 : 5);
      // Model pixel (x, 133 + y) of view 0 -> camera ray through ((x − 259)/518, (133 + y − 259)/518) at depth 3.6.
      const x = 300,
        y = 100,
        m = (133 + y) * 518 + x;
      const i = y * 518 + x; // points follow view, then model pixel order; padding rows are skipped
      expect(cloud.view[i]).toBe(0);
      expect(cloud.pixel[i]).toBe(map[m]);
      const want = unproject(bundle().views[0]!.E, { fx: 518, fy: 518, cx: 259, cy: 259 }, x, 133 + y, 3.6);
      for (let c = 0; c < 3; c++) expect(cloud.xyz[3 * i + c]!).toBeCloseTo(want[c]!, float16 ? 2 : 4);
      expect(cloud.instance[i]).toBe(bundle().views[0]!.ids[map[m]!]);
    });
  }

  it("uses FOV_F_EQUALS_SIZE as documented", () => {
    expect(518 / 2 / Math.tan(FOV_F_EQUALS_SIZE / 2)).toBeCloseTo(518, 10);
  });
});

describe("runtime and errors", () => {
  it("a CUDA request falls back to CPU and says so once", async () => {
    const model = writeTinyVggt({ shape: "dynamic" });
    const logs: string[] = [];
    const b = knownBundle([0]);
    const c1 = await vggtPointCloud(b, cpu(model, { device: "cuda", log: (m) => logs.push(m) }));
    expect(c1.meta.provider).toBe("cpu");
    const c2 = await vggtPointCloud(b, cpu(model, { device: "cuda", log: (m) => logs.push(m) }));
    expect(c2.meta.sessionReused).toBe(true);
    const cudaLines = logs.filter((l) => /CUDA/.test(l));
    expect(cudaLines).toHaveLength(1);
    expect(cudaLines[0]).toMatch(/falling back to CPU/);
  });

  it("a missing model names what is expected and where to get it", async () => {
    const err = (() => {
      try {
        resolveVggtModel({ env: {} });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(VggtModelError);
    expect(err).toBeInstanceOf(InputError);
    expect(err!.name).toBe("VggtModelError");
    expect(err!.message).toMatch(/ESI3D_VGGT_MODEL/);
    expect(err!.message).toMatch(/models\/README\.md/);
    expect(err!.message).toMatch(/vggt\.onnx_data/);
    await expect(vggtPointCloud(knownBundle([0]), VggtOptionsSchema.parse({ modelPath: "/nonexistent/vggt.onnx" }))).rejects.toThrow(
      /VGGT model not found: \/nonexistent\/vggt\.onnx .*models\/README\.md/,
    );
    const dir = mkdtempSync(join(tmpdir(), "esi3d-vggt-empty-"));
    expect(() => resolveVggtModel({ modelPath: dir })).toThrow(/holds none of vggt\.onnx/);
  });

  it("finds the model through ESI3D_VGGT_MODEL or a directory, and checks external weights", () => {
    const model = writeTinyVggt({ shape: "dynamic" }, "vggt.onnx");
    expect(resolveVggtModel({ env: { ESI3D_VGGT_MODEL: model } })).toBe(model);
    expect(resolveVggtModel({ modelPath: join(model, "..") })).toBe(model);
    // A graph whose tensors live in an external file.
    const ext = writeTinyVggt({ shape: "dynamic", externalData: { location: "vggt.onnx_data" } }, "vggt.onnx");
    // the graph reads its tensors from the one external-data file
    expect(new Set(readOnnxGraph(ext).external.map((e) => e.location))).toEqual(new Set(["vggt.onnx_data"]));
    expect(resolveVggtModel({ modelPath: ext })).toBe(ext);
    rmSync(join(ext, "..", "vggt.onnx_data"));
    expect(() => resolveVggtModel({ modelPath: ext })).toThrow(/keeps its weights in vggt\.onnx_data, which is missing/);
  });

  it("counts only the bytes the graph reads from its data file (a re-save's dead bytes are not weights)", () => {
    const clean = writeTinyVggt({ shape: "dynamic", externalData: { location: "vggt.onnx_data" } }, "vggt.onnx");
    const dead = writeTinyVggt({ shape: "dynamic", externalData: { location: "vggt.onnx_data", deadBytes: 1 << 20 } }, "vggt.onnx");
    const size = (p: string) => statSync(p).size;
    expect(size(join(dead, "..", "vggt.onnx_data"))).toBe(size(join(clean, "..", "vggt.onnx_data")) + (1 << 20));
    expect(modelBytesOnDisk(dead)).toBe(modelBytesOnDisk(clean) - size(clean) + size(dead));
    expect(modelBytesOnDisk(clean)).toBe(size(clean) + size(join(clean, "..", "vggt.onnx_data")));
  });

  it("a model with wrong I/O names is rejected, naming expected and found", async () => {
    const b = knownBundle([0]);
    const wrongIn = writeTinyVggt({ shape: "dynamic", inputName: "images" });
    await expect(vggtPointCloud(b, cpu(wrongIn))).rejects.toThrow(/no input named "input_images".*found inputs "images"/);
    await expect(vggtPointCloud(b, cpu(wrongIn))).rejects.toBeInstanceOf(VggtModelError);
    const wrongOut = writeTinyVggt({ shape: "dynamic", outputNames: { depth: "depth_map" } });
    await expect(vggtPointCloud(b, cpu(wrongOut))).rejects.toThrow(/missing output\(s\) "depth".*"depth_map"/);
    const notOnnx = join(mkdtempSync(join(tmpdir(), "esi3d-vggt-bad-")), "vggt.onnx");
    writeFileSync(notOnnx, "not a model");
    await expect(vggtPointCloud(b, cpu(notOnnx))).rejects.toThrow(/is not a complete ONNX file/);
  });

  it("a truncated graph, a truncated data file or a wrong-shape model is refused before any session, naming file and contract", () => {
    const expectRefused = (path: string, why: RegExp) => {
      const err = (() => {
        try {
          resolveVggtModel({ modelPath: path });
        } catch (e) {
          return e as Error;
        }
      })();
      expect(err).toBeInstanceOf(VggtModelError);
      expect(err!.message).toMatch(why);
      expect(err!.message).toContain(path);
      // VGGT's inputs and outputs, in words
      expect(err!.message).toContain('input "input_images" float32 [S,3,H,W]');
      expect(err!.message).toContain('"world_points_conf" [1,S,H,W] (float32 or float16), optionally "images" [1,S,3,H,W]');
    };
    const good = writeTinyVggt({ shape: "dynamic", externalData: { location: "vggt.onnx_data" } }, "vggt.onnx");
    const bytes = readFileSync(good);
    const cut = join(mkdtempSync(join(tmpdir(), "esi3d-vggt-cut-")), "vggt.onnx");
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    expectRefused(cut, /not a complete ONNX file: .*truncated/);
    const data = join(good, "..", "vggt.onnx_data");
    writeFileSync(data, readFileSync(data).subarray(0, 100));
    expectRefused(good, /weights file .*vggt\.onnx_data has 100 bytes, but the graph reads up to byte \d+ \(truncated/);
    expectRefused(writeTinyVggt({ shape: "dynamic", declaredDims: { pose_enc: [1, "S", 7] } }), /output "pose_enc" ends in 7, expected 9/);
    expectRefused(writeTinyVggt({ shape: "dynamic", declaredDims: { input_images: ["S", 4, "H", "W"] } }), /"input_images" has 4 channels, not 3/);
  });

  it("bad options are the schema's to refuse, where they come in (no second check in the library)", () => {
    expect(VggtOptionsSchema.safeParse({ modelPath: "/x", confPercentile: 150 }).success).toBe(false);
  });
});
