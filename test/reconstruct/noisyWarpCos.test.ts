/**
 * The warp's ray-normal cosine as a float32 (reconstruct/noisy/warp.ts normalCos32At) comes from a cheaper
 * quotient whenever every double near it rounds to the same float32. It must equal fround of the cosine as
 * defined (normalCosExact, two hypots) at every pixel: of rendered views, of random depth images spanning
 * tiny to huge depths and holes, and where the quotient sits on a float32 rounding midpoint.
 */
import { describe, expect, it } from "vitest";
import { Rng } from "../../core/math/rng.js";
import { clearFloat32, COS32_MARGIN, normalCos32At, normalCosExact, rayTables } from "../../reconstruct/noisy/warp.js";
import type { ViewData } from "../../core/bundle/io.js";
import { realBundle } from "./noisyHelpers.js";

/** Pixels where normalCos32At differs from fround(normalCosExact), over a whole view. */
function mismatches(v: ViewData): { pixels: number; differ: number } {
  const { width: W, height: H, depth: g } = v;
  const { xn, yn } = rayTables(v);
  let differ = 0;
  for (let j = 0; j < H; j++)
    for (let i = 0, q = j * W; i < W; i++, q++)
      if (!Object.is(normalCos32At(g, W, H, xn, yn, i, j, q), Math.fround(normalCosExact(g, W, H, xn, yn, i, j, q)))) differ++;
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

  it("declines the cheap quotient next to a float32 rounding midpoint and takes it elsewhere", () => {
    // 1.5 and 1.5 + 2^-23 are neighbouring float32s; their midpoint is a double
    const mid = 1.5 + 2 ** -24;
    for (const d of [0, 2 ** -52, -(2 ** -52), 2 ** -49, -(2 ** -49)]) expect(clearFloat32(mid + d)).toBeNaN();
    expect(clearFloat32(mid + 2 ** -44)).toBe(Math.fround(mid + 2 ** -44));
    expect(clearFloat32(mid - 2 ** -44)).toBe(Math.fround(mid - 2 ** -44));
    expect(clearFloat32(0.75)).toBe(0.75);
    expect(clearFloat32(0)).toBe(0);
    expect(COS32_MARGIN).toBeLessThan(2 ** -46);
  });
});
