/** What the 3D view draws for mirrors: the graph's mirror rectangles, and a line from each mirror ghost to the object it reflects. */
import { beforeAll, describe, expect, it } from "vitest";
import { renderBundle } from "../../../../bridge/sim/capture.js";
import type { FrameBundle } from "../../../../core/bundle/io.js";
import { reflectPoint } from "../../../../core/objects/mirror.js";
import { graphOfBundle, type PipelineResult } from "../../../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../../../scenegraph/pipelineOptions.js";
import { ghostLinks, mirrorEdges } from "../../../../src/apps/viewer/geometry.js";
import { BOX_CENTRE, mirrorGraphTask } from "../../../helpers/mirrorScene.js";

let bundle: FrameBundle;
let noisy: PipelineResult;
beforeAll(async () => {
  bundle = renderBundle(mirrorGraphTask(), "gt");
  noisy = await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse({ source: "noisy", noiseLevel: 0.5 }));
});

const points = (xs: number[]) => Array.from({ length: xs.length / 3 }, (_, i) => xs.slice(3 * i, 3 * i + 3));
const dist = (a: readonly number[], b: readonly number[]) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);

describe("the viewer's mirror overlay", () => {
  it("draws the graph's mirror as its rectangle in its plane, with a tick towards the side it reflects", () => {
    const m = noisy.graph.mirrors![0]!;
    const p = points(mirrorEdges(m));
    expect(p).toHaveLength(10);
    const diagonal = Math.hypot(m.half_width_m, m.half_height_m);
    for (const c of p.slice(0, 8)) {
      expect(dist(c, m.centre)).toBeCloseTo(diagonal, 9);
      expect(Math.abs([0, 1, 2].reduce((s, k) => s + (c[k]! - m.centre[k]!) * m.normal[k]!, 0))).toBeLessThan(1e-9);
    }
    // the tick ends on the cameras' side: towards the first camera (at x = -0.5, the mirror at x = 2 facing −x)
    expect(p[9]![0]!).toBeLessThan(p[8]![0]!);
  });

  it("joins each mirror ghost to the object it reflects: the ghost's mirror image lies near that object", () => {
    const ghosts = noisy.diagnosis!.nodes.filter((d) => d.status === "mirror_ghost");
    expect(ghosts.length).toBeGreaterThan(0);
    const truth = bundle.manifest.task!.objects.map((o) => ({ id: o.id, centre: o.position }));
    const segs = points(ghostLinks(noisy.graph.nodes, noisy.diagnosis!.nodes, truth));
    expect(segs).toHaveLength(2 * ghosts.length);
    const plane = bundle.manifest.mirrors![0]!;
    for (let i = 0; i < segs.length; i += 2) {
      expect(segs[i + 1]).toEqual(BOX_CENTRE);
      expect(dist(reflectPoint(plane, segs[i]!), BOX_CENTRE)).toBeLessThan(0.4);
    }
    // a diagnosis without ghosts draws no line
    expect(ghostLinks(noisy.graph.nodes, [], truth)).toEqual([]);
  });
});
