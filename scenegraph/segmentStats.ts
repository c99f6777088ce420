/**
 * Per-segment pixel sums of an evidence's masks, in one pass over the views: what the appearance labels read
 * (area, mean luma, the id a mask shows) and what the 2D baseline reads (centroid, mean colour). A unit's
 * appearance arms and its 2D baseline read the same masks of the same views, so the sums are made once per
 * evidence and kept (by its segment maps) instead of once per reader.
 */
import type { FrameBundle } from "../core/bundle/io.js";
import { segmentBoxes, segmentedIds, type Evidence } from "./evidence.js";

/** Sums per segment key. */
export interface SegmentPixelStats {
  /** pixels */
  n: Int32Array;
  /** sums of x and y (pixel columns and rows) */
  sx: Float64Array;
  sy: Float64Array;
  /** sums of r, g, b */
  r: Float64Array;
  g: Float64Array;
  b: Float64Array;
  /** sum of Rec. 601 luma (0.299 r + 0.587 g + 0.114 b), added in raster order */
  luma: Float64Array;
  /** the id of its first pixel, and whether any pixel shows another id (the ids its masks were made from: evidence.ts segmentedIds) */
  firstId: Int32Array;
  mixed: Uint8Array;
}

type Views = ReadonlyArray<Pick<FrameBundle["views"][number], "index" | "rgb" | "ids" | "reflectedIds">>;

/** Kept by the evidence's segment maps (one array per evidence; appearance labels keep it), with the views read. */
const cache = new WeakMap<Int32Array[], { segments: number; rgb: Uint8Array[]; stats: SegmentPixelStats }>();

export function segmentPixelStats(ev: Pick<Evidence, "mode" | "structureIds" | "segments" | "segmentOfPixel" | "width">, views: Views): SegmentPixelStats {
  const hit = cache.get(ev.segmentOfPixel);
  // the same segments over the same pixels (an evidence that grows a view at a time has more of both; a
  // relabelled bundle's views are new objects over the same rgb arrays)
  if (hit && hit.segments === ev.segments.length && hit.rgb.length === views.length && hit.rgb.every((rgb, i) => rgb === views[i]!.rgb)) return hit.stats;
  const S = ev.segments.length;
  const stats: SegmentPixelStats = {
    n: new Int32Array(S),
    sx: new Float64Array(S),
    sy: new Float64Array(S),
    r: new Float64Array(S),
    g: new Float64Array(S),
    b: new Float64Array(S),
    luma: new Float64Array(S),
    firstId: new Int32Array(S),
    mixed: new Uint8Array(S),
  };
  const boxes = segmentBoxes(ev, views);
  for (let vi = 0; vi < views.length; vi++) {
    const box = boxes[vi];
    if (!box) continue;
    const W = ev.width;
    // the ids the masks were made from: a mask of an object's reflection shows that object
    const ids = segmentedIds(ev, views[vi]!);
    for (let y = box[1]; y <= box[3]; y++) sumRow(ev.segmentOfPixel[vi]!, views[vi]!.rgb, ids, y * W + box[0], y * W + box[2] + 1, y, W, stats);
  }
  cache.set(ev.segmentOfPixel, { segments: S, rgb: views.map((v) => v.rgb), stats });
  return stats;
}

/**
 * Adds pixels from..to-1 of row y to their segments' sums, by runs of one segment. Exact as pixel by pixel:
 * counts, coordinates and colours are sums of integers (x by the series' formula), and a run's luma is added
 * in a local started from the segment's sum, the same additions in the same order. A loop function of its
 * own (docs/design.md: hot loops and the JIT).
 */
function sumRow(map: Int32Array, rgb: Uint8Array, ids: Uint16Array, from: number, to: number, y: number, W: number, st: SegmentPixelStats): void {
  const { n, luma, firstId, mixed } = st;
  for (let p = from; p < to; ) {
    const s = map[p]!;
    if (s < 0) {
      p++;
      continue;
    }
    if (n[s] === 0) firstId[s] = ids[p]!;
    const id = firstId[s]!;
    let q = p,
      o = 3 * p,
      rr = 0,
      gg = 0,
      bb = 0,
      other = 0,
      sum = luma[s]!;
    do {
      const cr = rgb[o]!,
        cg = rgb[o + 1]!,
        cb = rgb[o + 2]!;
      rr += cr;
      gg += cg;
      bb += cb;
      sum += 0.299 * cr + 0.587 * cg + 0.114 * cb;
      if (ids[q] !== id) other = 1;
      o += 3;
      q++;
    } while (q < to && map[q] === s);
    const len = q - p,
      x0 = p - y * W;
    luma[s] = sum;
    n[s]! += len;
    st.sx[s]! += ((2 * x0 + len - 1) * len) / 2;
    st.sy[s]! += y * len;
    st.r[s]! += rr;
    st.g[s]! += gg;
    st.b[s]! += bb;
    if (other) mixed[s] = 1;
    p = q;
  }
}
