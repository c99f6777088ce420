/**
 * The failure modes added to the `noisy` source for issue 20 (mono, warp, drift, scale, textureless,
 * labels), each switched on alone on real bundles from the built-in simulator: it changes what it should
 * and nothing else, level 0 is the gt cloud bit for bit, and the same seed gives the same cloud.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { FrameBundle, ViewData } from "../../core/bundle/io.js";
import type { Mat34 } from "../../core/math/vec.js";
import { cameraCentre, extrinsicRotation } from "../../core/math/camera.js";
import { LIBRARY } from "../../core/objects/library.js";
import type { PointCloud } from "../../reconstruct/pointcloud.js";
import {
  FAKE_LABEL_ID_BASE,
  noisyPointCloud,
  noisyViews,
  resolveNoiseParams,
  WARP_MIN_COS,
  type NoiseComponent,
  type NoiseOptions,
} from "../../reconstruct/noisy/index.js";
import { labelledBundle } from "../../reconstruct/noisy/labels.js";
import { texturelessMaps } from "../../reconstruct/noisy/textureless.js";
import { normalCos32At, rayTables } from "../../reconstruct/noisy/rayNormalCos.js";
import type { WarpField } from "../../reconstruct/noisy/warp.js";
import { FieldScratch } from "../../reconstruct/noisy/filters.js";
import { buildSceneGraph } from "../../scenegraph/build.js";
import { bytes, camZ, gtOf, metaOf, realBundle, sameArrays } from "./noisyHelpers.js";

/** The vggt-like preset: the effective parameters at level 1, every component on. */
const PRESET = resolveNoiseParams({ noiseLevel: 1, noiseSeed: "preset" });
/** The textureless collapse weight: 0 up to texturelessEdgePx from an edge, rising to texturelessCollapse at twice that. */
const collapseWeight = (p: { texturelessEdgePx: number; texturelessCollapse: number }, edgeDistance: number) => {
  const E = Math.max(1, p.texturelessEdgePx);
  return p.texturelessCollapse * Math.min(1, Math.max(0, (edgeDistance - E) / E));
};
/** The warp field at a world point: s(X) = amplitude · Σ cos(ω_k·X + φ_k). */
const warpAt = (f: WarpField, x: number, y: number, z: number) => {
  let s = 0;
  for (let k = 0; k < f.waves.length; k += 4) s += Math.cos(f.waves[k]! * x + f.waves[k + 1]! * y + f.waves[k + 2]! * z + f.waves[k + 3]!);
  return f.amplitude * s;
};

const NEW_COMPONENTS: NoiseComponent[] = ["mono", "warp", "drift", "scale", "textureless", "labels"];

const rms = (a: number[]) => Math.sqrt(a.reduce((s, x) => s + x * x, 0) / a.length);
const valid = (d: number) => d > 0 && Number.isFinite(d);

let multi: FrameBundle; // 30 views along a random trajectory
let small: FrameBundle; // its first 6 views
let single: FrameBundle; // its first view
let gtSmall: PointCloud;
beforeAll(() => {
  multi = realBundle("counting_with_occlusion", "noisy-b", "multi");
  const first = (n: number): FrameBundle => ({
    ...multi,
    views: multi.views.slice(0, n),
    manifest: { ...multi.manifest, views: multi.manifest.views.slice(0, n) },
  });
  small = first(6);
  single = first(1);
  gtSmall = gtOf(small);
});

/** Depth ratio noisy/true per point of a cloud built with the true cameras (components that move no camera). */
function depthRatios(c: PointCloud, b: FrameBundle): { view: number; pixel: number; ratio: number }[] {
  const out: { view: number; pixel: number; ratio: number }[] = [];
  for (let k = 0; k < c.count; k++) {
    const v = b.views[c.view[k]!]!,
      q = c.pixel[k]!;
    out.push({ view: v.index, pixel: q, ratio: camZ(v.E, c.xyz[3 * k]!, c.xyz[3 * k + 1]!, c.xyz[3 * k + 2]!) / v.depth[q]! });
  }
  return out;
}

/** Largest distance (m) of a point from its own pixel's true viewing ray. */
function worstRayDistance(c: PointCloud, b: FrameBundle, stride = 13): number {
  let worst = 0;
  for (let k = 0; k < c.count; k += stride) {
    const v = b.views[c.view[k]!]!,
      q = c.pixel[k]!,
      i = q % v.width,
      j = (q - i) / v.width;
    const z = camZ(v.E, c.xyz[3 * k]!, c.xyz[3 * k + 1]!, c.xyz[3 * k + 2]!);
    // the point in camera coordinates must be z·((i − cx)/fx, (j − cy)/fy, 1)
    const E = v.E,
      p = [0, 1].map((r) => E[r]![0]! * c.xyz[3 * k]! + E[r]![1]! * c.xyz[3 * k + 1]! + E[r]![2]! * c.xyz[3 * k + 2]! + E[r]![3]!);
    worst = Math.max(worst, Math.hypot(p[0]! - (z * (i - v.K.cx)) / v.K.fx, p[1]! - (z * (j - v.K.cy)) / v.K.fy));
  }
  return worst;
}

describe("new components: level 0, seeds, only their part", () => {
  it("level 0 is the gt cloud bit for bit with every new component listed, even with large overrides", () => {
    const c = noisyPointCloud(small, {
      noiseLevel: 0,
      noiseSeed: "z",
      noiseComponents: NEW_COMPONENTS,
      overrides: { monoShapeRel: 0.5, warpM: 1, driftRotDeg: 10, viewScaleRel: 0.5, texturelessCollapse: 1, labelSwapRate: 1, labelPhantomsPerView: 5 },
    });
    expect(sameArrays(c, gtSmall)).toBe(true);
    expect(metaOf(c).components).toEqual([]);
  });

  it("each is deterministic per seed and differs across seeds", () => {
    for (const comp of NEW_COMPONENTS) {
      const opts: NoiseOptions = {
        noiseLevel: 1,
        noiseSeed: "d1",
        noiseComponents: [comp],
        overrides: comp === "labels" ? { labelSwapRate: 0.5, labelPhantomsPerView: 1 } : {},
      };
      const a = noisyPointCloud(small, opts),
        b = noisyPointCloud(small, opts),
        c = noisyPointCloud(small, { ...opts, noiseSeed: "d2" });
      expect(sameArrays(a, b), comp).toBe(true);
      expect(JSON.stringify(a.meta), comp).toBe(JSON.stringify(b.meta));
      if (comp === "labels") expect(JSON.stringify(metaOf(a).labels)).not.toBe(JSON.stringify(metaOf(c).labels));
      else expect(sameArrays(a, c), comp).toBe(false);
    }
  });

  it("each alone keeps every point, its colour, view, pixel and true mask label, and a confidence of 1", () => {
    for (const comp of NEW_COMPONENTS) {
      const c = noisyPointCloud(small, { noiseLevel: 1, noiseSeed: "only", noiseComponents: [comp] });
      expect(metaOf(c).components, comp).toEqual([comp]);
      expect(c.count, comp).toBe(gtSmall.count);
      for (const k of ["rgb", "view", "pixel", "instance"] as const) expect(bytes(c[k]).equals(bytes(gtSmall[k])), `${comp} ${k}`).toBe(true);
      expect(
        c.confidence.every((x) => x === 1),
        comp,
      ).toBe(true);
    }
  });
});

describe("mono: single-view depth and shape error", () => {
  it("moves points along their own rays by a zero-mean field of RMS monoShapeRel; the relief term is exactly (g/m)^γ", () => {
    const a = PRESET.monoShapeRel;
    const c = noisyPointCloud(small, { noiseLevel: 1, noiseSeed: "mono", noiseComponents: ["mono"], overrides: { monoReliefStd: 0 } });
    expect(worstRayDistance(c, small)).toBeLessThan(1e-4);
    const byView = new Map<number, number[]>();
    for (const r of depthRatios(c, small)) (byView.get(r.view) ?? byView.set(r.view, []).get(r.view)!).push(r.ratio - 1);
    for (const [view, e] of byView) {
      const mean = e.reduce((s, x) => s + x, 0) / e.length;
      // zero mean and RMS a over the view's valid pixels (the field is normalised over the whole image; the few pixels without depth shift it slightly)
      expect(Math.abs(mean), `view ${view}`).toBeLessThan(0.1 * a);
      expect(rms(e) / a, `view ${view}`).toBeGreaterThan(0.85);
      expect(rms(e) / a, `view ${view}`).toBeLessThan(1.15);
    }
    // heavy tails: most pixels err less than the RMS, a few regions far more
    const all = [...byView.values()]
      .flat()
      .map(Math.abs)
      .sort((x, y) => x - y);
    expect(all[Math.floor(all.length / 2)]!).toBeLessThan(0.5 * a);
    expect(all[Math.floor(all.length * 0.995)]!).toBeGreaterThan(2.5 * a);

    const relief = noisyPointCloud(small, { noiseLevel: 1, noiseSeed: "mono", noiseComponents: ["mono"], overrides: { monoShapeRel: 0 } });
    const rec = new Map(metaOf(relief).mono.map((m) => [m.view, m]));
    expect([...rec.values()].some((m) => Math.abs(m.gamma) > 0.2 * PRESET.monoReliefStd)).toBe(true);
    let worst = 0;
    for (const r of depthRatios(relief, small).filter((_, k) => k % 11 === 0)) {
      const m = rec.get(r.view)!,
        g = small.views[r.view]!.depth[r.pixel]!;
      worst = Math.max(worst, Math.abs(r.ratio - Math.pow(g / m.medianM, m.gamma)));
    }
    expect(worst).toBeLessThan(2e-5);
  });

  it("also distorts a single view, where pose errors cannot", () => {
    const c = noisyPointCloud(single, { noiseLevel: 1, noiseSeed: "mono1", noiseComponents: ["mono"] });
    const e = depthRatios(c, single).map((r) => Math.abs(r.ratio - 1));
    expect(e.reduce((s, x) => s + x, 0) / e.length).toBeGreaterThan(0.2 * PRESET.monoShapeRel);
  });
});

describe("warp: a shape error every view agrees on", () => {
  it("moves each pixel's depth by warpM·s(X)/max(|r̂·n|, WARP_MIN_COS) at its true world point, with one field for all views", () => {
    const c = noisyPointCloud(small, { noiseLevel: 1, noiseSeed: "warp", noiseComponents: ["warp"] });
    expect(worstRayDistance(c, small)).toBeLessThan(1e-4);
    const f = metaOf(c).warp!;
    expect(f).not.toBeNull();
    // the field belongs to the task, not to the views: a bundle with more views draws the same one
    expect(metaOf(noisyPointCloud(multi, { noiseLevel: 1, noiseSeed: "warp", noiseComponents: ["warp"] })).warp).toEqual(f);
    const cos = small.views.map((v) => {
      const { xn, yn } = rayTables(v);
      return Float32Array.from(v.depth, (_, q) => normalCos32At(v.depth, v.width, v.height, xn, yn, q % v.width, Math.floor(q / v.width), q));
    });
    let worst = 0,
      n = 0;
    const s: number[] = [];
    for (let k = 0; k < c.count; k += 7) {
      const v = small.views[c.view[k]!]!,
        q = c.pixel[k]!;
      const X = [gtSmall.xyz[3 * k]!, gtSmall.xyz[3 * k + 1]!, gtSmall.xyz[3 * k + 2]!] as const;
      const sx = warpAt(f, X[0], X[1], X[2]);
      s.push(sx);
      const expected = v.depth[q]! + (PRESET.warpM * sx) / Math.max(WARP_MIN_COS, cos[c.view[k]!]![q]!);
      worst = Math.max(worst, Math.abs(camZ(v.E, c.xyz[3 * k]!, c.xyz[3 * k + 1]!, c.xyz[3 * k + 2]!) - expected));
      n++;
    }
    expect(n).toBeGreaterThan(1000);
    expect(worst).toBeLessThan(1e-4);
    // unit variance over the room's points (a stationary field; ±35 % for the room's finite extent)
    expect(rms(s)).toBeGreaterThan(0.65);
    expect(rms(s)).toBeLessThan(1.35);
  });
});

describe("drift: pose error correlated along the trajectory", () => {
  it("leaves each view rigid, accumulates along the trajectory (unlike the independent pose error) and keeps RMS step errors at driftRotDeg", () => {
    const c = noisyViews(multi, { noiseLevel: 1, noiseSeed: "drift", noiseComponents: ["drift"] });
    const d = c.meta.drift!;
    expect(d.records).toHaveLength(multi.views.length);
    expect(d.alignment.method).toBe("umeyama");
    // depth changes only by the alignment's one scale, the same for every view
    c.views.forEach((v, i) => {
      const g = multi.views[i]!.depth;
      for (let q = 0; q < g.length; q += 101) if (valid(g[q]!)) expect(v.depth[q]! / g[q]!).toBeCloseTo(d.alignment.scale, 5);
    });
    // errors of the relative rotation between views `lag` apart (invariant to the common alignment)
    const stepErr = (E: (i: number) => Mat34, lag: number) => {
      const out: number[] = [];
      for (let i = 0; i + lag < multi.views.length; i++) out.push(relativeRotationError(multi.views[i]!.E, multi.views[i + lag]!.E, E(i), E(i + lag)));
      return out;
    };
    const driftE = (i: number) => d.records[i]!.E;
    const one = rms(stepErr(driftE, 1)),
      ten = rms(stepErr(driftE, 10));
    // χ² with 3·29 degrees of freedom: ±30 % is beyond 3σ
    expect(one / PRESET.driftRotDeg).toBeGreaterThan(0.7);
    expect(one / PRESET.driftRotDeg).toBeLessThan(1.3);
    // a random walk: ten steps apart the error is ~√10 times one step's
    expect(ten / one).toBeGreaterThan(2);
    const iid = noisyViews(multi, { noiseLevel: 1, noiseSeed: "drift", noiseComponents: ["pose"] });
    const poseE = (i: number) => iid.views[i]!.E;
    const iidRatio = rms(stepErr(poseE, 10).slice(1)) / rms(stepErr(poseE, 1).slice(1));
    expect(iidRatio).toBeLessThan(1.5);
    expect(iidRatio).toBeGreaterThan(0.6);
  });

  it("gives a single view exactly the gt cloud (one camera fixes the alignment)", () => {
    const c = noisyPointCloud(single, { noiseLevel: 2, noiseSeed: "drift1", noiseComponents: ["drift"] });
    expect(sameArrays(c, gtOf(single))).toBe(true);
  });
});

/** Angle (deg) of the error of the relative rotation from view a to view b: predicted against true. */
function relativeRotationError(Ta: Mat34, Tb: Mat34, Pa: Mat34, Pb: Mat34): number {
  const R = (E: Mat34) => extrinsicRotation(E);
  const mul = (A: number[][], B: number[][]) => A.map((row) => [0, 1, 2].map((j) => row[0]! * B[0]![j]! + row[1]! * B[1]![j]! + row[2]! * B[2]![j]!));
  const T = (A: number[][]) => [0, 1, 2].map((i) => [0, 1, 2].map((j) => A[j]![i]!));
  const relT = mul(R(Tb) as number[][], T(R(Ta) as number[][])),
    relP = mul(R(Pb) as number[][], T(R(Pa) as number[][]));
  const E = mul(relP, T(relT));
  return (Math.acos(Math.max(-1, Math.min(1, (E[0]![0]! + E[1]![1]! + E[2]![2]! - 1) / 2))) * 180) / Math.PI;
}

describe("scale: per-view depth-scale inconsistency", () => {
  it("scales every view's depth (view 0 included) by its recorded factor, along the true rays, log-std viewScaleRel", () => {
    const c = noisyPointCloud(multi, { noiseLevel: 1, noiseSeed: "scale", noiseComponents: ["scale"] });
    const m = metaOf(c);
    expect(m.viewScales.map((s) => s.view)).toEqual(multi.views.map((v) => v.index));
    expect(worstRayDistance(c, multi, 97)).toBeLessThan(1e-4);
    const byView = new Map(m.viewScales.map((s) => [s.view, s.scale]));
    for (const r of depthRatios(c, multi).filter((_, k) => k % 53 === 0)) expect(r.ratio).toBeCloseTo(byView.get(r.view)!, 5);
    expect(byView.get(0)).not.toBe(1);
    const logs = m.viewScales.map((s) => Math.log(s.scale));
    // χ² with 30 degrees of freedom: ±45 % is beyond 3σ
    expect(rms(logs) / PRESET.viewScaleRel).toBeGreaterThan(0.55);
    expect(rms(logs) / PRESET.viewScaleRel).toBeLessThan(1.45);
    // cameras untouched: the view's camera centre is where it was
    const nv = noisyViews(multi, { noiseLevel: 1, noiseSeed: "scale", noiseComponents: ["scale"] });
    nv.views.forEach((v, i) => expect(cameraCentre(v.E)).toEqual(cameraCentre(multi.views[i]!.E)));
  });
});

describe("textureless: depth collapse inside uniform image regions", () => {
  it("moves only pixels farther than texturelessEdgePx from an image edge, exactly by w·(S(g) − g) without the bias", () => {
    const c = noisyViews(small, { noiseLevel: 1, noiseSeed: "tl", noiseComponents: ["textureless"], overrides: { texturelessBiasRel: 0 } });
    const p = c.params;
    let moved = 0,
      near = 0,
      worst = 0;
    small.views.forEach((v: ViewData, i) => {
      const maps = texturelessMaps(v, p.texturelessRadiusPx, new FieldScratch());
      const d = c.views[i]!.depth;
      for (let q = 0; q < d.length; q++) {
        const g = v.depth[q]!;
        if (!valid(g)) continue;
        const w = collapseWeight(p, maps.edgeDistance[q]!);
        if (maps.edgeDistance[q]! <= p.texturelessEdgePx) {
          near++;
          if (d[q] !== g) throw new Error(`pixel ${q} of view ${i}, ${maps.edgeDistance[q]} px from an edge, moved`);
          continue;
        }
        if (w > 0) moved++;
        worst = Math.max(worst, Math.abs(d[q]! - (g + w * (maps.smooth[q]! - g))));
      }
    });
    expect(near).toBeGreaterThan(1000);
    expect(moved).toBe(c.meta.counts.texturelessPx);
    expect(moved).toBeGreaterThan(1000);
    expect(worst).toBeLessThan(1e-5);
  });

  it("with the bias, shifts the collapsed regions by a smooth field of RMS about texturelessBiasRel·w", () => {
    const base = noisyViews(small, { noiseLevel: 1, noiseSeed: "tl", noiseComponents: ["textureless"], overrides: { texturelessBiasRel: 0 } });
    const biased = noisyViews(small, { noiseLevel: 1, noiseSeed: "tl", noiseComponents: ["textureless"] });
    const p = biased.params;
    const rel: number[] = [];
    small.views.forEach((v, i) => {
      const maps = texturelessMaps(v, p.texturelessRadiusPx, new FieldScratch());
      for (let q = 0; q < v.depth.length; q += 5) {
        const w = collapseWeight(p, maps.edgeDistance[q]!);
        if (w < p.texturelessCollapse) continue; // full collapse only
        if (!(v.depth[q]! > 0 && Number.isFinite(v.depth[q]!))) continue; // no surface (an open doorway's far side): no depth to bias
        rel.push((biased.views[i]!.depth[q]! - base.views[i]!.depth[q]!) / (w * v.depth[q]!));
      }
    });
    expect(rel.length).toBeGreaterThan(1000);
    // pixels of full collapse cover part of each view, so their RMS is the field's over that part
    expect(rms(rel) / p.texturelessBiasRel).toBeGreaterThan(0.4);
    expect(rms(rel) / p.texturelessBiasRel).toBeLessThan(2);
  });
});

describe("labels: mask-label corruption of fragments", () => {
  it("swaps fragments at labelSwapRate, to look-alikes or library categories, nested across levels; geometry untouched", () => {
    const rate = 0.3;
    const c = noisyPointCloud(multi, {
      noiseLevel: 1,
      noiseSeed: "lab",
      noiseComponents: ["labels"],
      overrides: { labelSwapRate: rate, labelPhantomsPerView: 0 },
    });
    expect(sameArrays(c, gtOf(multi))).toBe(true);
    const plan = metaOf(c).labels;
    const structure = new Set(multi.manifest.instances.filter((e) => e.structure).map((e) => e.id));
    const fragments = multi.views.reduce((n, v) => n + new Set([...v.ids].filter((id) => id !== 0 && !structure.has(id))).size, 0);
    // binomial: within 4σ of rate·fragments
    const sd = Math.sqrt(fragments * rate * (1 - rate));
    expect(Math.abs(plan.swaps.length - rate * fragments)).toBeLessThan(4 * sd);
    for (const s of plan.swaps) {
      expect(s.to).not.toBe(s.from);
      if (s.lookalike) expect(LIBRARY.get(s.from)!.confusables).toContain(s.to);
      else expect(LIBRARY.has(s.to)).toBe(true);
    }
    const look = plan.swaps.filter((s) => s.lookalike).length / plan.swaps.length;
    expect(look).toBeGreaterThan(PRESET.labelLookalikeShare - 0.25);
    expect(look).toBeLessThan(PRESET.labelLookalikeShare + 0.25);
    // common random numbers: a lower level keeps a subset of the same swaps, to the same categories
    const lower = metaOf(
      noisyPointCloud(multi, { noiseLevel: 0.5, noiseSeed: "lab", noiseComponents: ["labels"], overrides: { labelSwapRate: rate, labelPhantomsPerView: 0 } }),
    ).labels;
    const key = (s: { view: number; id: number; to: string }) => `${s.view}/${s.id}/${s.to}`;
    const all = new Set(plan.swaps.map(key));
    expect(lower.swaps.length).toBeLessThan(plan.swaps.length);
    for (const s of lower.swaps) expect(all.has(key(s))).toBe(true);
  });

  it("rewrites the graph builder's masks (labelledBundle), keeps phantom patches in a structure-free cloud under their true ids, and the graph gains wrong objects", () => {
    const structure = new Set(small.manifest.instances.filter((e) => e.structure).map((e) => e.id));
    const opts: NoiseOptions = {
      noiseLevel: 1,
      noiseSeed: "lab2",
      noiseComponents: ["labels"],
      overrides: { labelSwapRate: 0.5, labelPhantomsPerView: 2 },
      excludeIds: structure,
    };
    const c = noisyPointCloud(small, opts);
    const m = metaOf(c);
    expect(m.labels.phantoms.length).toBeGreaterThan(small.views.length);
    expect(m.labels.swaps.length).toBeGreaterThan(0);
    const lb = labelledBundle(small, c);
    expect(labelledBundle(small, gtSmall)).toBe(small);
    for (const s of m.labels.swaps) {
      const before = small.views[s.view]!.ids,
        after = lb.views[s.view]!.ids;
      for (let q = 0; q < before.length; q++) {
        if (before[q] === s.id && after[q] !== s.fakeId) throw new Error(`swap ${s.fakeId}: pixel ${q} not rewritten`);
      }
      expect(lb.manifest.instances.find((e) => e.id === s.fakeId)).toEqual({ id: s.fakeId, category: s.to, structure: false });
    }
    let phantomPoints = 0;
    for (const f of m.labels.phantoms) {
      for (let k = 0; k < f.pixels; k++) {
        const q = (f.y0 + Math.floor(k / f.side)) * small.views[0]!.width + f.x0 + (k % f.side);
        expect(structure.has(small.views[f.view]!.ids[q]!)).toBe(true); // phantoms lie on floor or wall
        expect(lb.views[f.view]!.ids[q]).toBe(f.fakeId);
      }
    }
    for (let k = 0; k < c.count; k++) {
      if (c.instance[k]! >= FAKE_LABEL_ID_BASE) throw new Error(`point ${k} kept a fake id`);
      if (structure.has(c.instance[k]!)) phantomPoints++;
    }
    expect(phantomPoints).toBe(m.counts.phantomPointsKept);
    expect(phantomPoints).toBe(m.labels.phantoms.reduce((s, f) => s + f.pixels, 0));
    // the graph built from the corrupted masks has nodes of categories the scene does not contain
    const scene = new Set(small.manifest.instances.map((e) => e.category));
    const clean = buildSceneGraph(c, small, { masks: "instance", instances: "fusion" }).graph.nodes.map((n) => n.label);
    const corrupted = buildSceneGraph(c, lb, { masks: "instance", instances: "fusion" }).graph.nodes.map((n) => n.label);
    expect(clean.every((l) => scene.has(l))).toBe(true);
    expect(corrupted.some((l) => !scene.has(l))).toBe(true);
  });
});
