/**
 * The dropout's choice made on log-confidences (reconstruct/noisy/dropout.ts) against its definition: sort
 * every pixel's float32 confidence fround(1 + exp(L)), ties in point order, and drop the lowest
 * K = round(fraction · pixels with depth).
 */
import { describe, expect, it } from "vitest";
import { applyDropout, dropOverConfidences, LogConfidenceHistogram } from "../../reconstruct/noisy/dropout.js";
import { Rng } from "../../core/math/rng.js";

/** The definition: the dropped (view, pixel) pairs and the K-th smallest confidence. */
function reference(logs: Float64Array[], fraction: number): { dropped: Set<string>; threshold: number | null } {
  const all: Array<{ c: number; i: number; q: number }> = [];
  logs.forEach((a, i) =>
    a.forEach((L, q) => {
      if (!Number.isNaN(L)) all.push({ c: Math.fround(1 + Math.exp(L)), i, q });
    }),
  );
  // a stable sort by confidence keeps point order among ties
  all.sort((x, y) => x.c - y.c);
  const K = Math.round(fraction * all.length);
  return { dropped: new Set(all.slice(0, K).map((p) => `${p.i}/${p.q}`)), threshold: K > 0 ? all[K - 1]!.c : null };
}

function droppedOf(before: Float32Array[], after: Float32Array[]): Set<string> {
  const out = new Set<string>();
  after.forEach((d, i) =>
    d.forEach((x, q) => {
      if (x === 0 && before[i]![q] !== 0) out.add(`${i}/${q}`);
    }),
  );
  return out;
}

/** Views of log-confidences from `draw`, and depths that are all 1 (so a dropped pixel shows as 0). */
function views(rng: Rng, count: number, size: number, draw: (rng: Rng) => number): { logs: Float64Array[]; depths: Float32Array[] } {
  const logs = Array.from({ length: count }, () => Float64Array.from({ length: size }, () => draw(rng)));
  return { logs, depths: logs.map((a) => Float32Array.from(a, () => 1)) };
}

const CASES: Array<[string, (rng: Rng) => number, number]> = [
  ["typical L with pixels without depth", (r) => (r.next() < 0.1 ? NaN : 3 + 1.5 * r.normal()), 0.25],
  ["many confidences exactly 1 (L far below 0), cut among them", (r) => (r.next() < 0.6 ? -40 - 10 * r.next() : r.normal()), 0.5],
  ["few distinct values: long runs of ties", (r) => [0.5, 1, 1.5][r.int(0, 2)]!, 0.4],
  ["L beyond the histogram's range on both sides", (r) => (r.next() < 0.3 ? -1000 * r.next() - 16 : r.next() < 0.5 ? 16 + 40 * r.next() : 4 * r.normal()), 0.3],
  ["neighbouring doubles around one value", (r) => 2 + r.int(-50, 50) * 2 ** -50, 0.5],
  ["one pixel with depth", (r) => (r.next() < 0.999 ? NaN : 1), 1],
  ["nothing dropped (K = 0)", (r) => r.normal(), 0.00001],
];

describe("dropout on log-confidences", () => {
  for (const [name, draw, fraction] of CASES) {
    it(`drops exactly the pixels of the definition: ${name}`, () => {
      const rng = new Rng(name);
      const { logs, depths } = views(rng, 3, 2000, draw);
      const want = reference(logs, fraction);
      const histogram = new LogConfidenceHistogram();
      for (const a of logs) histogram.add(a);
      expect(histogram.total).toBe(logs.reduce((n, a) => n + a.filter((L) => !Number.isNaN(L)).length, 0));

      const fast = depths.map((d) => d.slice());
      const cut = applyDropout(logs, histogram, fast, fraction);
      expect(cut).not.toBe("unproven");
      expect(droppedOf(depths, fast)).toEqual(want.dropped);
      expect(cut === null ? null : (cut as { threshold: number }).threshold).toBe(want.threshold);

      // the fallback over every confidence makes the same choice
      const slow = depths.map((d) => d.slice());
      const slowCut = dropOverConfidences(logs, slow, fraction);
      expect(droppedOf(depths, slow)).toEqual(want.dropped);
      expect(slowCut?.threshold ?? null).toBe(want.threshold);
      expect(slowCut?.dropped ?? 0).toBe(want.dropped.size);
    });
  }
});
