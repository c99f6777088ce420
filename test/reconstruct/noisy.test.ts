/**
 * The `noisy` source on real bundles from the built-in simulator: level 0 is gt bit for bit, seeds,
 * parameter resolution, the depth and pose components, and that each component changes only its part.
 * (Flying pixels, dropout and blobs: noisy-artifacts.test.ts.)
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { FrameBundle, ViewData } from "../../core/bundle/io.js";
import type { Vec3 } from "../../core/math/vec.js";
import type { PointCloud } from "../../reconstruct/pointcloud.js";
import { umeyama } from "../../reconstruct/align.js";
import {
  MAX_NOISE_LEVEL,
  noisyPointCloud,
  NOISE_COMPONENTS,
  POSE_ANCHOR_VIEW,
  resolveNoiseParams,
  type NoiseComponent,
} from "../../reconstruct/noisy/index.js";
import { NoiseOptionsSchema } from "../../reconstruct/noisy/params.js";
import { bytes, camZ, gtOf, metaOf, realBundle, sameArrays } from "./noisyHelpers.js";

/** The vggt-like preset: the effective parameters at level 1, every component on. */
const PRESET = resolveNoiseParams({ noiseLevel: 1, noiseSeed: "preset" });

/**
 * Autocorrelation at a lag of `lag` pixels along x or y of a field of white noise box-filtered twice with
 * radius r (correlatedField's construction): the triangle kernel's autocorrelation, normalised.
 */
function fieldCorrelation(r: number, lag: number): number {
  if (r <= 0) return lag === 0 ? 1 : 0;
  const w = 2 * r + 1;
  const c = (i: number) => Math.max(0, w - Math.abs(i));
  let num = 0,
    den = 0;
  for (let i = -w; i <= w; i++) {
    num += c(i) * c(i + lag);
    den += c(i) * c(i);
  }
  return num / den;
}

/** World direction of the viewing ray of pixel q, scaled so that its camera z is 1. */
function rayOf(v: ViewData, q: number): Vec3 {
  const i = q % v.width,
    j = (q - i) / v.width,
    E = v.E;
  const X = (i - v.K.cx) / v.K.fx,
    Y = (j - v.K.cy) / v.K.fy;
  return [E[0][0] * X + E[1][0] * Y + E[2][0], E[0][1] * X + E[1][1] * Y + E[2][1], E[0][2] * X + E[1][2] * Y + E[2][2]];
}

let multi: FrameBundle; // 30 views along a random trajectory
let small: FrameBundle; // its first 6 views
let twelve: FrameBundle; // its first 12 views
let gtSmall: PointCloud;
beforeAll(() => {
  multi = realBundle("counting_with_occlusion", "noisy-a", "multi");
  const firstViews = (n: number): FrameBundle => ({
    ...multi,
    views: multi.views.slice(0, n),
    manifest: { ...multi.manifest, views: multi.manifest.views.slice(0, n) },
  });
  small = firstViews(6);
  twelve = firstViews(12);
  gtSmall = gtOf(small);
});

describe("noisy: level 0, seeds, parameters", () => {
  it("level 0 reproduces the gt cloud bit for bit (all components, with overrides too)", () => {
    for (const opts of [
      { noiseLevel: 0, noiseSeed: "x" },
      {
        noiseLevel: 0,
        noiseSeed: "y",
        noiseComponents: ["depth", "pose"] as NoiseComponent[],
        overrides: { depthNoiseRel: 0.2, poseRotDeg: 10, blobsPerView: 3, dropoutFraction: 0.9 },
      },
    ]) {
      const c = noisyPointCloud(small, opts);
      expect(c.source).toBe("noisy");
      expect(c.count).toBe(gtSmall.count);
      expect(sameArrays(c, gtSmall)).toBe(true);
      expect(metaOf(c).components).toEqual([]);
      expect(metaOf(c).counts).toMatchObject({ gtPoints: gtSmall.count, points: gtSmall.count, dropped: 0, flying: 0, blobs: 0, poseViews: 0 });
    }
  });

  it("is deterministic per seed, and differs across seeds and tasks", () => {
    const a = noisyPointCloud(small, { noiseLevel: 1, noiseSeed: "s1" });
    const b = noisyPointCloud(small, { noiseLevel: 1, noiseSeed: "s1" });
    expect(sameArrays(a, b)).toBe(true);
    expect(metaOf(a)).toEqual(metaOf(b));
    const c = noisyPointCloud(small, { noiseLevel: 1, noiseSeed: "s2" });
    expect(sameArrays(a, c)).toBe(false);
    // the same views under another task id draw other numbers
    const other = { ...small, manifest: { ...small.manifest, task_id: "another-task" } };
    const d = noisyPointCloud(other, { noiseLevel: 1, noiseSeed: "s1", noiseComponents: ["pose"] });
    const e = noisyPointCloud(small, { noiseLevel: 1, noiseSeed: "s1", noiseComponents: ["pose"] });
    expect(metaOf(d).poses[0]!.rotDeg).not.toBe(metaOf(e).poses[0]!.rotDeg);
  });

  it("resolves level x preset, zeroes components not listed, applies overrides, validates", () => {
    const half = resolveNoiseParams({ noiseLevel: 0.5, noiseSeed: "s" });
    expect(half.depthNoiseRel).toBeCloseTo(PRESET.depthNoiseRel / 2, 12);
    expect(half.poseRotDeg).toBeCloseTo(PRESET.poseRotDeg / 2, 12);
    // fractions compound: 1 − (1 − p)^level, p at level 1, 1 − (1 − p)² at level 2
    expect(half.dropoutFraction).toBeCloseTo(1 - Math.sqrt(1 - PRESET.dropoutFraction), 12);
    expect(resolveNoiseParams({ noiseLevel: 2, noiseSeed: "s" }).dropoutFraction).toBeCloseTo(1 - (1 - PRESET.dropoutFraction) ** 2, 12);
    expect(resolveNoiseParams({ noiseLevel: 2, noiseSeed: "s" }).poseRotDeg).toBeCloseTo(2 * PRESET.poseRotDeg, 12);
    // shapes are not scaled
    expect(half.flyingBandPx).toBe(PRESET.flyingBandPx);
    expect(half.blobPoints).toBe(PRESET.blobPoints);
    const only = resolveNoiseParams({ noiseLevel: 1, noiseSeed: "s", noiseComponents: ["flying"], overrides: { flyingFraction: 0.2, poseRotDeg: 5 } });
    expect(only.flyingFraction).toBe(0.2);
    expect(only.poseRotDeg).toBe(0);
    expect(only.depthNoiseRel).toBe(0);
    expect(only.blobsPerView).toBe(0);
    expect(only.dropoutFraction).toBe(0);
    // the level and the components are the schema's to check, once, where the options come in (not here again)
    expect(NoiseOptionsSchema.safeParse({ noiseLevel: MAX_NOISE_LEVEL + 0.5 }).success).toBe(false);
    expect(NoiseOptionsSchema.safeParse({ noiseComponents: ["fog"] }).success).toBe(false);
    expect(() => resolveNoiseParams({ noiseLevel: 1, noiseSeed: "s", overrides: { monoShapeTail: 0.5 } })).toThrow(/monoShapeTail must be at least 1/);
    expect(() => resolveNoiseParams({ noiseLevel: 1, noiseSeed: "s", overrides: { depthNoiseRel: -1 } })).toThrow(/depthNoiseRel/);
    expect(() => resolveNoiseParams({ noiseLevel: 1, noiseSeed: "s", overrides: { colour: 1 } as never })).toThrow(/unknown parameter "colour"/);
    expect(() => resolveNoiseParams({ noiseLevel: 1, noiseSeed: "s", overrides: { blobPoints: 2.5 } })).toThrow(/whole number/);
  });
});

describe("noisy: depth", () => {
  /** Depth residual along each floor point's ray, from the point's height above the floor plane z = 0 (NaN: not a usable floor pixel). */
  function floorResiduals(b: FrameBundle, c: PointCloud): { d: Float64Array; r: Float64Array } {
    const floorId = b.manifest.instances.find((e) => e.category === "floor")!.id;
    const { width: W, height: H } = b.views[0]!;
    const d = new Float64Array(b.views.length * W * H).fill(NaN),
      r = new Float64Array(d.length).fill(NaN);
    for (let k = 0; k < c.count; k++) {
      if (c.instance[k] !== floorId) continue;
      const v = b.views[c.view[k]!]!,
        q = c.pixel[k]!;
      const rayZ = rayOf(v, q)[2];
      if (Math.abs(rayZ) < 0.2) continue; // grazing rays: plane distance says little about depth
      const at = c.view[k]! * W * H + q;
      d[at] = v.depth[q]!;
      r[at] = c.xyz[3 * k + 2]! / rayZ; // the floor is z = 0: moving the point by δ along its ray (camera-z units) lifts it by δ·ray_z
    }
    return { d, r };
  }
  function binStats(f: ReturnType<typeof floorResiduals>, lo: number, hi: number) {
    let n = 0,
      s = 0,
      ss = 0,
      dd = 0;
    for (let i = 0; i < f.d.length; i++) {
      if (!(f.d[i]! >= lo && f.d[i]! < hi)) continue;
      n++;
      s += f.r[i]!;
      ss += f.r[i]! * f.r[i]!;
      dd += f.d[i]! * f.d[i]!;
    }
    const mean = s / n;
    return { n, std: Math.sqrt(ss / n - mean * mean), rmsDepth: Math.sqrt(dd / n) };
  }

  it("floor residuals grow with depth as σ(d) = depthNoiseRel·d, doubling the parameter doubles them, and surfaces are bumpy (correlated)", () => {
    const opts = { noiseLevel: 1, noiseSeed: "depth", noiseComponents: ["depth"] as NoiseComponent[], overrides: { depthLowFreqRel: 0 } };
    const c1 = noisyPointCloud(twelve, opts);
    const c2 = noisyPointCloud(twelve, { ...opts, overrides: { ...opts.overrides, depthNoiseRel: 2 * PRESET.depthNoiseRel } });
    const f1 = floorResiduals(twelve, c1),
      f2 = floorResiduals(twelve, c2);
    const rel = PRESET.depthNoiseRel;
    const near = binStats(f1, 1, 2),
      far = binStats(f1, 3, 5);
    expect(near.n).toBeGreaterThan(20000);
    expect(far.n).toBeGreaterThan(20000);
    expect(near.std / (rel * near.rmsDepth)).toBeGreaterThan(0.95);
    expect(near.std / (rel * near.rmsDepth)).toBeLessThan(1.05);
    expect(far.std / (rel * far.rmsDepth)).toBeGreaterThan(0.95);
    expect(far.std / (rel * far.rmsDepth)).toBeLessThan(1.05);
    expect(far.std / near.std).toBeGreaterThan(1.5); // grows with depth
    for (const [lo, hi] of [
      [1, 2],
      [3, 5],
    ] as const)
      expect(binStats(f2, lo, hi).std / binStats(f1, lo, hi).std).toBeCloseTo(2, 2);
    // neighbouring pixels move together: relative residuals of horizontal neighbours correlate as the field says
    let sxy = 0,
      sxx = 0,
      n = 0;
    for (let i = 0; i + 1 < f1.d.length; i++) {
      const a = f1.r[i]! / f1.d[i]!,
        b = f1.r[i + 1]! / f1.d[i + 1]!;
      if (Number.isNaN(a) || Number.isNaN(b) || (i + 1) % twelve.views[0]!.width === 0) continue;
      sxy += a * b;
      sxx += a * a;
      n++;
    }
    expect(n).toBeGreaterThan(10000);
    expect(Math.abs(sxy / sxx - fieldCorrelation(PRESET.depthNoiseCorrPx, 1))).toBeLessThan(0.02);
  });

  it("the per-view low-frequency field scales depth exactly as its recorded coefficients say", () => {
    const c = noisyPointCloud(small, { noiseLevel: 1, noiseSeed: "lf", noiseComponents: ["depth"], overrides: { depthNoiseRel: 0 } });
    const m = metaOf(c);
    expect(m.depthFields).toHaveLength(small.views.length);
    const spread = m.depthFields.flatMap((f) => [f.tiltX, f.tiltY, f.bowl]);
    expect(spread.some((x) => Math.abs(x) > 0.002)).toBe(true);
    let worst = 0;
    for (let k = 0; k < c.count; k += 7) {
      const v = small.views[c.view[k]!]!,
        q = c.pixel[k]!,
        f = m.depthFields[c.view[k]!]!;
      const i = q % v.width,
        j = (q - i) / v.width,
        xh = (i - v.K.cx) / (v.width / 2),
        yh = (j - v.K.cy) / (v.width / 2);
      const expected = 1 + f.tiltX * xh + f.tiltY * yh + f.bowl * (xh * xh + yh * yh - f.bowlMean);
      const ratio = camZ(v.E, c.xyz[3 * k]!, c.xyz[3 * k + 1]!, c.xyz[3 * k + 2]!) / v.depth[q]!;
      worst = Math.max(worst, Math.abs(ratio - expected));
    }
    expect(worst).toBeLessThan(2e-5);
  });
});

describe("noisy: pose", () => {
  it("moves each view's points rigidly by the recorded rotation and centre shift about its camera; view 0 is the anchor", () => {
    const gt = gtOf(multi);
    const c = noisyPointCloud(multi, { noiseLevel: 1, noiseSeed: "pose", noiseComponents: ["pose"] });
    const m = metaOf(c);
    expect(c.count).toBe(gt.count);
    expect(m.poses.map((p) => p.view)).toEqual(multi.views.map((v) => v.index).filter((i) => i !== POSE_ANCHOR_VIEW));
    const rot: number[] = [],
      trans: number[] = [];
    // points come out grouped by view: [start, end) of each view
    const start = new Int32Array(multi.views.length + 1);
    for (let k = 0; k < c.count; k++) start[c.view[k]! + 1]!++;
    for (let i = 0; i < multi.views.length; i++) start[i + 1]! += start[i]!;
    for (const v of multi.views) {
      const src: Vec3[] = [],
        dst: Vec3[] = [];
      let same = true,
        n = 0;
      for (let k = start[v.index]!; k < start[v.index + 1]!; k++) {
        if (c.view[k] !== v.index) throw new Error(`point ${k} is not from view ${v.index}`);
        const g: Vec3 = [gt.xyz[3 * k]!, gt.xyz[3 * k + 1]!, gt.xyz[3 * k + 2]!],
          p: Vec3 = [c.xyz[3 * k]!, c.xyz[3 * k + 1]!, c.xyz[3 * k + 2]!];
        if (g[0] !== p[0] || g[1] !== p[1] || g[2] !== p[2]) same = false;
        if (n++ % 97 === 0) {
          src.push(g);
          dst.push(p);
        }
      }
      if (v.index === POSE_ANCHOR_VIEW) {
        expect(same).toBe(true);
        continue;
      }
      const rec = m.poses.find((p) => p.view === v.index)!;
      const T = umeyama(src, dst, true);
      expect(T.rmse).toBeLessThan(1e-4);
      const angleDeg = (Math.acos(Math.min(1, (T.R[0][0] + T.R[1][1] + T.R[2][2] - 1) / 2)) * 180) / Math.PI;
      expect(angleDeg).toBeCloseTo(rec.rotDeg, 2);
      expect(T.s).toBeCloseTo(1, 5); // rigid: the per-view depth scale is the `scale` component's
      // the camera centre goes to C + dC
      const E = v.E;
      const C: Vec3 = [0, 1, 2].map((a) => -(E[0][a]! * E[0][3] + E[1][a]! * E[1][3] + E[2][a]! * E[2][3])) as Vec3;
      const moved = [0, 1, 2].map((a) => T.s * (T.R[a]![0]! * C[0] + T.R[a]![1]! * C[1] + T.R[a]![2]! * C[2]) + T.t[a]! - C[a]!);
      for (let a = 0; a < 3; a++) expect(moved[a]!).toBeCloseTo(rec.dC[a]!, 3);
      rot.push(rec.rotDeg);
      trans.push(Math.hypot(...rec.dC));
    }
    // over the 29 perturbed views the RMS errors are the parameters (χ² with 87 degrees of freedom: ±30 % is > 3σ)
    const rms = (a: number[]) => Math.sqrt(a.reduce((s, x) => s + x * x, 0) / a.length);
    expect(rms(rot) / PRESET.poseRotDeg).toBeGreaterThan(0.7);
    expect(rms(rot) / PRESET.poseRotDeg).toBeLessThan(1.3);
    expect(rms(trans) / PRESET.poseTransM).toBeGreaterThan(0.7);
    expect(rms(trans) / PRESET.poseTransM).toBeLessThan(1.3);
    // the same draws at half the level: every error exactly halves
    const h = metaOf(noisyPointCloud(multi, { noiseLevel: 0.5, noiseSeed: "pose", noiseComponents: ["pose"] }));
    h.poses.forEach((p, i) => {
      expect(p.rotDeg).toBeCloseTo(m.poses[i]!.rotDeg / 2, 9);
      expect(Math.hypot(...p.dC)).toBeCloseTo(Math.hypot(...m.poses[i]!.dC) / 2, 9);
    });
  });
});

describe("noisy: components", () => {
  it("enabling only one component changes only what it should", () => {
    const gt = gtSmall;
    const diffXyz = (c: PointCloud) => {
      let n = 0;
      for (let k = 0; k < c.count; k++)
        if (c.xyz[3 * k] !== gt.xyz[3 * k] || c.xyz[3 * k + 1] !== gt.xyz[3 * k + 1] || c.xyz[3 * k + 2] !== gt.xyz[3 * k + 2]) n++;
      return n;
    };
    const labelsSame = (c: PointCloud) => (["rgb", "view", "pixel", "instance"] as const).every((k) => bytes(c[k]).equals(bytes(gt[k])));
    const allOne = (c: PointCloud) => c.confidence.every((x) => x === 1);
    const run = (comp: NoiseComponent, overrides = {}) => noisyPointCloud(small, { noiseLevel: 1, noiseSeed: "comp", noiseComponents: [comp], overrides });
    for (const comp of NOISE_COMPONENTS) {
      const c = run(comp, comp === "blobs" ? { blobsPerView: 2 } : {});
      const m = metaOf(c);
      expect(m.components).toEqual([comp]);
      const changed = comp === "dropout" ? -1 : diffXyz(c);
      if (comp !== "dropout") {
        expect(c.count, comp).toBe(gt.count);
        expect(labelsSame(c), comp).toBe(true);
        expect(allOne(c), comp).toBe(true);
      }
      switch (comp) {
        case "depth":
          expect(changed).toBeGreaterThan(0.99 * gt.count);
          expect(m.counts.depthNoised).toBe(gt.count);
          break;
        case "pose": {
          const view0 = gt.view.filter((v) => v === POSE_ANCHOR_VIEW).length;
          expect(changed).toBeGreaterThan(0.99 * (gt.count - view0));
          expect(changed).toBeLessThanOrEqual(gt.count - view0);
          break;
        }
        case "flying":
          expect(m.counts.flying).toBeGreaterThan(100);
          expect(changed).toBe(m.counts.flying);
          break;
        case "blobs":
          expect(m.counts.blobs).toBe(2 * small.views.length);
          expect(changed).toBe(m.counts.blobPoints);
          break;
        case "dropout": {
          expect(c.count).toBe(gt.count - m.counts.dropped);
          expect(m.counts.dropped).toBe(Math.round(PRESET.dropoutFraction * gt.count));
          // kept points are untouched gt points with a synthetic confidence
          let j = 0;
          for (let k = 0; k < c.count; k++) {
            while (gt.view[j] !== c.view[k] || gt.pixel[j] !== c.pixel[k]) j++;
            if (c.xyz[3 * k] !== gt.xyz[3 * j] || c.xyz[3 * k + 2] !== gt.xyz[3 * j + 2] || c.instance[k] !== gt.instance[j] || c.rgb[3 * k] !== gt.rgb[3 * j])
              throw new Error(`point ${k} changed`);
            if (!(c.confidence[k]! >= 1)) throw new Error(`confidence ${c.confidence[k]} < 1`);
          }
          expect(allOne(c)).toBe(false);
          break;
        }
      }
    }
  });
});
