/**
 * A real graph with a stale node, for the tests of what shows node statuses (the ablation, the report's chart,
 * the viewer): a cardboard box seen on the floor at P, then moved onto the table at Q without the memory being
 * told (no manipulation event, as before issue 46), so a node stays at P. The diagnosis, told of the move,
 * judges the box where it is now and counts the node left at P as stale.
 */
import { generateTask } from "../../bridge/sim/generate/suite.js";
import { generatorContext, GeneratorOptionsSchema } from "../../bridge/sim/generate/options.js";
import { BuiltinEnvironment } from "../../bridge/sim/env.js";
import { EpisodeBundle } from "../../bridge/env/bundle.js";
import { buildScene } from "../../bridge/sim/scene.js";
import { render } from "../../bridge/sim/raster.js";
import { intrinsicsFromHfov, poseToExtrinsic, type AgentPose } from "../../core/math/camera.js";
import type { Vec3 } from "../../core/math/vec.js";
import type { Task } from "../../core/task/schema.js";
import type { FrameBundle, ViewData } from "../../core/bundle/io.js";
import { GraphMemory, type PipelineResult } from "../../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../../scenegraph/pipelineOptions.js";
import { diagnose, type ObjectMove } from "../../scenegraph/diagnosis.js";
import type { Diagnosis } from "../../scenegraph/diagnosisSchema.js";

/** Small views: the memory runs in a second or two. */
const CAMERA = { width: 160, height: 120, hfov_deg: 70 };

export interface StaleGraph {
  task: Task;
  bundle: FrameBundle;
  /** the last graph, its cloud and memberships */
  result: PipelineResult;
  move: ObjectMove;
  diagnosis: Diagnosis;
}

/** The episode, rendered and fed to the gt source's memory view by view; the last graph diagnosed, told of the move. */
export async function staleGraph(): Promise<StaleGraph> {
  // spatial_distance #1 of seed "inc": a white and a brown cardboard box on the floor, a table
  const task = generateTask("spatial_distance", "inc", 1, generatorContext(GeneratorOptionsSchema.parse({}), CAMERA));
  const box = task.objects.find((o) => o.name === "the white cardboard box")!;
  const table = task.objects.find((o) => o.category === "table")!;
  const P: Vec3 = [...box.position];
  const Q: Vec3 = [table.position[0] + 0.1, table.position[1], table.position[2] + table.extent[2] / 2 + box.extent[2] / 2];
  const atP = task;
  const atQ: Task = { ...task, objects: task.objects.map((o) => (o.id === box.id ? { ...o, position: Q, support: table.id } : o)) };
  const start: AgentPose = { position: task.agent_initial.position, yaw: task.agent_initial.yaw, pitch: task.agent_initial.pitch };
  const turned = (yaw: number): AgentPose => ({ ...start, yaw: start.yaw + yaw });
  const K = intrinsicsFromHfov(CAMERA.width, CAMERA.height, CAMERA.hfov_deg);
  const view = (scene: Task, pose: AgentPose, index: number): ViewData => {
    const E = poseToExtrinsic(pose);
    const out = render(buildScene(scene), { width: CAMERA.width, height: CAMERA.height, K, E });
    return { index, width: CAMERA.width, height: CAMERA.height, rgb: out.rgb!, depth: out.depth, ids: out.ids, K, E, action: null };
  };
  const steps: Array<[Task, AgentPose]> = [
    [atP, start],
    [atP, turned(-0.3)],
    [atQ, turned(-0.3)],
    [atQ, start],
  ];
  const env = new BuiltinEnvironment(task);
  const episode = new EpisodeBundle(env.manifest);
  const memory = new GraphMemory(env.manifest, GraphPipelineOptionsSchema.parse({ source: "gt", masks: "instance" }), { diagnose: false });
  let bundle = episode.current();
  let result: PipelineResult | null = null;
  for (const [k, [scene, pose]] of steps.entries()) {
    bundle = episode.add(view(scene, pose, k));
    result = await memory.addView(bundle);
  }
  await env.close();
  const move: ObjectMove = { id: box.id, from: { position: P, orientation: box.orientation }, to: { position: Q, orientation: box.orientation } };
  const diagnosis = diagnose({ graph: result!.graph, members: result!.members, cloud: result!.cloud, task, bundle, trueRelations: [], moved: [move] });
  return { task, bundle, result: result!, move, diagnosis };
}
