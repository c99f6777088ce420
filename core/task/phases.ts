/**
 * A task's phases, read the same way whether it changes over time or not: a task without `phases` is one phase,
 * its own objects seen from agent_initial.
 */
import type { AgentPose } from "../math/camera.js";
import { dist } from "../math/vec.js";
import type { Task, TaskObject } from "./schema.js";

export interface TaskPhase {
  index: number;
  label: string;
  objects: TaskObject[];
  /** the phase's primary viewpoint */
  agent: AgentPose;
}

/** The label a task of one unchanging world gives its only phase. */
const ONLY_PHASE_LABEL = "now";

const poseOf = (p: { position: [number, number, number]; yaw: number; pitch: number }): AgentPose => ({ position: p.position, yaw: p.yaw, pitch: p.pitch });

export function taskPhases(task: Pick<Task, "objects" | "agent_initial" | "phases">): TaskPhase[] {
  if (!task.phases) return [{ index: 0, label: ONLY_PHASE_LABEL, objects: task.objects, agent: poseOf(task.agent_initial) }];
  return task.phases.map((p, index) => ({ index, label: p.label, objects: p.objects, agent: poseOf(p.agent ?? task.agent_initial) }));
}

/**
 * An object counts as moved between phases when its centre shifts by more than this (m): well under any
 * displacement a scene change makes, well over float noise in a record. Our choice.
 */
export const PHASE_MOVED_M = 0.005;

/**
 * The world at a task's last phase, for judging a memory of all its phases: the objects as they are then, every
 * other place each of them stood in an earlier phase, and the objects gone by then (removed or replaced).
 */
export function worldAtLastPhase(task: Pick<Task, "objects" | "agent_initial" | "phases">): {
  objects: TaskObject[];
  earlierPlaces: Map<number, TaskObject[]>;
  gone: TaskObject[];
} {
  const phases = taskPhases(task);
  const objects = phases.at(-1)!.objects;
  const now = new Map(objects.map((o) => [o.id, o]));
  const earlierPlaces = new Map<number, TaskObject[]>();
  const gone = new Map<number, TaskObject>();
  for (const ph of phases.slice(0, -1))
    for (const o of ph.objects) {
      const n = now.get(o.id);
      if (!n) {
        gone.set(o.id, o);
        continue;
      }
      const places = earlierPlaces.get(o.id) ?? [];
      const moved = dist(o.position, n.position) > PHASE_MOVED_M;
      if (moved && !places.some((p) => dist(o.position, p.position) <= PHASE_MOVED_M)) places.push(o);
      if (places.length) earlierPlaces.set(o.id, places);
    }
  return { objects, earlierPlaces, gone: [...gone.values()] };
}
