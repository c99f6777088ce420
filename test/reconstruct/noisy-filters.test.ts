/** The noisy source's image filters that must reproduce a reference computation bit for bit. */
import { describe, expect, it } from "vitest";
import { boxMean, hypot3, kthSmallestAtLeastOne, kthSmallestValid } from "../../reconstruct/noisy/filters.js";
import { medianDepth } from "../../reconstruct/noisy/mono.js";
import { Rng } from "../../src/core/math/rng.js";

describe("hypot3", () => {
  it("is Math.hypot bit for bit, on random magnitudes over 24 decades and on the special values", () => {
    const rng = new Rng("hypot3");
    const r = () => {
      const k = rng.next();
      if (k < 0.05) return 0;
      if (k < 0.1) return -0;
      return (rng.next() - 0.5) * 10 ** (Math.floor(rng.next() * 24) - 12);
    };
    let differ = 0;
    for (let i = 0; i < 200_000; i++) {
      const x = r(), y = r(), z = r();
      if (!Object.is(hypot3(x, y, z), Math.hypot(x, y, z))) differ++;
    }
    expect(differ).toBe(0);
    const special = [NaN, Infinity, -Infinity, 0, -0, 1e308, -1e308, 5e-324, 1, -3];
    for (const x of special) for (const y of special) for (const z of special) expect(Object.is(hypot3(x, y, z), Math.hypot(x, y, z)), `${x} ${y} ${z}`).toBe(true);
  });
});

describe("order statistics", () => {
  it("kthSmallestValid and medianDepth equal a full sort of the valid depths", () => {
    const rng = new Rng("kth");
    const d = new Float32Array(5001);
    for (let q = 0; q < d.length; q++) {
      const k = rng.next();
      d[q] = k < 0.1 ? 0 : k < 0.12 ? NaN : k < 0.14 ? Infinity : k < 0.16 ? -1 : k < 0.3 ? 2.5 : k < 0.4 ? 2.5 + 1e-6 * rng.int(0, 3) : 0.1 + 9 * rng.next();
    }
    const sorted = Float32Array.from(d.filter((x) => x > 0 && x <= Number.MAX_VALUE)).sort();
    for (const k of [0, 1, 17, sorted.length >> 1, sorted.length - 1]) expect(kthSmallestValid(d, [k])).toEqual([sorted[k]]);
    expect(kthSmallestValid(d, [3, sorted.length - 2])).toEqual([sorted[3], sorted[sorted.length - 2]]);
    const m = sorted.length >> 1;
    expect(medianDepth(d)).toBe(sorted.length % 2 ? sorted[m] : (sorted[m - 1]! + sorted[m]!) / 2);
    expect(medianDepth(d.subarray(0, 1000))).toBe(medianDepth(Float32Array.from(d.subarray(0, 1000))));
    expect(medianDepth(new Float32Array(4))).toBe(0);
    const conf = [Float32Array.from(d, (x) => (x > 0 ? 1 + x : 0)), new Float32Array([0.5, 3, 1])];
    const all = Float32Array.from([...conf[0]!, ...conf[1]!].filter((x) => x >= 1)).sort();
    for (const k of [0, 5, all.length >> 1, all.length - 1]) {
      const { value, below } = kthSmallestAtLeastOne(conf, k);
      expect(value).toBe(all[k]);
      expect(below).toBe(all.filter((x) => x < value).length);
    }
  });
});

describe("boxMean", () => {
  it("equals the column-by-column running sums it replaces, bit for bit", () => {
    const rng = new Rng("box");
    for (const [W, H, r] of [[37, 23, 3], [16, 40, 16], [5, 5, 9], [1, 7, 2]] as const) {
      const src = Float32Array.from({ length: W * H }, () => rng.normal());
      const out = new Float32Array(W * H), tmp = new Float32Array(W * H);
      boxMean(src, W, H, r, out, tmp);
      // reference: the same running sums, walked down each column
      const ref = new Float32Array(W * H);
      for (let x = 0; x < W; x++) {
        let s = 0;
        for (let y = 0; y <= Math.min(r, H - 1); y++) s += tmp[y * W + x]!;
        for (let y = 0; y < H; y++) {
          ref[y * W + x] = s / (Math.min(H - 1, y + r) - Math.max(0, y - r) + 1);
          if (y + r + 1 < H) s += tmp[(y + r + 1) * W + x]!;
          if (y - r >= 0) s -= tmp[(y - r) * W + x]!;
        }
      }
      expect(Buffer.from(out.buffer).equals(Buffer.from(ref.buffer))).toBe(true);
      // and the row pass left in tmp is the clipped row mean
      const y = H >> 1, x = W >> 1;
      let s = 0, n = 0;
      for (let k = Math.max(0, x - r); k <= Math.min(W - 1, x + r); k++, n++) s += src[y * W + k]!;
      expect(tmp[y * W + x]).toBeCloseTo(s / n, 5);
    }
  });
});
