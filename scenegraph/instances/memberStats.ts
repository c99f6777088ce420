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

/** Stats read point by point (nodes that are not fused from single-view detections: oracle, dbscan). */
export function statsOfMembers(cloud: PointCloud, members: Uint32Array): MemberStats {
  const acc = new StatsAccumulator();
  const W = cloud.imageWidth;
  for (const i of members) {
    const p = cloud.pixel[i]!;
    const x = p % W;
    acc.addPoint(cloud.view[i]!, cloud.confidence[i]!, cloud.rgb[3 * i]!, cloud.rgb[3 * i + 1]!, cloud.rgb[3 * i + 2]!, x, (p - x) / W);
  }
  return acc.result();
}

/** The per-voxel sums of a detection from one view (`memberVoxel[m]`: the voxel of `members[m]`). */
export function voxelStatsOf(cloud: PointCloud, members: Uint32Array, memberVoxel: Int32Array, voxels: number, view: number): VoxelStats {
  const sums = new Float64Array(SUMS * voxels);
  const boxes = new Int32Array(4 * voxels);
  for (let v = 0; v < voxels; v++) (boxes[4 * v] = boxes[4 * v + 1] = 2 ** 30), (boxes[4 * v + 2] = boxes[4 * v + 3] = -1);
  const W = cloud.imageWidth;
  const { confidence, rgb, pixel } = cloud;
  for (let m = 0; m < members.length; m++) {
    const i = members[m]!, v = memberVoxel[m]!;
    const s = SUMS * v, b = 4 * v;
    sums[s]!++;
    sums[s + 1]! += confidence[i]!;
    sums[s + 2]! += rgb[3 * i]!;
    sums[s + 3]! += rgb[3 * i + 1]!;
    sums[s + 4]! += rgb[3 * i + 2]!;
    const p = pixel[i]!;
    const y = Math.floor(p / W), x = p - y * W;
    if (x < boxes[b]!) boxes[b] = x;
    if (y < boxes[b + 1]!) boxes[b + 1] = y;
    if (x > boxes[b + 2]!) boxes[b + 2] = x;
    if (y > boxes[b + 3]!) boxes[b + 3] = y;
  }
  return { view, sums, boxes };
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
      const s = SUMS * v, b = 4 * v;
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
    for (let k = 0; k < 3; k++) this.rgb[k] += o.rgb[k]!;
    for (const [view, t] of o.views) {
      const s = this.support(view);
      s.points += t.points;
      s.bbox = [Math.min(s.bbox[0], t.bbox[0]), Math.min(s.bbox[1], t.bbox[1]), Math.max(s.bbox[2], t.bbox[2]), Math.max(s.bbox[3], t.bbox[3])];
    }
  }

  result(): MemberStats {
    return { count: this.count, confidence: this.confidence, rgb: [...this.rgb], views: new Map([...this.views].map(([v, s]) => [v, { points: s.points, bbox: [...s.bbox] }])) };
  }
}

/** The stats of two nodes merged into one (post-merge). */
export function mergedStats(a: MemberStats, b: MemberStats): MemberStats {
  const acc = new StatsAccumulator();
  acc.addStats(a);
  acc.addStats(b);
  return acc.result();
}
