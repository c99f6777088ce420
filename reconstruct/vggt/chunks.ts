/**
 * Overlapping windows of views (memory.ts `planChunks`) into one reconstruction: each window is VGGT's own
 * reconstruction in its own frame (its frame 0's camera, its own scale). Consecutive windows share views;
 * the same pixel of a shared view is the same surface point, so the shared views' points give a Sim(3)
 * from window j's frame into window j−1's (Umeyama with scale), and chaining those puts every window in
 * window 0's frame. The seam residual says how well two windows agree. The chained reconstruction is then
 * aligned to the known cameras once (align sim3), or kept in window 0's frame (align none).
 *
 * A view's points and camera come from the first window in which it was decoded (its owner); later copies
 * only tie the windows together.
 */
import type { Vec3 } from "../../core/math/vec.js";
import { dot, sub } from "../../core/math/vec.js";
import { cameraCentre } from "../../core/math/camera.js";
import { alignExtrinsic, applySim3, composeSim3, IDENTITY_SIM3, umeyama, type Sim3 } from "../align.js";
import type { DecodedChunk } from "./postprocess.js";

/** Fewest shared-pixel correspondences a seam needs; fewer (e.g. every shared view dropped) breaks the chain. Chosen. */
const MIN_SEAM_POINTS = 100;
/** At most this many correspondences feed a seam's Umeyama fit (a deterministic subsample; the fit is closed-form). Chosen. */
const SEAM_MAX_POINTS = 50_000;

/** The Sim(3) between two consecutive windows and how well they agree. */
interface Seam {
  /** Shared views whose points were matched. */
  views: number[];
  points: number;
  /** Window j's frame → window j−1's frame. */
  T: Sim3;
  /** RMS distance of the matched points after the fit, in window j−1's units. */
  rms: number;
  /** rms over the matched points' RMS spread about their centroid (dimensionless: 0 = the windows agree exactly). */
  rmsRel: number;
  /** RMS distance of the shared views' camera centres after the fit, in window j−1's units. */
  cameraRms: number;
}

export interface ChainedWindow {
  /** Windows joined by seams form a segment; a broken chain starts a new one. */
  segment: number;
  /** This window's frame → its segment's frame (window `first` of the segment). */
  toSegment: Sim3;
  /** The seam to the previous window, or null for a segment's first window. */
  seam: Seam | null;
  /** Why the chain broke before this window, if it did. */
  broken?: string;
}

/** Start index of each frame's points in a decoded chunk (points are stored frame by frame). */
function frameStarts(c: DecodedChunk): Int32Array {
  const starts = new Int32Array(c.views.length + 1);
  for (let k = 0; k < c.count; k++) starts[c.frame[k]! + 1]!++;
  for (let s = 0; s < c.views.length; s++) starts[s + 1]! += starts[s]!;
  return starts;
}

/** Same-pixel point pairs of the views two windows share (both kept), as [src (b), dst (a)] and the views used. */
function sharedPoints(a: DecodedChunk, b: DecodedChunk): { src: Vec3[]; dst: Vec3[]; views: number[]; camSrc: Vec3[]; camDst: Vec3[] } {
  const sa = frameStarts(a),
    sb = frameStarts(b);
  const pairs: [number, number][] = [];
  const views: number[] = [],
    camSrc: Vec3[] = [],
    camDst: Vec3[] = [];
  for (let fb = 0; fb < b.views.length; fb++) {
    const fa = a.views.indexOf(b.views[fb]!);
    if (fa < 0 || !a.cams[fa] || !b.cams[fb]) continue;
    views.push(b.views[fb]!);
    camSrc.push(cameraCentre(b.cams[fb]!.E));
    camDst.push(cameraCentre(a.cams[fa]!.E));
    // Both lists ascend in model pixel: merge.
    let i = sa[fa]!,
      j = sb[fb]!;
    const iEnd = sa[fa + 1]!,
      jEnd = sb[fb + 1]!;
    while (i < iEnd && j < jEnd) {
      const pi = a.modelPixel[i]!,
        pj = b.modelPixel[j]!;
      if (pi === pj) pairs.push([j++, i++]);
      else if (pi < pj) i++;
      else j++;
    }
  }
  const stride = Math.max(1, Math.ceil(pairs.length / SEAM_MAX_POINTS));
  const src: Vec3[] = [],
    dst: Vec3[] = [];
  for (let k = 0; k < pairs.length; k += stride) {
    const [j, i] = pairs[k]!;
    src.push([b.xyz[3 * j]!, b.xyz[3 * j + 1]!, b.xyz[3 * j + 2]!]);
    dst.push([a.xyz[3 * i]!, a.xyz[3 * i + 1]!, a.xyz[3 * i + 2]!]);
  }
  return { src, dst, views, camSrc, camDst };
}

function rmsSpread(ps: readonly Vec3[]): number {
  const c: Vec3 = [0, 0, 0];
  for (const p of ps) for (let k = 0; k < 3; k++) c[k]! += p[k]! / ps.length;
  let acc = 0;
  for (const p of ps) {
    const d = sub(p, c);
    acc += dot(d, d);
  }
  return Math.sqrt(acc / ps.length);
}

/** The Sim(3) taking window b's frame into window a's from their shared views, or why there is none. */
function fitSeam(a: DecodedChunk, b: DecodedChunk): Seam | string {
  const { src, dst, views, camSrc, camDst } = sharedPoints(a, b);
  if (views.length === 0) return "the windows share no decoded view";
  if (src.length < MIN_SEAM_POINTS) return `only ${src.length} shared pixels kept in both windows (need ${MIN_SEAM_POINTS})`;
  const u = umeyama(src, dst, true);
  const T: Sim3 = { R: u.R, t: u.t, s: u.s };
  const spread = rmsSpread(dst);
  let cam = 0;
  for (let k = 0; k < camSrc.length; k++) {
    const d = sub(applySim3(T, camSrc[k]!), camDst[k]!);
    cam += dot(d, d);
  }
  return { views, points: src.length, T, rms: u.rmse, rmsRel: spread > 0 ? u.rmse / spread : 0, cameraRms: Math.sqrt(cam / camSrc.length) };
}

/** Chains windows in order: each into its predecessor's frame by their seam; a window without a seam starts a new segment. */
export function chainWindows(chunks: readonly DecodedChunk[]): ChainedWindow[] {
  const out: ChainedWindow[] = [];
  let segment = 0;
  chunks.forEach((c, j) => {
    if (j === 0) return void out.push({ segment, toSegment: IDENTITY_SIM3, seam: null });
    const seam = fitSeam(chunks[j - 1]!, c);
    if (typeof seam === "string") {
      segment++;
      out.push({ segment, toSegment: IDENTITY_SIM3, seam: null, broken: seam });
    } else out.push({ segment, toSegment: composeSim3(out[j - 1]!.toSegment, seam.T), seam });
  });
  return out;
}

/** Per view (bundle index), the window whose copy of it is used: the first window that decoded it. */
export function viewOwners(chunks: readonly DecodedChunk[]): Map<number, number> {
  const owner = new Map<number, number>();
  chunks.forEach((c, j) =>
    c.views.forEach((v, s) => {
      if (c.cams[s] && !owner.has(v)) owner.set(v, j);
    }),
  );
  return owner;
}

/** A window's owned cameras expressed in its segment's frame (the predicted extrinsics alignCameras takes). */
export function segmentExtrinsics(c: DecodedChunk, w: ChainedWindow, owner: Map<number, number>, j: number) {
  return c.views.flatMap((v, s) => (owner.get(v) === j ? [{ view: v, frame: s, E: alignExtrinsic(c.cams[s]!.E, w.toSegment) }] : []));
}
