/**
 * The warp's ray-normal cosine as a float32 (reconstruct/noisy/rayNormalCos.ts normalCos32At) comes from a cheaper
 * quotient whenever every double near it rounds to the same float32. It must equal fround of the cosine as
 * defined (definedCos below, two hypots) at every pixel: of rendered views, of random depth images spanning
 * tiny to huge depths and holes, and where the quotient sits on a float32 rounding midpoint.
 */
import { describe, expect, it } from "vitest";
import { Rng } from "../../core/math/rng.js";
import { normalCos32At, rayTables } from "../../reconstruct/noisy/rayNormalCos.js";
import { hypot3 } from "../../core/math/hypot.js";
import type { ViewData } from "../../core/bundle/io.js";
import { realBundle } from "./noisyHelpers.js";

const valid = (d: number) => d > 0 && d <= Number.MAX_VALUE;

/**
 * |r̂·n| as defined, in double: |n·p| / (hypot(n)·hypot(p)), n the cross product of the back-projected
 * horizontal and vertical neighbour differences (one-sided at borders and next to pixels without depth), p
 * the back-projected pixel; 0 without depth or a normal.
 */
function definedCos(g: Float32Array, W: number, H: number, xn: Float64Array, yn: Float64Array, i: number, j: number, q: number): number {
  const t = g[q]!;
  if (!valid(t)) return 0;
  const il = i > 0 && valid(g[q - 1]!) ? i - 1 : i,
    ir = i + 1 < W && valid(g[q + 1]!) ? i + 1 : i;
  const ju = j > 0 && valid(g[q - W]!) ? j - 1 : j,
    jd = j + 1 < H && valid(g[q + W]!) ? j + 1 : j;
  if (il === ir || ju === jd) return 0;
  const ga = g[j * W + ir]!,
    gb = g[j * W + il]!,
    gc = g[jd * W + i]!,
    ge = g[ju * W + i]!;
  const u = [xn[ir]! * ga - xn[il]! * gb, yn[j]! * ga - yn[j]! * gb, ga - gb],
    v = [xn[i]! * gc - xn[i]! * ge, yn[jd]! * gc - yn[ju]! * ge, gc - ge];
  const n = [u[1]! * v[2]! - u[2]! * v[1]!, u[2]! * v[0]! - u[0]! * v[2]!, u[0]! * v[1]! - u[1]! * v[0]!];
  const p = [xn[i]! * t, yn[j]! * t, t];
  const nn = hypot3(n[0]!, n[1]!, n[2]!);
  if (nn === 0) return 0;
  return Math.abs(n[0]! * p[0]! + n[1]! * p[1]! + n[2]! * p[2]!) / (nn * hypot3(p[0]!, p[1]!, p[2]!));
}

/** Pixels where normalCos32At differs from fround(definedCos), over a whole view. */
function mismatches(v: ViewData): { pixels: number; differ: number } {
  const { width: W, height: H, depth: g } = v;
  const { xn, yn } = rayTables(v);
  let differ = 0;
  for (let j = 0; j < H; j++)
    for (let i = 0, q = j * W; i < W; i++, q++)
      if (!Object.is(normalCos32At(g, W, H, xn, yn, i, j, q), Math.fround(definedCos(g, W, H, xn, yn, i, j, q)))) differ++;
  return { pixels: W * H, differ };
}

describe("the warp's float32 ray-normal cosine", () => {
  it("equals fround of the defined cosine at every pixel of rendered views", () => {
    let pixels = 0;
    for (const sub of ["counting_with_occlusion", "physical_contact"] as const) {
      for (const v of realBundle(sub, "warp-cos", "multi", 4).views) {
        const m = mismatches(v);
        expect(m.differ).toBe(0);
        pixels += m.pixels;
      }
    }
    expect(pixels).toBeGreaterThan(800_000);
  });

  it("equals it on random depth images across float32's range, with holes (the extremes take the hypot path)", () => {
    const rng = new Rng("warp-cos-random");
    for (const scale of [1e-38, 1e-20, 1e-3, 1, 37, 1e20, 1e38]) {
      const W = 64,
        H = 48;
      const depth = Float32Array.from({ length: W * H }, () => (rng.next() < 0.1 ? 0 : Math.fround(scale * (0.5 + rng.next()))));
      // at 1e±38 the squares' sums of the normal leave the cheap quotient's range: the defined path answers
      const v = { width: W, height: H, depth, K: { fx: 400, fy: 400, cx: 31.5, cy: 23.5 } } as unknown as ViewData;
      expect(mismatches(v).differ).toBe(0);
    }
  });
});
