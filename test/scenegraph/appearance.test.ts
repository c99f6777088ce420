/**
 * The appearance label-evidence model (scenegraph/appearance.ts): what a view shows decides a mask's label.
 */
import { describe, expect, it } from "vitest";
import { labelledEvidence } from "../../scenegraph/appearance.js";
import { appearanceEvidence } from "../../scenegraph/appearanceEvidence.js";
import { computeEvidence } from "../../scenegraph/evidence.js";
import { graphOfBundle } from "../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../scenegraph/pipelineOptions.js";
import { generatedBundle } from "./helpers.js";

describe("appearance labels", () => {
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
