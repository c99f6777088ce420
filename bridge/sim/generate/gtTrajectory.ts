/**
 * Ground-truth trajectories: the action sequence whose views reveal what the question needs
 * (the ESI-Bench paper's four paradigms, paradigm 4). Each generator states its goals as predicates over single
 * views ("object 17 is visible", "some view looks down at the triangle") and proposes key poses; a
 * greedy planner walks to the key pose that satisfies the most open goals per step, until all goals are
 * met within the step budget. Every intermediate view counts, as the paradigm renders them all.
 */
import type { AgentPose } from "../../../core/math/camera.js";
import type { Vec3 } from "../../../core/math/vec.js";
import type { CameraSpec } from "../../../core/task/schema.js";
import type { NavigationAction } from "../../../core/task/actions.js";
import type { RenderScene } from "../scene.js";
import type { World } from "../agent.js";
import { isFree, lookAt } from "../agent.js";
import { planPath } from "./planner.js";
import { Resample, round4 } from "./common.js";
import { viewVisibility, type ViewVisibility } from "./visibility.js";

/** Actions in a ground-truth trajectory: T_max = 30 steps, one left so that views (initial + actions) <= 30. */
export const GT_ACTION_BUDGET = 29;

export type ViewGoal = (v: ViewVisibility) => boolean;

export interface GtTrajectory {
  actions: string[];
  views: ViewVisibility[];
}

export function buildGtTrajectory(
  scene: RenderScene,
  spec: CameraSpec,
  world: World,
  start: AgentPose,
  goals: ViewGoal[],
  keyPoses: AgentPose[],
  budget: number = GT_ACTION_BUDGET,
): GtTrajectory {
  const views: ViewVisibility[] = [viewVisibility(scene, spec, start)];
  const open = new Set(goals.map((_, i) => i));
  const check = (v: ViewVisibility) => {
    for (const g of [...open]) if (goals[g]!(v)) open.delete(g);
  };
  check(views[0]!);
  const actions: NavigationAction[] = [];
  let pose = start;
  const candidates = keyPoses.filter((p) => isFree(world, p.position));
  // by the pose's numbers: each planPath makes new pose objects, and a key by object never matched (9 % of
  // a task's visibility renders are of a pose seen before)
  const endVis = new Map<string, ViewVisibility>();
  const poseKey = (p: AgentPose) => `${p.position[0]} ${p.position[1]} ${p.position[2]} ${p.yaw} ${p.pitch}`;
  while (open.size > 0) {
    let best: { gain: number; cost: number; path: NonNullable<ReturnType<typeof planPath>> } | null = null;
    for (const cand of candidates) {
      const path = planPath(world, pose, cand, budget - actions.length);
      if (!path || path.actions.length === 0) continue;
      const key = poseKey(path.end);
      let v = endVis.get(key);
      if (!v) {
        v = viewVisibility(scene, spec, path.end);
        endVis.set(key, v);
      }
      let gain = 0;
      for (const g of open) if (goals[g]!(v)) gain++;
      if (gain === 0) continue;
      if (!best || gain / path.actions.length > best.gain / best.cost) best = { gain, cost: path.actions.length, path };
    }
    if (!best) throw new Resample(`ground-truth trajectory: ${open.size} goal(s) unreachable within ${budget} actions`);
    for (let i = 0; i < best.path.actions.length; i++) {
      actions.push(best.path.actions[i]!);
      const v = viewVisibility(scene, spec, best.path.poses[i]!);
      views.push(v);
      check(v);
    }
    pose = best.path.end;
  }
  return { actions, views };
}

/** Key poses around a point: `n` azimuths x radii x heights, each looking at `target`. */
export function orbitPoses(target: Vec3, radii: number[], heights: number[], n = 12, startAzimuth = 0): AgentPose[] {
  const out: AgentPose[] = [];
  for (const r of radii)
    for (const h of heights)
      for (let k = 0; k < n; k++) {
        const a = startAzimuth + (2 * Math.PI * k) / n;
        const from: Vec3 = [target[0] + r * Math.cos(a), target[1] + r * Math.sin(a), h];
        const { yaw, pitch } = lookAt(from, target);
        out.push({ position: [round4(from[0]), round4(from[1]), round4(h)], yaw, pitch });
      }
  return out;
}
