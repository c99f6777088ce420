/**
 * The noisy source's fast paths that must reproduce a reference computation bit for bit: image filters,
 * the partial build of a cloud without structure, and a second build from one bundle (the per-thread scratch
 * buffers must carry nothing from one build to the next).
 */
import { describe, expect, it } from "vitest";
import {
  boxMean,
  correlatedField,
  countAndKthAtLeastOne,
  depthDiscontinuities,
  FieldScratch,
  dilate,
  heavyTail,
  isValid,
  kthSmallestValid,
  lumaGradient,
  scaled,
} from "../../reconstruct/noisy/filters.js";
import { medianDepth } from "../../reconstruct/noisy/mono.js";
import { CONF_TEXTURE_GRAD, EDGE_MIN_JUMP_M, EDGE_REL_JUMP } from "../../reconstruct/noisy/params.js";
import { Rng } from "../../core/math/rng.js";
import type { FrameBundle } from "../../core/bundle/io.js";
import { noisyPointCloud } from "../../reconstruct/noisy/index.js";
import { filterCloud, type PointCloud } from "../../reconstruct/pointcloud.js";
import { bytes, metaOf, realBundle, sameArrays } from "./noisyHelpers.js";

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
      const { total, kth } = countAndKthAtLeastOne(conf, (n) => (n === all.length ? k : -1));
      expect(total).toBe(all.length);
      expect(kth!.k).toBe(k);
      expect(kth!.value).toBe(all[k]);
      expect(kth!.below).toBe(all.filter((x) => x < kth!.value).length);
    }
    // no k: the count alone
    expect(countAndKthAtLeastOne(conf, () => null)).toEqual({ total: all.length, kth: null });
  });
});

describe("depthDiscontinuities", () => {
  it("marks both pixels of every horizontal or vertical pair of valid depths that jumps (brute force), with 0, NaN, infinite and negative depths", () => {
    const rng = new Rng("edges");
    const odd = [0, NaN, Infinity, -Infinity, -1, Number.MAX_VALUE];
    for (const [W, H] of [
      [31, 17],
      [1, 9],
      [12, 1],
      [1, 1],
      [64, 48],
    ] as const) {
      // plateaus with steps of all sizes, near and far, and some depths that are not measurements
      const depth = Float32Array.from({ length: W * H }, (_, p) =>
        rng.next() < 0.05 ? odd[rng.int(0, odd.length - 1)]! : 0.2 + 3 * Math.floor(((p % W) + rng.next() * 3) / 7) * rng.next(),
      );
      const out = new Uint8Array(W * H).fill(9);
      const n = depthDiscontinuities(depth, W, H, out);
      const want = new Uint8Array(W * H);
      // a discontinuity: a step over EDGE_MIN_JUMP_M and over EDGE_REL_JUMP of the nearer depth
      const isJump = (a: number, b: number) => Math.abs(a - b) > EDGE_MIN_JUMP_M && Math.abs(a - b) > EDGE_REL_JUMP * Math.min(a, b);
      const pair = (p: number, q: number) => {
        if (isValid(depth[p]!) && isValid(depth[q]!) && isJump(depth[p]!, depth[q]!)) want[p] = want[q] = 1;
      };
      for (let y = 0; y < H; y++)
        for (let x = 0; x < W; x++) {
          if (x + 1 < W) pair(y * W + x, y * W + x + 1);
          if (y + 1 < H) pair(y * W + x, (y + 1) * W + x);
        }
      expect(Buffer.from(out).equals(Buffer.from(want)), `${W}x${H}`).toBe(true);
      expect(n).toBe(want.reduce((a, b) => a + b, 0));
      if (W * H > 100) expect(n, "the map has edges to find").toBeGreaterThan((W * H) / 20);
    }
  });
});

describe("dilate", () => {
  it("sets exactly the pixels within Chebyshev distance r of a set pixel (brute force), at every size and radius", () => {
    const rng = new Rng("dilate");
    // sparse masks take the stamping path, dense ones (more than DILATE_STAMP_BUDGET stamped per pixel) the separable one
    for (const [W, H, r, density] of [
      [37, 23, 2, 0.02],
      [37, 23, 2, 0.5],
      [16, 40, 0, 0.1],
      [5, 5, 9, 0.05],
      [1, 7, 1, 0.3],
      [64, 3, 3, 0.01],
      [20, 20, 1, 0],
      [300, 200, 2, 0.004],
    ] as const) {
      const mask = Uint8Array.from({ length: W * H }, () => (rng.next() < density ? 1 : 0));
      const want = new Uint8Array(W * H);
      for (let y = 0; y < H; y++)
        for (let x = 0; x < W; x++) {
          for (let v = Math.max(0, y - r); v <= Math.min(H - 1, y + r); v++)
            for (let u = Math.max(0, x - r); u <= Math.min(W - 1, x + r); u++) if (mask[v * W + u]) want[y * W + x] = 1;
        }
      // the mask as its own array (read a word at a time) and at an odd offset in a larger one (byte by byte)
      const unaligned = new Uint8Array(W * H + 1).subarray(1);
      unaligned.set(mask);
      for (const [name, m] of [
        ["aligned", mask],
        ["unaligned", unaligned],
      ] as const) {
        const out = new Uint8Array(W * H).fill(7),
          tmp = new Uint8Array(W * H);
        dilate(m, W, H, r, out, tmp);
        expect(Buffer.from(out).equals(Buffer.from(want)), `${W}x${H} r ${r}, ${name}`).toBe(true);
      }
    }
  });
});

describe("boxMean", () => {
  it("equals the column-by-column running sums it replaces, bit for bit", () => {
    const rng = new Rng("box");
    for (const [W, H, r] of [
      [37, 23, 3],
      [16, 40, 16],
      [5, 5, 9],
      [1, 7, 2],
    ] as const) {
      const src = Float32Array.from({ length: W * H }, () => rng.normal());
      const out = new Float32Array(W * H),
        tmp = new Float32Array(W * H);
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
      const y = H >> 1,
        x = W >> 1;
      let s = 0,
        n = 0;
      for (let k = Math.max(0, x - r); k <= Math.min(W - 1, x + r); k++, n++) s += src[y * W + k]!;
      expect(tmp[y * W + x]).toBeCloseTo(s / n, 5);
    }
  });
});

describe("correlatedField", () => {
  it("inside a box gives the whole image's field bit for bit, for even and odd padded widths, white noise and an empty box", () => {
    for (const [W, H, r] of [
      [37, 23, 2],
      [40, 31, 3],
      [9, 6, 1],
      [15, 11, 0],
    ] as const) {
      const full = new Float32Array(W * H);
      const kFull = correlatedField(new Rng(`field ${W}`), W, H, r, full, new FieldScratch());
      for (const box of [
        { x0: 0, x1: W - 1, y1: H - 1 },
        { x0: 3, x1: W - 5, y1: H >> 1 },
        { x0: W - 1, x1: W - 1, y1: 0 },
        { x0: 0, x1: 0, y1: H - 2 },
        { x0: 2, x1: 4, y1: 4 },
      ]) {
        const part = new Float32Array(W * H).fill(NaN);
        expect(correlatedField(new Rng(`field ${W}`), W, H, r, part, new FieldScratch(), box)).toBe(kFull);
        for (let y = 0; y <= box.y1; y++) {
          const from = y * W + (r > 0 ? box.x0 : 0),
            to = y * W + (r > 0 ? box.x1 : W - 1) + 1;
          expect(Buffer.from(part.slice(from, to).buffer).equals(Buffer.from(full.slice(from, to).buffer))).toBe(true);
        }
        // nothing below the box is computed (the rows it would need are not even drawn)
        if (r > 0 && box.y1 < H - 1) expect(part[(box.y1 + 1) * W + box.x0]).toBeNaN();
      }
      const none = new Float32Array(4).fill(NaN);
      expect(correlatedField(new Rng("none"), W, H, r, none, new FieldScratch(), { x0: W, x1: -1, y1: -1 })).toBe(kFull);
      expect([...none].every((v) => Number.isNaN(v))).toBe(true);
    }
  });
});

describe("noisy cloud builds", () => {
  const b = realBundle("counting_with_occlusion", "builds", "multi", 3);
  const structure = new Set(b.manifest.instances.filter((e) => e.structure).map((e) => e.id));
  const fresh = (): FrameBundle => ({
    ...b,
    views: b.views.map((v) => ({ ...v, depth: new Float32Array(v.depth), rgb: new Uint8Array(v.rgb), ids: new Uint16Array(v.ids) })),
  });
  const json = (c: PointCloud) => JSON.stringify(c.meta);

  it("without the structure ids, keeps exactly the points of the whole cloud that are not structure (the skipped pixels are never read)", () => {
    for (const level of [0.5, 1.25, 2]) {
      const whole = noisyPointCloud(fresh(), { noiseLevel: level, noiseSeed: "x" });
      const part = noisyPointCloud(fresh(), { noiseLevel: level, noiseSeed: "x", excludeIds: structure });
      // the part's pixels per view: every non-structure point, and phantom label patches on the structure
      const inPart = new Map(b.views.map((v) => [v.index, new Uint8Array(v.width * v.height)] as const));
      for (let j = 0; j < part.count; j++) inPart.get(part.view[j]!)![part.pixel[j]!] = 1;
      const keep = Uint8Array.from(whole.instance, (id, k) => (!structure.has(id) || inPart.get(whole.view[k]!)![whole.pixel[k]!] ? 1 : 0));
      const expected = filterCloud(whole, keep);
      expect(part.count).toBeGreaterThan(0);
      expect(part.count).toBeLessThan(whole.count);
      expect(sameArrays(part, expected)).toBe(true);
      // every count of what the model did is the same; only the counts of points in the cloud differ
      const made = (c: PointCloud) => {
        const { points: _p, flyingKept: _f, blobPointsKept: _b, phantomPointsKept: _k, ...rest } = metaOf(c).counts;
        return rest;
      };
      expect(made(part)).toEqual(made(whole));
    }
  });

  it("builds the same cloud again from one bundle as from a fresh copy (reused scratch buffers carry nothing over), and no cloud's meta is another's", () => {
    const once = fresh();
    const opts = { noiseLevel: 1.25, noiseSeed: "y", excludeIds: structure };
    const first = noisyPointCloud(once, opts),
      firstMeta = json(first);
    metaOf(first).poses.length = 0;
    metaOf(first).labels.swaps.push({ view: 0, id: 1, from: "a", to: "b", lookalike: false, fakeId: 60000 });
    const second = noisyPointCloud(once, opts),
      other = noisyPointCloud(fresh(), opts);
    expect(sameArrays(second, other)).toBe(true);
    expect(json(second)).toBe(firstMeta);
    expect(json(other)).toBe(firstMeta);
    // another level of the same bundle is its own build
    expect(sameArrays(noisyPointCloud(once, { ...opts, noiseLevel: 0.5 }), noisyPointCloud(fresh(), { ...opts, noiseLevel: 0.5 }))).toBe(true);
  });
});

describe("heavy tail at power 3", () => {
  /** sign of x - a^3, exactly (x and a doubles), by integer mantissas */
  const view = new DataView(new ArrayBuffer(8));
  const parts = (x: number): [bigint, number] => {
    view.setFloat64(0, x);
    const hi = view.getUint32(0),
      lo = view.getUint32(4),
      ex = (hi >>> 20) & 0x7ff;
    let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
    if (ex) m |= 1n << 52n;
    return [m, (ex || 1) - 1075];
  };
  const errorOf = (x: number, a: number): bigint => {
    const [mx, ex] = parts(x),
      [ma, ea] = parts(a),
      e = Math.min(ex, 3 * ea);
    const d = (mx << BigInt(ex - e)) - ((ma ** 3n) << BigInt(3 * ea - e));
    return d < 0n ? -d : d;
  };

  it("f*f*f is the correctly rounded cube of a float32, never farther from it than Math.pow(f, 3)", () => {
    const rng = new Rng("cube");
    const f = new Float32Array(1);
    let powOff = 0;
    for (let i = 0; i < 20_000; i++) {
      f[0] = (rng.next() + 0.01) * 4;
      const a = f[0]!,
        mul = a * a * a,
        pow = Math.pow(a, 3);
      if (mul === pow) continue;
      powOff++;
      // <=: an exact cube halfway between two doubles ties (f*f*f rounds it to even)
      expect(errorOf(mul, a) <= errorOf(pow, a)).toBe(true);
    }
    // the reason the fast path exists: Math.pow is off for a real share of inputs
    expect(powOff).toBeGreaterThan(500);
  });

  it("stores the same float32 field as the Math.pow form on a view-sized Gaussian field", () => {
    const rng = new Rng("tail");
    const n = 518 * 392,
      a = new Float32Array(n);
    for (let p = 0; p < n; p++) a[p] = Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
    const b = new Float32Array(a);
    const unit = { mean: 0, sd: 1 };
    const fast = heavyTail(a, unit, 3);
    let sum = 0,
      sum2 = 0;
    for (let p = 0; p < n; p++) {
      const f = scaled(b[p]!, unit),
        h = Math.sign(f) * Math.pow(Math.abs(f), 3);
      b[p] = h;
      sum += h;
      sum2 += h * h;
    }
    expect(Buffer.from(a.buffer).equals(Buffer.from(b.buffer))).toBe(true);
    expect(Math.abs(fast.mean - sum / n)).toBeLessThan(1e-15);
    const sd = Math.sqrt(sum2 / n - (sum / n) ** 2);
    expect(Math.abs(fast.sd - sd) / sd).toBeLessThan(1e-14);
    let scaledDiffer = 0;
    for (let p = 0; p < n; p++) if (scaled(a[p]!, fast) !== scaled(b[p]!, { mean: sum / n, sd })) scaledDiffer++;
    expect(scaledDiffer).toBe(0);
  });
});

describe("lumaGradient", () => {
  // the definition, pixel by pixel: |∂x| + |∂y| of the Rec. 601 luma, central differences (halved) inside
  // and one-sided differences at the border
  function reference(rgb: Uint8Array, W: number, H: number): { luma: Float32Array; grad: Float32Array } {
    const luma = new Float32Array(W * H),
      grad = new Float32Array(W * H);
    for (let p = 0; p < W * H; p++) luma[p] = 0.299 * rgb[3 * p]! + 0.587 * rgb[3 * p + 1]! + 0.114 * rgb[3 * p + 2]!;
    const at = (x: number, y: number) => luma[y * W + x]!;
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const l = Math.max(0, x - 1),
          r = Math.min(W - 1, x + 1),
          u = Math.max(0, y - 1),
          d = Math.min(H - 1, y + 1);
        const kx = l < x && x < r ? 0.5 : 1,
          ky = u < y && y < d ? 0.5 : 1;
        grad[y * W + x] = kx * Math.abs(at(r, y) - at(l, y)) + ky * Math.abs(at(x, d) - at(x, u));
      }
    return { luma, grad };
  }
  it("gives the definition's luma and gradient bit for bit, one-pixel-wide and one-pixel-high images included", () => {
    const rng = new Rng("luma");
    for (const [W, H] of [
      [1, 1],
      [1, 5],
      [5, 1],
      [2, 2],
      [3, 4],
      [17, 9],
    ] as const) {
      const rgb = new Uint8Array(3 * W * H).map(() => rng.int(0, 255));
      const luma = new Float32Array(W * H),
        grad = new Float32Array(W * H);
      lumaGradient(rgb, W, H, luma, grad);
      const ref = reference(rgb, W, H);
      expect(bytes(luma).equals(bytes(ref.luma)), `${W}x${H} luma`).toBe(true);
      expect(bytes(grad).equals(bytes(ref.grad)), `${W}x${H} gradient`).toBe(true);
    }
  });
});

describe("confidence constants", () => {
  it("keeps the texture threshold a power of two, so the confidence's multiplication by its inverse is its division", () => {
    expect(Number.isInteger(Math.log2(CONF_TEXTURE_GRAD))).toBe(true);
  });
});
