/**
 * Chunk seams: a 60-view bundle run through the `vggt` source in overlapping windows, with a tiny ONNX model
 * (test/helpers/tinyVggtOnnx.ts) that behaves like VGGT where it matters here: every run has its own
 * scale, set by its first frame. Each view's image encodes its pose and depth, so the truth is known; the
 * windows must be chained by the Sim(3)s fitted to their shared views for the cloud to be one reconstruction.
 * The chain itself is also checked with rotations and translations on synthetic windows.
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { FrameBundle, ViewData } from "../../core/bundle/io.js";
import type { BundleManifest } from "../../core/bundle/schema.js";
import type { Mat34, Vec3 } from "../../core/math/vec.js";
import { matVec, transpose } from "../../core/math/vec.js";
import { extrinsicRotation, extrinsicTranslation, type Intrinsics } from "../../core/math/camera.js";
import { quatToMat } from "../../core/math/quat.js";
import { applySim3, type Sim3 } from "../../reconstruct/align.js";
import { vggtPointCloud } from "../../reconstruct/vggt/index.js";
import { resetVggtRuntime } from "../../reconstruct/vggt/model.js";
import { chainWindows } from "../../reconstruct/vggt/chunks.js";
import type { DecodedChunk } from "../../reconstruct/vggt/postprocess.js";
import { writeTinyVggt } from "../helpers/tinyVggtOnnx.js";
import { VggtOptionsSchema } from "../../reconstruct/options.js";

const W = 518,
  H = 14,
  P = W * H; // crop mode keeps 518 x 14 unchanged: model pixel = source pixel
const VIEWS = 60,
  WINDOW = 12;
const F = 300;
const K: Intrinsics = { fx: F, fy: F, cx: W / 2, cy: H / 2 };
const FOV_W = 2 * Math.atan(W / 2 / F),
  FOV_H = 2 * Math.atan(H / 2 / F);
// Codes (0..255, channel value) → values, the same affine maps the model applies to image/255.
const POSE_A = [8, 8, 8, 2, 2, 2, 2, 0, 0],
  POSE_B = [-4, -4, -4, -1, -1, -1, -1, FOV_H, FOV_W];
const SCALE_PIXEL = 9,
  SCALE_A = 2,
  SCALE_B = 0.5;
const DEPTH_A = 4,
  DEPTH_B = 1;
const decode = (code: number, a: number, b: number) => a * (code / 255) + b;
const encode = (value: number, a: number, b: number) => Math.max(0, Math.min(255, Math.round(((value - b) / a) * 255)));

interface ViewTruth {
  codes: number[]; // the 9 pose codes
  E: Mat34; // camera-from-world from the decoded codes, as VGGT's decoding reads them
  runScale: number; // the scale a window starting at this view gets
  rgb: Uint8Array;
  depth: Float32Array;
}

function viewTruth(v: number): ViewTruth {
  const yaw = (2 * Math.PI * v) / VIEWS;
  const qWanted = [0.3 * Math.sin(v / 7), 0.2, Math.sin(yaw / 2), Math.cos(yaw / 2)];
  const qCodes = qWanted.map((x) => encode(x, 2, -1));
  const q = qCodes.map((c) => decode(c, 2, -1));
  const R = quatToMat({ x: q[0]!, y: q[1]!, z: q[2]!, w: q[3]! });
  const C: Vec3 = [2 * Math.cos(yaw), 2 * Math.sin(yaw), 1.5 + 0.3 * Math.sin(v / 5)];
  const tWanted = matVec(R, C).map((x) => -x);
  const tCodes = tWanted.map((x) => encode(x, 8, -4));
  const t = tCodes.map((c) => decode(c, 8, -4));
  const codes = [...tCodes, ...qCodes, 0, 0];
  const E: Mat34 = [
    [...R[0], t[0]!],
    [...R[1], t[1]!],
    [...R[2], t[2]!],
  ] as Mat34;
  const scaleCode = (v * 37 + 11) % 256;
  const rgb = new Uint8Array(P * 3),
    depth = new Float32Array(P);
  for (let p = 0; p < P; p++) {
    const x = p % W,
      y = Math.floor(p / W);
    let c = (x * 7 + y * 13 + v * 5) % 256;
    if (y === 0 && x < 9) c = codes[x]!;
    if (y === 0 && x === SCALE_PIXEL) c = scaleCode;
    rgb.fill(c, 3 * p, 3 * p + 3); // grey: the channel mean is the code
    depth[p] = decode(c, DEPTH_A, DEPTH_B);
  }
  return { codes, E, runScale: decode(scaleCode, SCALE_A, SCALE_B), rgb, depth };
}

const truth = Array.from({ length: VIEWS }, (_, v) => viewTruth(v));

function bundle(): FrameBundle {
  const manifest = { image: { width: W, height: H }, instances: [] } as unknown as BundleManifest;
  const views: ViewData[] = truth.map((t, index) => ({
    index,
    width: W,
    height: H,
    action: null,
    rgb: t.rgb,
    depth: t.depth,
    ids: new Uint16Array(P),
    K,
    E: t.E,
  }));
  return { dir: "(memory)", manifest, views };
}

/** World point of view v's pixel p: the pixel's depth along its ray, with the view's known camera. */
function worldPoint(v: number, p: number): Vec3 {
  const { E, depth } = truth[v]!;
  const d = depth[p]!,
    x = p % W,
    y = Math.floor(p / W);
  const cam: Vec3 = [((x - K.cx) / K.fx) * d, ((y - K.cy) / K.fy) * d, d];
  const t = extrinsicTranslation(E);
  return matVec(transpose(extrinsicRotation(E)), [cam[0] - t[0], cam[1] - t[1], cam[2] - t[2]]);
}

const model = () =>
  writeTinyVggt({
    shape: "dynamic",
    poseFromImage: { a: POSE_A, b: POSE_B },
    runScale: { pixel: SCALE_PIXEL, a: SCALE_A, b: SCALE_B },
    depth: { a: DEPTH_A, b: DEPTH_B },
  });

beforeEach(async () => resetVggtRuntime());
afterAll(async () => resetVggtRuntime());

type Chunk = {
  views: number[];
  ownViews: number[];
  segment: number;
  seam: { views: number[]; points: number; scale: number; rmsRel: number; rms: number; rmsM: number | null; cameraRms: number } | null;
};

describe("chunk seams on a 60-view bundle (tiny model, every run at its own scale)", () => {
  const path = model();

  it("chains 6 overlapping windows by their shared views: each seam recovers the scale ratio, with near-zero residual", async () => {
    const logs: string[] = [];
    const cloud = await vggtPointCloud(bundle(), {
      ...VggtOptionsSchema.parse({ modelPath: path, device: "cpu", confPercentile: 0, maxFramesPerChunk: WINDOW }),
      log: (m) => logs.push(m),
    });
    const chunks = cloud.meta.chunks as Chunk[];
    expect(chunks.length).toBe(6);
    expect((cloud.meta.chunking as { overlap: number }).overlap).toBe(2);
    expect(logs.some((l) => /60 views in 6 overlapping windows of ≤ 12 \(2 shared/.test(l))).toBe(true);
    const runScale = (c: Chunk) => truth[c.views[0]!]!.runScale;
    console.log(
      "seams (window j -> j-1): " +
        chunks
          .slice(1)
          .map(
            (c, j) =>
              `${j + 1}: views ${c.seam!.views.join(",")}, ${c.seam!.points} px, scale ${c.seam!.scale.toFixed(6)} (true ${(runScale(chunks[j]!) / runScale(c)).toFixed(6)}), rmsRel ${c.seam!.rmsRel.toExponential(2)}, rms ${c.seam!.rmsM!.toExponential(2)} m`,
          )
          .join("; "),
    );
    chunks.forEach((c, j) => {
      expect(c.segment).toBe(0);
      if (j === 0) return expect(c.seam).toBeNull();
      const s = c.seam!;
      expect(s.views).toEqual(chunks[j - 1]!.views.slice(-2));
      expect(s.points).toBe(2 * P); // every shared pixel was kept in both windows
      expect(Math.abs(s.scale / (runScale(chunks[j - 1]!) / runScale(c)) - 1)).toBeLessThan(1e-5);
      expect(s.rmsRel).toBeLessThan(1e-5);
      expect(s.rmsM!).toBeLessThan(1e-4); // metres, after the alignment
      expect(s.cameraRms).toBeLessThan(1e-4);
    });
    // Each view once, from its first window.
    expect(cloud.count).toBe(VIEWS * P);
    const perView = new Array(VIEWS).fill(0);
    for (let i = 0; i < cloud.count; i++) perView[cloud.view[i]!]++;
    expect(perView.every((n) => n === P)).toBe(true);
    expect(chunks.flatMap((c) => c.ownViews)).toEqual(Array.from({ length: VIEWS }, (_, v) => v));
    // One Sim(3) to the known cameras for the whole chain: window 0's scale undone, points are the world's.
    expect(cloud.meta.alignMethod).toBe("umeyama");
    expect(cloud.meta.alignScale as number).toBeCloseTo(1 / runScale(chunks[0]!), 5);
    expect(cloud.meta.alignRmsM as number).toBeLessThan(1e-4);
    let worst = 0;
    for (let i = 0; i < cloud.count; i += 13) {
      const want = worldPoint(cloud.view[i]!, cloud.pixel[i]!);
      for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(cloud.xyz[3 * i + c]! - want[c]!));
    }
    expect(worst).toBeLessThan(1e-4);
  });

  it("with align none every window lands in window 0's frame (without the chain the last window would be at its own scale)", async () => {
    const cloud = await vggtPointCloud(
      bundle(),
      VggtOptionsSchema.parse({ modelPath: path, device: "cpu", confPercentile: 0, maxFramesPerChunk: WINDOW, align: "none" }),
    );
    const chunks = cloud.meta.chunks as Chunk[];
    const m0 = truth[chunks[0]!.views[0]!]!.runScale,
      mLast = truth[chunks.at(-1)!.views[0]!]!.runScale;
    expect(Math.abs(mLast / m0 - 1)).toBeGreaterThan(0.05); // the windows' scales really differ
    let worst = 0;
    for (let i = 0; i < cloud.count; i += 13) {
      const want = worldPoint(cloud.view[i]!, cloud.pixel[i]!).map((x) => x * m0);
      for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(cloud.xyz[3 * i + c]! - want[c]!));
    }
    expect(worst).toBeLessThan(2e-4);
    expect(cloud.meta.cameraFrame).toMatch(/^VGGT/);
  });
});

// ---------------------------------------------------------------- the chain on synthetic windows

/** A decoded window whose points are the given world points mapped into its own frame by `toWindow`. */
function syntheticWindow(views: number[], pointsOf: (v: number) => Vec3[], toWindow: Sim3): DecodedChunk {
  const per = views.map((v) => pointsOf(v));
  const count = per.reduce((a, p) => a + p.length, 0);
  const xyz = new Float32Array(count * 3),
    frame = new Uint16Array(count),
    modelPixel = new Uint32Array(count),
    view = new Uint16Array(count);
  let k = 0;
  per.forEach((ps, s) =>
    ps.forEach((p, m) => {
      xyz.set(applySim3(toWindow, p), 3 * k);
      frame[k] = s;
      modelPixel[k] = m;
      view[k] = views[s]!;
      k++;
    }),
  );
  const E: Mat34 = [
    [1, 0, 0, 0],
    [0, 1, 0, 0],
    [0, 0, 1, 0],
  ];
  return {
    views,
    cams: views.map(() => ({ E, K })),
    dropped: [],
    confThreshold: 0,
    pixels: count,
    count,
    xyz,
    depth: new Float32Array(count).fill(1),
    frame,
    modelPixel,
    rgb: new Uint8Array(count * 3),
    confidence: new Float32Array(count).fill(1),
    view,
    pixel: modelPixel,
    instance: new Uint16Array(count),
  };
}

describe("chainWindows", () => {
  const pts = (v: number): Vec3[] => Array.from({ length: 400 }, (_, i) => [Math.sin(i + v), Math.cos(3 * i - v), 0.01 * i + v] as Vec3);
  const rot = (a: number): Sim3["R"] => [
    [Math.cos(a), -Math.sin(a), 0],
    [Math.sin(a), Math.cos(a), 0],
    [0, 0, 1],
  ];
  const T1: Sim3 = { R: rot(0.4), s: 0.7, t: [1, -2, 0.5] },
    T2: Sim3 = { R: rot(-1.1), s: 1.9, t: [-3, 0.2, 4] };

  it("recovers rotation, translation and scale between windows and composes them into window 0's frame", () => {
    const w0 = syntheticWindow([0, 1, 2], pts, { R: rot(0), s: 1, t: [0, 0, 0] });
    const w1 = syntheticWindow([1, 2, 3], pts, T1);
    const w2 = syntheticWindow([2, 3, 4], pts, T2);
    const chain = chainWindows([w0, w1, w2]);
    expect(chain.map((c) => c.segment)).toEqual([0, 0, 0]);
    expect(chain[1]!.seam!.views).toEqual([1, 2]);
    expect(chain[1]!.seam!.rmsRel).toBeLessThan(1e-6);
    // Window 2's points mapped by its chained transform are the world points (window 0's frame is the world here).
    // View 4 is window 2's frame 2: its points are 800..1199.
    for (const i of [0, 123, 399]) {
      const k = 800 + i;
      const got = applySim3(chain[2]!.toSegment, [w2.xyz[3 * k]!, w2.xyz[3 * k + 1]!, w2.xyz[3 * k + 2]!]);
      for (let c = 0; c < 3; c++) expect(got[c]).toBeCloseTo(pts(4)[i]![c]!, 4);
    }
    expect(chain[2]!.toSegment.s).toBeCloseTo(1 / T2.s, 5);
  });

  it("breaks the chain into a new segment when two windows share no decoded view", () => {
    const w0 = syntheticWindow([0, 1], pts, { R: rot(0), s: 1, t: [0, 0, 0] });
    const w1 = syntheticWindow([1, 2], pts, T1);
    w1.cams[0] = null; // view 1 was dropped in window 1
    const chain = chainWindows([w0, w1]);
    expect(chain[1]!.segment).toBe(1);
    expect(chain[1]!.broken).toMatch(/share no decoded view/);
    expect(chain[1]!.seam).toBeNull();
  });

  it("the seam reports disagreement when the shared view's points do not match", () => {
    const w0 = syntheticWindow([0, 1], pts, { R: rot(0), s: 1, t: [0, 0, 0] });
    const w1 = syntheticWindow([1, 2], (v) => pts(v).map((p, i) => [p[0] + 0.05 * Math.sin(7 * i), p[1], p[2]] as Vec3), T1);
    const [, second] = chainWindows([w0, w1]);
    expect(second!.broken).toBeUndefined();
    expect(second!.seam!.rmsRel).toBeGreaterThan(1e-2);
  });
});
