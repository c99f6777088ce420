/**
 * VGGT pre- and post-processing cost for a 30-view 518×392 bundle (design.md's planning size), without the
 * model: preprocessing of the views, and post-processing of synthetic model outputs of the right shapes
 * (decode cameras, percentile filter, Sim(3) alignment, unprojection, labels).
 */
import type { BenchContext } from "./context.js";
import type { ViewData } from "../core/bundle/io.js";
import type { Mat34 } from "../core/math/vec.js";
import { poseToExtrinsic } from "../core/math/camera.js";
import { matToQuat } from "../core/math/quat.js";
import { extrinsicRotation } from "../core/math/camera.js";
import { modelToSourcePixel, planPreprocess, preprocessViews, type PreprocessMode } from "../reconstruct/vggt/preprocess.js";
import { decodeChunk, halfToFloat, type PointsFrom, type VggtChunkOutputs } from "../reconstruct/vggt/postprocess.js";
import { assembleCloud } from "../reconstruct/vggt/assemble.js";

const VIEWS = 30,
  W = 518,
  H = 392;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function syntheticViews(w: number, h: number): ViewData[] {
  const r = rng(7);
  return Array.from({ length: VIEWS }, (_, index) => {
    const E: Mat34 = poseToExtrinsic({ position: [Math.cos(index / 5) * 2, Math.sin(index / 5) * 2, 1.5], yaw: index / 5 + Math.PI, pitch: -0.2 });
    return {
      index,
      width: w,
      height: h,
      action: null,
      E,
      K: { fx: 300, fy: 300, cx: (w - 1) / 2, cy: (h - 1) / 2 },
      rgb: Uint8Array.from({ length: w * h * 3 }, () => (r() * 256) | 0),
      depth: Float32Array.from({ length: w * h }, () => 1 + 3 * r()),
      ids: Uint16Array.from({ length: w * h }, () => (r() * 20) | 0),
    };
  });
}

/** Model outputs consistent with the views' cameras, in a frame at scale 1/2 (as VGGT would predict). */
function syntheticOutputs(views: ViewData[], mW: number, mH: number): VggtChunkOutputs {
  const r = rng(11);
  const S = views.length,
    P = mW * mH;
  const poseEnc = new Float32Array(S * 9);
  views.forEach((v, s) => {
    const q = matToQuat(extrinsicRotation(v.E));
    poseEnc.set([v.E[0][3] / 2, v.E[1][3] / 2, v.E[2][3] / 2, q.x, q.y, q.z, q.w, 2 * Math.atan(mH / 2 / 300), 2 * Math.atan(mW / 2 / 300)], s * 9);
  });
  return {
    S,
    H: mH,
    W: mW,
    poseEnc,
    depth: Float32Array.from({ length: S * P }, () => 0.5 + r()),
    depthConf: Float32Array.from({ length: S * P }, () => 1 + 10 * r()),
    worldPoints: Float32Array.from({ length: S * P * 3 }, () => r() * 4 - 2),
    worldPointsConf: Float32Array.from({ length: S * P }, () => 1 + 10 * r()),
  };
}

export default async function (ctx: BenchContext): Promise<void> {
  const views = syntheticViews(W, H);
  console.log(`  ${VIEWS} views ${W}x${H} (${((VIEWS * W * H) / 1e6).toFixed(1)} M pixels); model excluded; best of 3, ms`);
  const row = (name: string, ms: number, extra = "") => console.log(`  ${name.padEnd(44)} ${ms.toFixed(1).padStart(8)}${extra ? `  ${extra}` : ""}`);

  for (const mode of ["crop", "pad"] as PreprocessMode[]) {
    const plan = planPreprocess(W, H, mode);
    const { ms } = await ctx.time(() =>
      preprocessViews(
        views.map((v) => v.rgb),
        plan,
      ),
    );
    row(`preprocess ${mode} -> ${plan.width}x${plan.height}`, ms, `${(ms / VIEWS).toFixed(2)} ms/view`);
  }
  // A source that needs the bicubic resize (640x480 -> 518x392): the resampling cost itself.
  const big = syntheticViews(640, 480).map((v) => v.rgb);
  const planBig = planPreprocess(640, 480, "crop");
  const rs = await ctx.time(() => preprocessViews(big, planBig), 1);
  row(`preprocess crop 640x480 -> ${planBig.width}x${planBig.height} (resize)`, rs.ms, `${(rs.ms / VIEWS).toFixed(2)} ms/view`);

  const plan = planPreprocess(W, H, "crop");
  const pixelMap = modelToSourcePixel(plan);
  const out = syntheticOutputs(views, plan.width, plan.height);
  for (const points of ["depth", "pointmap"] as PointsFrom[]) {
    const { ms, result } = await ctx.time(() => {
      const decoded = decodeChunk({ views, plan, pixelMap, points, conf: { kind: "percentile", percentile: 50 } }, out);
      return assembleCloud({ decoded: [decoded], views, plan, pixelMap, align: "sim3", categories: new Map(), imageWidth: W, imageHeight: H });
    });
    row(`postprocess ${points}, drop 50 %, sim3`, ms, `${(result.cloud.count / 1e6).toFixed(2)} M points, ${result.segments[0]!.align?.method}`);
  }
  const half = new Uint16Array(VIEWS * W * H * 6).map((_, i) => 0x3c00 + (i & 0x3ff));
  const hf = await ctx.time(() => halfToFloat(half));
  row("fp16 -> fp32 of all outputs (6 floats/pixel)", hf.ms);
}
