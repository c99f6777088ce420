/** The appearance model's label of one mask: what a view shows of an object decides how reliably it reads as its category. */
import { describe, expect, it } from "vitest";
import { Rng } from "../../core/math/rng.js";
import { maskLabel } from "../../scenegraph/maskLabel.js";

/** Share of `trials` seeded draws whose top label is `want`. */
function topRate(category: string, px: { n: number; luma: number }, rect: number | null, hidden: boolean, want: string, trials = 2000): number {
  let hits = 0;
  for (let i = 0; i < trials; i++) if (maskLabel(category, px, rect, hidden, new Rng(`t${i}`)).label === want) hits++;
  return hits / trials;
}

describe("maskLabel", () => {
  // four times COCO's small-object area (32 x 32 px), twice the well-lit luma (60): nothing weakens the evidence
  const big = { n: 4 * 1024, luma: 2 * 60 * 4 * 1024 };
  it("a large, well-lit, fully visible mug reads as a mug at the named top-1 rate", () => {
    const r = topRate("mug", big, big.n / 0.6, false, "mug");
    expect(Math.abs(r - 0.95)).toBeLessThan(0.02); // the model's full-view top-1 rate
  });

  it("a mug seen from the handle-less side reads as often as the cup it looks like as a mug", () => {
    const mug = topRate("mug", big, null, true, "mug"),
      cup = topRate("mug", big, null, true, "cup");
    expect(Math.abs(mug - cup)).toBeLessThan(0.06);
    expect(mug + cup).toBeGreaterThan(0.9);
  });

  it("occluded, small and dark views give weaker evidence (their look-alikes gain weight)", () => {
    const full = topRate("apple", big, big.n / 0.6, false, "apple");
    const occluded = topRate("apple", big, (big.n / 0.6) * 3, false, "apple");
    const small = topRate("apple", { n: 100, luma: 100 * 2 * 60 }, null, false, "apple");
    const dark = topRate("apple", { n: big.n, luma: big.n * 0.3 * 60 }, null, false, "apple");
    for (const weak of [occluded, small, dark]) expect(weak).toBeLessThan(full - 0.2);
    const l = maskLabel("apple", { n: big.n, luma: big.n * 0.3 * 60 }, null, false, new Rng("q"));
    expect(l.quality.light).toBeCloseTo(0.3, 2);
    expect(Object.values(l.scores).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 2);
  });
});
