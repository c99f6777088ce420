/**
 * The built-in simulator as an active environment (bridge/env/types.ts): renders each view on demand at
 * the agent's current pose, with the same renderer and camera as the passive bundles (capture.ts), and
 * the motion model of agent.ts (blocked moves leave the pose unchanged and say so).
 */
import { intrinsicsFromHfov, poseToExtrinsic, type AgentPose, type Intrinsics } from "../../core/math/camera.js";
import type { Task } from "../../core/task/schema.js";
import { BUNDLE_CONVENTIONS, BUNDLE_FORMAT, type BundleManifest } from "../../core/bundle/schema.js";
import type { Environment, EnvView } from "../env/types.js";
import type { NavigationAction } from "../../core/task/actions.js";
import { applyAction, worldOf, type World } from "./agent.js";
import { BUILTIN_SIMULATOR } from "./capture.js";
import { buildScene, type RenderScene } from "./scene.js";
import { render } from "./raster.js";

export class BuiltinEnvironment implements Environment {
  readonly manifest: Omit<BundleManifest, "views">;
  private readonly scene: RenderScene;
  private readonly world: World;
  private readonly K: Intrinsics;
  private pose: AgentPose;
  private index = 0;

  constructor(private readonly task: Task) {
    this.scene = buildScene(task);
    this.world = worldOf(task);
    this.K = intrinsicsFromHfov(task.camera.width, task.camera.height, task.camera.hfov_deg);
    this.pose = { position: task.agent_initial.position, yaw: task.agent_initial.yaw, pitch: task.agent_initial.pitch };
    const instances = [...this.scene.categories.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([id, category]) => ({ id, category, structure: category === "floor" || category === "wall" }));
    this.manifest = {
      format: BUNDLE_FORMAT,
      task_id: task.task_id,
      paradigm: "active",
      simulator: task.proxy ? task.simulator : BUILTIN_SIMULATOR,
      image: { width: task.camera.width, height: task.camera.height },
      conventions: BUNDLE_CONVENTIONS,
      instances,
      task,
    };
  }

  private view(action: NavigationAction | null, blocked: boolean): EnvView {
    const { width, height } = this.task.camera;
    const E = poseToExtrinsic(this.pose);
    const out = render(this.scene, { width, height, K: this.K, E });
    const view = { index: this.index, width, height, rgb: out.rgb!, depth: out.depth, ids: out.ids, K: this.K, E, action };
    return { view, pose: this.pose, blocked, action };
  }

  async reset(): Promise<EnvView> {
    this.pose = { position: this.task.agent_initial.position, yaw: this.task.agent_initial.yaw, pitch: this.task.agent_initial.pitch };
    this.index = 0;
    return this.view(null, false);
  }

  async step(action: NavigationAction): Promise<EnvView> {
    const next = applyAction(this.world, this.pose, action);
    if (next) this.pose = next;
    this.index++;
    return this.view(action, next === null);
  }

  async close(): Promise<void> {}
}
