/**
 * The per-segment pixel sums (scenegraph/segmentStats.ts) read each view's segment box by runs of one segment,
 * once per evidence for the appearance labels and the 2D baseline. They must give exactly the sums of the
 * pixel-by-pixel passes they replace (appearance's luma pass, symbolic-2d's centroid and colour pass): the
 * same doubles and the same first and mixed ids, on segment maps with runs that cross row ends, single
 * pixels, margins outside every segment and segments that show several ids.
 */
import { describe, expect, it } from "vitest";
import { Rng } from "../../core/math/rng.js";
import { computeEvidence, segmentBoxes, type Evidence, type SegmentBox } from "../../scenegraph/evidence.js";
import { segmentPixelStats } from "../../scenegraph/segmentStats.js";
import { generatedBundle } from "./helpers.js";

/** The box around a map's pixels that have a segment (what segmentBoxes gives from the segments' boxes). */
function tightBox(map: Int32Array, W: number): SegmentBox {
  const b: SegmentBox = [W, Infinity, -1, -1];
  for (let p = 0; p < map.length; p++) {
    if (map[p]! < 0) continue;
    const x = p % W,
      y = Math.floor(p / W);
    (b[0] = Math.min(b[0], x)), (b[1] = Math.min(b[1], y)), (b[2] = Math.max(b[2], x)), (b[3] = Math.max(b[3], y));
  }
  return b;
}

/**
 * A segment map of runs (segment -1 between, and around a margin of `margin` pixels), its rgb, and ids
 * mostly one per segment with some strays.
 */
function view(rng: Rng, W: number, H: number, segments: number, margin = 0) {
  const map = new Int32Array(W * H).fill(-1),
    ids = new Uint16Array(W * H),
    rgb = new Uint8Array(3 * W * H);
  for (let p = 0; p < map.length; ) {
    const s = rng.next() < 0.3 ? -1 : rng.int(0, segments - 1),
      len = rng.int(1, 2 * W);
    for (let j = 0; j < len && p < map.length; j++, p++) {
      const x = p % W,
        y = Math.floor(p / W);
      if (x < margin || y < margin || x >= W - margin || y >= H - margin) continue;
      map[p] = s;
      ids[p] = s < 0 ? 0 : rng.next() < 0.02 ? 500 + s : 100 + s;
    }
  }
  for (let i = 0; i < rgb.length; i++) rgb[i] = rng.int(0, 255);
  return { map, ids, rgb };
}

/** The passes as they were, pixel by pixel. */
function lumaByPixel(v: { map: Int32Array; ids: Uint16Array; rgb: Uint8Array }, segments: number) {
  const n = new Int32Array(segments),
    luma = new Float64Array(segments),
    id0 = new Int32Array(segments),
    mixed = new Uint8Array(segments),
    order: number[] = [];
  for (let p = 0; p < v.map.length; p++) {
    const s = v.map[p]!;
    if (s < 0) continue;
    if (n[s]!++ === 0) order.push(s), (id0[s] = v.ids[p]!);
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
    sx[s]! += x;
    sy[s]! += (p - x) / W;
    n[s]!++;
    r[s]! += rgb[3 * p]!;
    g[s]! += rgb[3 * p + 1]!;
    b[s]! += rgb[3 * p + 2]!;
  }
}

/** Evidence over generated views: each segment's box from its pixels (as the builder's are, tight). */
function evidenceOf(views: Array<ReturnType<typeof view>>, W: number, S: number): Evidence {
  const segments = Array.from({ length: views.length * S }, (_, key) => {
    const vi = Math.floor(key / S),
      s = key % S,
      map = views[vi]!.map;
    const own = Int32Array.from(map, (x) => (x === s ? 0 : -1));
    return { key, view: vi, label: "x", globalId: null, areaPx: 0, bbox: tightBox(own, W) };
  }).filter((seg) => seg.bbox[2] >= 0);
  // keys as the builder gives them: per view, its segments continue the keys of the views before
  const keyOf = new Map(segments.map((seg, k) => [`${seg.view}/${seg.key % S}`, k]));
  const segmentOfPixel = views.map((v, vi) => Int32Array.from(v.map, (x) => (x < 0 ? -1 : keyOf.get(`${vi}/${x}`)!)));
  return {
    mode: "instance",
    segments: segments.map((seg, k) => ({ ...seg, key: k })),
    segmentOfPixel,
    structureIds: new Set(),
    width: W,
    height: views[0]!.map.length / W,
  };
}

describe("per-segment pixel sums by runs", () => {
  const rng = new Rng("segment-sums");
  // [W, H, segments, margin]: the tight box is the whole view or an inner part of it
  const cases = [
    [1, 1, 1, 0],
    [7, 3, 2, 0],
    [64, 48, 9, 0],
    [64, 48, 9, 5],
    [518, 39, 40, 0],
    [518, 39, 40, 11],
  ] as const;

  it("give the pixel-by-pixel counts, luma sums (bit for bit), centroid and colour sums, first and mixed ids", () => {
    let mixedSegments = 0;
    for (const [W, H, S, margin] of cases) {
      const views = [0, 1, 2].map(() => view(rng, W, H, S, margin));
      const ev = evidenceOf(views, W, S);
      const got = segmentPixelStats(
        ev,
        views.map((v, index) => ({ index, rgb: v.rgb, ids: v.ids })),
      );
      const K = ev.segments.length;
      const want = { n: new Int32Array(K), luma: new Float64Array(K), firstId: new Int32Array(K), mixed: new Uint8Array(K) };
      const sums = Array.from({ length: 6 }, () => new Float64Array(K));
      views.forEach((v, vi) => {
        const map = ev.segmentOfPixel[vi]!,
          one = lumaByPixel({ ...v, map }, K);
        for (const { key, n, luma, mixed } of one.order)
          (want.n[key] = n), (want.luma[key] = luma), (want.mixed[key] = mixed), (want.firstId[key] = one.id0[key]!);
        sumsByPixel(map, v.rgb, W, sums);
      });
      expect(got.n).toEqual(want.n);
      expect(got.luma).toEqual(want.luma);
      expect(got.firstId).toEqual(want.firstId);
      expect(got.mixed).toEqual(want.mixed);
      expect([got.sx, got.sy, Float64Array.from(got.n), got.r, got.g, got.b]).toEqual(sums);
      mixedSegments += want.mixed.reduce((t, m) => t + m, 0);
    }
    expect(mixedSegments).toBeGreaterThan(10);
  });

  it("are made once per evidence and views, and anew when either differs", () => {
    const views = [view(rng, 20, 10, 3)];
    const ev = evidenceOf(views, 20, 3);
    const vs = views.map((v, index) => ({ index, rgb: v.rgb, ids: v.ids }));
    const first = segmentPixelStats(ev, vs);
    expect(
      segmentPixelStats(
        { ...ev, segments: ev.segments.map((s) => ({ ...s, label: "y" })) },
        vs.map((v) => ({ ...v })),
      ),
    ).toBe(first);
    const repainted = vs.map((v) => ({ ...v, rgb: v.rgb.map((c) => 255 - c) }));
    const other = segmentPixelStats(ev, repainted);
    expect(other).not.toBe(first);
    expect(other.n).toEqual(first.n);
    expect(other.r).not.toEqual(first.r);
  });

  it("segmentBoxes hold every pixel of a view's segments and no more than their boxes", () => {
    const bundle = generatedBundle("counting_with_occlusion", "segment-boxes", 0, "multi");
    for (const mode of ["instance", "semantic", "oracle"] as const) {
      const ev = computeEvidence(bundle, mode);
      const boxes = segmentBoxes(ev, bundle.views);
      bundle.views.forEach((_, vi) => {
        const map = ev.segmentOfPixel[vi]!,
          box = boxes[vi];
        if (!box) return expect(map.every((s) => s < 0)).toBe(true);
        expect(box).toEqual(tightBox(map, ev.width));
      });
    }
  });
});
