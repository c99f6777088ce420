import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateTask } from "../../../../bridge/sim/generate/suite.js";
import { captureBundle } from "../../../../bridge/sim/capture.js";
import { writeBundle } from "../../../../core/bundle/io.js";
import { esi3d } from "./helpers.js";

describe("esi3d graph and inspect", () => {
  it("write a graph with diagnosis and a ConceptGraphs export, and print the node table", () => {
    const dir = mkdtempSync(join(tmpdir(), "esi3d-graph-"));
    const task = generateTask("spatial_distance", "cli-graph", 0);
    const { manifest, payloads } = captureBundle(task, "gt");
    writeBundle(join(dir, "b"), manifest, payloads);
    const g = esi3d(["graph", join(dir, "b"), "-o", join(dir, "g.json"), "--diagnosis", join(dir, "d.json"), "--conceptgraphs", join(dir, "cg")]);
    expect(g.code, g.stderr).toBe(0);
    const graph = JSON.parse(readFileSync(join(dir, "g.json"), "utf8"));
    expect(graph.format).toBe("esi3d-graph/1");
    expect(graph.nodes.length).toBeGreaterThanOrEqual(3);
    for (const n of graph.nodes) expect(n.box.extent.length).toBe(3);
    const diag = JSON.parse(readFileSync(join(dir, "d.json"), "utf8"));
    expect(diag.metrics.f1_observed).toBeGreaterThan(0.6);
    expect(existsSync(join(dir, "cg", "scene_graph.json"))).toBe(true);
    const cg = JSON.parse(readFileSync(join(dir, "cg", "scene_graph.json"), "utf8"));
    expect(Object.keys(cg[0]).sort()).toEqual(["bbox_center", "bbox_extent", "caption", "id", "object_tag", "possible_tags"]);
    // without --diagnosis the summary line comes from the node metrics alone, and says the same
    const summary = (m: { f1_observed: number; duplicates: number; hallucinated: number }) =>
      `(node F1 ${m.f1_observed.toFixed(3)} on observed objects, ${m.duplicates} duplicate(s), ${m.hallucinated} hallucinated)`;
    expect(g.stdout).toContain(summary(diag.metrics));
    const plain = esi3d(["graph", join(dir, "b"), "-o", join(dir, "g2.json")]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain(summary(diag.metrics));
    const { timings_ms: _a, ...graphNoTimes } = graph;
    const { timings_ms: _b, ...plainNoTimes } = JSON.parse(readFileSync(join(dir, "g2.json"), "utf8"));
    expect(plainNoTimes).toEqual(graphNoTimes);
    const i = esi3d(["inspect", join(dir, "b")]);
    expect(i.code, i.stderr).toBe(0);
    expect(i.stdout).toMatch(/node\s+label\s+status\s+true object/);
    for (const o of task.relevant_object_ids) expect(i.stdout).toContain(task.objects.find((x) => x.id === o)!.name);
    expect(i.stdout).toMatch(/node precision .* F1/);
    const bad = esi3d(["inspect", join(dir, "b"), "--masks", "pixels"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--masks: expected one of semantic, instance, oracle, none/);
  });
});
