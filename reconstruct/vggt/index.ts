/**
 * The `vggt` point-cloud source: VGGT-1B (ONNX, through onnxruntime-node) reconstructs the bundle's RGB
 * views; its depth (or point map) becomes a point cloud aligned to the bundle's known cameras.
 *
 *   bundle views ─ preprocess (PIL bicubic, crop|pad) ─ ONNX Runtime (chunks of views) ─ decode cameras ─
 *   confidence filter ─ Sim(3) to the known cameras ─ points with colour, view, source pixel, instance id
 *
 * See models/README.md for the model file, conventions and memory; vggt-onnx.md for the contract.
 */
import * as ort from "onnxruntime-node";
import type { FrameBundle } from "../../bridge/bundle/io.js";
import { InputError } from "../../src/core/errors.js";
import { allocateCloud, type PointCloud } from "../pointcloud.js";
import type { VggtSettings } from "../options.js";
import { availableMemoryBytes, planChunks, type ChunkPlan } from "./memory.js";
import { getVggtSession, modelBytesOnDisk, resolveVggtModel, VGGT_INPUT, type VggtDevice, type VggtOutputName } from "./model.js";
import { DEFAULT_CONF_PERCENTILE, halfToFloat, postprocessChunk, VggtOutputError, type ChunkMeta, type ChunkPoints, type ConfRule, type PointsFrom, type VggtChunkOutputs } from "./postprocess.js";
import { modelToSourcePixel, planPreprocess, preprocessViews, type PreprocessPlan } from "./preprocess.js";

export { resolveVggtModel, VggtModelError } from "./model.js";

/** VGGT's options as a library call takes them: ../options.ts declares them (VggtOptionsSchema); unset = default. */
export type VggtOptions = { [K in keyof VggtSettings]?: NonNullable<VggtSettings[K]> } & { log?: (msg: string) => void };

export interface VggtTimings {
  load: number;
  preprocess: number;
  infer: number;
  postprocess: number;
  total: number;
}

function checkOptions(o: VggtOptions): { points: PointsFrom; conf: ConfRule; align: "sim3" | "none"; device: VggtDevice } {
  const device = o.device ?? "auto";
  if (!["auto", "cuda", "cpu"].includes(device)) throw new InputError(`vggt: device must be auto, cuda or cpu, not "${device}"`);
  const points = o.points ?? "depth";
  if (points !== "depth" && points !== "pointmap") throw new InputError(`vggt: points must be "depth" or "pointmap", not "${points}"`);
  const align = o.align ?? "sim3";
  if (align !== "sim3" && align !== "none") throw new InputError(`vggt: align must be "sim3" or "none", not "${align}"`);
  let conf: ConfRule;
  if (o.confThreshold !== undefined) {
    if (!Number.isFinite(o.confThreshold)) throw new InputError(`vggt: confidence threshold must be a number, not ${o.confThreshold}`);
    conf = { kind: "absolute", threshold: o.confThreshold };
  } else {
    const p = o.confPercentile ?? DEFAULT_CONF_PERCENTILE;
    if (!(p >= 0 && p <= 100)) throw new InputError(`vggt: confidence percentile must be in [0, 100], not ${p}`);
    conf = { kind: "percentile", percentile: p };
  }
  if (o.maxFramesPerChunk !== undefined && !(Number.isInteger(o.maxFramesPerChunk) && o.maxFramesPerChunk >= 1))
    throw new InputError(`vggt: maxFramesPerChunk must be a positive integer, not ${o.maxFramesPerChunk}`);
  return { points, conf, align, device };
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
export async function vggtPointCloud(bundle: FrameBundle, opts: VggtOptions = {}): Promise<PointCloud> {
  const t0 = performance.now();
  const log = opts.log ?? (() => {});
  const o = checkOptions(opts);
  const modelPath = resolveVggtModel({ modelPath: opts.modelPath });
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
    throw new InputError(`vggt: the model takes fixed ${c.width}x${c.height} input, but ${srcW}x${srcH} images preprocess to ${plan.width}x${plan.height} in ${c.mode} mode`);
  const pixelMap = modelToSourcePixel(plan);
  timings.preprocess += performance.now() - t;

  const half = Object.values(c.outputTypes).includes("float16");
  const available = availableMemoryBytes(sess.provider);
  const chunkPlan: ChunkPlan = planChunks({
    views: views.length, H: plan.height, W: plan.width,
    weightsBytes: modelBytesOnDisk(modelPath), elementBytes: half ? 2 : 4,
    availableBytes: available, fixedFrames: c.frames, maxFramesPerChunk: opts.maxFramesPerChunk,
  });
  const GiB = (b: number) => `${(b / 2 ** 30).toFixed(1)} GiB`;
  if (chunkPlan.chunks.length > 1)
    log(`vggt: ${views.length} views in ${chunkPlan.chunks.length} chunks of ≤ ${chunkPlan.framesPerChunk} (limited by ${chunkPlan.limitedBy}; estimated ${GiB(chunkPlan.estimateBytes)} per run${chunkPlan.budgetBytes !== null ? `, budget ${GiB(chunkPlan.budgetBytes)}` : ""}); each chunk is a separate reconstruction${o.align === "sim3" ? ", aligned to the known cameras on its own" : " and stays in its own frame (align none)"}`);
  else if (available === null) log(`vggt: free ${sess.provider.toUpperCase()} memory unknown; running all ${views.length} views at once`);

  const fetch: VggtOutputName[] = ["pose_enc", "depth", o.points === "depth" ? "depth_conf" : "world_points_conf"];
  if (o.points === "pointmap") fetch.push("world_points");
  const parts: ChunkPoints[] = [];
  for (const chunk of chunkPlan.chunks) {
    const cv = chunk.map((i) => views[i]!);
    const S = cv.length;
    const runS = c.frames ?? S; // a fixed-S model: repeat the last view to fill the run, then ignore the extras
    t = performance.now();
    const imgs = Array.from({ length: runS }, (_, i) => cv[Math.min(i, S - 1)]!.rgb);
    const input = preprocessViews(imgs, plan);
    timings.preprocess += performance.now() - t;

    t = performance.now();
    const feed = new ort.Tensor("float32", input, [runS, 3, plan.height, plan.width]);
    const result = await sess.session.run({ [VGGT_INPUT]: feed }, fetch);
    timings.infer += performance.now() - t;

    t = performance.now();
    const out: VggtChunkOutputs = {
      S, H: plan.height, W: plan.width,
      poseEnc: readOutput(result.pose_enc!, "pose_enc", runS, plan.height, plan.width),
      depth: readOutput(result.depth!, "depth", runS, plan.height, plan.width),
      depthConf: new Float32Array(0),
    };
    if (o.points === "depth") out.depthConf = readOutput(result.depth_conf!, "depth_conf", runS, plan.height, plan.width);
    else {
      out.worldPoints = readOutput(result.world_points!, "world_points", runS, plan.height, plan.width);
      out.worldPointsConf = readOutput(result.world_points_conf!, "world_points_conf", runS, plan.height, plan.width);
    }
    parts.push(postprocessChunk({ views: cv, plan, pixelMap, points: o.points, conf: o.conf, align: o.align }, out));
    feed.dispose();
    for (const v of Object.values(result)) v.dispose();
    timings.postprocess += performance.now() - t;
  }

  t = performance.now();
  const total = parts.reduce((a, p) => a + p.count, 0);
  const categories = new Map(bundle.manifest.instances.map((e) => [e.id, e.category] as [number, string]));
  const chunkMetas: ChunkMeta[] = parts.map((p) => p.meta);
  const cloud = allocateCloud(total, { categories, imageWidth: srcW, imageHeight: srcH, source: "vggt", meta: {} });
  let k = 0;
  for (const p of parts) {
    cloud.xyz.set(p.xyz, 3 * k);
    cloud.rgb.set(p.rgb, 3 * k);
    cloud.confidence.set(p.confidence, k);
    cloud.view.set(p.view, k);
    cloud.pixel.set(p.pixel, k);
    cloud.instance.set(p.instance, k);
    k += p.count;
  }
  timings.postprocess += performance.now() - t;
  timings.total = performance.now() - t0;
  cloud.meta = buildMeta({ sess, modelPath, plan, o, chunkPlan, chunkMetas, timings, views: views.length });
  return cloud;
}

function buildMeta(a: {
  sess: { provider: string; reused: boolean; contract: { outputTypes: Record<string, string> } };
  modelPath: string;
  plan: PreprocessPlan;
  o: ReturnType<typeof checkOptions>;
  chunkPlan: ChunkPlan;
  chunkMetas: ChunkMeta[];
  timings: VggtTimings;
  views: number;
}): Record<string, unknown> {
  const aligned = a.chunkMetas.filter((m) => m.align);
  // Overall residual: RMS over every camera of every chunk.
  const nCam = aligned.reduce((s, m) => s + m.align!.cameras, 0);
  const rmsM = nCam ? Math.sqrt(aligned.reduce((s, m) => s + m.align!.rmsM ** 2 * m.align!.cameras, 0) / nCam) : null;
  return {
    model: a.modelPath,
    provider: a.sess.provider,
    sessionReused: a.sess.reused,
    outputType: a.sess.contract.outputTypes.depth,
    preprocess: { ...a.plan },
    points: a.o.points,
    conf: a.o.conf.kind === "percentile" ? { dropLowestPercent: a.o.conf.percentile, per: "chunk" } : { absolute: a.o.conf.threshold },
    align: a.o.align,
    // Single chunk: its scale; several: one per chunk (each chunk has its own VGGT scale).
    alignScale: aligned.length === 1 ? aligned[0]!.align!.s : aligned.map((m) => m.align!.s),
    alignMethod: aligned.length === 1 ? aligned[0]!.align!.method : aligned.map((m) => m.align!.method),
    alignRmsM: rmsM,
    chunks: a.chunkMetas.map((m) => ({
      views: m.views,
      confThreshold: m.confThreshold,
      pixels: m.pixels,
      kept: m.kept,
      align: m.align ? { method: m.align.method, scale: m.align.s, rmsM: m.align.rmsM, R: m.align.R, t: m.align.t, note: m.align.note } : null,
    })),
    chunking: { framesPerChunk: a.chunkPlan.framesPerChunk, limitedBy: a.chunkPlan.limitedBy, estimateBytes: a.chunkPlan.estimateBytes, budgetBytes: a.chunkPlan.budgetBytes },
    cameras: a.chunkMetas.flatMap((m) => m.cameras),
    pixelConvention: "VGGT principal point (W/2, H/2) converted to pixel-centre convention ((W-1)/2, (H-1)/2)",
    timingsMs: a.timings,
    views: a.views,
  };
}
