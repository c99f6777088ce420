/**
 * The `vggt` point-cloud source: VGGT-1B (ONNX, through onnxruntime-node) reconstructs the bundle's RGB
 * views; its depth (or point map) becomes a point cloud aligned to the bundle's known cameras.
 *
 *   bundle views ─ preprocess (RGBA onto white, PIL bicubic, crop|pad) ─ ONNX Runtime (overlapping windows
 *   of views) ─ decode cameras (degenerate views dropped) ─ confidence filter ─ points per window ─ windows
 *   chained by Sim(3) on their shared views ─ Sim(3) to the known cameras ─ points with colour, view,
 *   source pixel, instance id
 *
 * See models/README.md for the model file, conventions and memory; model.ts states the contract.
 */
import * as ort from "onnxruntime-node";
import type { FrameBundle } from "../../core/bundle/io.js";
import { InputError } from "../../core/errors.js";
import type { PointCloud } from "../pointcloud.js";
import type { VggtSettings } from "../options.js";
import { assembleCloud, type Assembled } from "./assemble.js";
import { availableMemoryBytes, planChunks, type ChunkPlan } from "./memory.js";
import { getVggtSession, modelBytesOnDisk, resolveVggtModel, VGGT_INPUT, type VggtOutputName } from "./model.js";
import { decodeChunk, halfToFloat, VggtOutputError, type ConfRule, type DecodedChunk, type VggtChunkOutputs } from "./postprocess.js";
import { modelRgbOf, modelToSourcePixel, planPreprocess, preprocessViews, type PreprocessPlan } from "./preprocess.js";

export { resolveVggtModel, VggtModelError } from "./model.js";

/**
 * VGGT's options as ../options.ts parsed them (VggtOptionsSchema's output: defaults filled, ranges checked, at the
 * front-end), and where progress lines go.
 */
export type VggtOptions = VggtSettings & { log?: (msg: string) => void };

export interface VggtTimings {
  load: number;
  preprocess: number;
  infer: number;
  postprocess: number;
  total: number;
}

/** The confidence rule of the options: an absolute threshold when one is set, else the percentile. */
function confRule(o: VggtSettings): ConfRule {
  return o.confThreshold !== null ? { kind: "absolute", threshold: o.confThreshold } : { kind: "percentile", percentile: o.confPercentile };
}

/** Output tensor → float32 frame-major data, checking its shape against [1?, S, H, W, C?]. */
function readOutput(t: ort.Tensor, name: VggtOutputName, S: number, H: number, W: number): Float32Array {
  const inner: Record<VggtOutputName, number[]> = {
    pose_enc: [9],
    depth: [H, W, 1],
    depth_conf: [H, W],
    world_points: [H, W, 3],
    world_points_conf: [H, W],
  };
  const want = inner[name];
  const dims = [...t.dims];
  const ok =
    (dims.length === want.length + 2 && dims[0] === 1 && dims[1]! >= S && want.every((d, i) => dims[i + 2] === d)) ||
    (dims.length === want.length + 1 && dims[0]! >= S && want.every((d, i) => dims[i + 1] === d)) ||
    // depth without its trailing 1
    (name === "depth" && dims.length === 4 && dims[0] === 1 && dims[1]! >= S && dims[2] === H && dims[3] === W);
  if (!ok) throw new VggtOutputError(`VGGT output "${name}" has shape [${dims.join(",")}], expected [1,${S},${want.join(",")}]`);
  if (t.type === "float16") return halfToFloat(t.data as Uint16Array);
  if (t.type === "float32") return t.data as Float32Array;
  throw new VggtOutputError(`VGGT output "${name}" is ${t.type}, expected float32 or float16`);
}

/**
 * Reconstructs the bundle's views with VGGT and returns the point cloud (source "vggt"). Points keep their
 * view, source pixel (bundle resolution), colour and instance id; `meta` records the provider, modes,
 * chunking, alignment (scale, RMS residual in metres), predicted cameras and per-stage timings (ms).
 */
export async function vggtPointCloud(bundle: FrameBundle, opts: VggtOptions): Promise<PointCloud> {
  const t0 = performance.now();
  const log = opts.log ?? (() => {});
  const o = { ...opts, conf: confRule(opts) };
  const modelPath = resolveVggtModel({ modelPath: opts.modelPath ?? undefined });
  const { width: srcW, height: srcH } = bundle.manifest.image;
  const views = bundle.views;
  if (views.length === 0) throw new InputError("vggt: the bundle has no views");
  for (const v of views)
    if (v.width !== srcW || v.height !== srcH || v.rgb.length !== srcW * srcH * 3)
      throw new InputError(`vggt: view ${v.index} is ${v.width}x${v.height}, but the bundle's image size is ${srcW}x${srcH}`);

  const sess = await getVggtSession(modelPath, o.device, log);
  const timings: VggtTimings = { load: sess.loadMs, preprocess: 0, infer: 0, postprocess: 0, total: 0 };
  const c = sess.contract;

  let t = performance.now();
  const plan: PreprocessPlan = planPreprocess(srcW, srcH, c.mode);
  if ((c.height !== null && c.height !== plan.height) || (c.width !== null && c.width !== plan.width))
    throw new InputError(
      `vggt: the model takes fixed ${c.width}x${c.height} input, but ${srcW}x${srcH} images preprocess to ${plan.width}x${plan.height} in ${c.mode} mode`,
    );
  const pixelMap = modelToSourcePixel(plan);
  timings.preprocess += performance.now() - t;

  const half = Object.values(c.outputTypes).includes("float16");
  const available = availableMemoryBytes(sess.provider);
  const chunkPlan: ChunkPlan = planChunks({
    views: views.length,
    H: plan.height,
    W: plan.width,
    weightsBytes: modelBytesOnDisk(modelPath),
    elementBytes: half ? 2 : 4,
    availableBytes: available,
    fixedFrames: c.frames,
    maxFramesPerChunk: opts.maxFramesPerChunk ?? undefined,
  });
  const GiB = (b: number) => `${(b / 2 ** 30).toFixed(1)} GiB`;
  if (chunkPlan.chunks.length > 1)
    log(
      `vggt: ${views.length} views in ${chunkPlan.chunks.length} overlapping windows of ≤ ${chunkPlan.framesPerChunk} (${chunkPlan.overlap} shared between neighbours; limited by ${chunkPlan.limitedBy}; estimated ${GiB(chunkPlan.estimateBytes)} per run${chunkPlan.budgetBytes !== null ? `, budget ${GiB(chunkPlan.budgetBytes)}` : ""}); each window is a separate reconstruction, chained to the previous one by a Sim(3) fitted to the shared views' points`,
    );
  else if (available === null) log(`vggt: free ${sess.provider.toUpperCase()} memory unknown; running all ${views.length} views at once`);

  const fetch: VggtOutputName[] = ["pose_enc", "depth", o.points === "depth" ? "depth_conf" : "world_points_conf"];
  if (o.points === "pointmap") fetch.push("world_points");
  const decoded: DecodedChunk[] = [];
  for (const chunk of chunkPlan.chunks) {
    const cv = chunk.map((i) => views[i]!);
    const S = cv.length;
    const runS = c.frames ?? S; // a fixed-S model: repeat the last view to fill the run, then ignore the extras
    t = performance.now();
    const imgs = Array.from({ length: runS }, (_, i) => modelRgbOf(cv[Math.min(i, S - 1)]!));
    const input = preprocessViews(imgs, plan);
    timings.preprocess += performance.now() - t;

    t = performance.now();
    const feed = new ort.Tensor("float32", input, [runS, 3, plan.height, plan.width]);
    const result = await sess.session.run({ [VGGT_INPUT]: feed }, fetch);
    timings.infer += performance.now() - t;

    t = performance.now();
    const out: VggtChunkOutputs = {
      S,
      H: plan.height,
      W: plan.width,
      poseEnc: readOutput(result.pose_enc!, "pose_enc", runS, plan.height, plan.width),
      depth: readOutput(result.depth!, "depth", runS, plan.height, plan.width),
      depthConf: new Float32Array(0),
    };
    if (o.points === "depth") out.depthConf = readOutput(result.depth_conf!, "depth_conf", runS, plan.height, plan.width);
    else out.worldPointsConf = readOutput(result.world_points_conf!, "world_points_conf", runS, plan.height, plan.width);
    if (o.points === "pointmap") out.worldPoints = readOutput(result.world_points!, "world_points", runS, plan.height, plan.width);
    const d = decodeChunk({ views: cv, plan, pixelMap, points: o.points, conf: o.conf }, out);
    for (const x of d.dropped) log(`vggt: view ${x.view}: ${x.reason}; dropping it from this window`);
    decoded.push(d);
    feed.dispose();
    for (const v of Object.values(result)) v.dispose();
    timings.postprocess += performance.now() - t;
  }

  t = performance.now();
  const categories = new Map(bundle.manifest.instances.map((e) => [e.id, e.category] as [number, string]));
  const asm = assembleCloud({ decoded, views, plan, pixelMap, align: o.align, categories, imageWidth: srcW, imageHeight: srcH });
  for (const w of asm.warnings) log(`vggt: warning: ${w}`);
  timings.postprocess += performance.now() - t;
  timings.total = performance.now() - t0;
  asm.cloud.meta = buildMeta({ sess, modelPath, plan, o, chunkPlan, asm, timings, views: views.length });
  return asm.cloud;
}

function buildMeta(a: {
  sess: { provider: string; reused: boolean; contract: { outputTypes: Record<string, string> } };
  modelPath: string;
  plan: PreprocessPlan;
  o: VggtSettings & { conf: ConfRule };
  chunkPlan: ChunkPlan;
  asm: Assembled;
  timings: VggtTimings;
  views: number;
}): Record<string, unknown> {
  const aligned = a.asm.segments.filter((g) => g.align).map((g) => g.align!);
  // Overall residual: RMS over every camera of every segment.
  const nCam = aligned.reduce((s, m) => s + m.cameras, 0);
  const rmsM = nCam ? Math.sqrt(aligned.reduce((s, m) => s + m.rmsM ** 2 * m.cameras, 0) / nCam) : null;
  return {
    model: a.modelPath,
    provider: a.sess.provider,
    sessionReused: a.sess.reused,
    outputType: a.sess.contract.outputTypes.depth,
    preprocess: { ...a.plan },
    points: a.o.points,
    conf: a.o.conf.kind === "percentile" ? { dropLowestPercent: a.o.conf.percentile, per: "window" } : { absolute: a.o.conf.threshold },
    align: a.o.align,
    // One segment (the usual case): its scale; several: one per segment (each has its own VGGT scale).
    alignScale: aligned.length === 1 ? aligned[0]!.s : aligned.map((m) => m.s),
    alignMethod: aligned.length === 1 ? aligned[0]!.method : aligned.map((m) => m.method),
    alignRmsM: rmsM,
    // True when some metric scale came from the bundle's depth (ground truth a real agent would not have).
    scaleOracle: aligned.some((m) => m.scaleOracle),
    chunks: a.asm.windows.map((w) => ({
      views: w.views,
      ownViews: w.ownViews,
      confThreshold: w.confThreshold,
      pixels: w.pixels,
      kept: w.kept,
      segment: w.segment,
      align: w.align
        ? {
            method: w.align.method,
            scale: w.align.T.s,
            rmsM: w.align.rmsM,
            R: w.align.T.R,
            t: w.align.T.t,
            scaleOracle: w.align.scaleOracle,
            note: w.align.note,
          }
        : null,
      seam: w.seam,
      ...(w.broken ? { broken: w.broken } : {}),
    })),
    segments: a.asm.segments.map((g) => ({
      windows: g.windows,
      align: g.align
        ? { method: g.align.method, scale: g.align.s, rmsM: g.align.rmsM, cameras: g.align.cameras, scaleOracle: g.align.scaleOracle, note: g.align.note }
        : null,
    })),
    chunking: {
      framesPerChunk: a.chunkPlan.framesPerChunk,
      overlap: a.chunkPlan.overlap,
      limitedBy: a.chunkPlan.limitedBy,
      estimateBytes: a.chunkPlan.estimateBytes,
      budgetBytes: a.chunkPlan.budgetBytes,
    },
    cameras: a.asm.cameras,
    cameraFrame:
      a.o.align === "sim3"
        ? "world (the bundle's frame; VGGT's cameras aligned to the known ones by Sim(3))"
        : "VGGT (window 0's first camera, VGGT's arbitrary scale)",
    pixelConvention: "pixel (i, j) centred at (i, j); model principal point (W/2, H/2) as VGGT's pose_encoding_to_extri_intri",
    droppedViews: a.asm.dropped,
    warnings: a.asm.warnings,
    timingsMs: a.timings,
    views: a.views,
  };
}
