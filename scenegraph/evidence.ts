/**
 * Evidence modes (design.md): what the graph builder may know about each pixel.
 * - semantic: a per-pixel category, no instance identity (like a semantic segmenter). Segments are the
 *   8-connected components of same-category pixels, so touching objects of one category merge and an
 *   object cut by an occluder splits.
 * - instance (default for 3D): per-view instance masks with view-local ids and a category (like a 2D
 *   instance segmenter): the 8-connected components of each object's visible pixels. Identity across
 *   views is not given and must be inferred, as in ConceptGraphs.
 * - oracle: the simulator's global object ids, the same in every view. A diagnostic upper bound only.
 * - none: no masks; geometry only, anonymous nodes.
 * Room structure (floor, walls) is known from the masks in every mode but `none`, where it is found
 * geometrically.
 */
import type { FrameBundle } from "../bridge/bundle/io.js";

export const MASK_MODES = ["semantic", "instance", "oracle", "none"] as const;
export type MaskMode = (typeof MASK_MODES)[number];

/** ConceptGraphs `mask_area_threshold`: smaller 2D masks are dropped as detections. */
export const MIN_MASK_AREA_PX = 25;

export interface Segment {
  /** Index in `segments`. */
  key: number;
  view: number;
  /** Category, or null in mode `none`. */
  label: string | null;
  /** Global simulator id: only in mode `oracle`. */
  globalId: number | null;
  areaPx: number;
  /** [x0, y0, x1, y1] pixel bounding box (inclusive). */
  bbox: [number, number, number, number];
}

export interface Evidence {
  mode: MaskMode;
  segments: Segment[];
  /** Per view, the segment of each pixel (-1: no segment: structure, background or a mask too small). */
  segmentOfPixel: Int32Array[];
  /** Instance ids that are room structure (floor, walls). */
  structureIds: Set<number>;
  width: number;
  height: number;
}

/** Labels 8-connected components of `key` (-1 = background) into `comp`; returns the component count. */
function connectedComponents(key: Int32Array, W: number, H: number, comp: Int32Array, queue: Int32Array): number {
  comp.fill(-1);
  let count = 0;
  for (let start = 0; start < W * H; start++) {
    const k = key[start]!;
    if (k < 0 || comp[start] !== -1) continue;
    let head = 0, tail = 0;
    queue[tail++] = start;
    comp[start] = count;
    while (head < tail) {
      const p = queue[head++]!;
      const x = p % W, y = (p - x) / W;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= H) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= W || (dx === 0 && dy === 0)) continue;
          const q = yy * W + xx;
          if (comp[q] === -1 && key[q] === k) {
            comp[q] = count;
            queue[tail++] = q;
          }
        }
      }
    }
    count++;
  }
  return count;
}

/** Evidence per bundle (by its views array) and mode: a unit of the runner needs it for every source and the 2D baseline. */
const evidenceCache = new WeakMap<object, Map<MaskMode, Evidence>>();

export function computeEvidence(bundle: Pick<FrameBundle, "manifest" | "views">, mode: MaskMode): Evidence {
  let byMode = evidenceCache.get(bundle.views);
  if (!byMode) evidenceCache.set(bundle.views, (byMode = new Map()));
  const cached = byMode.get(mode);
  if (cached) return cached;
  const ev = computeEvidenceUncached(bundle, mode);
  byMode.set(mode, ev);
  return ev;
}

function computeEvidenceUncached(bundle: Pick<FrameBundle, "manifest" | "views">, mode: MaskMode): Evidence {
  const { width: W, height: H } = bundle.manifest.image;
  const structureIds = new Set(bundle.manifest.instances.filter((e) => e.structure).map((e) => e.id));
  const category = new Map(bundle.manifest.instances.map((e) => [e.id, e.category]));
  const segments: Segment[] = [];
  const segmentOfPixel: Int32Array[] = [];
  const categoryIndex = new Map<string, number>();
  // scratch buffers shared by every view (fresh memory is expensive to touch here)
  const key = new Int32Array(W * H), comp = new Int32Array(W * H), queue = new Int32Array(W * H);
  // id -> segmentation key, as a table (a Set/Map lookup per pixel is the slow part over 6 M pixels)
  const keyOfId = new Int32Array(65536);
  for (let id = 0; id < 65536; id++) keyOfId[id] = id;
  keyOfId[0] = -1;
  for (const id of structureIds) keyOfId[id] = -1;
  if (mode === "semantic") {
    for (const e of bundle.manifest.instances) {
      if (e.structure) continue;
      if (!categoryIndex.has(e.category)) categoryIndex.set(e.category, categoryIndex.size);
      keyOfId[e.id] = categoryIndex.get(e.category)!;
    }
  }
  for (const v of bundle.views) {
    const map = new Int32Array(W * H).fill(-1);
    segmentOfPixel.push(map);
    if (mode === "none") continue;
    const ids = v.ids;
    for (let p = 0; p < W * H; p++) key[p] = keyOfId[ids[p]!]!;
    if (mode === "oracle") {
      // one segment per id per view; identity across views is the id itself (globalId)
      const byId = new Map<number, Segment>();
      for (let p = 0; p < W * H; p++) {
        const id = key[p]!;
        if (id < 0) continue;
        let s = byId.get(id);
        const x = p % W, y = (p - x) / W;
        if (!s) {
          s = { key: segments.length, view: v.index, label: category.get(id) ?? "unknown", globalId: id, areaPx: 0, bbox: [x, y, x, y] };
          byId.set(id, s);
          segments.push(s);
        }
        s.areaPx++;
        s.bbox = [Math.min(s.bbox[0], x), Math.min(s.bbox[1], y), Math.max(s.bbox[2], x), Math.max(s.bbox[3], y)];
        map[p] = s.key;
      }
      continue;
    }
    const count = connectedComponents(key, W, H, comp, queue);
    const local: Array<Segment | null> = new Array(count).fill(null);
    const firstPixel = new Int32Array(count).fill(-1);
    const area = new Int32Array(count);
    const bb = new Int32Array(count * 4);
    for (let p = 0; p < W * H; p++) {
      const c = comp[p]!;
      if (c < 0) continue;
      const x = p % W, y = (p - x) / W;
      if (area[c] === 0) {
        firstPixel[c] = p;
        bb.set([x, y, x, y], c * 4);
      } else {
        bb[c * 4] = Math.min(bb[c * 4]!, x);
        bb[c * 4 + 1] = Math.min(bb[c * 4 + 1]!, y);
        bb[c * 4 + 2] = Math.max(bb[c * 4 + 2]!, x);
        bb[c * 4 + 3] = Math.max(bb[c * 4 + 3]!, y);
      }
      area[c]!++;
    }
    for (let c = 0; c < count; c++) {
      if (area[c]! < MIN_MASK_AREA_PX) continue;
      const id = v.ids[firstPixel[c]!]!;
      const s: Segment = { key: segments.length, view: v.index, label: category.get(id) ?? "unknown", globalId: null, areaPx: area[c]!, bbox: [bb[c * 4]!, bb[c * 4 + 1]!, bb[c * 4 + 2]!, bb[c * 4 + 3]!] };
      segments.push(s);
      local[c] = s;
    }
    for (let p = 0; p < W * H; p++) {
      const c = comp[p]!;
      if (c >= 0 && local[c]) map[p] = local[c]!.key;
    }
  }
  return { mode, segments, segmentOfPixel, structureIds, width: W, height: H };
}
