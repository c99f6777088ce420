/**
 * `flags.may_contain`: an open packing box seen only from the side may hold something; once a view from
 * above has shown its inside it no longer may. Views rendered by the built-in simulator, fed to the memory.
 */
import { describe, expect, it } from "vitest";
import { generateTask } from "../../bridge/sim/generate/suite.js";
import { generatorContext, GeneratorOptionsSchema } from "../../bridge/sim/generate/options.js";
import { BuiltinEnvironment } from "../../bridge/sim/env.js";
import { EpisodeBundle } from "../../bridge/env/bundle.js";
import { buildScene } from "../../bridge/sim/scene.js";
import { render } from "../../bridge/sim/raster.js";
import { buildModel } from "../../core/objects/library.js";
import { intrinsicsFromHfov, poseToExtrinsic, type AgentPose } from "../../core/math/camera.js";
import type { Task } from "../../core/task/schema.js";
import type { ViewData } from "../../core/bundle/io.js";
import { GraphMemory, type PipelineResult } from "../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../scenegraph/pipelineOptions.js";
import { serializeGraph } from "../../src/prompt/serialize.js";

const CAMERA = { width: 160, height: 120, hfov_deg: 70 };
const base = generateTask("spatial_distance", "inc", 1, generatorContext(GeneratorOptionsSchema.parse({}), CAMERA));
const extent = buildModel("packing_box/0").extent;
/** the brown cardboard box made an open packing box (its model's own size), standing on the floor */
const BOX = { ...base.objects.find((o) => o.name === "the brown cardboard box")!, category: "packing_box", model: "packing_box/0", name: "the packing box" };
const task: Task = {
  ...base,
  objects: base.objects.map((o) =>
    o.id === BOX.id ? { ...BOX, extent: [...extent], scale: 1, position: [BOX.position[0], BOX.position[1], extent[2] / 2] as [number, number, number] } : o,
  ),
};
const [bx, by] = BOX.position;
/** just below its rim, 1 m to its +y side, looking at it level: its front wall only */
const SIDE: AgentPose = { position: [bx, by + 1, extent[2] * 0.8], yaw: -Math.PI / 2, pitch: 0 };
/**
 * 1 m above its rim, 0.2 m to its +x and +y, looking at its centre: the rim, an outer corner and the inside in
 * one view (from straight in front the front wall hides the inside's floor, and the far wall's inner face,
 * joined to the rest by no visible surface, is dropped by the detection's denoising)
 */
const ABOVE: AgentPose = lookAt([bx + 0.2, by + 0.2, extent[2] + 1.0], [bx, by, extent[2] / 2]);

function lookAt(from: [number, number, number], at: readonly number[]): AgentPose {
  const d = [at[0]! - from[0], at[1]! - from[1], at[2]! - from[2]];
  return { position: from, yaw: Math.atan2(d[1]!, d[0]!), pitch: Math.atan2(d[2]!, Math.hypot(d[0]!, d[1]!)) };
}

const K = intrinsicsFromHfov(CAMERA.width, CAMERA.height, CAMERA.hfov_deg);
function view(pose: AgentPose, index: number): ViewData {
  const E = poseToExtrinsic(pose);
  const out = render(buildScene(task), { width: CAMERA.width, height: CAMERA.height, K, E });
  return { index, width: CAMERA.width, height: CAMERA.height, rgb: out.rgb!, depth: out.depth, ids: out.ids, K, E, action: null };
}

describe("may_contain", () => {
  it("gt: a packing box seen from the side may contain; seen from above, the same node does not", async () => {
    const { side, above } = await sideThenAbove("gt");
    expect(boxesOf(side)).toHaveLength(1);
    expect(boxesOf(side)[0]!.flags.may_contain).toBe(true);
    // non-containers carry no flag
    expect(side.graph.nodes.filter((n) => n.label !== "packing_box").every((n) => n.flags.may_contain === undefined)).toBe(true);
    // the prompt shows it where it shows flags, and says what it means
    const prompt = serializeGraph(side.graph, { format: "json", uncertainty: true });
    expect(prompt).toMatch(/"may_contain": true/);
    expect(prompt).toMatch(/`may_contain`: a container whose inside no view has shown/);
    expect(serializeGraph(side.graph, { format: "text", uncertainty: true })).toMatch(/may contain unseen objects/);
    expect(boxesOf(above)).toHaveLength(1);
    expect(boxesOf(above)[0]!.flags.may_contain).toBe(false);
    expect(serializeGraph(above.graph, { format: "json", uncertainty: true })).not.toMatch(/may_contain/);
  });

  it("noisy: the side view alone may contain; the view from above alone does not", async () => {
    const { side } = await sideThenAbove("noisy");
    expect(boxesOf(side).length).toBeGreaterThan(0);
    expect(boxesOf(side).every((n) => n.flags.may_contain === true)).toBe(true);
    const env = new BuiltinEnvironment(task);
    const alone = await new GraphMemory(env.manifest, GraphPipelineOptionsSchema.parse({ source: "noisy", masks: "instance" }), { diagnose: false }).addView(
      new EpisodeBundle(env.manifest).add(view(ABOVE, 0)),
    );
    const largest = boxesOf(alone).sort((a, b) => b.raw_point_count - a.raw_point_count)[0]!;
    expect(largest.flags.may_contain).toBe(false);
  });
});

const boxesOf = (g: PipelineResult) => g.graph.nodes.filter((n) => n.label === "packing_box");

async function sideThenAbove(source: "gt" | "noisy"): Promise<{ side: PipelineResult; above: PipelineResult }> {
  const env = new BuiltinEnvironment(task);
  const ep = new EpisodeBundle(env.manifest);
  const memory = new GraphMemory(env.manifest, GraphPipelineOptionsSchema.parse({ source, masks: "instance" }), { diagnose: false });
  const side = await memory.addView(ep.add(view(SIDE, 0)));
  return { side, above: await memory.addView(ep.add(view(ABOVE, 1))) };
}
