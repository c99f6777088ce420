/**
 * The ground-truth scene graph: one node per task object, from its true box and points sampled on its
 * mesh, with relations computed by the same code as predicted graphs. Node ids are "o<objectId>".
 */
import type { Task } from "../bridge/task/schema.js";
import { objectBox, surfaceSamples } from "../bridge/sim/generate/geometry.js";
import { voxelDownsample } from "./primitives/voxelDownsample.js";
import { computeRelations, type RelNode } from "./relations.js";
import type { Relation, YawBoxJson } from "./types.js";
import { FUSION_VOXEL_M } from "./instances/params.js";

/** Mesh sampling spacing for true objects' points (m), finer than the fusion voxel they are downsampled to. */
export const TRUE_SURFACE_SPACING_M = 0.0125;

export interface TrueNode extends RelNode {
  objectId: number;
  label: string;
  name: string;
}

export function trueNodes(task: Task): TrueNode[] {
  return task.objects.map((o) => {
    const b = objectBox(o);
    const box: YawBoxJson = { centre: b.centre, extent: o.extent, yaw: b.yaw };
    const xyz = voxelDownsample(surfaceSamples(o, TRUE_SURFACE_SPACING_M), FUSION_VOXEL_M).xyz;
    return { id: `o${o.id}`, objectId: o.id, label: o.category, name: o.name, box, xyz };
  });
}

export function trueRelations(task: Task, nodes = trueNodes(task)): Relation[] {
  return computeRelations(nodes, { position: task.agent_initial.position, yaw: task.agent_initial.yaw });
}
