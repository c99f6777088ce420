/**
 * The sums a node's attributes need over its raw points: how many, their confidence and colour, and per
 * view the points and the pixel box they cover. Every one is a sum, a min or a max, so a fused node's
 * stats can be composed from the voxels of its detections that survived its denoising instead of being
 * read again point by point. The active paradigm's memory needs that: a node seen in every view is
 * touched every step, and re-reading its raw points made a step cost O(points so far).
 */
import type { PointCloud } from "../../reconstruct/pointcloud.js";

export interface ViewSupport {
  points: number;
  /** Pixel box [x0, y0, x1, y1] of the points from this view. */
  bbox: [number, number, number, number];
}

export interface MemberStats {
  count: number;
  confidence: number;
  rgb: [number, number, number];
  views: Map<number, ViewSupport>;
}

/** Per-voxel sums of a single-view detection (its surviving raw points grouped by their voxel). */
export interface VoxelStats {
  view: number;
  /** Per voxel: count, confidence sum, r, g, b sums. */
  sums: Float64Array;
  /** Per voxel: pixel box x0, y0, x1, y1. */
  boxes: Int32Array;
}

const SUMS = 5;

/**
 * Stats read point by point (nodes that are not fused from single-view detections: oracle, dbscan), with
 * the per-view counts and pixel boxes in typed arrays indexed by view; views keep the order they were first
 * seen in, as an accumulator's map would.
 */
export function statsOfMembers(cloud: PointCloud, members: Uint32Array): MemberStats {
  const W = cloud.imageWidth;
  const { view, confidence, rgb, pixel } = cloud;
  let views = 0;
  for (let m = 0; m < members.length; m++) if (view[members[m]!]! >= views) views = view[members[m]!]! + 1;
  const points = new Int32Array(views),
    boxes = new Int32Array(4 * views);
  const order: number[] = [];
  let conf = 0,
    r = 0,
    g = 0,
    b = 0;
  for (let m = 0; m < members.length; m++) {
    const i = members[m]!;
    const v = view[i]!,
      p = pixel[i]!;
    const x = p % W,
      y = (p - x) / W;
    conf += confidence[i]!;
    r += rgb[3 * i]!;
    g += rgb[3 * i + 1]!;
    b += rgb[3 * i + 2]!;
    const k = 4 * v;
    if (points[v]!++ === 0) {
      order.push(v);
      boxes[k] = boxes[k + 2] = x;
      boxes[k + 1] = boxes[k + 3] = y;
      continue;
    }
    if (x < boxes[k]!) boxes[k] = x;
    if (y < boxes[k + 1]!) boxes[k + 1] = y;
    if (x > boxes[k + 2]!) boxes[k + 2] = x;
    if (y > boxes[k + 3]!) boxes[k + 3] = y;
  }
  const support = new Map<number, ViewSupport>(
    order.map((v) => [v, { points: points[v]!, bbox: [boxes[4 * v]!, boxes[4 * v + 1]!, boxes[4 * v + 2]!, boxes[4 * v + 3]!] }]),
  );
  return { count: members.length, confidence: conf, rgb: [r, g, b], views: support };
}

/**
 * The per-voxel sums of a detection from one view (`memberVoxel[m]`: the voxel of `members[m]`). Members come
 * in pixel order, so a run of them shares a voxel (summed in locals started from its sums: the same additions
 * in the same order) and a pixel row (its row found by a division once per row, not per member).
 */
export function voxelStatsOf(cloud: PointCloud, members: Uint32Array, memberVoxel: Int32Array, voxels: number, view: number): VoxelStats {
  const sums = new Float64Array(SUMS * voxels);
  const boxes = new Int32Array(4 * voxels);
  for (let v = 0; v < voxels; v++) (boxes[4 * v] = boxes[4 * v + 1] = 2 ** 30), (boxes[4 * v + 2] = boxes[4 * v + 3] = -1);
  const W = cloud.imageWidth;
  const { confidence, rgb, pixel } = cloud;
  let v = -1,
    n = 0,
    conf = 0,
    r = 0,
    g = 0,
    b = 0,
    bx0 = 0,
    by0 = 0,
    bx1 = 0,
    by1 = 0;
  let y = 0,
    rowStart = 0,
    rowEnd = 0;
  for (let m = 0; m < members.length; m++) {
    const i = members[m]!,
      mv = memberVoxel[m]!;
    if (mv !== v) {
      if (v >= 0) flushVoxel(sums, boxes, v, n, conf, r, g, b, bx0, by0, bx1, by1);
      v = mv;
      const s = SUMS * v,
        k = 4 * v;
      (n = sums[s]!), (conf = sums[s + 1]!), (r = sums[s + 2]!), (g = sums[s + 3]!), (b = sums[s + 4]!);
      (bx0 = boxes[k]!), (by0 = boxes[k + 1]!), (bx1 = boxes[k + 2]!), (by1 = boxes[k + 3]!);
    }
    n++;
    conf += confidence[i]!;
    r += rgb[3 * i]!;
    g += rgb[3 * i + 1]!;
    b += rgb[3 * i + 2]!;
    const p = pixel[i]!;
    if (p >= rowEnd || p < rowStart) {
      y = Math.floor(p / W);
      rowStart = y * W;
      rowEnd = rowStart + W;
    }
    const x = p - rowStart;
    if (x < bx0) bx0 = x;
    if (y < by0) by0 = y;
    if (x > bx1) bx1 = x;
    if (y > by1) by1 = y;
  }
  if (v >= 0) flushVoxel(sums, boxes, v, n, conf, r, g, b, bx0, by0, bx1, by1);
  return { view, sums, boxes };
}

function flushVoxel(
  sums: Float64Array,
  boxes: Int32Array,
  v: number,
  n: number,
  conf: number,
  r: number,
  g: number,
  b: number,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
): void {
  const s = SUMS * v,
    k = 4 * v;
  (sums[s] = n), (sums[s + 1] = conf), (sums[s + 2] = r), (sums[s + 3] = g), (sums[s + 4] = b);
  (boxes[k] = x0), (boxes[k + 1] = y0), (boxes[k + 2] = x1), (boxes[k + 3] = y1);
}

export class StatsAccumulator {
  private count = 0;
  private confidence = 0;
  private readonly rgb: [number, number, number] = [0, 0, 0];
  private readonly views = new Map<number, ViewSupport>();

  private support(view: number): ViewSupport {
    let s = this.views.get(view);
    if (!s) this.views.set(view, (s = { points: 0, bbox: [2 ** 30, 2 ** 30, -1, -1] }));
    return s;
  }

  addPoint(view: number, confidence: number, r: number, g: number, b: number, x: number, y: number): void {
    this.count++;
    this.confidence += confidence;
    this.rgb[0] += r;
    this.rgb[1] += g;
    this.rgb[2] += b;
    const s = this.support(view);
    s.points++;
    if (x < s.bbox[0]) s.bbox[0] = x;
    if (y < s.bbox[1]) s.bbox[1] = y;
    if (x > s.bbox[2]) s.bbox[2] = x;
    if (y > s.bbox[3]) s.bbox[3] = y;
  }

  /** Adds the voxels `v` of a detection's per-voxel sums with `alive[v]` set. */
  addVoxels(vs: VoxelStats, alive: Uint8Array): void {
    const sup = this.support(vs.view);
    for (let v = 0; v < alive.length; v++) {
      if (!alive[v]) continue;
      const s = SUMS * v,
        b = 4 * v;
      const n = vs.sums[s]!;
      if (n === 0) continue;
      this.count += n;
      this.confidence += vs.sums[s + 1]!;
      this.rgb[0] += vs.sums[s + 2]!;
      this.rgb[1] += vs.sums[s + 3]!;
      this.rgb[2] += vs.sums[s + 4]!;
      sup.points += n;
      if (vs.boxes[b]! < sup.bbox[0]) sup.bbox[0] = vs.boxes[b]!;
      if (vs.boxes[b + 1]! < sup.bbox[1]) sup.bbox[1] = vs.boxes[b + 1]!;
      if (vs.boxes[b + 2]! > sup.bbox[2]) sup.bbox[2] = vs.boxes[b + 2]!;
      if (vs.boxes[b + 3]! > sup.bbox[3]) sup.bbox[3] = vs.boxes[b + 3]!;
    }
    if (sup.points === 0) this.views.delete(vs.view);
  }

  addStats(o: MemberStats): void {
    this.count += o.count;
    this.confidence += o.confidence;
    for (let k = 0; k < 3; k++) this.rgb[k]! += o.rgb[k]!;
    for (const [view, t] of o.views) {
      const s = this.support(view);
      s.points += t.points;
      s.bbox = [Math.min(s.bbox[0], t.bbox[0]), Math.min(s.bbox[1], t.bbox[1]), Math.max(s.bbox[2], t.bbox[2]), Math.max(s.bbox[3], t.bbox[3])];
    }
  }

  result(): MemberStats {
    return {
      count: this.count,
      confidence: this.confidence,
      rgb: [...this.rgb],
      views: new Map([...this.views].map(([v, s]) => [v, { points: s.points, bbox: [...s.bbox] }])),
    };
  }
}

/** The stats of two nodes merged into one (post-merge). */
export function mergedStats(a: MemberStats, b: MemberStats): MemberStats {
  const acc = new StatsAccumulator();
  acc.addStats(a);
  acc.addStats(b);
  return acc.result();
}
