/**
 * From the decoded windows of a run to one point cloud: drop views no window could decode (with a
 * warning), chain the windows by their seams (chunks.ts), align each chained segment to the known cameras
 * (or keep window 0's frame), and write every view's points once, from the window that owns it.
 */
import type { Mat34, Vec3 } from "../../core/math/vec.js";
import { dot } from "../../core/math/vec.js";
import type { Intrinsics } from "../../core/math/camera.js";
import type { ViewData } from "../../core/bundle/io.js";
import { alignCameras, alignExtrinsic, applySim3, composeSim3, IDENTITY_SIM3, type CameraAlignment, type Sim3 } from "../align.js";
import { allocateCloud, copyPointAttributes, type PointCloud } from "../pointcloud.js";
import { chainWindows, segmentExtrinsics, viewOwners, type ChainedWindow } from "./chunks.js";
import { intrinsicsAtSource, medianOf, VggtOutputError, type DecodedChunk, type DroppedView } from "./postprocess.js";
import type { PreprocessPlan } from "./preprocess.js";

/** At most this many points feed the floor and depth-ratio estimates (a deterministic subsample; both are order statistics). */
const SCALE_SAMPLES = 200_000;

export interface CameraRecord {
  view: number;
  /** Predicted camera-from-world extrinsic in the output frame (aligned world, or window 0's VGGT frame). */
  extrinsic: Mat34;
  /** Predicted intrinsics at the bundle's image resolution, esi3d's pixel convention. */
  intrinsics: Intrinsics;
  /** Predicted intrinsics at the model resolution, as VGGT's pose_encoding_to_extri_intri writes them. */
  modelIntrinsics: Intrinsics;
}

interface WindowMeta {
  views: number[];
  /** Views whose points and camera come from this window. */
  ownViews: number[];
  confThreshold: number;
  pixels: number;
  /** Points this window contributed (its owned views' kept pixels). */
  kept: number;
  segment: number;
  /** This window's frame → the output frame, with the method of its segment's alignment (null: align none). */
  align: (CameraAlignment & { T: Sim3 }) | null;
  seam: { views: number[]; points: number; scale: number; rms: number; rmsRel: number; rmsM: number | null; cameraRms: number } | null;
  broken?: string;
}

export interface Assembled {
  cloud: PointCloud;
  windows: WindowMeta[];
  segments: { windows: number[]; align: CameraAlignment | null }[];
  cameras: CameraRecord[];
  dropped: DroppedView[];
  warnings: string[];
}

export interface AssembleInput {
  decoded: readonly DecodedChunk[];
  views: readonly ViewData[];
  plan: PreprocessPlan;
  pixelMap: Int32Array;
  align: "sim3" | "none";
  categories: Map<number, string>;
  imageWidth: number;
  imageHeight: number;
}

/** A deterministic subsample (every k-th) of a window's owned points, for the scale estimates. */
function ownedSample(c: DecodedChunk, owned: Uint8Array, budget: number): number[] {
  let n = 0;
  for (let k = 0; k < c.count; k++) if (owned[c.frame[k]!]) n++;
  const stride = Math.max(1, Math.ceil(n / budget));
  const out: number[] = [];
  for (let k = 0, seen = 0; k < c.count; k++) if (owned[c.frame[k]!] && seen++ % stride === 0) out.push(k);
  return out;
}

export function assembleCloud(a: AssembleInput): Assembled {
  const { decoded, views } = a;
  const byIndex = new Map(views.map((v) => [v.index, v] as [number, ViewData]));
  const owner = viewOwners(decoded);
  const warnings: string[] = [];
  const dropped: DroppedView[] = [];
  for (const c of decoded) for (const d of c.dropped) if (!owner.has(d.view) && !dropped.some((x) => x.view === d.view)) dropped.push(d);
  if (owner.size === 0)
    throw new VggtOutputError(
      `VGGT gave no usable camera for any of the ${views.length} view(s): ${dropped.map((d) => `view ${d.view}: ${d.reason}`).join("; ")}`,
    );
  for (const d of dropped) warnings.push(`view ${d.view} dropped: ${d.reason} (no points, no camera)`);

  const chain: ChainedWindow[] = chainWindows(decoded);
  const ownedFrames = decoded.map((c, j) => Uint8Array.from(c.views, (v, s) => (owner.get(v) === j && c.cams[s] ? 1 : 0)));
  const nSeg = chain[chain.length - 1]!.segment + 1;
  chain.forEach((w, j) => {
    if (w.broken)
      warnings.push(
        `window ${j} (views ${decoded[j]!.views[0]}–${decoded[j]!.views.at(-1)}) could not be chained to window ${j - 1}: ${w.broken}; it starts segment ${w.segment}${a.align === "none" ? ", which stays in its own VGGT frame" : ", aligned to the known cameras on its own"}`,
      );
  });

  // Each segment's alignment to the output frame.
  const segments: Assembled["segments"] = [];
  const toOutput: Sim3[] = [];
  for (let g = 0; g < nSeg; g++) {
    const members = chain.map((w, j) => (w.segment === g ? j : -1)).filter((j) => j >= 0);
    let A: Sim3 = IDENTITY_SIM3;
    let align: CameraAlignment | null = null;
    if (a.align === "sim3") {
      const cams = members.flatMap((j) => segmentExtrinsics(decoded[j]!, chain[j]!, owner, j));
      if (cams.length > 0) {
        const samples = members.map((j) => ({ j, ks: ownedSample(decoded[j]!, ownedFrames[j]!, Math.ceil(SCALE_SAMPLES / members.length)) }));
        align = alignCameras({
          predicted: cams.map((c) => c.E),
          known: cams.map((c) => byIndex.get(c.view)!.E),
          pointHeights: (up: Vec3) => {
            const h: number[] = [];
            for (const { j, ks } of samples) {
              const c = decoded[j]!,
                T = chain[j]!.toSegment;
              for (const k of ks) h.push(dot(up, applySim3(T, [c.xyz[3 * k]!, c.xyz[3 * k + 1]!, c.xyz[3 * k + 2]!])));
            }
            return Float64Array.from(h);
          },
          depthRatio: () => {
            const r: number[] = [];
            for (const { j, ks } of samples) {
              const c = decoded[j]!,
                s = chain[j]!.toSegment.s;
              for (const k of ks) {
                const known = byIndex.get(c.view[k]!)!.depth[c.pixel[k]!]!;
                if (known > 0 && Number.isFinite(known)) r.push(known / (s * c.depth[k]!));
              }
            }
            return r.length ? medianOf(Float64Array.from(r)) : null;
          },
        });
        A = align;
      }
    } else if (g > 0) warnings.push(`segment ${g} stays in its own VGGT frame (align none): its points do not share window 0's frame`);
    segments.push({ windows: members, align });
    toOutput.push(A);
  }
  if (segments.some((s) => s.align?.scaleOracle))
    warnings.push(
      "scale oracle: no camera baseline and no floor found, so the metric scale came from the bundle's (simulator's) depth, which a real agent would not have",
    );

  // Points: each view once, from its owner window.
  const finalT = chain.map((w) => composeSim3(toOutput[w.segment]!, w.toSegment));
  const keptPer = decoded.map((c, j) => {
    let n = 0;
    for (let k = 0; k < c.count; k++) if (ownedFrames[j]![c.frame[k]!]) n++;
    return n;
  });
  const total = keptPer.reduce((x, y) => x + y, 0);
  const cloud = allocateCloud(total, { categories: a.categories, imageWidth: a.imageWidth, imageHeight: a.imageHeight, source: "vggt", meta: {} });
  let o = 0;
  decoded.forEach((c, j) => {
    const T = finalT[j]!,
      owned = ownedFrames[j]!;
    const R = T.R,
      s = T.s,
      t = T.t;
    const r00 = s * R[0][0],
      r01 = s * R[0][1],
      r02 = s * R[0][2],
      r10 = s * R[1][0],
      r11 = s * R[1][1],
      r12 = s * R[1][2],
      r20 = s * R[2][0],
      r21 = s * R[2][1],
      r22 = s * R[2][2];
    for (let k = 0; k < c.count; k++) {
      if (!owned[c.frame[k]!]) continue;
      const x = c.xyz[3 * k]!,
        y = c.xyz[3 * k + 1]!,
        z = c.xyz[3 * k + 2]!;
      cloud.xyz[3 * o] = r00 * x + r01 * y + r02 * z + t[0];
      cloud.xyz[3 * o + 1] = r10 * x + r11 * y + r12 * z + t[1];
      cloud.xyz[3 * o + 2] = r20 * x + r21 * y + r22 * z + t[2];
      copyPointAttributes(c, k, cloud, o);
      o++;
    }
  });

  const cameras: CameraRecord[] = [];
  decoded.forEach((c, j) =>
    c.views.forEach((v, s) => {
      if (!ownedFrames[j]![s]) return;
      const K = c.cams[s]!.K;
      cameras.push({ view: v, extrinsic: alignExtrinsic(c.cams[s]!.E, finalT[j]!), intrinsics: intrinsicsAtSource(K, a.plan), modelIntrinsics: K });
    }),
  );
  cameras.sort((p, q) => p.view - q.view);

  const windows: WindowMeta[] = decoded.map((c, j) => {
    const w = chain[j]!,
      seg = segments[w.segment]!;
    const prevScale = j > 0 && a.align === "sim3" ? finalT[j - 1]!.s : null;
    return {
      views: c.views,
      ownViews: c.views.filter((_, s) => ownedFrames[j]![s]),
      confThreshold: c.confThreshold,
      pixels: c.pixels,
      kept: keptPer[j]!,
      segment: w.segment,
      align: seg.align ? { ...seg.align, ...finalT[j]!, T: finalT[j]! } : null,
      seam: w.seam
        ? {
            views: w.seam.views,
            points: w.seam.points,
            scale: w.seam.T.s,
            rms: w.seam.rms,
            rmsRel: w.seam.rmsRel,
            rmsM: prevScale === null ? null : w.seam.rms * prevScale,
            cameraRms: w.seam.cameraRms,
          }
        : null,
      ...(w.broken ? { broken: w.broken } : {}),
    };
  });
  return { cloud, windows, segments, cameras, dropped, warnings };
}
