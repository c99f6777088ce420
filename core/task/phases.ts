/**
 * A task's phases, read the same way whether it changes over time or not: a task without `phases` is one phase,
 * its own objects seen from agent_initial.
 */
import type { AgentPose } from "../math/camera.js";
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
