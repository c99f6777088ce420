import { describe, expect, it } from "vitest";
import { changingWorld, bundleOf, nudgedWorld } from "../helpers/changingWorld.js";
import { renderBundle } from "../../bridge/sim/capture.js";
import { graphOfBundle } from "../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../scenegraph/pipelineOptions.js";
import { SceneGraphSchema } from "../../scenegraph/types.js";
import { NEAR_OBJECT_M, pointObjectDistance } from "../../scenegraph/diagnosis.js";
import { truthGraph } from "../../scenegraph/truth.js";

const world = changingWorld();
const build = async (paradigm: "single" | "multi", time: "diff" | "fuse", source: "gt" | "noisy" = "gt") =>
  graphOfBundle(bundleOf(world, paradigm), GraphPipelineOptionsSchema.parse({ source, time }));

describe("a memory of a world that changed between two looks", () => {
  it("fused, keeps the moved object's old copy and the removed object, both named stale by the diagnosis", async () => {
    const r = await build("single", "fuse");
    SceneGraphSchema.parse(r.graph);
    expect(r.graph.time?.mode).toBe("fuse");
    const stale = r.diagnosis!.nodes.filter((d) => d.status === "stale");
    expect(stale.map((d) => d.object_id).sort()).toEqual([world.moved.before.id, world.removed.id].sort());
    // each stale node was last seen in phase 1 (index 0), before the change
    for (const d of stale) expect(r.graph.nodes.find((n) => n.id === d.node)!.time).toEqual({ seen_in: [0], last_seen: 0 });
    expect(r.diagnosis!.metrics.stale).toBe(2);
  });

  it("diffed, names each change: the move with where from, the removal, the addition; nothing stale is left", async () => {
    for (const paradigm of ["single", "multi"] as const) {
      const r = await build(paradigm, "diff");
      SceneGraphSchema.parse(r.graph);
      const changes = r.graph.time!.changes;
      const moved = changes.find((c) => c.change === "moved")!;
      expect(moved.label).toBe(world.moved.before.category);
      // where the views put it: within the diagnosis' gate of the object's true box before and after
      expect(pointObjectDistance(moved.from!, world.moved.before)).toBeLessThan(NEAR_OBJECT_M);
      expect(pointObjectDistance(moved.at, world.moved.after)).toBeLessThan(NEAR_OBJECT_M);
      expect(changes.filter((c) => c.change === "removed").map((c) => c.label)).toEqual([world.removed.category]);
      expect(changes.filter((c) => c.change === "added").map((c) => c.label)).toEqual([world.added.category]);
      expect(r.graph.nodes.find((n) => n.id === moved.node)!.time).toEqual({ seen_in: [0, 1], last_seen: 1, change: "moved" });
      expect(r.diagnosis!.metrics.stale).toBe(0);
      expect(r.diagnosis!.metrics.matched).toBe(r.graph.nodes.length);
    }
  });

  it("diffed from the noisy source, the stale copies of the fused memory are gone", async () => {
    const fused = await build("multi", "fuse", "noisy");
    const diffed = await build("multi", "diff", "noisy");
    expect(fused.diagnosis!.metrics.stale).toBeGreaterThan(0);
    expect(diffed.diagnosis!.metrics.stale).toBe(0);
    expect(diffed.graph.time!.changes.some((c) => c.change === "removed" && c.label === world.removed.category)).toBe(true);
  });

  it("fused, keeps two copies of an object that slid 25 cm, and the diagnosis puts the duplicate down to the change", async () => {
    const w = nudgedWorld(0.25);
    const bundle = renderBundle(w.task, "single");
    const fused = await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse({ source: "gt", time: "fuse" }));
    const copies = fused.diagnosis!.nodes.filter((d) => d.object_id === w.nudged.id);
    expect(copies.map((d) => d.status).sort()).toEqual(["duplicate", "matched"]);
    expect(copies.find((d) => d.status === "duplicate")!.cause?.component).toBe("change");
    expect(fused.diagnosis!.metrics.duplicates_by_change).toBe(1);
    const diffed = await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse({ source: "gt", time: "diff" }));
    expect(diffed.diagnosis!.nodes.filter((d) => d.object_id === w.nudged.id).map((d) => d.status)).toEqual(["matched"]);
    expect(diffed.graph.time!.changes.map((c) => [c.change, c.label])).toEqual([["moved", w.nudged.category]]);
  });

  it("the truth graph of a changing world is its last phase, with the true changes a diff should name", () => {
    const g = truthGraph(world.task);
    SceneGraphSchema.parse(g);
    expect(g.nodes.map((n) => n.id).sort()).toEqual(
      world.task
        .phases!.at(-1)!
        .objects.map((o) => `o${o.id}`)
        .sort(),
    );
    expect(g.time!.changes.map((c) => [c.change, c.label, c.node ?? null])).toEqual([
      ["moved", world.moved.before.category, `o${world.moved.before.id}`],
      ["added", world.added.category, `o${world.added.id}`],
      ["removed", world.removed.category, null],
    ]);
    expect(g.nodes.find((n) => n.id === `o${world.added.id}`)!.time).toEqual({ seen_in: [1], last_seen: 1, change: "added" });
  });
});
