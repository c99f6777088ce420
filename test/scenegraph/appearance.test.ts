/**
 * The appearance label-evidence model (scenegraph/appearance.ts): what a view shows decides a mask's label.
 */
import { describe, expect, it } from "vitest";
import { Rng } from "../../core/math/rng.js";
import { appearanceEvidence, FULL_EVIDENCE_AREA_PX, FULL_VIEW_TOP1, labelledEvidence, maskLabel, WELL_LIT_LUMA } from "../../scenegraph/appearance.js";
import { computeEvidence } from "../../scenegraph/evidence.js";
import { graphOfBundle } from "../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../scenegraph/pipelineOptions.js";
import { generatedBundle } from "./helpers.js";

/** Share of `trials` seeded draws whose top label is `want`. */
function topRate(category: string, px: { n: number; luma: number }, rect: number | null, hidden: boolean, want: string, trials = 2000): number {
  let hits = 0;
  for (let i = 0; i < trials; i++) if (maskLabel(category, px, rect, hidden, new Rng(`t${i}`)).label === want) hits++;
  return hits / trials;
}

describe("appearance labels", () => {
  const big = { n: 4 * FULL_EVIDENCE_AREA_PX, luma: 2 * WELL_LIT_LUMA * 4 * FULL_EVIDENCE_AREA_PX };
  it("a large, well-lit, fully visible mug reads as a mug at the named top-1 rate", () => {
    const r = topRate("mug", big, big.n / 0.6, false, "mug");
    expect(Math.abs(r - FULL_VIEW_TOP1)).toBeLessThan(0.02);
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
    const small = topRate("apple", { n: 100, luma: 100 * 2 * WELL_LIT_LUMA }, null, false, "apple");
    const dark = topRate("apple", { n: big.n, luma: big.n * 0.3 * WELL_LIT_LUMA }, null, false, "apple");
    for (const weak of [occluded, small, dark]) expect(weak).toBeLessThan(full - 0.2);
    const l = maskLabel("apple", { n: big.n, luma: big.n * 0.3 * WELL_LIT_LUMA }, null, false, new Rng("q"));
    expect(l.quality.light).toBeCloseTo(0.3, 2);
    expect(Object.values(l.scores).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 2);
  });

  it("is seeded: the same seed gives the same labels, another seed other ones; oracle leaves the evidence alone", () => {
    const b = generatedBundle("category_ambiguity", "appearance", 0, "multi");
    const ev = computeEvidence(b, "instance");
    const one = appearanceEvidence(b, ev, "s1").evidence.segments.map((s) => s.label);
    expect(appearanceEvidence(b, ev, "s1").evidence.segments.map((s) => s.label)).toEqual(one);
    const scores = (seed: string) => JSON.stringify(appearanceEvidence(b, ev, seed).evidence.segments.map((s) => s.scores));
    expect(scores("s2")).not.toEqual(scores("s1"));
    expect(labelledEvidence(b, "instance", "oracle", "s1")).toBe(ev);
  });

  it("the view-hallucination target seen from its ambiguous side is judged part-hidden, and the graph carries the label distribution", async () => {
    const b = generatedBundle("view_hallucination", "appearance", 0, "single");
    const target = b.manifest.task!.objects.find((o) => o.role === "target")!;
    const ev = computeEvidence(b, "instance");
    const { labels } = appearanceEvidence(b, ev, "0");
    const hit = ev.segments.filter((s) => b.views[s.view]!.ids.includes(target.id) && s.label === target.category);
    expect(hit.length).toBeGreaterThan(0);
    expect(hit.some((s) => labels.get(s.key)?.quality.partHidden)).toBe(true);
    const g = (await graphOfBundle(b, GraphPipelineOptionsSchema.parse({ source: "gt", labels: "appearance" }), { diagnose: false })).graph;
    expect(g.nodes.some((n) => Object.keys(n.label_distribution).length > 1)).toBe(true);
  });
});
