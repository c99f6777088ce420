/**
 * The built-in simulator's motion model for the agent's discrete actions (core/task/actions.ts): camera
 * limits, the body's clearance, and which moves are blocked.
 */
import type { AgentPose } from "../../core/math/camera.js";
import { rad } from "../../core/math/vec.js";
import type { Task, TaskObject } from "../../core/task/schema.js";
import { quatToMat } from "../../core/math/quat.js";
import { intendedPose, isNavigationAction, parseAgentAction, type NavigationAction } from "../../core/task/actions.js";
import { solidIntervals, wallAxis, wallPoint } from "../../core/task/layout.js";

/** Camera height limits (m above the floor): from crouching to a raised arm; a task's agent_limits may lower the first. */
export const MIN_CAMERA_HEIGHT_M = 0.2;
const MAX_CAMERA_HEIGHT_M = 2.0;
/** Pitch limits: looking straight down is allowed, looking up at most 45 deg. */
const MIN_PITCH_RAD = rad(-90);
const MAX_PITCH_RAD = rad(45);
/**
 * The camera keeps this clearance from walls and from every object's footprint, whatever its height:
 * the agent's body stands on the floor, so it cannot pass over a table even with the camera raised (m).
 */
export const BODY_CLEARANCE_M = 0.15;

/** Footprints the agent's camera may not enter (unless it is above them). */
interface Obstacle {
  centre: [number, number];
  halfX: number;
  halfY: number;
  yaw: number;
  /** cos and sin of `yaw`, computed once: planners test thousands of poses against every footprint */
  cos: number;
  sin: number;
  top: number;
}

function obstaclesOf(objects: readonly TaskObject[]): Obstacle[] {
  return objects.map((o) => {
    const R = quatToMat(o.orientation);
    const yaw = Math.atan2(R[1][0], R[0][0]);
    return {
      centre: [o.position[0], o.position[1]],
      halfX: o.extent[0] / 2,
      halfY: o.extent[1] / 2,
      yaw,
      cos: Math.cos(yaw),
      sin: Math.sin(yaw),
      top: o.position[2] + o.extent[2] / 2,
    };
  });
}

/** A solid stretch of an interior wall (a layout's wall between its doorways). */
export interface WallStretch {
  a: [number, number];
  b: [number, number];
  /** The unit direction from a to b and the length (wallAxis), computed once for the distance tests */
  axis: { dir: [number, number]; length: number };
}

/** The solid stretches of a room's interior walls (none for a single room). */
export function wallStretches(room: Pick<Task["room"], "layout">): WallStretch[] {
  return (room.layout?.walls ?? []).flatMap((w) =>
    solidIntervals(w).map(([s0, s1]) => {
      const a = wallPoint(w, s0),
        b = wallPoint(w, s1);
      return { a, b, axis: wallAxis({ from: a, to: b }) };
    }),
  );
}

/** Distance from (x, y) to a segment. */
function segmentDistance(x: number, y: number, s: WallStretch): number {
  const { dir, length } = s.axis;
  const t = Math.max(0, Math.min(length, (x - s.a[0]) * dir[0] + (y - s.a[1]) * dir[1]));
  return Math.hypot(x - (s.a[0] + dir[0] * t), y - (s.a[1] + dir[1] * t));
}

export interface World {
  roomSize: [number, number];
  /** Centre of the floor rectangle (the origin unless the room has world bounds). */
  roomCentre: [number, number];
  floorZ: number;
  minCameraHeight: number;
  obstacles: Obstacle[];
  /** Interior walls the body keeps BODY_CLEARANCE_M from (multi-room layouts). */
  walls: WallStretch[];
}

/** The room a task's floor spans: centred at the origin, or at its world bounds (imported tasks). */
export function roomFrame(room: Pick<Task["room"], "size" | "bounds" | "floor_z">): { centre: [number, number]; floorZ: number } {
  const b = room.bounds;
  return { centre: b ? [(b.min[0] + b.max[0]) / 2, (b.min[1] + b.max[1]) / 2] : [0, 0], floorZ: room.floor_z ?? 0 };
}

export function worldOf(task: Pick<Task, "room" | "objects"> & Partial<Pick<Task, "agent_limits">>): World {
  const f = roomFrame(task.room);
  return {
    roomSize: task.room.size,
    roomCentre: f.centre,
    floorZ: f.floorZ,
    minCameraHeight: task.agent_limits?.min_camera_height_m ?? MIN_CAMERA_HEIGHT_M,
    obstacles: obstaclesOf(task.objects),
    walls: wallStretches(task.room),
  };
}

/** True where a camera at `p` is inside the room, within the height limits and clear of every footprint. */
export function isFree(world: World, p: [number, number, number]): boolean {
  const hx = world.roomSize[0] / 2 - BODY_CLEARANCE_M,
    hy = world.roomSize[1] / 2 - BODY_CLEARANCE_M;
  if (Math.abs(p[0] - world.roomCentre[0]) > hx || Math.abs(p[1] - world.roomCentre[1]) > hy) return false;
  const h = p[2] - world.floorZ;
  if (h < world.minCameraHeight - 1e-9 || h > MAX_CAMERA_HEIGHT_M + 1e-9) return false;
  for (const w of world.walls) if (segmentDistance(p[0], p[1], w) < BODY_CLEARANCE_M) return false;
  for (const o of world.obstacles) {
    const dx = p[0] - o.centre[0],
      dy = p[1] - o.centre[1];
    const c = o.cos,
      s = o.sin;
    const lx = c * dx + s * dy,
      ly = -s * dx + c * dy;
    if (Math.abs(lx) < o.halfX + BODY_CLEARANCE_M && Math.abs(ly) < o.halfY + BODY_CLEARANCE_M) return false;
  }
  return true;
}

/** The pose after an action, or null when the action is blocked (the agent then stays where it is). */
export function applyAction(world: World, pose: AgentPose, action: NavigationAction): AgentPose | null {
  const next = intendedPose(pose, action);
  if (action === "turn_left" || action === "turn_right") return next;
  if (action === "turn_up" || action === "turn_down") return next.pitch > MAX_PITCH_RAD + 1e-9 || next.pitch < MIN_PITCH_RAD - 1e-9 ? null : next;
  return isFree(world, next.position) ? next : null;
}

/**
 * Replays an action sequence's camera: blocked moves leave the pose unchanged (a physical failure), and so does a
 * manipulation (the hands move objects, not the eye; the world it changes is the capture's: capture.ts).
 */
export function replay(world: World, start: AgentPose, actions: readonly string[]): AgentPose[] {
  const poses = [start];
  let pose = start;
  for (const a of actions) {
    if (isNavigationAction(a)) pose = applyAction(world, pose, a) ?? pose;
    else {
      const p = parseAgentAction(a, "all");
      if ("error" in p || p.action.kind !== "hands") throw new Error(`unknown action "${a}"`);
    }
    poses.push(pose);
  }
  return poses;
}

/** Yaw and pitch that point the camera at `target` from `from`. */
export function lookAt(from: [number, number, number], target: [number, number, number]): { yaw: number; pitch: number } {
  const dx = target[0] - from[0],
    dy = target[1] - from[1],
    dz = target[2] - from[2];
  return { yaw: Math.atan2(dy, dx), pitch: Math.atan2(dz, Math.hypot(dx, dy)) };
}
