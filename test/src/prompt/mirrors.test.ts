/**
 * Mirrors in every prompt format: the graph's mirror entries always, the `behind_mirror` flag and its explaining
 * line only with uncertainty; a graph without mirrors serializes as before (no word of them).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { renderBundle } from "../../../bridge/sim/capture.js";
import { graphOfBundle } from "../../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../../scenegraph/pipelineOptions.js";
import type { SceneGraph } from "../../../scenegraph/types.js";
import { GRAPH_FORMATS } from "../../../src/prompt/formats.js";
import { serializeGraph } from "../../../src/prompt/serialize.js";
import { FRAME_ID, mirrorGraphTask, mirrorRoomObjects, MIRROR_ID } from "../../helpers/mirrorScene.js";

let noisy: SceneGraph;
let withoutMirror: SceneGraph;

beforeAll(async () => {
  const o = GraphPipelineOptionsSchema.parse({ source: "noisy", noiseLevel: 0.5 });
  noisy = (await graphOfBundle(renderBundle(mirrorGraphTask(), "gt"), o)).graph;
  // the same room with its mirror made a plain grey panel in a frame: no node is labelled mirror
  const panel = mirrorRoomObjects().map((x) =>
    x.id === MIRROR_ID ? { ...x, category: "panel", model: "panel/test" } : x.id === FRAME_ID ? { ...x, category: "frame", model: "frame/test" } : x,
  );
  withoutMirror = (await graphOfBundle(renderBundle(mirrorGraphTask(panel), "gt"), o)).graph;
});

describe("mirrors in the prompt formats", () => {
  it("every format names the mirror's node, plane and size; the flag and its meaning only with uncertainty", () => {
    const m = noisy.mirrors![0]!;
    const flagged = noisy.nodes.filter((n) => n.flags.behind_mirror === m.node);
    expect(flagged.length).toBeGreaterThan(0);
    for (const format of GRAPH_FORMATS) {
      const plain = serializeGraph(noisy, { format, uncertainty: false });
      const unsure = serializeGraph(noisy, { format, uncertainty: true });
      for (const text of [plain, unsure]) {
        expect(text, format).toContain("Mirrors: 1 mirror.");
        expect(text, format).toContain((2 * m.half_width_m).toFixed(2));
        expect(text, format).toContain(m.normal.map((x) => (x + 0).toFixed(2).replace(/^-0\.00$/, "0.00")).join(", "));
      }
      expect(plain, format).not.toMatch(/behind.mirror/);
      expect(unsure, format).toMatch(/behind.mirror/);
      const json = format === "json" || format === "relations" || format === "cogmap";
      expect(unsure, format).toContain(json ? `"behind_mirror": "${m.node}"` : `behind mirror ${m.node}`);
    }
  });

  it("a graph without mirrors has no word of them, in any format", () => {
    expect(withoutMirror.mirrors).toBeUndefined();
    for (const format of GRAPH_FORMATS)
      for (const uncertainty of [false, true]) expect(serializeGraph(withoutMirror, { format, uncertainty })).not.toMatch(/mirror/i);
  });
});
