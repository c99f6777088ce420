/**
 * Turns target poses into the agent's discrete actions, for the ground-truth trajectories.
 * Translation is a breadth-first search on the 0.25 m lattice of the agent's current heading (moves
 * forward/backward/left/right), so paths go around furniture; then yaw and pitch turns; height changes
 * come first when rising and last when descending.
 */
import type { AgentPose } from "../../../core/math/camera.js";
import { wrapAngle } from "../../../core/math/vec.js";
import { applyAction, type World } from "../agent.js";
import { HEIGHT_STEP_M, MOVE_STEP_M, PITCH_STEP_RAD, TURN_STEP_RAD, type NavigationAction } from "../../../core/task/actions.js";

export interface PlannedPath {
  actions: NavigationAction[];
  poses: AgentPose[]; // pose after each action
  end: AgentPose;
}

const LATTICE_MOVES: Array<[NavigationAction, number, number]> = [
  ["move_forward", 1, 0],
  ["move_backward", -1, 0],
  ["move_left", 0, 1],
  ["move_right", 0, -1],
];

function run(world: World, start: AgentPose, actions: NavigationAction[]): PlannedPath | null {
  const poses: AgentPose[] = [];
  let pose = start;
  for (const a of actions) {
    const next = applyAction(world, pose, a);
    if (!next) return null;
    pose = next;
    poses.push(pose);
  }
  return { actions, poses, end: pose };
}

/** Shortest lattice path from `start` to the lattice point nearest (gx, gy), or null if unreachable. */
function latticePath(world: World, start: AgentPose, gx: number, gy: number, maxSteps: number): NavigationAction[] | null {
  const f: [number, number] = [Math.cos(start.yaw), Math.sin(start.yaw)];
  const l: [number, number] = [-f[1], f[0]];
  const dx = gx - start.position[0],
    dy = gy - start.position[1];
  const ti = Math.round((dx * f[0] + dy * f[1]) / MOVE_STEP_M),
    tj = Math.round((dx * l[0] + dy * l[1]) / MOVE_STEP_M);
  if (Math.abs(ti) + Math.abs(tj) > maxSteps) return null;
  // lattice offsets |i|, |j| <= maxSteps + 1 packed into one number: a numeric Map key, not a string per visit
  const off = maxSteps + 1,
    span = 2 * off + 1;
  const key = (i: number, j: number) => (i + off) * span + (j + off);
  const prev = new Map<number, [number, NavigationAction] | null>([[key(0, 0), null]]);
  let frontier: Array<[number, number]> = [[0, 0]];
  const at = (i: number, j: number): [number, number, number] => [
    start.position[0] + MOVE_STEP_M * (i * f[0] + j * l[0]),
    start.position[1] + MOVE_STEP_M * (i * f[1] + j * l[1]),
    start.position[2],
  ];
  for (let depth = 0; depth < maxSteps && frontier.length; depth++) {
    const next: Array<[number, number]> = [];
    for (const [i, j] of frontier) {
      if (i === ti && j === tj) break;
      for (const [a, di, dj] of LATTICE_MOVES) {
        const ni = i + di,
          nj = j + dj,
          k = key(ni, nj);
        if (prev.has(k)) continue;
        // Use the motion model itself so the replayed trajectory is exactly this one.
        const p = at(i, j);
        if (!applyAction(world, { position: p, yaw: start.yaw, pitch: start.pitch }, a)) continue;
        prev.set(k, [key(i, j), a]);
        next.push([ni, nj]);
      }
    }
    if (prev.has(key(ti, tj))) break;
    frontier = next;
  }
  if (!prev.has(key(ti, tj))) return null;
  const actions: NavigationAction[] = [];
  let k = key(ti, tj);
  for (let e = prev.get(k); e; e = prev.get(k)) {
    actions.push(e[1]);
    k = e[0];
  }
  return actions.reverse();
}

/** Actions from `start` to about `goal` (position to within the lattice, angles to 15 deg), or null. */
export function planPath(world: World, start: AgentPose, goal: AgentPose, maxSteps: number): PlannedPath | null {
  const actions: NavigationAction[] = [];
  const dh = Math.round((goal.position[2] - start.position[2]) / HEIGHT_STEP_M);
  if (dh > 0) for (let i = 0; i < dh; i++) actions.push("move_up");
  const risen = run(world, start, actions);
  if (!risen) return null;
  const moves = latticePath(world, risen.end, goal.position[0], goal.position[1], maxSteps - actions.length);
  if (!moves) return null;
  actions.push(...moves);
  const dyaw = Math.round(wrapAngle(goal.yaw - start.yaw) / TURN_STEP_RAD);
  for (let i = 0; i < Math.abs(dyaw); i++) actions.push(dyaw > 0 ? "turn_left" : "turn_right");
  const dp = Math.round((goal.pitch - start.pitch) / PITCH_STEP_RAD);
  for (let i = 0; i < Math.abs(dp); i++) actions.push(dp > 0 ? "turn_up" : "turn_down");
  if (dh < 0) for (let i = 0; i < -dh; i++) actions.push("move_down");
  if (actions.length > maxSteps) return null;
  return run(world, start, actions);
}
