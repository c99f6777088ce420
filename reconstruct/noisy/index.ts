/**
 * The `noisy` point-cloud source: ground truth passed through a seeded error model whose parts mimic
 * what VGGT gets wrong (the ESI-Bench paper's failure modes of VGGT + Gemini: duplicated objects, hallucinated objects, corrupted
 * relations), each with its own parameters, and one `level` in 0..MAX_NOISE_LEVEL that scales the
 * `vggt-like` preset (level 1). docs/noise-model.md has the parameter table, the literature behind every
 * value and the level that matches VGGT's published errors (VGGT_TYPICAL_LEVEL).
 *
 * Per view (its own random streams, forked from seed × task id × view × component, so switching one
 * component on or off never changes another's draws, and the same draws are scaled at every level):
 *
 *   blobs        patches of pixels lifted off their surface towards the camera (hallucination seeds)
 *   flying       pixels near depth discontinuities moved strictly between foreground and background
 *   textureless  depth inside uniform image regions pulled to its wide average and biased
 *   mono         a smooth per-view shape field and a relief exponent (single-view depth and shape error)
 *   warp         a smooth depth error over the room's world points, the same in every view
 *   depth        d ← d·(1 + lowfreq(x, y) + depthNoiseRel·n(x, y)), n a unit, box-correlated Gaussian field
 *   drift        pose errors accumulated along the trajectory, then the pipeline's Sim(3) alignment
 *   pose         each view's camera rotated / moved independently (view 0 is the anchor, never moved)
 *   scale        each view's depth scaled by its own factor (view 0 included)
 *   labels       mask fragments given wrong categories, floor/wall patches given object labels
 *   mirror       (first, so the others act on it) mirror pixels moved from the mirror's surface to the depth of
 *                what they reflect: its mirror image, behind the mirror (the bundle's reflection images)
 *   → back-projection by the `gt` source's own code (reconstruct/gt/backproject.ts) with the noisy depth
 *     and camera, so level 0 is the `gt` cloud bit for bit
 *   dropout      a synthetic VGGT-like confidence per point, the lowest `dropoutFraction` of points removed
 *
 * Every point keeps its colour and true mask label, as VGGT's points keep theirs; each point still traces
 * back to its view and pixel. Label corruption reaches the graph builder through labels.ts `labelledBundle`.
 */
import type { FrameBundle, ViewData } from "../../core/bundle/io.js";
import type { Mat34 } from "../../core/math/vec.js";
import { Rng } from "../../core/math/rng.js";
import { InputError } from "../../core/errors.js";
import { emptyBox, extendBox, type PixelBox } from "../../core/pixelBox.js";
import type { PointCloud } from "../pointcloud.js";
import { backprojectViews } from "../gt/backproject.js";
import { extrinsicRotation, cameraCentre } from "../../core/math/camera.js";
import { confidenceOfLog, confidenceScratch, viewConfidence, viewLogConfidence, type ConfidenceScratch } from "./confidence.js";
import { applyDropout, dropOverConfidences, LogConfidenceHistogram } from "./dropout.js";
import { correlatedField, depthDiscontinuities, dilate, FieldScratch, isValid, setPixels } from "./filters.js";
import { driftPoses, type DriftResult } from "./drift.js";
import { applyMono, medianDepth, monoField, type MonoRecord } from "./mono.js";
import { applyTextureless, texturelessBiasField, texturelessMaps } from "./textureless.js";
import { applyWarp, warpField, warpPerMetre, type WarpField } from "./warp.js";
import { apparentIds } from "../../core/bundle/apparentIds.js";
import { assignFakeIds, phantomPixels, planViewLabels, type LabelPlan } from "./labels.js";
import { extrinsic, rotationFromVector } from "./rigid.js";
import {
  activeComponents,
  BLOB_JITTER_RATIO,
  BLOB_MIN_DEPTH_M,
  BLOB_OFFSET_MIN_FRACTION,
  BLOB_SEED_ATTEMPTS,
  FAKE_LABEL_ID_BASE,
  FLYING_T_MARGIN,
  NOISY_DEPTH_MIN_RATIO,
  POSE_ANCHOR_VIEW,
  resolveNoiseParams,
  type NoiseComponent,
  type NoiseOptions,
  type NoiseParams,
} from "./params.js";

export * from "./params.js";

/** Per-pixel flags of what happened to a pixel (tallied into meta.counts: flying/flyingKept, blobPoints/blobPointsKept). */
const FLAG_FLYING = 1;
const FLAG_BLOB = 2;

interface PoseRecord {
  view: number;
  /** Rotation error (degrees) about the camera centre. */
  rotDeg: number;
  /** Unit axis of that rotation, in the camera frame. */
  axisCam: [number, number, number];
  /** Camera-centre displacement (metres, world). */
  dC: [number, number, number];
  /** The perturbed camera-from-world extrinsic the view was back-projected with. */
  E: Mat34;
}

interface DepthFieldRecord {
  view: number;
  /** Coefficients of lowfreq(x, y) = tiltX·x̂ + tiltY·ŷ + bowl·(x̂² + ŷ² − mean), x̂ = (i − cx)/(W/2), ŷ = (j − cy)/(W/2). */
  tiltX: number;
  tiltY: number;
  bowl: number;
  bowlMean: number;
}

export interface BlobRecord {
  view: number;
  /** Seed (centre) pixel; the blob's pixels are the first `points` pixels, row by row, of the `side`-wide square whose top-left is (x0, y0). */
  x0: number;
  y0: number;
  side: number;
  points: number;
  /** Depth (m) the blob's pixels were moved to (before per-point jitter, depth noise and pose). */
  depthM: number;
  /** Distance (m) in front of the nearest true surface of its patch. */
  offsetM: number;
  /** Half-range (m) of its per-point depth jitter. */
  jitterM: number;
}

export interface NoisyMeta {
  preset: string;
  level: number;
  seed: string;
  taskId: string;
  /** Components with non-zero amplitude. */
  components: NoiseComponent[];
  /** The effective parameters (preset, overrides, amplitudes scaled by level, components not listed at zero). */
  params: NoiseParams;
  views: number;
  counts: {
    /** Points the gt source gives for these views. */
    gtPoints: number;
    /** Points in this cloud. */
    points: number;
    /** Pixels whose depth got depth noise. */
    depthNoised: number;
    /** Views back-projected with an independently perturbed camera. */
    poseViews: number;
    /** Flying pixels made, and those left after dropout. */
    flying: number;
    flyingKept: number;
    /** Points removed by dropout. */
    dropped: number;
    /** Blobs made, their points, and blob points left after dropout. */
    blobs: number;
    blobPoints: number;
    blobPointsKept: number;
    /** Pixels the textureless collapse moved. */
    texturelessPx: number;
    /** Relabelled object fragments and phantom patches, and the points of phantom patches in the cloud. */
    labelSwaps: number;
    labelPhantoms: number;
    phantomPointsKept: number;
    /** Mirror pixels moved behind their mirror. */
    mirrorPx: number;
  };
  /** Confidence at or below which points were dropped (null without dropout). */
  dropoutThreshold: number | null;
  poses: PoseRecord[];
  depthFields: DepthFieldRecord[];
  blobs: BlobRecord[];
  /** Per view: the relief exponent of the mono component. */
  mono: MonoRecord[];
  /** The drifted cameras after alignment (null without drift). */
  drift: DriftResult | null;
  /** The warp component's field (null without it). */
  warp: WarpField | null;
  /** Per view: its depth scale from the scale component (1 without it). */
  viewScales: Array<{ view: number; scale: number }>;
  /** The label corruption (empty lists without it). */
  labels: LabelPlan;
}

/** Random streams of one view: seed × task id × view × component. */
function viewRng(seed: string, taskId: string, view: number, component: string): Rng {
  return new Rng(seed).fork(taskId).fork(`view${view}`).fork(component);
}

/** The task's transparent objects as a lookup table indexed by instance id; null when it has none. */
function transparentTable(bundle: FrameBundle): Uint8Array | null {
  const objects = (bundle.manifest.task?.objects ?? []).filter((o) => o.transparent);
  if (objects.length === 0) return null;
  const t = new Uint8Array(65536);
  for (const o of objects) t[o.id] = 1;
  return t;
}

function taskIdOf(bundle: FrameBundle): string {
  return bundle.manifest.task_id ?? bundle.manifest.task?.task_id ?? "";
}

function checkBundle(bundle: FrameBundle): void {
  if (bundle.views.length === 0) throw new InputError("noisy: the bundle has no views");
  const { width: W, height: H } = bundle.views[0]!;
  for (const v of bundle.views) {
    if (v.width !== W || v.height !== H || v.depth.length !== W * H || v.ids.length !== W * H || v.rgb.length !== 3 * W * H)
      throw new InputError(`noisy: view ${v.index} is not a ${W}x${H} view with rgb, depth and ids of matching sizes`);
  }
}

/**
 * Buffers of the per-view fields, reused by every view and every call in this thread (no field outlives its
 * view: fresh memory costs ~1–2.5 ms per MB to touch here, more than most fields cost to compute). The
 * numbers name the buffers; filters.ts functions use 0–3 (correlatedField), 10–15 (validDepthSmooth) and
 * 20–21 (texturelessMaps; also its byte buffer 20 and int buffer 20).
 */
const POOL = new FieldScratch();
const SLOT = { tlEdge: 40, tlSmooth: 41, tlBias: 42, mono: 43, warp: 44, depth: 45 } as const;
const BYTES = { disc: 40, band: 41, bandTmp: 42, need: 43 } as const;
/**
 * The per-view arrays of a cloud build (log-confidence, noisy depth, flags), reused by the next build in
 * this thread: noisyPointCloud lets none of them out (the cloud copies what it keeps). noisyViews, whose
 * views its caller keeps, gets fresh ones.
 */
const CLOUD_POOL = new FieldScratch();
interface ViewArrays {
  logConfidence: (i: number, n: number) => Float64Array;
  /** The dropout histogram's bucket per pixel (dropout.ts). */
  logBuckets: (i: number, n: number) => Uint16Array;
  depth: (i: number, n: number) => Float32Array;
  flags: (i: number, n: number) => Uint8Array;
}
const FRESH_ARRAYS: ViewArrays = {
  logConfidence: (_i, n) => new Float64Array(n),
  logBuckets: (_i, n) => new Uint16Array(n),
  depth: (_i, n) => new Float32Array(n),
  flags: (_i, n) => new Uint8Array(n),
};
const POOLED_ARRAYS: ViewArrays = {
  logConfidence: (i, n) => CLOUD_POOL.getDoubles(i, n),
  logBuckets: (i, n) => CLOUD_POOL.getShorts(i, n),
  depth: (i, n) => CLOUD_POOL.get(i, n),
  flags: (i, n) => CLOUD_POOL.getBytes(i, n).fill(0),
};
let confScratch: ConfidenceScratch | null = null;
function pooledConfidenceScratch(n: number): ConfidenceScratch {
  if (confScratch?.luma.length !== n) confScratch = confidenceScratch(n);
  return confScratch;
}

/**
 * Synthetic confidence maps, one per view (view order of the bundle), W×H, 0 where a view has no depth:
 * exactly the values the noisy source writes into `PointCloud.confidence` when dropout is on. They depend
 * only on the bundle and the seed.
 * @internal Only tests call it: they check these maps equal what the source writes, per pixel, which the cloud
 * (confidence only at the points it keeps) cannot show.
 */
export function syntheticConfidence(bundle: FrameBundle, seed: string): Float32Array[] {
  checkBundle(bundle);
  const { width: W, height: H } = bundle.views[0]!;
  const scratch = confidenceScratch(W * H);
  const disc = new Uint8Array(W * H),
    logs = new Float64Array(W * H);
  const glass = transparentTable(bundle);
  const taskId = taskIdOf(bundle);
  return bundle.views.map((v) => {
    const out = new Float32Array(W * H);
    depthDiscontinuities(v.depth, W, H, disc);
    viewConfidence(v, disc, glass, viewRng(seed, taskId, v.index, "conf"), scratch, out, logs);
    return out;
  });
}

/** Perturbed camera of a view whose camera is E: R' = δR·R (δR about the camera centre, in camera axes), C' = C + δC. */
function perturbPose(view: number, E: Mat34, p: NoiseParams, rng: Rng): PoseRecord {
  // Always draw all six numbers, so every level scales the same draws.
  const n = [rng.normal(), rng.normal(), rng.normal(), rng.normal(), rng.normal(), rng.normal()];
  const sr = (p.poseRotDeg * Math.PI) / 180 / Math.sqrt(3); // per-axis std, so that the RMS angle is poseRotDeg
  const st = p.poseTransM / Math.sqrt(3);
  const wx = n[0]! * sr,
    wy = n[1]! * sr,
    wz = n[2]! * sr;
  const dC: [number, number, number] = [n[3]! * st, n[4]! * st, n[5]! * st];
  const R = extrinsicRotation(E),
    C = cameraCentre(E),
    d = rotationFromVector(wx, wy, wz);
  const Rp = [0, 1, 2].map((i) => [0, 1, 2].map((j) => d[i]![0]! * R[0]![j]! + d[i]![1]! * R[1]![j]! + d[i]![2]! * R[2]![j]!)) as unknown as typeof R;
  const Cp = [C[0] + dC[0], C[1] + dC[1], C[2] + dC[2]];
  const tp = [0, 1, 2].map((i) => -(Rp[i]![0]! * Cp[0]! + Rp[i]![1]! * Cp[1]! + Rp[i]![2]! * Cp[2]!)) as [number, number, number];
  const th = Math.hypot(wx, wy, wz);
  return {
    view,
    rotDeg: (th * 180) / Math.PI,
    axisCam: th > 0 ? [wx / th, wy / th, wz / th] : [0, 0, 1],
    dC,
    E: extrinsic(Rp, tp),
  };
}

interface Work {
  W: number;
  H: number;
  disc: Uint8Array;
  band: Uint8Array;
  bandTmp: Uint8Array;
  field: Float32Array;
  fieldScratch: FieldScratch;
}

/**
 * The view as a model that takes a mirror for a window sees it: each mirror pixel that shows something
 * (reflectedDepth > 0) moved `share` of the way from the mirror's surface to the depth of its mirror image,
 * behind the mirror. Validity is unchanged (a mirror pixel has the mirror's depth). Returns the view itself
 * when it has no reflection images, and the pixels moved.
 */
function mirrorPlaced(v: ViewData, share: number): { view: ViewData; moved: number } {
  const rd = v.reflectedDepth;
  if (!rd || share === 0) return { view: v, moved: 0 };
  const depth = new Float32Array(v.depth);
  let moved = 0;
  for (let q = 0; q < depth.length; q++) {
    const r = rd[q]!,
      g = depth[q]!;
    if (!(r > 0) || !isValid(g)) continue;
    depth[q] = g + share * (r - g);
    moved++;
  }
  return moved ? { view: { ...v, depth }, moved } : { view: v, moved: 0 };
}

/** Moves blob patches off their surface in `d` (a copy of the view's depth); marks FLAG_BLOB. */
function placeBlobs(v: ViewData, p: NoiseParams, rng: Rng, d: Float32Array, flags: Uint8Array, out: BlobRecord[]): void {
  const { width: W, height: H, depth } = v;
  const lambda = p.blobsPerView;
  const whole = Math.floor(lambda);
  const extra = rng.next() < lambda - whole ? 1 : 0;
  const count = whole + extra;
  const points = p.blobPoints;
  const side = Math.ceil(Math.sqrt(points));
  const rows = Math.ceil(points / side);
  if (side > W || rows > H) return;
  for (let b = 0; b < count; b++) {
    for (let attempt = 0; attempt < BLOB_SEED_ATTEMPTS; attempt++) {
      const seed = rng.int(0, W * H - 1);
      const offsetU = rng.next();
      const sx = seed % W,
        sy = (seed - sx) / W;
      const x0 = sx - (side >> 1),
        y0 = sy - (rows >> 1);
      if (x0 < 0 || y0 < 0 || x0 + side > W || y0 + rows > H) continue;
      let minD = Infinity,
        ok = true;
      for (let k = 0; k < points && ok; k++) {
        const q = (y0 + Math.floor(k / side)) * W + x0 + (k % side);
        const g = depth[q]!;
        if (!isValid(g) || flags[q]! & FLAG_BLOB) ok = false;
        else if (g < minD) minD = g;
      }
      if (!ok) continue;
      const offsetM = p.blobOffsetM * (BLOB_OFFSET_MIN_FRACTION + (1 - BLOB_OFFSET_MIN_FRACTION) * offsetU);
      const depthM = minD - offsetM;
      if (!(depthM >= BLOB_MIN_DEPTH_M)) continue;
      const lateralM = (side * depthM) / v.K.fx;
      const jitterM = Math.min(BLOB_JITTER_RATIO * lateralM, 0.5 * offsetM);
      for (let k = 0; k < points; k++) {
        const q = (y0 + Math.floor(k / side)) * W + x0 + (k % side);
        d[q] = depthM + jitterM * (2 * rng.next() - 1);
        flags[q] = flags[q]! | FLAG_BLOB;
      }
      out.push({ view: v.index, x0, y0, side, points, depthM, offsetM, jitterM });
      break;
    }
  }
}

/** Turns a share of the pixels near depth discontinuities into flying pixels; returns how many. */
function flyingPixels(v: ViewData, p: NoiseParams, rng: Rng, w: Work, d: Float32Array, flags: Uint8Array, need: Uint8Array | null): number {
  const { W, H } = w;
  dilate(w.disc, W, H, p.flyingBandPx, w.band, w.bandTmp);
  return smearBand(v.depth, W, H, w.band, p.flyingBandPx + 1, p.flyingFraction, rng, d, flags, need);
}

/**
 * flyingPixels' loop, in a function of its own (docs/design.md: hot loops and the JIT): each band pixel with
 * depth, in raster order, draws two numbers; a share `fraction` of them (not blob pixels) become flying
 * pixels, their depth `d` moved between the nearest and farthest true depth of their (2R+1)² window (R =
 * band + 1: the window of a band pixel spans both sides of its discontinuity). Returns how many.
 *
 * The band is a few per cent of the pixels: its set pixels come from filters.ts setPixels (which skips
 * all-zero words; the scan over every byte was three quarters of this function's time), in raster order, so
 * the draws are those of a pixel-by-pixel scan.
 */
function smearBand(
  depth: Float32Array,
  W: number,
  H: number,
  band: Uint8Array,
  R: number,
  fraction: number,
  rng: Rng,
  d: Float32Array,
  flags: Uint8Array,
  need: Uint8Array | null,
): number {
  const set = setPixels(band, W * H);
  let flying = 0;
  for (let k = 0; k < set.length; k++) flying += smearPixel(depth, W, H, set[k]!, R, fraction, rng, d, flags, need);
  return flying;
}

/** smearBand at band pixel q: 1 if it became a flying pixel. */
function smearPixel(
  depth: Float32Array,
  W: number,
  H: number,
  q: number,
  R: number,
  fraction: number,
  rng: Rng,
  d: Float32Array,
  flags: Uint8Array,
  need: Uint8Array | null,
): number {
  if (!isValid(depth[q]!)) return 0;
  // Two draws for every band pixel, whatever the fraction: higher levels add flying pixels, never move others.
  const u = rng.next(),
    t = rng.next();
  if (u >= fraction || flags[q]! & FLAG_BLOB) return 0;
  flags[q] = flags[q]! | FLAG_FLYING;
  if (need && !need[q]) return 1;
  const x = q % W,
    y = (q - x) / W;
  let lo = Infinity,
    hi = -Infinity;
  const ya = Math.max(0, y - R),
    yb = Math.min(H - 1, y + R),
    xa = Math.max(0, x - R),
    xb = Math.min(W - 1, x + R);
  for (let yy = ya; yy <= yb; yy++) {
    for (let xx = xa, o = yy * W + xa; xx <= xb; xx++, o++) {
      const g = depth[o]!;
      if (!isValid(g)) continue;
      if (g < lo) lo = g;
      if (g > hi) hi = g;
    }
  }
  d[q] = lo + (FLYING_T_MARGIN + (1 - 2 * FLYING_T_MARGIN) * t) * (hi - lo);
  return 1;
}

/** Depth noise in place: d ← max(NOISY_DEPTH_MIN_RATIO, 1 + lowfreq + depthNoiseRel·n) · d. Returns the pixels touched. */
function depthNoise(
  v: ViewData,
  p: NoiseParams,
  w: Work,
  d: Float32Array,
  rngNoise: Rng,
  rngLow: Rng,
  out: DepthFieldRecord[],
  need: Uint8Array | null,
  box: PixelBox | undefined,
): number {
  const { W, H } = w;
  const rel = p.depthNoiseRel;
  const field = w.field;
  // the field only where it is read (rngNoise draws nothing after it)
  const norm = rel > 0 ? correlatedField(rngNoise, W, H, p.depthNoiseCorrPx, field, w.fieldScratch, box) : 0;
  const lf = p.depthLowFreqRel;
  const a = [rngLow.normal(), rngLow.normal(), rngLow.normal()];
  const tiltX = a[0]! * lf,
    tiltY = a[1]! * lf,
    bowl = a[2]! * lf;
  const { cx, cy } = v.K;
  const half = W / 2;
  let sx = 0,
    sy = 0;
  for (let i = 0; i < W; i++) sx += ((i - cx) / half) ** 2;
  for (let j = 0; j < H; j++) sy += ((j - cy) / half) ** 2;
  const bowlMean = sx / W + sy / H;
  if (lf > 0) out.push({ view: v.index, tiltX, tiltY, bowl, bowlMean });
  return scaleByDepthNoise(d, W, H, lf > 0 ? { tiltX, tiltY, bowl, bowlMean, cx, cy, half } : null, rel, field, norm, need);
}

/** lowfreq(x, y) of the depth component (DepthFieldRecord's coefficients) and the image's centre and half-width. */
interface LowFrequency {
  tiltX: number;
  tiltY: number;
  bowl: number;
  bowlMean: number;
  cx: number;
  cy: number;
  half: number;
}
/** Read when a view has no low-frequency term: the loop then adds none (`low` null), whatever these are. */
const NO_LOW_FREQUENCY: LowFrequency = { tiltX: 0, tiltY: 0, bowl: 0, bowlMean: 0, cx: 0, cy: 0, half: 1 };

/**
 * d ← d·max(NOISY_DEPTH_MIN_RATIO, 1 + lowfreq + rel·field) at every valid pixel (where `need` is set, when
 * given); returns how many valid pixels there are. The loop of depthNoise in a function of its own
 * (docs/design.md: hot loops and the JIT).
 */
function scaleByDepthNoise(
  d: Float32Array,
  W: number,
  H: number,
  low: LowFrequency | null,
  rel: number,
  field: Float32Array,
  norm: number,
  need: Uint8Array | null,
): number {
  const { tiltX, tiltY, bowl, bowlMean, cx, cy, half } = low ?? NO_LOW_FREQUENCY;
  // x̂ per column: the same quotient as per pixel, one division per column instead of one per pixel
  const xhOf = columnCoordinates(W, cx, half);
  const minRatio = NOISY_DEPTH_MIN_RATIO; // a local: V8 loads an imported binding again at every use
  let n = 0;
  for (let j = 0; j < H; j++) {
    const yh = (j - cy) / half;
    const rowTerm = tiltY * yh + bowl * (yh * yh - bowlMean);
    for (let i = 0, q = j * W; i < W; i++, q++) {
      const g = d[q]!;
      if (!isValid(g)) continue;
      n++;
      if (need && !need[q]) continue;
      const xh = xhOf[i]!;
      const f = low ? tiltX * xh + bowl * xh * xh + rowTerm : 0;
      const nz = rel > 0 ? rel * Math.fround(field[q]! * norm) : 0;
      d[q] = g * Math.max(minRatio, 1 + f + nz);
    }
  }
  return n;
}

/** (i − cx) / half for every column i (one array per thread, grown as needed). */
function columnCoordinates(W: number, cx: number, half: number): Float64Array {
  if (columnScratch.length < W) columnScratch = new Float64Array(W);
  for (let i = 0; i < W; i++) columnScratch[i] = (i - cx) / half;
  return columnScratch;
}
let columnScratch = new Float64Array(0);

/**
 * The task's object (non-structure) instance ids each view shows, ascending (level-free): as its segmenter sees
 * them (core/bundle/apparentIds.ts), so an object seen only in a mirror is a fragment of that view too.
 */
function objectIdsPerView(bundle: FrameBundle, structure: Uint8Array): number[][] {
  const seen = new Uint8Array(65536);
  const structureIds = new Set(bundle.manifest.instances.filter((e) => e.structure).map((e) => e.id));
  return bundle.views.map((v) => {
    seen.fill(0);
    const ids = apparentIds(v, structureIds);
    for (let q = 0; q < ids.length; q++) seen[ids[q]!] = 1;
    const out: number[] = [];
    for (let id = 1; id < 65536; id++) if (seen[id] && !structure[id]) out.push(id);
    return out;
  });
}

/** The views after every component but dropout (noisy depth and camera; true RGB and ids), with what was done. */
export interface NoisyViews {
  views: ViewData[];
  params: NoiseParams;
  components: NoiseComponent[];
  /** Per view (bundle order): FLAG_FLYING / FLAG_BLOB per pixel, or null when neither component ran. */
  flags: (Uint8Array | null)[];
  /** Per view, with `excludeIds`: a box holding every pixel a cloud without them reads (null without). */
  boxes: (PixelBox | null)[];
  /** The meta of the cloud, without the counts that need the cloud (points, dropout, kept). */
  meta: Omit<NoisyMeta, "counts" | "dropoutThreshold"> & {
    counts: Pick<
      NoisyMeta["counts"],
      "depthNoised" | "poseViews" | "flying" | "blobs" | "blobPoints" | "texturelessPx" | "labelSwaps" | "labelPhantoms" | "mirrorPx"
    >;
  };
}

/** The drift of the bundle's views: accumulated and aligned along the trajectory they end. */
function bundleDrift(views: readonly ViewData[], trajectory: readonly ViewData[], params: NoiseParams, rngOf: (view: number, c: string) => Rng): DriftResult {
  const all = driftPoses(trajectory, params, (k) => rngOf(trajectory[k]!.index, "drift"));
  if (trajectory === views) return all;
  const records = views.map((v) => {
    const r = all.records.find((x) => x.view === v.index);
    if (!r) throw new Error(`noisy: view ${v.index} is not on the trajectory given`);
    return r;
  });
  return { ...all, records };
}

/**
 * Every component but dropout, per view: the depth maps and cameras the `noisy` source back-projects (the
 * dense prediction, before the confidence filter). The bench's error statistics read these.
 */
export function noisyViews(bundle: FrameBundle, opts: NoiseOptions): NoisyViews {
  return noisyStage(bundle, opts, null, false, FRESH_ARRAYS).stage;
}

/**
 * The pixels whose noisy depth a cloud without the ids in `excluded` reads, into `need` (1 = read): those
 * of other ids, and the view's phantom label patches, which go into the cloud under a fake id. Returns
 * their bounding box (the depth noise field is computed only there).
 */
function neededPixels(v: ViewData, excluded: Uint8Array, phantoms: readonly LabelPlan["phantoms"][number][], need: Uint8Array): PixelBox {
  const { ids, width: W, height: H } = v;
  const box = emptyBox(W);
  for (let j = 0, q = 0; j < H; j++) {
    // a row's first and last needed column (ids come in runs: the branch is predicted)
    let first = -1,
      last = -1;
    for (let i = 0; i < W; i++, q++) {
      if (excluded[ids[q]!]) need[q] = 0;
      else {
        need[q] = 1;
        if (first < 0) first = i;
        last = i;
      }
    }
    if (last >= 0) extendBox(box, first, last, j);
  }
  for (const f of phantoms) {
    if (f.view !== v.index) continue;
    for (const q of phantomPixels(f, W)) {
      need[q] = 1;
      const i = q % W;
      extendBox(box, i, i, (q - i) / W);
    }
  }
  return box;
}

/**
 * noisyViews, or (with `excludeIds`) the views as far as a cloud without those ids needs them: the depth
 * of pixels with an excluded id (and not in a phantom patch) is then left unfinished, since nothing reads
 * it. Every count, record and random draw is the same either way.
 */
function noisyStage(
  bundle: FrameBundle,
  opts: NoiseOptions,
  excludeIds: ReadonlySet<number> | null,
  withConfidence: boolean,
  arrays: ViewArrays,
): { stage: NoisyViews; logMaps: Float64Array[]; histogram: LogConfidenceHistogram | null } {
  const params = resolveNoiseParams(opts);
  checkBundle(bundle);
  const active = new Set(activeComponents(params));
  const seed = opts.noiseSeed,
    taskId = taskIdOf(bundle);
  const { width: W, height: H } = bundle.views[0]!;
  const N = W * H;
  const rngOf = (view: number, c: string) => viewRng(seed, taskId, view, c);
  const work: Work = {
    W,
    H,
    disc: POOL.getBytes(BYTES.disc, N),
    band: POOL.getBytes(BYTES.band, N),
    bandTmp: POOL.getBytes(BYTES.bandTmp, N),
    field: POOL.get(SLOT.depth, N),
    fieldScratch: POOL,
  };
  const confidence = withConfidence && active.has("dropout");
  const logMaps: Float64Array[] = [];
  const histogram = confidence ? new LogConfidenceHistogram() : null;
  const glass = confidence ? transparentTable(bundle) : null;
  const changesDepth =
    active.has("flying") ||
    active.has("blobs") ||
    active.has("depth") ||
    active.has("mono") ||
    active.has("warp") ||
    active.has("textureless") ||
    active.has("dropout");
  const warp = active.has("warp") ? warpField(params, new Rng(seed).fork(taskId).fork("warp")) : null;
  const poses: PoseRecord[] = [],
    depthFields: DepthFieldRecord[] = [],
    blobs: BlobRecord[] = [],
    mono: MonoRecord[] = [];
  const viewScales: Array<{ view: number; scale: number }> = [];
  const flagMaps: (Uint8Array | null)[] = [];
  const boxes: (PixelBox | null)[] = [];
  let flying = 0,
    depthNoised = 0,
    texturelessPx = 0,
    mirrorPx = 0;
  const drift = active.has("drift") ? bundleDrift(bundle.views, opts.trajectory ?? bundle.views, params, rngOf) : null;
  const labels: LabelPlan = { swaps: [], phantoms: [] };
  if (active.has("labels")) {
    const structure = new Uint8Array(65536);
    for (const e of bundle.manifest.instances) if (e.structure) structure[e.id] = 1;
    const category = new Map(bundle.manifest.instances.map((e) => [e.id, e.category] as [number, string]));
    const objectIds = objectIdsPerView(bundle, structure);
    bundle.views.forEach((v, i) => planViewLabels(v, params, category, objectIds[i]!, structure, rngOf(v.index, "labels"), rngOf(v.index, "phantoms"), labels));
    assignFakeIds(labels, bundle);
  }
  const excluded = excludeIds?.size ? new Uint8Array(65536) : null;
  for (const id of excludeIds ?? []) excluded![id] = 1;
  const need = excluded ? POOL.getBytes(BYTES.need, N) : null;

  const views: ViewData[] = bundle.views.map((rendered, i) => {
    // every other component acts on what the model takes the mirror to show
    const placed = active.has("mirror") ? mirrorPlaced(rendered, params.mirrorDepthShare) : { view: rendered, moved: 0 };
    const v = placed.view;
    mirrorPx += placed.moved;
    const rng = (c: string) => rngOf(v.index, c);
    const box = need ? neededPixels(v, excluded!, labels.phantoms, need) : undefined;
    let d = v.depth;
    let flags: Uint8Array | null = null;
    // one discontinuity map of the true depth for the flying pixels and the confidence
    if (active.has("flying") || confidence) depthDiscontinuities(v.depth, W, H, work.disc);
    if (confidence) {
      const c = arrays.logConfidence(i, N);
      viewLogConfidence(v, work.disc, glass, rng("conf"), pooledConfidenceScratch(N), c);
      histogram!.add(c, arrays.logBuckets(i, N));
      logMaps.push(c);
    }
    const copyDepth = () => {
      const copy = arrays.depth(i, N);
      copy.set(v.depth);
      return copy;
    };
    if (changesDepth) d = copyDepth();
    if (active.has("flying") || active.has("blobs")) flags = arrays.flags(i, N);
    if (active.has("blobs")) placeBlobs(v, params, rng("blobs"), d, flags!, blobs);
    if (active.has("flying")) flying += flyingPixels(v, params, rng("flying"), work, d, flags!, need);
    if (active.has("textureless")) {
      // the confidence (when it ran on this view) left the same luma gradient in its scratch
      const gradient = confidence ? pooledConfidenceScratch(N).tmp : undefined;
      const maps = texturelessMaps(
        v,
        params.texturelessRadiusPx,
        POOL,
        { edgeDistance: POOL.get(SLOT.tlEdge, N), smooth: POOL.get(SLOT.tlSmooth, N) },
        gradient,
      );
      const stored = POOL.get(SLOT.tlBias, N);
      const bias = params.texturelessBiasRel > 0 ? { stored, scale: texturelessBiasField(rng("textureless"), W, H, stored) } : null;
      texturelessPx += applyTextureless(v, params, maps, bias, d, need);
    }
    if (active.has("mono")) {
      // the median as a float32, as it was when cached in a Float32Array (its value must not change)
      const m = Math.fround(medianDepth(v.depth));
      const stored = POOL.get(SLOT.mono, N);
      const field = params.monoShapeRel > 0 ? { stored, scale: monoField(rng("mono"), W, H, params, stored) } : null;
      const gamma = rng("relief").normal() * params.monoReliefStd;
      if (m > 0) mono.push(applyMono(v, params, field, gamma, d, m, need));
    }
    if (warp) applyWarp(v, params, warpPerMetre(v, warp, need, POOL.get(SLOT.warp, N)), d, need);
    if (active.has("depth")) depthNoised += depthNoise(v, params, work, d, rng("depth"), rng("lowfreq"), depthFields, need, box);
    let scale = 1,
      E = v.E;
    if (drift) {
      E = drift.records[i]!.E;
      scale *= drift.alignment.scale;
    }
    if (active.has("pose") && v.index !== POSE_ANCHOR_VIEW) {
      const rec = perturbPose(v.index, E, params, rng("pose"));
      poses.push(rec);
      E = rec.E;
    }
    if (active.has("scale")) {
      const s = Math.exp(params.viewScaleRel * rng("scale").normal());
      viewScales.push({ view: v.index, scale: s });
      scale *= s;
    }
    if (scale !== 1) {
      if (d === v.depth) d = copyDepth();
      for (let q = 0; q < N; q++) if (isValid(d[q]!) && (!need || need[q])) d[q] = d[q]! * scale;
    }
    flagMaps.push(flags);
    boxes.push(box ?? null);
    return d === v.depth && E === v.E ? v : { ...v, depth: d, E };
  });
  const stage: NoisyViews = {
    views,
    params,
    components: [...active],
    flags: flagMaps,
    boxes,
    meta: {
      preset: opts.preset ?? "vggt-like",
      level: opts.noiseLevel,
      seed,
      taskId,
      components: [...active],
      params,
      views: bundle.views.length,
      counts: {
        depthNoised,
        poseViews: poses.length,
        flying,
        blobs: blobs.length,
        blobPoints: blobs.reduce((s, b) => s + b.points, 0),
        texturelessPx,
        labelSwaps: labels.swaps.length,
        labelPhantoms: labels.phantoms.length,
        mirrorPx,
      },
      poses,
      depthFields,
      blobs,
      mono,
      drift,
      warp,
      viewScales,
      labels,
    },
  };
  return { stage, logMaps, histogram };
}

/** The end of the run of points from `k` on that come from the same view as point k. */
function viewRunEnd(view: Uint16Array, k: number, count: number): number {
  const vi = view[k]!;
  let end = k + 1;
  while (end < count && view[end] === vi) end++;
  return end;
}

/** confidence[k] of points [from, to) from their view's log-confidence map (`pixel[k]` indexes it). */
function takeConfidences(confidence: Float32Array, pixel: Uint32Array, from: number, to: number, logs: Float64Array): void {
  for (let k = from; k < to; k++) confidence[k] = confidenceOfLog(logs[pixel[k]!]!);
}

/** Gives points [from, to) in a phantom patch (`mask`) their true id back; returns how many. */
function restoreTrueIds(instance: Uint16Array, pixel: Uint32Array, from: number, to: number, mask: Uint8Array, trueIds: Uint16Array): number {
  let n = 0;
  for (let k = from; k < to; k++) {
    const q = pixel[k]!;
    if (mask[q]) {
      instance[k] = trueIds[q]!;
      n++;
    }
  }
  return n;
}

/** How many of points [from, to) have `flag` set in their view's per-pixel flags. */
function countFlagged(pixel: Uint32Array, from: number, to: number, flags: Uint8Array, flag: number): number {
  let n = 0;
  for (let k = from; k < to; k++) if (flags[pixel[k]!]! & flag) n++;
  return n;
}

/** A bundle's views after every component and dropout, and what the cloud reports about them. */
interface DroppedStage {
  stage: NoisyViews;
  /** Per view, each pixel's log-confidence (NaN without depth); empty without dropout. */
  logMaps: Float64Array[];
  gtPoints: number;
  dropped: number;
  dropoutThreshold: number | null;
}

/**
 * The `noisy` point cloud of a bundle (source "noisy"; meta: NoisyMeta). A run's arms that differ only in
 * labels share one build (scenegraph/pipeline.ts SharedCloud), so nothing is cached here.
 */
export function noisyPointCloud(bundle: FrameBundle, opts: NoiseOptions): PointCloud {
  return cloudOfStage(bundle, opts, dropStage(bundle, opts));
}

/** Every component, then dropout: the lowest dropoutFraction of all points by confidence (ties: the first in point order) get depth 0. */
function dropStage(bundle: FrameBundle, opts: NoiseOptions): DroppedStage {
  const made = () => noisyStage(bundle, opts, opts.excludeIds ?? null, true, POOLED_ARRAYS);
  let { stage, logMaps, histogram } = made();
  if (!histogram) {
    const N = bundle.views[0]!.width * bundle.views[0]!.height;
    let gtPoints = 0;
    for (const v of bundle.views) for (let q = 0; q < N; q++) if (isValid(v.depth[q]!)) gtPoints++;
    return { stage, logMaps, gtPoints, dropped: 0, dropoutThreshold: null };
  }
  // a log-confidence is finite exactly where the true depth is valid (viewLogConfidence), so the histogram
  // counts the points as well; the chosen pixels get depth 0, so the back-projection skips them
  const fraction = stage.params.dropoutFraction;
  let cut = applyDropout(
    logMaps,
    histogram,
    stage.views.map((nv) => nv.depth),
    fraction,
  );
  if (cut === "unproven") {
    // the depths were half dropped: made again (the stage is deterministic), then chosen over every confidence
    ({ stage, logMaps, histogram } = made());
    cut = dropOverConfidences(
      logMaps,
      stage.views.map((nv) => nv.depth),
      fraction,
    );
  }
  return { stage, logMaps, gtPoints: histogram!.total, dropped: cut?.dropped ?? 0, dropoutThreshold: cut?.threshold ?? null };
}

/** The cloud of a dropped stage: back-projection, then each point's confidence, true id and counts. */
function cloudOfStage(bundle: FrameBundle, opts: NoiseOptions, dropped: DroppedStage): PointCloud {
  const { stage, logMaps, gtPoints, dropoutThreshold } = dropped;
  const { views: noisy, flags: flagMaps } = stage;
  const { width: W, height: H } = bundle.views[0]!;
  const N = W * H;
  const categories = new Map(bundle.manifest.instances.map((e) => [e.id, e.category] as [number, string]));
  const dropout = stage.components.includes("dropout");

  // 2. back-projection with the gt source's own code: level 0 gives the gt cloud bit for bit. Phantom
  //    label patches lie on floor or wall, which `excludeIds` may leave out; they are objects to the graph
  //    builder, so their pixels go in under their fake id, then get their true id back.
  const phantoms = stage.meta.labels.phantoms;
  const phantomMasks = noisy.map((nv) => {
    const mine = phantoms.filter((f) => f.view === nv.index);
    if (!mine.length) return null;
    const m = new Uint8Array(N);
    for (const f of mine) for (const q of phantomPixels(f, W)) m[q] = 1;
    return m;
  });
  const keepPhantoms = !!opts.excludeIds?.size && phantoms.length > 0;
  const withPhantoms = keepPhantoms
    ? noisy.map((nv, i) => {
        const m = phantomMasks[i];
        if (!m) return nv;
        const ids = new Uint16Array(nv.ids);
        for (let q = 0; q < N; q++) if (m[q]) ids[q] = FAKE_LABEL_ID_BASE;
        return { ...nv, ids };
      })
    : noisy;
  // only the pixels within each view's box can be kept (phantom patches included: neededPixels)
  const cloud = backprojectViews(withPhantoms, categories, { excludeIds: opts.excludeIds, arena: opts.arena, regions: stage.boxes });
  cloud.source = "noisy";
  if (!opts.excludeIds?.size && cloud.count !== gtPoints - dropped.dropped)
    throw new Error(`noisy: ${cloud.count} points, expected ${gtPoints - dropped.dropped}`);

  // 3. per-point confidence, true ids and counts, view by view (points come out grouped by view, pixels in
  //    order), each in a loop function of its own (docs/design.md: hot loops and the JIT)
  let flyingKept = 0,
    blobPointsKept = 0,
    phantomPointsKept = 0;
  const viewPos = new Map(bundle.views.map((v, i) => [v.index, i] as [number, number]));
  const { confidence, view, pixel, instance } = cloud;
  for (let k = 0; k < cloud.count; ) {
    const i = viewPos.get(view[k]!)!,
      end = viewRunEnd(view, k, cloud.count);
    // only a kept point's confidence is taken (dropout.ts): the same float32 as a map of every pixel's
    if (dropout) takeConfidences(confidence, pixel, k, end, logMaps[i]!);
    const pm = phantomMasks[i],
      f = flagMaps[i];
    if (pm) phantomPointsKept += restoreTrueIds(instance, pixel, k, end, pm, bundle.views[i]!.ids);
    if (f) {
      flyingKept += countFlagged(pixel, k, end, f, FLAG_FLYING);
      blobPointsKept += countFlagged(pixel, k, end, f, FLAG_BLOB);
    }
    k = end;
  }
  const meta: NoisyMeta = {
    ...stage.meta,
    counts: { gtPoints, points: cloud.count, ...stage.meta.counts, dropped: dropped.dropped, flyingKept, blobPointsKept, phantomPointsKept },
    dropoutThreshold,
  };
  // the back-projection's camera centres are the noisy cameras' (drifted, perturbed): keep them
  cloud.meta = { ...(meta as unknown as Record<string, unknown>), cameraCentres: cloud.meta.cameraCentres };
  return cloud;
}
