import { beforeAll, describe, expect, it } from "vitest";
import { renderBundle } from "../../bridge/sim/capture.js";
import type { FrameBundle } from "../../core/bundle/io.js";
import type { Vec3 } from "../../core/math/vec.js";
import { graphOfBundle, type PipelineResult } from "../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../scenegraph/pipelineOptions.js";
import { SceneGraphSchema } from "../../scenegraph/types.js";
import { generateTask } from "../../bridge/sim/generate/suite.js";
import { truthGraph } from "../../scenegraph/truth.js";
import { serializeGraph } from "../../src/prompt/serialize.js";
import { BOX_ID, MIRROR_ID, mirrorGraphTask } from "../helpers/mirrorScene.js";

let bundle: FrameBundle;
let gt: PipelineResult, noisy: PipelineResult;
const dot = (a: readonly number[], b: readonly number[]) => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
const degrees = (a: Vec3, b: Vec3) => (Math.acos(Math.min(1, dot(a, b))) * 180) / Math.PI;

beforeAll(async () => {
  bundle = renderBundle(mirrorGraphTask(), "gt");
  gt = await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse({ source: "gt" }));
  noisy = await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse({ source: "noisy", noiseLevel: 0.5 }));
});

/** The node the diagnosis matched to the mirror object. */
const mirrorNodeOf = (r: PipelineResult) => r.diagnosis!.objects.find((o) => o.id === MIRROR_ID)!.node;

describe("mirrors in scene graphs, from the graph's own evidence", () => {
  it("the gt graph's mirror entry is the mirror's node, its plane within 2 cm and 1° of the truth, facing the cameras", () => {
    const truth = bundle.manifest.mirrors![0]!;
    expect(gt.graph.mirrors).toHaveLength(1);
    const m = gt.graph.mirrors![0]!;
    expect(m.node).toBe(mirrorNodeOf(gt));
    expect(Math.hypot(...m.centre.map((x, k) => x - truth.centre[k]!))).toBeLessThan(0.02);
    expect(degrees(m.normal, truth.normal)).toBeLessThan(1);
    expect(Math.abs(m.half_width_m - truth.half_width_m)).toBeLessThan(0.02);
    expect(Math.abs(m.half_height_m - truth.half_height_m)).toBeLessThan(0.02);
    for (const v of bundle.manifest.views) {
      const E = v.extrinsic;
      // camera centre −Rᵀt: on the side the normal points to
      const c = [0, 1, 2].map((j) => -(E[0]![j]! * E[0]![3]! + E[1]![j]! * E[1]![3]! + E[2]![j]! * E[2]![3]!));
      expect(
        dot(
          m.normal,
          [0, 1, 2].map((k) => c[k]! - m.centre[k]!),
        ),
      ).toBeGreaterThan(0);
    }
    expect(gt.graph.nodes.filter((n) => n.flags.behind_mirror !== undefined)).toEqual([]);
    expect(SceneGraphSchema.parse(gt.graph)).toEqual(gt.graph);
  });

  it("the noisy graph keeps the mirror's plane from the pixels left on the glass and flags the box's reflection behind it", () => {
    const truth = bundle.manifest.mirrors![0]!;
    expect(noisy.graph.mirrors).toHaveLength(1);
    const m = noisy.graph.mirrors![0]!;
    expect(m.node).toBe(mirrorNodeOf(noisy));
    expect(degrees(m.normal, truth.normal)).toBeLessThan(5);
    // the depth noise puts the glass's points centimetres off; its plane within 15 cm
    expect(
      Math.abs(
        dot(
          [0, 1, 2].map((k) => m.centre[k]! - truth.centre[k]!),
          truth.normal,
        ),
      ),
    ).toBeLessThan(0.15);
    const ghosts = noisy.diagnosis!.nodes.filter((d) => d.status === "mirror_ghost");
    expect(ghosts.length).toBeGreaterThan(0);
    for (const d of ghosts) {
      expect(d.mirrors_object).toBe(BOX_ID);
      expect(noisy.graph.nodes.find((n) => n.id === d.node)!.flags.behind_mirror).toBe(m.node);
    }
    // what is flagged is what the diagnosis calls a ghost: nothing else lies behind the mirror here
    expect(noisy.graph.nodes.filter((n) => n.flags.behind_mirror !== undefined).map((n) => n.id)).toEqual(ghosts.map((d) => d.node));
  });

  it("a graph without a mirror node has no mirrors and no flag; a mirror naming a missing node does not parse", async () => {
    const plain = await graphOfBundle(
      renderBundle(generateTask("counting_with_occlusion", "mirror", 0), "gt"),
      GraphPipelineOptionsSchema.parse({ source: "gt" }),
    );
    expect(plain.graph).not.toHaveProperty("mirrors");
    expect(plain.graph.nodes.some((n) => "behind_mirror" in n.flags)).toBe(false);
    const bad = { ...gt.graph, mirrors: [{ ...gt.graph.mirrors![0]!, node: "n99" }] };
    const r = SceneGraphSchema.safeParse(bad);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toContain('names node "n99"');
  });

  it("the truth graph carries the task's mirror on the mirror's node, its true plane, serialized as a built graph's", () => {
    const t = bundle.manifest.task!;
    const g = truthGraph(t);
    const truth = bundle.manifest.mirrors![0]!;
    const { id, ...plane } = truth;
    expect(id).toBe(MIRROR_ID);
    expect(g.mirrors).toEqual([{ node: `o${MIRROR_ID}`, ...plane }]);
    expect(SceneGraphSchema.parse(g)).toEqual(g);
    // the same section the gt graph's mirror serializes to, with the same plane and size
    const section = (x: typeof g) => serializeGraph(x, { format: "text", uncertainty: false }).split("\nMirrors:")[1];
    expect(section(g)).toBeDefined();
    expect(section(g)).toContain(`o${MIRROR_ID}`);
    expect(section(g)).toContain("1.20 m wide and 1.60 m high");
    const gtWithTruePlane = { ...gt.graph, mirrors: [{ ...gt.graph.mirrors![0]!, ...plane }] };
    expect(section(g)!.replace(`o${MIRROR_ID}`, "M")).toBe(section(gtWithTruePlane)!.replace(gt.graph.mirrors![0]!.node, "M"));
    // a task without a mirror: no entry, its truth graph as before
    expect(truthGraph(generateTask("counting_with_occlusion", "mirror", 0))).not.toHaveProperty("mirrors");
  });
});
