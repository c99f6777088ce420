/**
 * The physics of a task's world as its generator recorded it in label_metadata: the material it drew for its
 * experiment (Inclined Plane: `static_friction`, `dynamic_friction`, `restitution`, ESI's draws for the board and the
 * object it tests, roles `support` and `target`; every other body has PhysX's default material) and how long the
 * experiment watched (`landing_steps` + `steps`, or `settle_steps`, times `physics_steps_per_step`). The hands
 * (manipulation/hands.ts) settle a placement in that world for that long, so an agent that puts the object on the
 * slope or stacks the objects sees what the task's own experiment saw.
 */
import type { Task, TaskObject } from "../../../core/task/schema.js";
import type { BodyOptions } from "./bodies.js";
import type { Material } from "./params.js";

/** Roles of the bodies a recorded material belongs to. */
const MATERIAL_ROLES: ReadonlySet<string> = new Set(["support", "target"]);

function recordedMaterial(meta: Task["label_metadata"]): Material | null {
  const { static_friction: s, dynamic_friction: d, restitution: r } = meta as Record<string, unknown>;
  return typeof s === "number" && typeof d === "number" && typeof r === "number" ? { staticFriction: s, dynamicFriction: d, restitution: r } : null;
}

export interface TaskPhysics {
  /** Each object's body options in the task's world (undefined: the default body). */
  bodyOptions: (o: TaskObject) => BodyOptions | undefined;
  /** Physics steps the task's experiment watched, or null when it records none. */
  watchSteps: number | null;
}

function recordedWatch(meta: Task["label_metadata"]): number | null {
  const m = meta as Record<string, unknown>;
  const per = m.physics_steps_per_step;
  if (typeof per !== "number") return null;
  if (typeof m.landing_steps === "number" && typeof m.steps === "number") return (m.landing_steps + m.steps) * per;
  if (typeof m.settle_steps === "number") return m.settle_steps * per;
  return null;
}

export function taskPhysics(task: Pick<Task, "label_metadata">): TaskPhysics {
  const material = recordedMaterial(task.label_metadata);
  return {
    // the tested board collides as its box, as the experiment's board does
    bodyOptions: (o) => (material && MATERIAL_ROLES.has(o.role) ? { material, ...(o.role === "support" ? { kind: "box" as const } : {}) } : undefined),
    watchSteps: recordedWatch(task.label_metadata),
  };
}
