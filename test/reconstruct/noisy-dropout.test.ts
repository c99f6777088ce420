/**
 * Dropout ranks pixels by log-confidence buckets and computes the confidence's exponential only in the band
 * around the cut (reconstruct/noisy/dropout.ts): the same cut, bit for bit, as ranking every pixel's
 * float32 confidence, and the ordering its proof rests on.
 */
import { describe, expect, it } from "vitest";
import { applyDropoutCut, BUCKET_WIDTH, dropoutCut, EXACT_GUARD_LOG, LogBuckets } from "../../reconstruct/noisy/dropout.js";
import { confidenceOf, NO_DEPTH_LOG } from "../../reconstruct/noisy/confidence.js";
import { kthSmallestAtLeastOne } from "../../reconstruct/noisy/filters.js";
import { Rng } from "../../src/core/math/rng.js";

/** The reference: every pixel's confidence ranked, ties dropped in point order. */
function plainDropout(logMaps: Float64Array[], K: number): { threshold: number; depths: Float32Array[] } {
  const conf = logMaps.map((L) => Float32Array.from(L, (x) => (x === x ? confidenceOf(x) : 0)));
  const { value, below } = kthSmallestAtLeastOne(conf, K - 1);
  let ties = K - below;
  const depths = conf.map((c) => {
    const d = new Float32Array(c.length).fill(1);
    for (let q = 0; q < c.length; q++) {
      if (c[q]! < 1 || c[q]! > value) continue;
      if (c[q] === value && ties-- <= 0) continue;
      d[q] = 0;
    }
    return d;
  });
  return { threshold: value, depths };
}

describe("noisy dropout by log-confidence buckets", () => {
  it("floats of confidences one bucket apart are ordered wherever the band may sit (a dense grid of L)", () => {
    const gap = BUCKET_WIDTH - 2 ** -47;
    let bad = 0;
    for (let L = EXACT_GUARD_LOG; L <= 16; L += 2 ** -13) if (!(confidenceOf(L - gap) < confidenceOf(L))) bad++;
    const rng = new Rng("dropout-grid");
    for (let i = 0; i < 200000; i++) {
      const L = EXACT_GUARD_LOG + 24 * rng.next();
      if (!(confidenceOf(L - gap - 10 * rng.next()) < confidenceOf(L))) bad++;
    }
    expect(bad).toBe(0);
  });

  it("cuts exactly where ranking every confidence does: ties, pixels without depth, a cut below the guard", () => {
    const rng = new Rng("dropout-cut");
    const maps = (lowShare: number) => [0, 1, 2].map(() => Float64Array.from({ length: 4000 }, () => {
      const u = rng.next();
      if (u < 0.05) return NO_DEPTH_LOG;
      if (u < 0.1) return 1.25; // many equal confidences
      if (u < 0.1 + lowShare) return -30 + 25 * rng.next(); // where confidences flatten towards 1
      return -3 + 8 * rng.next();
    }));
    for (const low of [0, 0.5]) {
      const logMaps = maps(low);
      const valid = logMaps.reduce((s, L) => s + L.filter((x) => x === x).length, 0);
      for (const K of [1, 7, Math.round(0.5 * valid), Math.round(0.58 * valid), valid - 1, valid]) {
        const ref = plainDropout(logMaps, K);
        const buckets = new LogBuckets();
        for (const L of logMaps) buckets.add(L, new Uint16Array(L.length));
        const cut = dropoutCut(logMaps, buckets, K);
        let ties = cut.ties;
        const depths = logMaps.map((L, i) => {
          const d = new Float32Array(L.length).fill(1);
          ties = applyDropoutCut(L, buckets.maps[i]!, d, cut, ties);
          return d;
        });
        expect(cut.threshold, `K ${K}`).toBe(ref.threshold);
        expect(ties).toBe(0);
        depths.forEach((d, i) => expect(Buffer.from(d.buffer).equals(Buffer.from(ref.depths[i]!.buffer)), `K ${K} view ${i}`).toBe(true));
      }
    }
  });
});
