/**
 * The `gt` point-cloud source: back-projects every valid depth pixel of the views a paradigm supplies,
 * with the bundle's own intrinsics and camera-from-world extrinsics. Only those views: an object no view
 * sees has no points.
 *
 *   X_cam = ((i - cx) d / fx, (j - cy) d / fy, d),  X_world = R^T (X_cam - t) = R^T X_cam + C
 */
import type { ViewData } from "../../core/bundle/io.js";
import { allocateCloud, truncateCloud, type CameraCentres, type CloudArena, type PointCloud } from "../pointcloud.js";
import { cameraCentre } from "../../core/math/camera.js";
import type { PixelBox } from "../../core/pixelBox.js";

export interface BackprojectOptions {
  /** Use every `stride`-th pixel in x and y (1 = all pixels). */
  stride?: number;
  /** Ignore depths beyond this (m); none by default. */
  maxDepthM?: number;
  /**
   * Leave out pixels whose instance id is in this set (e.g. room structure, when only objects matter):
   * fewer points, and on this machine fresh memory is expensive to touch (~2.5 ms per MB).
   */
  excludeIds?: ReadonlySet<number>;
  /** Reusable storage (see CloudArena): the returned cloud is valid until the arena's next use. */
  arena?: CloudArena;
  /**
   * Per view (in order), a box that holds every pixel whose id `excludeIds` does not leave out, or null
   * (the whole image): pixels outside it are not visited. The noisy source knows these boxes from its
   * needed pixels; without structure a view's objects fill about 39 % of it.
   */
  regions?: readonly (PixelBox | null)[];
}

const isValidDepth = (d: number, max: number) => d > 0 && d <= max; // NaN and Infinity fail both tests

export function backprojectViews(views: readonly ViewData[], categories: Map<number, string>, opts: BackprojectOptions = {}): PointCloud {
  const stride = opts.stride ?? 1;
  const maxDepth = opts.maxDepthM ?? Number.MAX_VALUE;
  const excluded = new Uint8Array(65536);
  for (const id of opts.excludeIds ?? []) excluded[id] = 1;
  if (views.length === 0) throw new Error("backprojectViews: no views");
  const W = views[0]!.width,
    H = views[0]!.height;
  // one pass: the columns are allocated for every pixel the stride visits and the cloud is their prefix.
  // Pages the pass never writes are never touched, so the unused tail costs address space, not memory
  // or time; a counting pass first cost a third of the back-projection.
  const capacity = views.length * Math.ceil(W / stride) * Math.ceil(H / stride);
  // each view's camera centre, C = -R^T t, as the back-projection places it (the region layer casts rays from it)
  const cameraCentres: CameraCentres = views.map((v) => [v.index, ...cameraCentre(v.E)]);
  const cloud = allocateCloud(
    capacity,
    {
      categories,
      imageWidth: W,
      imageHeight: H,
      source: "gt",
      meta: { views: views.length, stride, excluded_ids: [...(opts.excludeIds ?? [])], cameraCentres },
    },
    opts.arena,
  );
  const { xyz, rgb, view, pixel, instance } = cloud;
  const xn = new Float64Array(W),
    yn = new Float64Array(H),
    cam = new Float64Array(12);
  let k = 0;
  for (let vi = 0; vi < views.length; vi++) {
    const v = views[vi]!;
    const { fx, fy, cx, cy } = v.K;
    const E = v.E;
    for (let i = 0; i < W; i++) xn[i] = (i - cx) / fx;
    for (let j = 0; j < H; j++) yn[j] = (j - cy) / fy;
    // world = R^T X_cam + C, with C = -R^T t: R row by row, then C
    const r00 = E[0][0],
      r01 = E[0][1],
      r02 = E[0][2],
      r10 = E[1][0],
      r11 = E[1][1],
      r12 = E[1][2],
      r20 = E[2][0],
      r21 = E[2][1],
      r22 = E[2][2];
    const tx = E[0][3],
      ty = E[1][3],
      tz = E[2][3];
    cam.set([
      r00,
      r01,
      r02,
      r10,
      r11,
      r12,
      r20,
      r21,
      r22,
      -(r00 * tx + r10 * ty + r20 * tz),
      -(r01 * tx + r11 * ty + r21 * tz),
      -(r02 * tx + r12 * ty + r22 * tz),
    ]);
    const box = opts.regions?.[vi] ?? null;
    // the box's columns and rows, on the stride's grid
    const col0 = box ? Math.ceil(Math.max(0, box.x0) / stride) * stride : 0,
      col1 = box ? Math.min(W - 1, box.x1) : W - 1;
    const row1 = box ? Math.min(H - 1, box.y1) : H - 1;
    k = projectView(v.depth, v.ids, v.rgb, v.index, cam, xn, yn, W, col0, col1, row1, stride, maxDepth, excluded, xyz, rgb, view, pixel, instance, k);
  }
  const out = truncateCloud(cloud, k);
  out.confidence.fill(1);
  return out;
}

/**
 * Writes the points of one view (depth, ids and colour `col`, index `vi`, camera `cam` as backprojectViews
 * packs it; columns col0..col1 of rows 0..row1, on the stride's grid) from point k on, and returns the next
 * k. A function of its own on typed arrays and numbers: the callers' view objects come in several shapes
 * (rendered, read, noisy), and inside backprojectViews each new one made V8 discard and recompile the whole
 * function (17 compilations in a 12-unit run).
 */
function projectView(
  depth: Float32Array,
  ids: Uint16Array,
  col: Uint8Array,
  vi: number,
  cam: Float64Array,
  xn: Float64Array,
  yn: Float64Array,
  W: number,
  col0: number,
  col1: number,
  row1: number,
  stride: number,
  maxDepth: number,
  excluded: Uint8Array,
  xyz: Float32Array,
  rgb: Uint8Array,
  view: Uint16Array,
  pixel: Uint32Array,
  instance: Uint16Array,
  k: number,
): number {
  const r00 = cam[0]!,
    r01 = cam[1]!,
    r02 = cam[2]!,
    r10 = cam[3]!,
    r11 = cam[4]!,
    r12 = cam[5]!,
    r20 = cam[6]!,
    r21 = cam[7]!,
    r22 = cam[8]!;
  const Cx = cam[9]!,
    Cy = cam[10]!,
    Cz = cam[11]!;
  // An excluded id is skipped by a branch (ids come in runs: it is predicted), but a pixel without depth is
  // written to slot k anyway and k moves on only for a valid depth: the noisy source drops a random quarter
  // of the pixels, and a branch on that was mispredicted as often (1.05 -> 0.78 ms per dropped view). Slot k
  // lies within the columns (k never passes the pixels visited, and the capacity is every pixel) and past
  // the cloud's prefix, so what a skipped pixel leaves there is not part of the cloud.
  for (let j = 0; j <= row1; j += stride) {
    const y = yn[j]!;
    for (let i = col0, p = j * W + col0; i <= col1; i += stride, p += stride) {
      const id = ids[p]!;
      if (excluded[id]) continue;
      const d = depth[p]!;
      const X = xn[i]! * d,
        Y = y * d;
      xyz[3 * k] = r00 * X + r10 * Y + r20 * d + Cx;
      xyz[3 * k + 1] = r01 * X + r11 * Y + r21 * d + Cy;
      xyz[3 * k + 2] = r02 * X + r12 * Y + r22 * d + Cz;
      rgb[3 * k] = col[3 * p]!;
      rgb[3 * k + 1] = col[3 * p + 1]!;
      rgb[3 * k + 2] = col[3 * p + 2]!;
      view[k] = vi;
      pixel[k] = p;
      instance[k] = id;
      k += isValidDepth(d, maxDepth) ? 1 : 0;
    }
  }
  return k;
}
