/**
 * The per-segment pixel passes read a view by runs of one segment (scenegraph/appearance.ts segmentPixels,
 * src/reason/symbolic2d.ts sumSegmentPixels). They must give exactly the sums of the pixel-by-pixel passes
 * they replace: the same doubles, the same segment order and the same first and mixed ids, on segment maps
 * with runs that cross row ends, single pixels, and segments that show several ids.
 */
import { describe, expect, it } from "vitest";
import { Rng } from "../../src/core/math/rng.js";
import { segmentPixels } from "../../scenegraph/appearance.js";
import { computeEvidence, segmentBoxes, type SegmentBox } from "../../scenegraph/evidence.js";
import { sumSegmentPixels } from "../../src/reason/symbolic2d.js";
import { generatedBundle } from "./helpers.js";

/** The box around a map's pixels that have a segment (what segmentBoxes gives from the segments' boxes). */
function tightBox(map: Int32Array, W: number): SegmentBox {
  const b: SegmentBox = [W, Infinity, -1, -1];
  for (let p = 0; p < map.length; p++) {
    if (map[p]! < 0) continue;
    const x = p % W, y = Math.floor(p / W);
    (b[0] = Math.min(b[0], x)), (b[1] = Math.min(b[1], y)), (b[2] = Math.max(b[2], x)), (b[3] = Math.max(b[3], y));
  }
  return b;
}

/**
 * A segment map of runs (segment -1 between, and around a margin of `margin` pixels), its rgb, and ids
 * mostly one per segment with some strays.
 */
function view(rng: Rng, W: number, H: number, segments: number, margin = 0) {
  const map = new Int32Array(W * H).fill(-1), ids = new Uint16Array(W * H), rgb = new Uint8Array(3 * W * H);
  for (let p = 0; p < map.length; ) {
    const s = rng.next() < 0.3 ? -1 : rng.int(0, segments - 1), len = rng.int(1, 2 * W);
    for (let j = 0; j < len && p < map.length; j++, p++) {
      const x = p % W, y = Math.floor(p / W);
      if (x < margin || y < margin || x >= W - margin || y >= H - margin) continue;
      map[p] = s;
      ids[p] = s < 0 ? 0 : rng.next() < 0.02 ? 500 + s : 100 + s;
    }
  }
  for (let i = 0; i < rgb.length; i++) rgb[i] = rng.int(0, 255);
  return { map, ids, rgb };
}

/** The passes as they were, pixel by pixel. */
function lumaByPixel(v: ReturnType<typeof view>, segments: number) {
  const n = new Int32Array(segments), luma = new Float64Array(segments), id0 = new Int32Array(segments), mixed = new Uint8Array(segments), order: number[] = [];
  for (let p = 0; p < v.map.length; p++) {
    const s = v.map[p]!;
    if (s < 0) continue;
    if (n[s]!++ === 0) (order.push(s), (id0[s] = v.ids[p]!));
    else if (v.ids[p] !== id0[s]) mixed[s] = 1;
    luma[s]! += 0.299 * v.rgb[3 * p]! + 0.587 * v.rgb[3 * p + 1]! + 0.114 * v.rgb[3 * p + 2]!;
  }
  return { order: order.map((s) => ({ key: s, n: n[s]!, luma: luma[s]!, mixed: mixed[s]! })), id0 };
}

function sumsByPixel(map: Int32Array, rgb: Uint8Array, W: number, sums: Float64Array[]): void {
  const [sx, sy, n, r, g, b] = sums as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
  for (let p = 0; p < map.length; p++) {
    const s = map[p]!;
    if (s < 0) continue;
    const x = p % W;
    sx[s] += x;
    sy[s] += (p - x) / W;
    n[s]++;
    r[s] += rgb[3 * p]!;
    g[s] += rgb[3 * p + 1]!;
    b[s] += rgb[3 * p + 2]!;
  }
}

describe("per-segment pixel sums by runs", () => {
  const rng = new Rng("segment-sums");
  // [W, H, segments, margin]: the tight box is the whole view or an inner part of it
  const cases = [[1, 1, 1, 0], [7, 3, 2, 0], [64, 48, 9, 0], [64, 48, 9, 5], [518, 39, 40, 0], [518, 39, 40, 11]] as const;

  it("segmentPixels gives the pixel-by-pixel counts, luma sums (bit for bit), order and ids", () => {
    for (const [W, H, S, margin] of cases) {
      const v = view(rng, W, H, S, margin);
      const want = lumaByPixel(v, S);
      const got = segmentPixels(v, v.map, S, tightBox(v.map, W), W);
      expect(got.map((a) => ({ key: a.key, n: a.n, luma: a.luma }))).toEqual(want.order.map(({ key, n, luma }) => ({ key, n, luma })));
      // a segment showing one id keeps its first id; a mixed one is given its dominant id (not checked here)
      for (const [j, a] of got.entries()) if (!want.order[j]!.mixed) expect(a.id).toBe(want.id0[a.key]);
    }
  });

  it("sumSegmentPixels gives the pixel-by-pixel sums, accumulated over several views", () => {
    for (const [W, H, S, margin] of cases) {
      const got = Array.from({ length: 6 }, () => new Float64Array(S)), want = Array.from({ length: 6 }, () => new Float64Array(S));
      for (let k = 0; k < 3; k++) {
        const v = view(rng, W, H, S, margin);
        sumSegmentPixels(v.map, v.rgb, W, tightBox(v.map, W), got[0]!, got[1]!, got[2]!, got[3]!, got[4]!, got[5]!);
        sumsByPixel(v.map, v.rgb, W, want);
      }
      expect(got).toEqual(want);
    }
  });

  it("segmentBoxes hold every pixel of a view's segments and no more than their boxes", () => {
    const bundle = generatedBundle("counting_with_occlusion", "segment-boxes", 0, "multi");
    for (const mode of ["instance", "semantic", "oracle"] as const) {
      const ev = computeEvidence(bundle, mode);
      const boxes = segmentBoxes(ev, bundle.views);
      bundle.views.forEach((_, vi) => {
        const map = ev.segmentOfPixel[vi]!, box = boxes[vi];
        if (!box) return expect(map.every((s) => s < 0)).toBe(true);
        expect(box).toEqual(tightBox(map, ev.width));
      });
    }
  });
});
