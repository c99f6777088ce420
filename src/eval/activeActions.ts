/**
 * From the action an agent writes to the one the environment executes (issue 46): parsed under the run's
 * vocabulary (core/task/actions.ts), each object reference that is a node of the agent's own graph carried with
 * the node's place and label (the simulator takes the object there), every other reference as text.
 */
import { parseAgentAction, type ActionVocabulary, type AgentAction } from "../../core/task/actions.js";
import type { EnvAction, Environment, ObjectRef } from "../../bridge/env/types.js";
import type { SceneGraph } from "../../scenegraph/types.js";
import type { ManipulationEvent } from "../../scenegraph/manipulation.js";
import type { AgentPose } from "../../core/math/camera.js";

/** An object reference, with the node's place when it names a node of the graph. */
function objectRefOf(text: string, graph: SceneGraph | null): ObjectRef {
  const node = graph?.nodes.find((n) => n.id === text.trim());
  return node ? { text, near: { node: node.id, point: node.centroid, label: node.label } } : { text };
}

/** The environment's form of a parsed action (stop is the loop's, never the environment's). */
export function envActionOf(a: Exclude<AgentAction, { kind: "stop" }>, graph: SceneGraph | null): EnvAction {
  return a.kind === "camera" ? a : { kind: "hands", name: a.name, objects: a.objects.map((o) => objectRefOf(o, graph)) };
}

export type CheckedAction = { action: AgentAction } | { error: string };

/** Parses an action and checks that every object it names can be named now (env.checkReference, where the simulator has it). */
export function checkAction(text: string, vocabulary: ActionVocabulary, graph: SceneGraph | null, env: Pick<Environment, "checkReference">): CheckedAction {
  const parsed = parseAgentAction(text, vocabulary);
  if ("error" in parsed) return parsed;
  const a = parsed.action;
  if (a.kind === "hands" && env.checkReference)
    for (const o of a.objects) {
      const problem = env.checkReference(objectRefOf(o, graph));
      if (problem) return { error: `${a.name}: ${problem}` };
    }
  return parsed;
}

/** What the graph memory is told of a manipulation that happened: the agent's own references (node ids where they are nodes). */
export function manipulationEvent(a: Extract<AgentAction, { kind: "hands" }>, graph: SceneGraph | null, pose: AgentPose, view: number): ManipulationEvent {
  const ids = new Set(graph?.nodes.map((n) => n.id) ?? []);
  return { action: a.name, nodes: a.objects.map((o) => (ids.has(o.trim()) ? o.trim() : null)), refs: a.objects, pose, view };
}
