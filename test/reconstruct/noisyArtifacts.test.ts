/**
 * The `noisy` source's artefacts on real bundles from the built-in simulator (and one synthetic view):
 * flying pixels at depth discontinuities, the synthetic confidence and dropout, and spurious blobs.
 * Each check recomputes what it needs (discontinuities, bands, nearest surfaces) with its own simple code.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { FrameBundle, ViewData } from "../../core/bundle/io.js";
import type { Mat34 } from "../../core/math/vec.js";
import { Rng } from "../../core/math/rng.js";
import type { BundleManifest } from "../../core/bundle/schema.js";
import type { PointCloud } from "../../reconstruct/pointcloud.js";
import {
  BLOB_OFFSET_MIN_FRACTION,
  CONF_EDGE_BAND_PX,
  EDGE_MIN_JUMP_M,
  EDGE_REL_JUMP,
  FLYING_T_MARGIN,
  noisyPointCloud,
  resolveNoiseParams,
  syntheticConfidence,
} from "../../reconstruct/noisy/index.js";
import { gtOf, metaOf, realBundle } from "./noisyHelpers.js";

/** The vggt-like preset: the effective parameters at level 1, every component on. */
const PRESET = resolveNoiseParams({ noiseLevel: 1, noiseSeed: "preset" });

const valid = (d: number) => d > 0 && Number.isFinite(d);
/** Camera-frame coordinates of a world point. */
function toCam(E: Mat34, c: PointCloud, k: number): [number, number, number] {
  const x = c.xyz[3 * k]!,
    y = c.xyz[3 * k + 1]!,
    z = c.xyz[3 * k + 2]!;
  return [0, 1, 2].map((r) => E[r]![0]! * x + E[r]![1]! * y + E[r]![2]! * z + E[r]![3]!) as [number, number, number];
}
/** Indices of points whose position differs from gt (same order: same count required). */
function changedPoints(c: PointCloud, gt: PointCloud): number[] {
  expect(c.count).toBe(gt.count);
  const out: number[] = [];
  for (let k = 0; k < c.count; k++)
    if (c.xyz[3 * k] !== gt.xyz[3 * k] || c.xyz[3 * k + 1] !== gt.xyz[3 * k + 1] || c.xyz[3 * k + 2] !== gt.xyz[3 * k + 2]) out.push(k);
  return out;
}
/** Pixels within Chebyshev distance r of a depth discontinuity (brute force, from the definition). */
function edgeBand(v: ViewData, r: number): Uint8Array {
  const { width: W, height: H, depth } = v;
  const disc = new Uint8Array(W * H);
  const jump = (a: number, b: number) => valid(a) && valid(b) && Math.abs(a - b) > EDGE_MIN_JUMP_M && Math.abs(a - b) > EDGE_REL_JUMP * Math.min(a, b);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const p = y * W + x;
      if (x + 1 < W && jump(depth[p]!, depth[p + 1]!)) disc[p] = disc[p + 1] = 1;
      if (y + 1 < H && jump(depth[p]!, depth[p + W]!)) disc[p] = disc[p + W] = 1;
    }
  const band = new Uint8Array(W * H);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      if (!disc[y * W + x]) continue;
      for (let yy = Math.max(0, y - r); yy <= Math.min(H - 1, y + r); yy++)
        for (let xx = Math.max(0, x - r); xx <= Math.min(W - 1, x + r); xx++) band[yy * W + xx] = 1;
    }
  return band;
}
/** Min and max valid depth in the (2R+1)² window around pixel p. */
function windowRange(v: ViewData, p: number, R: number): [number, number] {
  const { width: W, height: H, depth } = v;
  const x = p % W,
    y = (p - x) / W;
  let lo = Infinity,
    hi = -Infinity;
  for (let yy = Math.max(0, y - R); yy <= Math.min(H - 1, y + R); yy++)
    for (let xx = Math.max(0, x - R); xx <= Math.min(W - 1, x + R); xx++) {
      const d = depth[yy * W + xx]!;
      if (!valid(d)) continue;
      lo = Math.min(lo, d);
      hi = Math.max(hi, d);
    }
  return [lo, hi];
}

let multi: FrameBundle;
let small: FrameBundle;
let gtSmall: PointCloud;
beforeAll(() => {
  // seed noisy-c: since the ESI counting camera, noisy-b's room shows too little far depth for the confidence check
  multi = realBundle("counting_with_occlusion", "noisy-c", "multi");
  small = { ...multi, views: multi.views.slice(0, 6), manifest: { ...multi.manifest, views: multi.manifest.views.slice(0, 6) } };
  gtSmall = gtOf(small);
});

describe("noisy: flying pixels", () => {
  it("appear only near depth discontinuities, on their own pixel's ray, strictly between foreground and background, in number ∝ flyingFraction", () => {
    const r = PRESET.flyingBandPx;
    const run = (f: number) => noisyPointCloud(small, { noiseLevel: 1, noiseSeed: "fly", noiseComponents: ["flying"], overrides: { flyingFraction: f } });
    const c = run(0.5),
      cq = run(0.25);
    const changed = changedPoints(c, gtSmall),
      changedQ = changedPoints(cq, gtSmall);
    expect(changed.length).toBe(metaOf(c).counts.flying);
    expect(changedQ.length).toBe(metaOf(cq).counts.flying);
    const bands = small.views.map((v) => edgeBand(v, r));
    let bandPixels = 0;
    small.views.forEach((v, i) => {
      for (let p = 0; p < v.depth.length; p++) if (bands[i]![p] && valid(v.depth[p]!)) bandPixels++;
    });
    expect(bandPixels).toBeGreaterThan(5000);
    // about half the band flies (binomial: ±5 % is many σ at this size), a quarter at 0.25
    expect(changed.length / bandPixels).toBeGreaterThan(0.45);
    expect(changed.length / bandPixels).toBeLessThan(0.55);
    expect(changedQ.length / changed.length).toBeGreaterThan(0.45);
    expect(changedQ.length / changed.length).toBeLessThan(0.55);
    // nested: the same draws, so a higher fraction only adds flying pixels
    const set = new Set(changed);
    expect(changedQ.every((k) => set.has(k))).toBe(true);
    for (const k of changed) {
      const v = small.views[c.view[k]!]!,
        p = c.pixel[k]!;
      if (!bands[c.view[k]!]![p]) throw new Error(`flying pixel ${p} of view ${v.index} is not near a depth edge`);
      const [x, y, z] = toCam(v.E, c, k),
        [gx, gy, gz] = toCam(v.E, gtSmall, k);
      // the same viewing ray
      expect(Math.abs(x / z - gx / gz)).toBeLessThan(1e-5);
      expect(Math.abs(y / z - gy / gz)).toBeLessThan(1e-5);
      const [lo, hi] = windowRange(v, p, r + 1);
      expect(hi - lo).toBeGreaterThan(EDGE_MIN_JUMP_M);
      const t = (z - lo) / (hi - lo);
      if (!(t > FLYING_T_MARGIN - 1e-4 && t < 1 - FLYING_T_MARGIN + 1e-4)) throw new Error(`flying depth ${z} not strictly between ${lo} and ${hi}`);
      // and keeps its pixel's label and colour
      expect(c.instance[k]).toBe(gtSmall.instance[k]);
    }
    // points strung along rays: the moved points leave the surfaces by up to the edge's depth jump
    const moved = changed.map((k) =>
      Math.hypot(c.xyz[3 * k]! - gtSmall.xyz[3 * k]!, c.xyz[3 * k + 1]! - gtSmall.xyz[3 * k + 1]!, c.xyz[3 * k + 2]! - gtSmall.xyz[3 * k + 2]!),
    );
    expect(moved.filter((m) => m > 0.1).length).toBeGreaterThan(0.3 * moved.length);
    expect(changedPoints(run(0), gtSmall)).toHaveLength(0);
  });
});

describe("noisy: confidence and dropout", () => {
  it("drops exactly the configured share, lowest synthetic confidence first; kept points carry that confidence", () => {
    const seed = "drop";
    const maps = syntheticConfidence(small, seed);
    for (const [level, f] of [
      [1, 0.3],
      [0.5, 0.3],
      [1, 0.05],
    ] as const) {
      const c = noisyPointCloud(small, { noiseLevel: level, noiseSeed: seed, noiseComponents: ["dropout"], overrides: { dropoutFraction: f } });
      const removed = gtSmall.count - c.count;
      // fractions compound with level: 1 − (1 − f)^level (params.ts ParamScaling)
      expect(removed).toBe(Math.round((1 - Math.pow(1 - f, level)) * gtSmall.count));
      expect(metaOf(c).counts.dropped).toBe(removed);
      const kept = small.views.map((v) => new Uint8Array(v.depth.length));
      let minKept = Infinity;
      for (let k = 0; k < c.count; k++) {
        const conf = c.confidence[k]!;
        if (conf !== maps[c.view[k]!]![c.pixel[k]!]) throw new Error(`point ${k}: confidence ${conf} is not the synthetic map's`);
        kept[c.view[k]!]![c.pixel[k]!] = 1;
        minKept = Math.min(minKept, conf);
      }
      let maxRemoved = -Infinity,
        nRemoved = 0;
      small.views.forEach((v, i) => {
        for (let p = 0; p < v.depth.length; p++) {
          if (!valid(v.depth[p]!) || kept[i]![p]) continue;
          nRemoved++;
          maxRemoved = Math.max(maxRemoved, maps[i]![p]!);
        }
      });
      expect(nRemoved).toBe(removed);
      expect(maxRemoved).toBeLessThanOrEqual(minKept);
      expect(maxRemoved).toBe(metaOf(c).dropoutThreshold);
    }
  });

  it("is VGGT-scaled (≥ 1) and lower at depth edges, far away and on glass", () => {
    const maps = syntheticConfidence(small, "cues");
    let edge = 0,
      nEdge = 0,
      flat = 0,
      nFlat = 0,
      near = 0,
      nNear = 0,
      far = 0,
      nFar = 0;
    small.views.forEach((v, i) => {
      const band = edgeBand(v, CONF_EDGE_BAND_PX);
      for (let p = 0; p < v.depth.length; p++) {
        const d = v.depth[p]!,
          c = maps[i]![p]!;
        if (!valid(d)) {
          expect(c).toBe(0);
          continue;
        }
        if (!(c >= 1)) throw new Error(`confidence ${c} < 1`);
        const L = Math.log(c - 1);
        if (band[p]) (edge += L), nEdge++;
        else (flat += L), nFlat++;
        if (d < 2) (near += L), nNear++;
        if (d > 4) (far += L), nFar++;
      }
    });
    expect(nEdge).toBeGreaterThan(1000);
    expect(nFar).toBeGreaterThan(1000);
    expect(edge / nEdge).toBeLessThan(flat / nFlat - 0.4);
    expect(far / nFar).toBeLessThan(near / nNear - 0.3);
    // glass: a Material Transparency scene, whose task record marks the glass object transparent; the first
    // walk of the seed that shows both the glass and other objects (a floor task's low, level views may show
    // the glass and the room alone)
    let g = 0,
      ng = 0,
      o = 0,
      no = 0;
    for (let k = 4; k < 12 && (ng <= 200 || no <= 200); k++) {
      const glassBundle = realBundle("material_transparency", "noisy-b", "gt", k);
      const glassIds = new Set(glassBundle.manifest.task!.objects.filter((x) => x.transparent).map((x) => x.id));
      expect(glassIds.size).toBeGreaterThan(0);
      const gm = syntheticConfidence(glassBundle, "cues");
      g = ng = o = no = 0;
      glassBundle.views.forEach((v, i) => {
        for (let p = 0; p < v.depth.length; p++) {
          if (!valid(v.depth[p]!) || v.ids[p] === 0) continue;
          const L = Math.log(gm[i]![p]! - 1);
          if (glassIds.has(v.ids[p]!)) (g += L), ng++;
          else if (v.ids[p]! >= 16) (o += L), no++; // other objects (ids below 16 are room structure)
        }
      });
    }
    expect(no).toBeGreaterThan(200);
    expect(ng).toBeGreaterThan(200);
    expect(g / ng).toBeLessThan(o / no - 1);
  });

  it("is lower on dark and on textureless pixels (synthetic plane view)", () => {
    // a fronto-parallel plane 2 m away; left half random texture, right half flat; bottom half dark
    const W = 96,
      H = 64,
      rng = new Rng("plane");
    const rgb = new Uint8Array(W * H * 3),
      depth = new Float32Array(W * H).fill(2),
      ids = new Uint16Array(W * H).fill(1);
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const base = y < H / 2 ? 180 : 12;
        const v = x < W / 2 ? base + rng.int(-10, 10) : base;
        rgb.fill(v, 3 * (y * W + x), 3 * (y * W + x) + 3);
      }
    const E: Mat34 = [
      [1, 0, 0, 0],
      [0, 1, 0, 0],
      [0, 0, 1, 0],
    ];
    const view: ViewData = { index: 0, width: W, height: H, rgb, depth, ids, K: { fx: 80, fy: 80, cx: (W - 1) / 2, cy: (H - 1) / 2 }, E, action: null };
    const manifest = {
      task_id: "plane",
      image: { width: W, height: H },
      instances: [{ id: 1, category: "wall", structure: true }],
    } as unknown as BundleManifest;
    const [map] = syntheticConfidence({ dir: "", manifest, views: [view] }, "plane");
    const mean = (x0: number, x1: number, y0: number, y1: number) => {
      let s = 0,
        n = 0;
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) (s += Math.log(map![y * W + x]! - 1)), n++;
      return s / n;
    };
    const m = 6; // away from the region borders (texture window)
    const brightTextured = mean(m, W / 2 - m, m, H / 2 - m),
      brightFlat = mean(W / 2 + m, W - m, m, H / 2 - m);
    const darkFlat = mean(W / 2 + m, W - m, H / 2 + m, H - m);
    expect(brightTextured).toBeGreaterThan(brightFlat + 0.3);
    expect(brightFlat).toBeGreaterThan(darkFlat + 0.7);
  });
});

describe("noisy: blobs", () => {
  it("makes the configured number of blobs of the configured size, off the true surfaces, with their pixels' colours and labels", () => {
    const c = noisyPointCloud(small, { noiseLevel: 1, noiseSeed: "blob", noiseComponents: ["blobs"], overrides: { blobsPerView: 2 } });
    const m = metaOf(c);
    const P = PRESET.blobPoints;
    expect(m.blobs).toHaveLength(2 * small.views.length);
    expect(m.counts.blobPoints).toBe(2 * small.views.length * P);
    // the changed points are exactly the blobs' pixels
    const blobPixel = new Map<number, number>(); // view * 1e6 + pixel -> blob index
    m.blobs.forEach((b, bi) => {
      expect(b.points).toBe(P);
      expect(b.offsetM).toBeGreaterThanOrEqual(BLOB_OFFSET_MIN_FRACTION * PRESET.blobOffsetM - 1e-9);
      expect(b.offsetM).toBeLessThanOrEqual(PRESET.blobOffsetM + 1e-9);
      for (let k = 0; k < b.points; k++) blobPixel.set(b.view * 1e6 + (b.y0 + Math.floor(k / b.side)) * small.views[0]!.width + b.x0 + (k % b.side), bi);
    });
    const changed = changedPoints(c, gtSmall);
    expect(changed.length).toBe(blobPixel.size);
    // gt surfaces on a 3 cm grid
    const cell = 0.03,
      key = (x: number, y: number, z: number) => `${Math.floor(x / cell)},${Math.floor(y / cell)},${Math.floor(z / cell)}`;
    const occupied = new Set<string>();
    for (let k = 0; k < gtSmall.count; k++) occupied.add(key(gtSmall.xyz[3 * k]!, gtSmall.xyz[3 * k + 1]!, gtSmall.xyz[3 * k + 2]!));
    const nearSurface = (x: number, y: number, z: number) => {
      const i = Math.floor(x / cell),
        j = Math.floor(y / cell),
        l = Math.floor(z / cell);
      for (let a = -1; a <= 1; a++) for (let b = -1; b <= 1; b++) for (let e = -1; e <= 1; e++) if (occupied.has(`${i + a},${j + b},${l + e}`)) return true;
      return false;
    };
    const members = m.blobs.map(() => [] as number[]);
    let off = 0;
    for (const k of changed) {
      const bi = blobPixel.get(c.view[k]! * 1e6 + c.pixel[k]!);
      if (bi === undefined) throw new Error(`point ${k} moved but is not a blob pixel`);
      members[bi]!.push(k);
      const b = m.blobs[bi]!,
        v = small.views[c.view[k]!]!;
      // in front of its own surface by at least offset − jitter, and away from every gt surface
      const z = toCam(v.E, c, k)[2];
      expect(z).toBeLessThan(v.depth[c.pixel[k]!]! - (b.offsetM - b.jitterM) + 1e-4);
      if (!nearSurface(c.xyz[3 * k]!, c.xyz[3 * k + 1]!, c.xyz[3 * k + 2]!)) off++;
      expect(c.instance[k]).toBe(gtSmall.instance[k]);
      expect(c.rgb[3 * k]).toBe(gtSmall.rgb[3 * k]);
    }
    expect(off / changed.length).toBeGreaterThan(0.95);
    // each blob is a compact cluster
    for (const ks of members) {
      let lo = [Infinity, Infinity, Infinity],
        hi = [-Infinity, -Infinity, -Infinity];
      for (const k of ks) for (let a = 0; a < 3; a++) (lo[a] = Math.min(lo[a]!, c.xyz[3 * k + a]!)), (hi[a] = Math.max(hi[a]!, c.xyz[3 * k + a]!));
      expect(Math.max(hi[0]! - lo[0]!, hi[1]! - lo[1]!, hi[2]! - lo[2]!)).toBeLessThan(0.5);
    }
  });

  it("blob count per view is floor(λ) plus a Bernoulli(frac λ) extra, over a 30-view bundle", () => {
    const c = noisyPointCloud(multi, { noiseLevel: 1, noiseSeed: "blob30", noiseComponents: ["blobs"], overrides: { blobsPerView: 1.5 } });
    const m = metaOf(c);
    const perView = multi.views.map((v) => m.blobs.filter((b) => b.view === v.index).length);
    expect(perView.every((n) => n === 1 || n === 2)).toBe(true);
    expect(m.blobs.length).toBeGreaterThanOrEqual(37); // 30 + Binomial(30, 0.5): mean 45, σ 2.7
    expect(m.blobs.length).toBeLessThanOrEqual(53);
    expect(m.counts.blobPoints).toBe(m.blobs.length * PRESET.blobPoints);
    const lvl = metaOf(noisyPointCloud(multi, { noiseLevel: 0.5, noiseSeed: "blob30", noiseComponents: ["blobs"], overrides: { blobsPerView: 1.5 } }));
    expect(lvl.blobs.length).toBeLessThan(m.blobs.length); // λ = 0.75
    expect(lvl.blobs.length).toBeGreaterThanOrEqual(13);
  });
});
