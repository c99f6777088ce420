/**
 * The built-in simulator as an active environment (bridge/env/types.ts): renders each view on demand at
 * the agent's current pose, with the same renderer and camera as the passive bundles (capture.ts), the motion
 * model of agent.ts (blocked moves leave the pose unchanged and say so) and the hands of manipulation/hands.ts
 * (a manipulation changes the scene's objects, and the next view is rendered from the changed scene).
 */
import { intrinsicsFromHfov, poseToExtrinsic, type AgentPose, type Intrinsics } from "../../core/math/camera.js";
import type { Task } from "../../core/task/schema.js";
import { BUNDLE_CONVENTIONS, BUNDLE_FORMAT, type BundleManifest } from "../../core/bundle/schema.js";
import type { EnvAction, Environment, EnvView, ObjectRef, WorldTruth } from "../env/types.js";
import { actionText } from "../../core/task/actions.js";
import { applyAction, worldOf, type World } from "./agent.js";
import { BUILTIN_SIMULATOR, payloadOf } from "./capture.js";
import { buildScene, type RenderScene } from "./scene.js";
import { render } from "./raster.js";
import { idCounts } from "../../core/idTally.js";
import { Hands, worldTruth } from "./manipulation/hands.js";
import { loadPhysics } from "./physics/world.js";
import { taskPhysics } from "./physics/taskWorld.js";
import { taskPhases, type TaskPhase } from "../../core/task/phases.js";

export class BuiltinEnvironment implements Environment {
  readonly manifest: Omit<BundleManifest, "views">;
  private scene: RenderScene;
  private world: World;
  private hands: Hands;
  private readonly taskPhases: TaskPhase[];
  private phase = 0;
  /** Phases of a world that changes (absent: one world). */
  readonly phases?: number;
  private readonly K: Intrinsics;
  private pose: AgentPose;
  private index = 0;
  /** Pixels per instance id in the last view: the hands act only on what the agent sees. */
  private visible = new Map<number, number>();

  constructor(private readonly task: Task) {
    this.hands = new Hands(task.objects, task.room.size, taskPhysics(task));
    this.taskPhases = taskPhases(task);
    if (task.phases) this.phases = this.taskPhases.length;
    this.scene = buildScene(task);
    this.world = worldOf(task);
    this.K = intrinsicsFromHfov(task.camera.width, task.camera.height, task.camera.hfov_deg);
    this.pose = { position: task.agent_initial.position, yaw: task.agent_initial.yaw, pitch: task.agent_initial.pitch };
    // every phase's objects, by id: the instance table covers what any view may show
    const categories = new Map(this.scene.categories);
    for (const ph of this.taskPhases.slice(1)) for (const [id, c] of buildScene({ ...task, objects: ph.objects }).categories) categories.set(id, c);
    const instances = [...categories.entries()]
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
    if (this.scene.mirrors.length) this.manifest.mirrors = this.scene.mirrors.map((m) => m.plane);
  }

  /** Rebuilds the render scene and the body's obstacles from the objects as they are now (a held object is no obstacle). */
  private rebuild(): void {
    const objects = this.hands.current();
    const held = this.hands.holding();
    this.scene = buildScene({ ...this.task, objects });
    this.world = worldOf({ ...this.task, objects: objects.filter((o) => o.id !== held) });
  }

  private view(action: string | null, blocked: boolean, actionResult: string | null): EnvView {
    const { width, height } = this.task.camera;
    const E = poseToExtrinsic(this.pose);
    const out = render(this.scene, { width, height, K: this.K, E });
    this.visible = idCounts(out.ids);
    const view = { index: this.index, width, height, ...payloadOf(out), K: this.K, E, action };
    return { view, pose: this.pose, blocked, action, actionResult, ...(this.phases ? { phase: this.phase } : {}) };
  }

  async reset(): Promise<EnvView> {
    this.pose = { position: this.task.agent_initial.position, yaw: this.task.agent_initial.yaw, pitch: this.task.agent_initial.pitch };
    this.index = 0;
    if (this.phase !== 0) this.enterPhase(0);
    return this.view(null, false, null);
  }

  /** The world of a phase, as it was set out (the hands' changes undone), seen from its primary viewpoint. */
  private enterPhase(k: number): void {
    const ph = this.taskPhases[k]!;
    this.phase = k;
    this.hands = new Hands(ph.objects, this.task.room.size, taskPhysics(this.task));
    this.pose = ph.agent;
    this.rebuild();
  }

  async nextPhase(): Promise<EnvView> {
    if (this.phase + 1 >= this.taskPhases.length) throw new Error(`${this.task.task_id}: no phase after ${this.taskPhases[this.phase]!.label}`);
    this.index++;
    this.enterPhase(this.phase + 1);
    return this.view(null, false, `the world changed while no one looked: now ${this.taskPhases[this.phase]!.label}`);
  }

  async step(action: EnvAction): Promise<EnvView> {
    this.index++;
    if (action.kind === "camera") {
      const next = applyAction(this.world, this.pose, action.name);
      if (next) this.pose = next;
      if (next && this.hands.holding() !== null) {
        this.hands.carry(this.pose);
        this.rebuild();
      }
      return this.view(action.name, next === null, next ? "ok" : "blocked: the move would leave the free space");
    }
    await loadPhysics();
    const r = this.hands.apply(action.name, action.objects, this.pose, this.visible);
    if (r.ok) this.rebuild();
    const out = this.view(actionText({ kind: "hands", name: action.name, objects: action.objects.map((o: ObjectRef) => o.text) }), !r.ok, r.result);
    return r.ids ? { ...out, actedOn: r.ids } : out;
  }

  checkReference(ref: ObjectRef): string | null {
    return this.hands.check(ref, this.visible);
  }

  truth(): WorldTruth {
    return worldTruth(this.taskPhases[this.phase]!.objects, this.hands.current());
  }

  async close(): Promise<void> {}
}
