/**
 * A room with one floor mirror (its frame an object of its own), a box in front of it that the camera sees only
 * in the mirror, and a box behind it that the mirror must not show. Shared by the renderer's, the bundle's and
 * the reconstruction's mirror tests.
 */
import { poseQuaternion, type AgentPose } from "../../core/math/camera.js";
import { quatFromYaw } from "../../core/math/quat.js";
import type { Vec3 } from "../../core/math/vec.js";
import type { Task, TaskObject } from "../../core/task/schema.js";

export const MIRROR_ID = 16;
export const FRAME_ID = 17;
/** In front of the mirror, out of the camera's direct view. */
export const BOX_ID = 18;
/** Behind the mirror. */
export const HIDDEN_ID = 19;

/** The mirror's reflective face: x = MIRROR_X, facing −x, 1.2 m wide (y) and 1.6 m high (z), centred here. */
const MIRROR_X = 2;
const MIRROR_CENTRE: Vec3 = [MIRROR_X, 0, 1.0];
const MIRROR_EXTENT: Vec3 = [0.02, 1.2, 1.6];
/** The box in front of the mirror: an axis-aligned box (a model the library lacks renders as its box). */
export const BOX_CENTRE: Vec3 = [0.8, 0.9, 0.25];
export const BOX_EXTENT: Vec3 = [0.4, 0.4, 0.5];

/** The camera of the tests: in front of the mirror, looking at it, the box off to its left. */
export const CAMERA_POSE: AgentPose = { position: [-0.5, -0.6, 1.0], yaw: 0, pitch: 0 };

const base = { name: "x", role: "target", scale: 1, transparent: false } as const;

/** A box object facing `yaw` (a model the library does not have, so it renders as the box of its extent). */
export function boxObject(id: number, category: string, position: Vec3, extent: Vec3, yaw: number, color: string): TaskObject {
  return { ...base, id, category, model: `${category}/test`, position, orientation: quatFromYaw(yaw), extent, color };
}

/** A mirror whose reflective face is centred at `centre` facing along yaw `facing`, and its frame just behind it. */
export function mirrorWithFrame(mirrorId: number, frameId: number, centre: Vec3, facing: number, extent: Vec3 = MIRROR_EXTENT): TaskObject[] {
  const n: Vec3 = [Math.cos(facing), Math.sin(facing), 0];
  const at = (back: number): Vec3 => [centre[0] - back * n[0], centre[1] - back * n[1], centre[2]];
  const frameDepth = 0.04,
    border = 0.1;
  return [
    boxObject(mirrorId, "mirror", at(extent[0] / 2), extent, facing, "grey"),
    // the frame's face lies half the pane's thickness behind the reflective face, its border 10 cm wide
    boxObject(frameId, "mirror_frame", at(extent[0] / 2 + frameDepth / 2), [frameDepth, extent[1] + 2 * border, extent[2] + 2 * border], facing, "brown"),
  ];
}

/** The objects of the test room: the mirror facing −x, its frame, the box in front and the box behind. */
export function mirrorRoomObjects(): TaskObject[] {
  return [
    ...mirrorWithFrame(MIRROR_ID, FRAME_ID, MIRROR_CENTRE, Math.PI),
    boxObject(BOX_ID, "box", BOX_CENTRE, BOX_EXTENT, 0, "red"),
    boxObject(HIDDEN_ID, "box", [2.6, 0.2, 0.5], [0.4, 0.4, 1.0], 0, "blue"),
  ];
}

export const ROOM = { id: "r", type: "test", size: [6, 5] as [number, number], height: 2.6 };
export const LIGHTING = { ambient: 0.4, sun: { direction: [0.3, 0.2, -1] as Vec3, intensity: 0.6 }, lights: [] };

/** A whole task of the test room (the gt view set: the initial view, then each action's), small images. */
export function mirrorTask(objects: TaskObject[] = mirrorRoomObjects(), trajectory: string[] = []): Task {
  return {
    schema: "esi3d-task/1",
    task_id: "mirror-test",
    seed: "mirror-test",
    category: "specular_reflection",
    subcategory: "reflection_authoring",
    simulator: "esi3d-builtin/1",
    scene: "mirror-test",
    room: ROOM,
    floor: 0,
    objects,
    lighting: LIGHTING,
    camera: { width: 200, height: 150, hfov_deg: 70 },
    agent_initial: { ...CAMERA_POSE, orientation: poseQuaternion(CAMERA_POSE) },
    action_trajectory: trajectory,
    view_object_existence: [],
    question: "Is the box seen in the mirror?",
    answer: "yes",
    answer_format: "yes_no",
    options: ["yes", "no"],
    relevant_object_ids: [BOX_ID],
    label_metadata: {},
  };
}

/**
 * The test room for graph-level tests: two views (the initial one and one after a step to the left) at 400×300, where
 * the box's reflection holds enough points for a noisy cloud to make a node of it at every level up to vggt-typical.
 */
export function mirrorGraphTask(objects: TaskObject[] = mirrorRoomObjects(), trajectory: string[] = ["move_left"]): Task {
  return { ...mirrorTask(objects, trajectory), camera: { width: 400, height: 300, hfov_deg: 70 } };
}

/** The graph test room's views, then two turns to the left that bring the box itself into view. */
export const SEES_BOX_TRAJECTORY = ["move_left", "turn_left", "turn_left"];
