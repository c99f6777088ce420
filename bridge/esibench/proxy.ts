/**
 * Proxy scenes for imported ESI-Bench tasks, so the built-in simulator can render the real question set
 * without OmniGibson: an object of a category the built-in library has becomes that library model scaled
 * to the recorded box, any other object a grey box of the recorded extent. A task whose question needs an
 * object with no recorded extent and no library model, or that needs a camera the record does not give,
 * is skipped with the reason. Everything about a proxy is marked (the task's `proxy` field and simulator),
 * and the results are about the proxy scene, not ESI's.
 */
import type { Vec3 } from "../../core/math/vec.js";
import { buildModel, LIBRARY, PROXY_BOX_MODEL } from "../../core/objects/library.js";
import { BUILTIN_SUBCATEGORIES, SUBCATEGORY_CATEGORY } from "../../core/task/taxonomy.js";
import { TaskSchema, type Lighting, type Task, type TaskObject, type TaskRecord } from "../../core/task/schema.js";
import { applyRule, type RuleCheck } from "./rules.js";
import { MIRROR_CATEGORY, mirrorFrame } from "../../core/objects/mirror.js";
import { quatToMat } from "../../core/math/quat.js";

/** The simulator of a proxy task: the built-in one, standing in for another simulator's scene. */
const PROXY_SIMULATOR = "esi3d-builtin/1 proxy";
/** Proxy rooms without recorded bounds enclose the objects and the initial camera with this margin (m; ours). */
const PROXY_ROOM_MARGIN_M = 1.0;
/** Proxy wall height (m; ours: BEHAVIOR-1K rooms are about 2.5-3 m high, the records store none). */
const PROXY_ROOM_HEIGHT_M = 3.0;
/** The built-in agent's highest camera above the floor (bridge/sim/agent.ts MAX_CAMERA_HEIGHT_M). */
const PROXY_MAX_CAMERA_HEIGHT_M = 2.0;
/** Daylight for proxies (the records store no lighting): the middle of the built-in suite's daylight range. */
const PROXY_LIGHTING: Lighting = { ambient: 0.4, sun: { direction: [0.2, 0.3, -1], intensity: 0.6 }, lights: [] };
/** Colours of stand-ins, by object order, so that same-category objects stay apart for colour matching. */
const PROXY_COLORS = ["grey", "tan", "blue", "green", "red", "teal", "purple", "orange", "brown", "pink"] as const;
/**
 * Specular Reflection: a proxy draws the record's mirror (its rectangle and pose, bridge/esibench/map/others.ts) with a
 * frame behind it, and stands each placed object on the floor (proxyTask's `mirrors` option builds such proxies).
 */
const MIRROR_SUBCATEGORIES: ReadonlySet<string> = new Set(["reflection_authoring", "mirror_spatial_relations", "mirror_correspondence"]);
/**
 * A placed object of a mirror record stands on the floor (ESI drops them there): its box is as high as twice its
 * centre's height above the floor, on a square footprint of this side (m; ours: the records store no size, and the
 * placed objects are household items: bottles, jars, boxes, a centrepiece).
 */
const MIRROR_PLACEMENT_FOOTPRINT_M = 0.15;

/**
 * Proxy renders go through esi3d's built-in renderer and reasoners: the subcategories those cover, less Physical
 * Dynamics and Deformable. A proxy of an Inclined Plane or Stacking record would render ESI's initial scene, but
 * whether its slope's pose and its objects' rescaling come through the importer as ESI built them is not yet checked
 * against the records, so they stay out until it is. ESI's Deformable records store the covered object and no
 * cloth (the cloth is dropped at render time), so a proxy would show the answer uncovered. ESI's Agent Observation
 * records store the robot's walk (its step log) and no robot, so a proxy would be one moment with no robot in it.
 * ESI's Unobserved Change records store each box's contents per phase, which the importer does not yet turn into
 * the task's phases, so a proxy would be one unchanging world; and whether an Action Order record's candidates come
 * through at the scales its fit depends on is not yet checked against the records: both stay out until they are.
 */
const NOT_PROXIED: ReadonlySet<string> = new Set(["deformable", "agent_observation", "unobserved_change", "action_order_inference"]);
export const PROXY_SUBCATEGORIES: ReadonlySet<string> = new Set([
  ...BUILTIN_SUBCATEGORIES.filter((s) => SUBCATEGORY_CATEGORY[s] !== "physical_dynamics" && !NOT_PROXIED.has(s)),
]);
/**
 * Cognitive Mapping questions are about an apartment's rooms and doorways. ESI's records store no room
 * layout (walls, doorways), so a proxy would be one open room in which the question has no answer.
 */
const NEEDS_LAYOUT = (t: TaskRecord) =>
  SUBCATEGORY_CATEGORY[t.subcategory as keyof typeof SUBCATEGORY_CATEGORY] === "cognitive_mapping" && t.room?.layout === undefined;

/** Why a task has no proxy, as a short code (audit summaries count by it) and a sentence. */
export type ProxySkipCode = "not_imported" | "subcategory" | "no_camera" | "answer_format" | "geometry" | "schema";
export type ProxyResult = { task: Task; check: RuleCheck | null } | { skip: string; code: ProxySkipCode };

const isImported = (t: TaskRecord) => t.provenance?.dataset === "esi-bench";

function standIn(o: TaskRecord["objects"][number], i: number): { object: TaskObject; kind: "library_model" | "box" } | { missing: string } {
  const lib = LIBRARY.get(o.category);
  const color = o.transparent ? "glass" : PROXY_COLORS[i % PROXY_COLORS.length]!;
  // a world AABB is an axis-aligned box: the stand-in is unrotated
  const orientation = o.extent_source === "record_world_aabb" ? { x: 0, y: 0, z: 0, w: 1 } : o.orientation;
  const base = {
    id: o.id,
    category: o.category,
    name: o.name,
    role: o.role,
    position: o.position,
    color,
    transparent: o.transparent,
    ...(o.support !== undefined ? { support: o.support } : {}),
  };
  if (lib) {
    const model = lib.models[0]!.id;
    const me = buildModel(model).extent;
    const extent: Vec3 = o.extent ?? [me[0], me[1], me[2]];
    const scale: Vec3 = [extent[0] / me[0], extent[1] / me[1], extent[2] / me[2]];
    return { object: { ...base, model, orientation, extent, scale, extent_source: o.extent ? "record" : "model" }, kind: "library_model" };
  }
  if (!o.extent) return { missing: `no extent is recorded for ${o.category} (object ${o.id}) and the built-in library has no ${o.category} model` };
  const e = o.extent.map((x) => Math.max(x, 1e-3)) as Vec3;
  return { object: { ...base, model: PROXY_BOX_MODEL, orientation, extent: e, scale: e, extent_source: "record" }, kind: "box" };
}

/** A mirror record's placed object without a recorded extent: standing on the floor (MIRROR_PLACEMENT_FOOTPRINT_M). */
function onTheFloor(o: TaskRecord["objects"][number], floorZ: number | undefined): TaskRecord["objects"][number] {
  if (o.extent || o.category === MIRROR_CATEGORY || floorZ === undefined || !(o.position[2] > floorZ)) return o;
  const f = MIRROR_PLACEMENT_FOOTPRINT_M;
  return { ...o, extent: [f, f, 2 * (o.position[2] - floorZ)] };
}

/**
 * A mirror placed by its base link (ESI's records: the position lies on the reflective plane, map/others.ts): its box
 * half a pane behind it, so the box's +x face, the reflective one, passes through the recorded position.
 */
function onItsPlane(o: TaskRecord["objects"][number]): TaskRecord["objects"][number] {
  if (o.category !== MIRROR_CATEGORY || o.position_frame !== "base_link" || !o.extent) return o;
  const R = quatToMat(o.orientation);
  const back = o.extent[0] / 2;
  const { position_frame: _base, ...placed } = o;
  return { ...placed, position: [o.position[0] - back * R[0][0], o.position[1] - back * R[1][0], o.position[2] - back * R[2][0]] };
}

/** The proxy task of an imported task, or why there is none. */
export function proxyTask(record: TaskRecord): ProxyResult {
  const t = record;
  if (!isImported(t)) return { skip: "not an imported ESI-Bench task", code: "not_imported" };
  const mirrorTask = MIRROR_SUBCATEGORIES.has(t.subcategory);
  if (!PROXY_SUBCATEGORIES.has(t.subcategory))
    return {
      skip: `${t.subcategory}: esi3d's built-in renderer and reasoners cover only ${PROXY_SUBCATEGORIES.size} subcategories (no cloth, articulation, dynamics or time)`,
      code: "subcategory",
    };
  if (NEEDS_LAYOUT(t))
    return {
      skip: `${t.subcategory}: the record stores no room layout (walls and doorways), which a Cognitive Mapping question is about`,
      code: "subcategory",
    };
  if (!t.agent_initial) return { skip: "the record stores no camera for the question", code: "no_camera" };
  if (t.answer_format !== "yes_no" && t.answer_format !== "choice" && t.answer_format !== "integer" && t.answer_format !== "ordering")
    return { skip: `answer format ${t.answer_format}: esi3d's reasoners do not answer it yet`, code: "answer_format" };
  const relevant = new Set(t.relevant_object_ids);
  const objects: TaskObject[] = [];
  const stands: Array<{ id: number; stands_in: "library_model" | "box"; original_model: string | null }> = [];
  const dropped: string[] = [];
  t.objects.forEach((recorded, i) => {
    const o = mirrorTask ? onItsPlane(onTheFloor(recorded, t.room.floor_z)) : recorded;
    const s = standIn(o, i);
    if ("missing" in s) {
      if (relevant.has(o.id)) dropped.push(`!${s.missing}`);
      else dropped.push(s.missing);
      return;
    }
    objects.push(s.object);
    stands.push({ id: o.id, stands_in: s.kind, original_model: o.model });
  });
  // each mirror's frame, an object of its own behind the pane (core/objects/mirror.ts), under the next free ids
  const frames = objects.filter((o) => o.category === MIRROR_CATEGORY).map((m, k) => mirrorFrame(m, Math.max(...objects.map((o) => o.id)) + 1 + k));
  objects.push(...frames);
  const blocking = dropped.filter((d) => d.startsWith("!"));
  if (blocking.length) return { skip: `the question needs geometry the record lacks: ${blocking.map((d) => d.slice(1)).join("; ")}`, code: "geometry" };
  // no floor recorded: the lowest object bottom, but never more than the agent's highest camera below the
  // initial camera (an object that fell out of the scene must not take the floor with it)
  const floorZ =
    t.room.floor_z ??
    Math.max(
      Math.min(...objects.map((o) => o.position[2] - o.extent[2] / 2), t.agent_initial.position[2]),
      t.agent_initial.position[2] - PROXY_MAX_CAMERA_HEIGHT_M,
    );
  let bounds = t.room.bounds,
    how = "the record's floor rectangle";
  if (!bounds) {
    const xs: number[] = [t.agent_initial.position[0]],
      ys: number[] = [t.agent_initial.position[1]];
    for (const o of objects) {
      const r = Math.hypot(o.extent[0], o.extent[1]) / 2;
      xs.push(o.position[0] - r, o.position[0] + r);
      ys.push(o.position[1] - r, o.position[1] + r);
    }
    bounds = {
      min: [Math.min(...xs) - PROXY_ROOM_MARGIN_M, Math.min(...ys) - PROXY_ROOM_MARGIN_M],
      max: [Math.max(...xs) + PROXY_ROOM_MARGIN_M, Math.max(...ys) + PROXY_ROOM_MARGIN_M],
    };
    how = `no room extent recorded: the objects and the initial camera, ${PROXY_ROOM_MARGIN_M} m apart from the walls`;
  }
  const size: [number, number] = [bounds.max[0] - bounds.min[0], bounds.max[1] - bounds.min[1]];
  const proxy = {
    ...t,
    simulator: `${PROXY_SIMULATOR} of ${t.simulator}`,
    room: { ...t.room, size, height: t.room.height ?? PROXY_ROOM_HEIGHT_M, bounds, floor_z: floorZ },
    objects,
    lighting: t.lighting ?? PROXY_LIGHTING,
    agent_initial: t.agent_initial,
    relevant_object_ids: t.relevant_object_ids,
    proxy: {
      of_simulator: t.simulator,
      objects: stands,
      room: `${how}; floor at z ${floorZ.toFixed(3)} m${t.room.floor_z === undefined ? " (the lowest object bottom: none recorded)" : ""}; walls ${t.room.height ?? PROXY_ROOM_HEIGHT_M} m${frames.length ? `; a frame behind each mirror (ids ${frames.map((f) => f.id).join(", ")})` : ""}${mirrorTask ? `; placed objects without a recorded size stand on the floor on a ${MIRROR_PLACEMENT_FOOTPRINT_M} m square` : ""}${dropped.length ? `; left out: ${dropped.join("; ")}` : ""}`,
    },
  };
  const parsed = TaskSchema.safeParse(proxy);
  if (!parsed.success)
    return {
      code: "schema",
      skip: `the proxy does not fit the task schema: ${parsed.error.issues
        .map((i) => `${i.path.join(".")}: ${i.message}`)
        .slice(0, 3)
        .join("; ")}`,
    };
  const check = applyRule({ ...parsed.data, objects: parsed.data.objects });
  return { task: { ...parsed.data, label_metadata: { ...parsed.data.label_metadata, proxy_rule_check: check } }, check };
}
