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
 * The semantic and instance masks show what the RGB shows (core/bundle/apparentIds.ts): a mirror pixel that
 * reflects an object belongs to that object's mask, as a 2D detector would label it; the oracle's masks keep
 * the simulator's ids (segmentedIds).
 */
import type { FrameBundle } from "../core/bundle/io.js";
import { apparentIds } from "../core/bundle/apparentIds.js";
import { RunComponents } from "./primitives/runComponents.js";
import type { MaskMode } from "./options.js";

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
  /** The detector's class scores (sum 1) under `--labels appearance` (appearance.ts); absent: the label alone. */
  scores?: Record<string, number>;
  /**
   * Most of its pixels lie in a mirror's glass, showing what the mirror reflects: the mask lies inside the mirror's
   * own mask, as a detector reports both (scenegraph/mirrors.ts reads it). Absent otherwise.
   */
  inMirror?: true;
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

/** [x0, y0, x1, y1], inclusive: a pixel box. */
export type SegmentBox = [number, number, number, number];

/**
 * Per view of `views` (by position, as `segmentOfPixel`), the box around the pixels of its segments, or null
 * when it has none: every pixel whose segment is not -1 lies inside, so a pass over those pixels reads only it.
 */
export function segmentBoxes(ev: Pick<Evidence, "segments">, views: ReadonlyArray<{ index: number }>): Array<SegmentBox | null> {
  const byView = new Map<number, SegmentBox>();
  for (const { view, bbox } of ev.segments) {
    const b = byView.get(view);
    if (!b) byView.set(view, [...bbox]);
    else (b[0] = Math.min(b[0], bbox[0])), (b[1] = Math.min(b[1], bbox[1])), (b[2] = Math.max(b[2], bbox[2])), (b[3] = Math.max(b[3], bbox[3]));
  }
  return views.map((v) => byView.get(v.index) ?? null);
}

/** The instance ids of room structure (floor, walls) in a bundle's instance table. */
export function structureIdsOf(manifest: Pick<FrameBundle["manifest"], "instances">): Set<number> {
  return new Set(manifest.instances.filter((e) => e.structure).map((e) => e.id));
}

/**
 * The ids a view's masks are made from in the evidence's mode. Semantic and instance masks take the apparent ids
 * (what a segmenter sees: an object's reflection is that object). The oracle keeps the simulator's ids, a
 * reflection pixel being the mirror's: its identity is global, so a reflection given the object's id would join
 * the object's node across views and fuse two places into one, where the oracle is meant as the upper bound of
 * association, not a detector.
 */
export function segmentedIds(ev: Pick<Evidence, "mode" | "structureIds">, view: Pick<FrameBundle["views"][number], "ids" | "reflectedIds">): Uint16Array {
  return ev.mode === "semantic" || ev.mode === "instance" ? apparentIds(view, ev.structureIds) : view.ids;
}

/**
 * Each pixel's segmentation key (`keyOfId` of its id; -1 = background) into `key`, and the foreground
 * pixels in order into `fg`; returns how many. A loop function of its own (docs/design.md: hot loops and
 * the JIT): inside addView, V8 left its code for the loop at the next line on most views.
 */
function keyPixels(ids: Uint16Array, n: number, keyOfId: Int32Array, key: Int32Array, fg: Int32Array): number {
  let fgCount = 0;
  for (let p = 0; p < n; p++) {
    const k = keyOfId[ids[p]!]!;
    key[p] = k;
    if (k >= 0) fg[fgCount++] = p;
  }
  return fgCount;
}

/**
 * Evidence per bundle (by its views array) and mode: a unit of the runner needs it for every source and the
 * 2D baseline, and the label arms of one noisy cloud share its relabelled bundle (scenegraph/pipeline.ts
 * labelledFor).
 */
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

type InstanceEntry = FrameBundle["manifest"]["instances"][number];

/** Whether two instance-table entries say the same of their id (all the evidence reads of one). */
const sameEntry = (a: InstanceEntry, b: InstanceEntry) => a.id === b.id && a.category === b.category && a.structure === b.structure;

function computeEvidenceUncached(bundle: Pick<FrameBundle, "manifest" | "views">, mode: MaskMode): Evidence {
  const b = new EvidenceBuilder(bundle.manifest, mode);
  const instances = bundle.manifest.instances;
  for (const v of bundle.views) {
    const ids = segmentedIds(b.evidence, v);
    const seen = viewSegments.get(ids)?.find((e) => e.mode === mode && e.index === v.index && showsOnlyTableOf(ids, e.instances, instances));
    if (seen) {
      b.addSegments(seen);
      continue;
    }
    const first = b.evidence.segments.length;
    b.addView(v);
    const list = viewSegments.get(ids) ?? viewSegments.set(ids, []).get(ids)!;
    list.push({ mode, index: v.index, instances, first, segments: b.evidence.segments.slice(first), map: b.evidence.segmentOfPixel.at(-1)! });
  }
  return b.evidence;
}

/**
 * One view's segments as a batch evidence found them (keys from `first`), by the ids image they were made from
 * (segmentedIds): a noisy cloud's relabelled bundle keeps every view it does not relabel, ids array and all, so
 * its evidence takes those views' segments instead of finding them again.
 */
interface ViewSegments {
  mode: MaskMode;
  index: number;
  instances: readonly InstanceEntry[];
  first: number;
  segments: Segment[];
  map: Int32Array;
}

const viewSegments = new WeakMap<Uint16Array, ViewSegments[]>();

/**
 * Whether a view's segments under the instance table `now` are those under `then`: `now` is `then` with
 * entries appended (the noisy source's fake ids) and the view shows none of the appended ids, so every id it
 * shows keeps its category, structure flag and segmentation key.
 */
function showsOnlyTableOf(ids: Uint16Array, then: readonly InstanceEntry[], now: readonly InstanceEntry[]): boolean {
  if (now === then) return true;
  if (now.length < then.length) return false;
  for (let k = 0; k < then.length; k++) if (!sameEntry(now[k]!, then[k]!)) return false;
  const mark = (v: number) => {
    for (let k = then.length; k < now.length; k++) APPENDED[now[k]!.id] = v;
  };
  mark(1);
  let shows = false;
  for (let p = 0; p < ids.length && !shows; p++) if (APPENDED[ids[p]!]) shows = true;
  mark(0);
  return !shows;
}

/** showsOnlyTableOf's marks of the appended ids, cleared after each check (a relabelled bundle checks every view). */
const APPENDED = new Uint8Array(65536);

/**
 * Evidence that grows one view at a time (the active paradigm adds a view per step). A view's segments
 * depend on that view alone, so the evidence after the last view is the batch one's.
 */
export class EvidenceBuilder {
  readonly evidence: Evidence;
  private readonly category: Map<number, string>;
  /** oracle mode: each pixel's key and the foreground pixels, made at its first view */
  private key = new Int32Array(0);
  private fg = new Int32Array(0);
  /** instance and semantic modes: each view's components */
  private readonly components: RunComponents;
  private readonly keyOfId = new Int32Array(65536);
  /** oracle mode: a view's segment (index among the view's new ones) per id, -1 between views */
  private readonly segOfId = new Int32Array(65536).fill(-1);
  private readonly semanticIndex = new Map<string, number>();

  constructor(
    manifest: Pick<FrameBundle["manifest"], "image" | "instances">,
    readonly mode: MaskMode,
  ) {
    const { width: W, height: H } = manifest.image;
    const structureIds = structureIdsOf(manifest);
    this.category = new Map(manifest.instances.map((e) => [e.id, e.category]));
    this.evidence = { mode, segments: [], segmentOfPixel: [], structureIds, width: W, height: H };
    // scratch shared by every view (fresh memory is expensive to touch here)
    this.components = new RunComponents(W, H);
    // id -> segmentation key, as a table (a Set/Map lookup per pixel is the slow part over 6 M pixels)
    const keyOfId = this.keyOfId;
    for (let id = 0; id < 65536; id++) keyOfId[id] = id;
    keyOfId[0] = -1;
    for (const id of structureIds) keyOfId[id] = -1;
    if (mode === "semantic") {
      const categoryIndex = this.semanticIndex;
      for (const e of manifest.instances) {
        if (e.structure) continue;
        if (!categoryIndex.has(e.category)) categoryIndex.set(e.category, categoryIndex.size);
        keyOfId[e.id] = categoryIndex.get(e.category)!;
      }
    }
  }

  /** Adds instance-table entries met later (the noisy source's fake label ids, one view at a time). */
  addInstances(entries: ReadonlyArray<{ id: number; category: string; structure: boolean }>): void {
    for (const e of entries) {
      if (this.category.has(e.id) || e.structure) continue;
      this.category.set(e.id, e.category);
      if (this.mode === "semantic") {
        if (!this.semanticIndex.has(e.category)) this.semanticIndex.set(e.category, this.semanticIndex.size);
        this.keyOfId[e.id] = this.semanticIndex.get(e.category)!;
      }
    }
  }

  /** Adds a view's segments found before (ViewSegments), their keys moved to continue the evidence's. */
  addSegments(seen: Pick<ViewSegments, "first" | "segments" | "map">): void {
    const { segments, segmentOfPixel } = this.evidence;
    const shift = segments.length - seen.first;
    for (const s of seen.segments) segments.push({ ...s, key: s.key + shift, bbox: [...s.bbox] });
    if (shift === 0) {
      segmentOfPixel.push(seen.map);
      return;
    }
    const map = new Int32Array(seen.map.length);
    for (let p = 0; p < map.length; p++) map[p] = seen.map[p]! < 0 ? -1 : seen.map[p]! + shift;
    segmentOfPixel.push(map);
  }

  /** Adds one view's segments (their keys continue the evidence's); returns their keys. */
  addView(v: Pick<FrameBundle["views"][number], "index" | "ids" | "reflectedIds">): number[] {
    const { mode, category, keyOfId } = this;
    const { segments, segmentOfPixel, width: W, height: H } = this.evidence;
    const first = segments.length;
    const map = new Int32Array(W * H).fill(-1);
    segmentOfPixel.push(map);
    if (mode === "none") return [];
    const ids = segmentedIds(this.evidence, v);
    if (mode === "oracle") {
      if (this.key.length !== W * H) (this.key = new Int32Array(W * H)), (this.fg = new Int32Array(W * H));
      const { key, fg } = this;
      const fgCount = keyPixels(ids, W * H, keyOfId, key, fg);
      // one segment per id per view, numbered in order of first appearance; identity across views is the id
      // itself (globalId). Counted over the foreground pixels through a table per id (a Map lookup and a
      // fresh box per pixel were the slow part of a 30-view bundle)
      const { segOfId } = this;
      const made: Segment[] = [];
      for (let f = 0; f < fgCount; f++) {
        const p = fg[f]!,
          id = key[p]!;
        let s = segOfId[id]!;
        if (s < 0) {
          s = made.length;
          segOfId[id] = s;
          const x = p % W,
            y = (p - x) / W;
          made.push({ key: first + s, view: v.index, label: category.get(id) ?? "unknown", globalId: id, areaPx: 0, bbox: [x, y, x, y] });
        }
        const seg = made[s]!,
          box = seg.bbox,
          x = p % W,
          y = (p - x) / W;
        seg.areaPx++;
        if (x < box[0]) box[0] = x;
        if (x > box[2]) box[2] = x;
        // pixels come in row order: y never decreases, so y0 is the first row seen
        if (y > box[3]) box[3] = y;
        map[p] = seg.key;
      }
      for (const seg of made) {
        segOfId[seg.globalId!] = -1;
        segments.push(seg);
      }
    } else {
      // segments are the components of at least MIN_MASK_AREA_PX pixels, keyed in raster order of their first pixel
      const { components } = this;
      components.label(ids, keyOfId);
      const segmentOfComponent = new Int32Array(components.count);
      for (let c = 0; c < components.count; c++) {
        const areaPx = components.area[c]!;
        if (areaPx < MIN_MASK_AREA_PX) {
          segmentOfComponent[c] = -1;
          continue;
        }
        const id = ids[components.firstPixel[c]!]!;
        segmentOfComponent[c] = segments.length;
        segments.push({
          key: segments.length,
          view: v.index,
          label: category.get(id) ?? "unknown",
          globalId: null,
          areaPx,
          bbox: [components.x0[c]!, components.y0[c]!, components.x1[c]!, components.y1[c]!],
        });
      }
      components.paint(map, segmentOfComponent);
      if (ids !== v.ids) markInMirror(segments, first, map, ids, v.ids);
    }
    return Array.from({ length: segments.length - first }, (_, i) => first + i);
  }
}

/**
 * Marks `inMirror` on the segments from `first` whose pixels are mostly reflections: where the apparent ids
 * differ from the instance image, a mirror's surface shows another object.
 */
function markInMirror(segments: Segment[], first: number, map: Int32Array, apparent: Uint16Array, ids: Uint16Array): void {
  const reflected = new Int32Array(segments.length - first);
  for (let p = 0; p < map.length; p++) if (map[p]! >= 0 && apparent[p] !== ids[p]) reflected[map[p]! - first]!++;
  reflected.forEach((n, k) => {
    if (2 * n > segments[first + k]!.areaPx) segments[first + k]!.inMirror = true;
  });
}
