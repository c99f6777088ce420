/**
 * Specular Reflection's programs (src/reason/mirrorPrograms.ts, mirrorPrograms2d.ts) on generated tasks, through the
 * real pipeline: the single view rendered, graphs from the gt source (the glass's depth: reflections lie on it) and
 * the noisy source's mirror component alone (reflections behind the glass, where a VGGT-like model puts them), and
 * the 2D arm's masks. The programs read the question and the evidence only: a task relabelled with another answer and
 * no metadata gets the same answer.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { renderBundle } from "../../../bridge/sim/capture.js";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import type { FrameBundle } from "../../../core/bundle/io.js";
import { signedPlaneDistance } from "../../../core/objects/mirror.js";
import type { Task } from "../../../core/task/schema.js";
import { graphOfBundle } from "../../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../../scenegraph/pipelineOptions.js";
import type { SceneGraph } from "../../../scenegraph/types.js";
import { truthGraph } from "../../../scenegraph/truth.js";
import { createSymbolicReasoner } from "../../../src/reason/symbolic.js";
import { createSymbolic2dReasoner } from "../../../src/reason/symbolic2d.js";

const N = 4;
const SEED = "mirror-programs-test";
type Sub = "reflection_authoring" | "mirror_spatial_relations" | "mirror_correspondence";
const SUBS: Sub[] = ["reflection_authoring", "mirror_spatial_relations", "mirror_correspondence"];
const tasks = Object.fromEntries(SUBS.map((s) => [s, Array.from({ length: N }, (_, i) => generateTask(s, SEED, i))])) as Record<Sub, Task[]>;
const relabelled = (t: Task): Task => ({ ...t, label_metadata: {}, answer: t.options.find((o) => o !== t.answer)! });

interface Built {
  task: Task;
  bundle: FrameBundle;
  gt: SceneGraph;
  mirrorOnly: SceneGraph;
}
const built: Record<Sub, Built[]> = { reflection_authoring: [], mirror_spatial_relations: [], mirror_correspondence: [] };
const graph = async (bundle: FrameBundle, o: object) => (await graphOfBundle(bundle, GraphPipelineOptionsSchema.parse(o))).graph;

beforeAll(async () => {
  for (const s of SUBS)
    for (const task of tasks[s]) {
      const bundle = renderBundle(task, "single");
      // the mirror component alone: reflections placed behind the glass exactly, no other error
      built[s].push({
        task,
        bundle,
        gt: await graph(bundle, { source: "gt" }),
        mirrorOnly: await graph(bundle, { source: "noisy", noiseLevel: 1, noiseComponents: ["mirror"] }),
      });
    }
}, 600_000);

const sym = createSymbolicReasoner();
const twoD = createSymbolic2dReasoner();
const answer3d = async (t: Task, g: SceneGraph) => sym.answer({ task: t, graph: g });

describe("Specular Reflection, 3D arm", () => {
  it("a ground-truth graph (real objects and the mirror's plane) answers every task: the geometry of the mirror images", async () => {
    for (const s of SUBS)
      for (const { task } of built[s]) {
        const g = truthGraph(task);
        expect(g.mirrors).toHaveLength(1);
        const a = await answer3d(task, g);
        expect(a.answer, `${task.task_id}: ${a.raw.join(" | ")}`).toBe(task.answer);
        expect((await answer3d(relabelled(task), g)).answer).toBe(a.answer);
      }
  });

  it("gt depth: a reflection lies on the glass; Reflection Authoring reads it as seen through the mirror", async () => {
    let onGlass = 0;
    for (const { task, gt } of built.reflection_authoring) {
      const a = await answer3d(task, gt);
      expect(a.answer, `${task.task_id}: ${a.raw.join(" | ")}`).toBe(task.answer);
      if (task.answer === "yes") {
        expect(a.raw.join(" | ")).toMatch(/on mirror/);
        const mirror = gt.mirrors![0]!;
        const node = gt.nodes.find((n) => n.label === task.label_metadata.target_category)!;
        expect(Math.abs(signedPlaneDistance(mirror, node.centroid))).toBeLessThan(0.1);
        onGlass++;
      }
    }
    expect(onGlass).toBe(N / 2);
  });

  it("with every reflection behind the glass, the graph finds the glass by its frame: the true plane within 3 cm and 2° in 11 of 12", () => {
    let found = 0;
    for (const s of SUBS)
      for (const { bundle, mirrorOnly } of built[s]) {
        expect(mirrorOnly.mirrors).toHaveLength(1);
        const m = mirrorOnly.mirrors![0]!,
          truth = bundle.manifest.mirrors![0]!;
        const cos = m.normal[0] * truth.normal[0] + m.normal[1] * truth.normal[1] + m.normal[2] * truth.normal[2];
        if (Math.abs(signedPlaneDistance(truth, m.centre)) < 0.03 && cos > Math.cos((2 * Math.PI) / 180)) found++;
      }
    // the twelfth (Spatial Relations #2): its single view shows one 11 cm side bar of the frame, too narrow for the
    // lines to the glass, so the reflected wall behind it is taken for the glass
    expect(found).toBe(3 * N - 1);
  });

  it("reflections behind the glass (the noisy source's mirror component) are reflected back to where the objects stand", async () => {
    let right = 0,
      reflectedBack = 0;
    for (const s of ["mirror_spatial_relations", "mirror_correspondence"] as const)
      for (const { task, mirrorOnly } of built[s]) {
        const a = await answer3d(task, mirrorOnly);
        if (/behind (the )?mirror/.test(a.raw.join(" | "))) reflectedBack++;
        if (a.answer === task.answer) right++;
        expect((await answer3d(relabelled(task), mirrorOnly)).answer).toBe(a.answer);
      }
    expect(reflectedBack).toBeGreaterThanOrEqual(N);
    expect(right).toBeGreaterThanOrEqual(N + 2);
  });
});

describe("Specular Reflection, 2D arm", () => {
  it("Reflection Authoring: the object's mask inside the mirror's mask or outside it", async () => {
    for (const { task, bundle } of built.reflection_authoring) {
      const a = await twoD.answer({ task, bundle });
      expect(a.answer, `${task.task_id}: ${a.raw.join(" | ")}`).toBe(task.answer);
      expect(a.raw.join(" | ")).toMatch(/pixels inside the mirror's mask \d+, outside it \d+/);
      expect((await twoD.answer({ task: relabelled(task), bundle })).answer).toBe(a.answer);
    }
  });

  it("Spatial Relations and Correspondence: size constancy along the reflected path, never surer than masks allow", async () => {
    for (const s of ["mirror_spatial_relations", "mirror_correspondence"] as const)
      for (const { task, bundle } of built[s]) {
        const a = await twoD.answer({ task, bundle });
        if (a.answer === null) continue;
        expect(a.confidence!).toBeLessThanOrEqual(0.6);
        expect((await twoD.answer({ task: relabelled(task), bundle })).answer).toBe(a.answer);
      }
  });
});
