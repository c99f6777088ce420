import { describe, expect, it } from "vitest";
import { decodePoseEncoding } from "../../reconstruct/vggt/pose.js";
import { halfToFloat, intrinsicsAtSource } from "../../reconstruct/vggt/postprocess.js";
import { planPreprocess } from "../../reconstruct/vggt/preprocess.js";
import { planChunks } from "../../reconstruct/vggt/memory.js";
import { quatToMat } from "../../core/math/quat.js";

describe("half -> float", () => {
  it("decodes normal, subnormal, signed and special values", () => {
    const h = Uint16Array.from([0x3c00, 0xc000, 0x3555, 0x0001, 0x7bff, 0x7c00, 0xfc00, 0x0000, 0x8000, 0x7e00]);
    const f = halfToFloat(h);
    expect(Array.from(f.slice(0, 9))).toEqual([1, -2, Math.fround(0.333251953125), 2 ** -24, 65504, Infinity, -Infinity, 0, -0]);
    expect(f[9]).toBeNaN();
  });
});

describe("pose_enc decoding", () => {
  it("decodes translation, an unnormalised scalar-last quaternion and FoVs to K at the model size", () => {
    const q = { x: 0.1, y: -0.2, z: 0.3, w: 0.9 };
    const k = 1.7; // not normalised: VGGT's quat_to_mat uses s = 2/|q|²
    const fovH = 0.9,
      fovW = 1.1,
      H = 392,
      W = 518;
    const enc = [0.5, -1, 2, q.x * k, q.y * k, q.z * k, q.w * k, fovH, fovW];
    const d = decodePoseEncoding(enc, 0, H, W);
    const R = quatToMat(q);
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 3; c++) expect(d.E[r]![c]).toBeCloseTo(R[r]![c]!, 14);
      expect(d.E[r]![3]).toBe(enc[r]);
    }
    expect(d.K.fy).toBeCloseTo(196 / Math.tan(0.45), 12);
    expect(d.K.fx).toBeCloseTo(259 / Math.tan(0.55), 12);
    expect(d.K.cx).toBe(259); // W/2, as VGGT writes it (models/README.md, "Principal point")
    expect(d.K.cy).toBe(196);
  });
  it("model intrinsics carry to the source resolution through crop and pad", () => {
    const pad = planPreprocess(1920, 1080, "pad"); // 518x294 + 112 rows above
    const K = { fx: 400, fy: 400, cx: 258.5, cy: 258.5 };
    const s = intrinsicsAtSource(K, pad);
    expect(s.fx).toBeCloseTo(400 * (1920 / 518), 10);
    expect(s.cx).toBeCloseTo(959.5, 10); // centred stays centred: (1920-1)/2
    expect(s.cy).toBeCloseTo(539.5, 10);
    const crop = planPreprocess(1080, 1920, "crop"); // 518x924 cropped at row 203
    const c = intrinsicsAtSource({ fx: 300, fy: 300, cx: 258.5, cy: 258.5 }, crop);
    expect(c.cy).toBeCloseTo(959.5, 10);
    expect(c.fy).toBeCloseTo(300 * (1920 / 924), 10);
  });
});

describe("memory estimate and chunk planning", () => {
  it("matches the hand estimate: ≈ 7.2 GiB per attention matrix at S = 8, 518×518", () => {
    const estimate = (views: number, H: number, W: number) =>
      planChunks({ views, H, W, weightsBytes: 0, elementBytes: 4, availableBytes: null, fixedFrames: null }).estimateBytes;
    // 37 x 37 patches of 14 px and 5 special tokens a frame: 1374 tokens; 16 heads of float32 scores
    const one = 16 * (8 * 1374) ** 2 * 4;
    expect(one / 2 ** 30).toBeCloseTo(7.2, 1);
    // two live copies of the attention matrix, 4 kept layers of 2048-wide tokens, 512 B of DPT activations and 9 output floats a pixel
    expect(estimate(8, 518, 518)).toBe(2 * one + 8 * 1374 * 2048 * 4 * 4 + 8 * 518 * 518 * (512 + 9 * 4));
    // 392 x 518: 28 x 37 patches + 5 = 1041 tokens a frame
    expect(estimate(1, 392, 518)).toBe(2 * 16 * 1041 ** 2 * 4 + 1041 * 2048 * 4 * 4 + 392 * 518 * (512 + 9 * 4));
  });
  it("splits views into overlapping windows of near-equal size that fit the budget", () => {
    const weights = 5e9;
    const p = planChunks({ views: 30, H: 518, W: 518, weightsBytes: weights, elementBytes: 4, availableBytes: 24 * 2 ** 30, fixedFrames: null });
    expect(p.limitedBy).toBe("memory");
    expect(p.framesPerChunk).toBeGreaterThanOrEqual(4);
    expect(p.framesPerChunk).toBeLessThanOrEqual(8);
    expect(p.overlap).toBe(2); // two views shared by consecutive windows
    expect([...new Set(p.chunks.flat())]).toEqual(Array.from({ length: 30 }, (_, i) => i));
    // Consecutive windows share exactly the overlap, as a run of views; every window fits.
    for (let c = 1; c < p.chunks.length; c++) expect(p.chunks[c]!.slice(0, p.overlap)).toEqual(p.chunks[c - 1]!.slice(-p.overlap));
    const sizes = p.chunks.map((c) => c.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(p.framesPerChunk);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    expect(p.estimateBytes).toBeLessThanOrEqual(p.budgetBytes!); // the largest window's
  });
  it("option, unknown memory, fixed-frame models and one-view windows", () => {
    const plan = (views: number, o: { max?: number; fixed?: number } = {}) =>
      planChunks({ views, H: 28, W: 518, weightsBytes: 0, elementBytes: 4, availableBytes: null, fixedFrames: o.fixed ?? null, maxFramesPerChunk: o.max });
    expect(plan(7).chunks).toEqual([[0, 1, 2, 3, 4, 5, 6]]);
    expect(plan(7).overlap).toBe(0);
    expect(plan(7, { max: 3 }).chunks).toEqual([
      [0, 1, 2],
      [1, 2, 3],
      [2, 3, 4],
      [3, 4, 5],
      [4, 5, 6],
    ]);
    // 7 new views over ceil(7 / 3) = 3 windows: window c = [floor(7c/3), floor(7(c+1)/3) + 2)
    expect(plan(9, { max: 5 }).chunks).toEqual([
      [0, 1, 2, 3],
      [2, 3, 4, 5],
      [4, 5, 6, 7, 8],
    ]);
    const f = plan(5, { fixed: 2 });
    expect(f.chunks).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
    ]); // a 2-frame model: one shared view
    expect(f.overlap).toBe(1);
    expect(f.limitedBy).toBe("model");
    const single = plan(3, { max: 1 });
    expect(single.chunks).toEqual([[0], [1], [2]]); // nothing to share: independent windows
    expect(single.overlap).toBe(0);
  });
});
