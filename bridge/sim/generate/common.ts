/**
 * Shared machinery of the task generators: rooms, object placement, lighting, camera poses, naming.
 * Generators throw `Resample` when a random draw cannot satisfy a rule; the suite then draws again.
 */
import type { Vec3 } from "../../../core/math/vec.js";
import type { Rng } from "../../../core/math/rng.js";
import { quatFromYaw, type Quat } from "../../../core/math/quat.js";
import type { AgentPose } from "../../../core/math/camera.js";
import type { Layout, Lighting, TaskObject } from "../../../core/task/schema.js";
import { buildModel, categoryDef, PROXY_BOX_MODEL } from "../../../core/objects/library.js";
import { FIRST_OBJECT_ID } from "../../../core/task/instanceIds.js";
import { isFree, lookAt, worldOf } from "../agent.js";
import { objectBox } from "../../../core/objects/geometry.js";
import { boxesIntersect, footprint, footprintsOverlap, type YawBox } from "../../../core/geometry.js";
import type { AnswerPlan } from "./answerPlan.js";

export class Resample extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "Resample";
  }
}

export function require(cond: unknown, reason: string): asserts cond {
  if (!cond) throw new Resample(reason);
}

/** Room sizes (m): a typical living room or kitchen; [U] in the paper (BEHAVIOR-1K rooms vary). */
const ROOM_SIZE_X_M: [number, number] = [5, 7];
const ROOM_SIZE_Y_M: [number, number] = [4, 6];
export const ROOM_HEIGHT_M = 2.6;
/** Objects keep this clearance from walls (m). */
export const WALL_MARGIN_M = 0.3;

export interface Room {
  id: string;
  type: string;
  size: [number, number];
  height: number;
  /** Rooms, interior walls and doorways of a multi-room apartment (Cognitive Mapping). */
  layout?: Layout;
}

export function makeRoom(rng: Rng, type: string): Room {
  const size: [number, number] = [Math.round(rng.uniform(...ROOM_SIZE_X_M) * 20) / 20, Math.round(rng.uniform(...ROOM_SIZE_Y_M) * 20) / 20];
  return { id: `${type}_0`, type, size, height: ROOM_HEIGHT_M };
}

/** Daylight: ambient plus a sun from above at a random angle. */
export function defaultLighting(rng: Rng): Lighting {
  return {
    ambient: round3(rng.uniform(0.35, 0.45)),
    sun: { direction: [round3(rng.uniform(-0.5, 0.5)), round3(rng.uniform(-0.5, 0.5)), -1], intensity: round3(rng.uniform(0.5, 0.65)) },
    lights: [],
  };
}

export const round3 = (x: number): number => Math.round(x * 1000) / 1000;
export const round4 = (x: number): number => Math.round(x * 10000) / 10000;

export interface AddOptions {
  model?: string;
  color?: string;
  scale?: number | Vec3;
  /** Floor position of the object's box centre in XY. */
  x: number;
  y: number;
  /** z of the object's bottom (default 0 = on the floor). */
  bottom?: number;
  yaw?: number;
  role: string;
  support?: number | "floor";
  transparent?: boolean;
}

/** Builds the object list of one task, handing out instance ids in order. */
export class SceneBuilder {
  readonly objects: TaskObject[] = [];
  private nextId = FIRST_OBJECT_ID;

  constructor(
    readonly rng: Rng,
    readonly room: Room,
  ) {}

  /** Model and colour choice for a category (first model unless given). */
  private pick(category: string, opts: { model?: string; color?: string }): { model: string; color: string } {
    const def = categoryDef(category);
    const md = opts.model ? def.models.find((m) => m.id === opts.model)! : this.rng.pick(def.models);
    return { model: md.id, color: opts.color ?? this.rng.pick(md.palette) };
  }

  /** The box an object would have (full sizes) for a model and scale. */
  static scaledExtent(model: string, scale: number | Vec3): Vec3 {
    const e = buildModel(model).extent;
    const s: Vec3 = typeof scale === "number" ? [scale, scale, scale] : scale;
    return [round4(e[0] * s[0]), round4(e[1] * s[1]), round4(e[2] * s[2])];
  }

  add(category: string, opts: AddOptions): TaskObject {
    const { model, color } = this.pick(category, opts);
    const scale = opts.scale ?? 1;
    const extent = SceneBuilder.scaledExtent(model, scale);
    const yaw = opts.yaw ?? 0;
    const q = quatFromYaw(yaw);
    const obj: TaskObject = {
      id: this.nextId++,
      category,
      model,
      name: `the ${displayName(category)}`,
      role: opts.role,
      position: [round4(opts.x), round4(opts.y), round4((opts.bottom ?? 0) + extent[2] / 2)],
      orientation: { x: 0, y: 0, z: round4(q.z), w: round4(q.w) },
      extent,
      scale: typeof scale === "number" ? round4(scale) : (scale.map(round4) as Vec3),
      color,
      transparent: opts.transparent ?? categoryDef(category).models[0]!.palette[0] === "glass",
      support: opts.support ?? (opts.bottom ? undefined : "floor"),
    };
    this.objects.push(obj);
    return obj;
  }

  /**
   * A plain box that is no library object (Inclined Plane's slope, ESI's `PrimitiveObject` cube): the unit proxy box
   * scaled to `extent` (full sizes, own axes), at a pose the caller builds (tilted ones included).
   */
  addBox(category: string, opts: { extent: Vec3; position: Vec3; orientation: Quat; color: string; role: string; support?: number | "floor" }): TaskObject {
    const obj: TaskObject = {
      id: this.nextId++,
      category,
      model: PROXY_BOX_MODEL,
      name: `the ${displayName(category)}`,
      role: opts.role,
      position: [...opts.position],
      orientation: { ...opts.orientation },
      extent: [...opts.extent],
      scale: [...opts.extent],
      color: opts.color,
      transparent: false,
      ...(opts.support !== undefined ? { support: opts.support } : {}),
    };
    this.objects.push(obj);
    return obj;
  }

  remove(obj: TaskObject): void {
    const i = this.objects.indexOf(obj);
    if (i >= 0) this.objects.splice(i, 1);
  }

  /** True when `box` fits in the room (with margin) and clears every other object's footprint by `margin`. */
  isClear(box: YawBox, margin: number, ignore: ReadonlySet<number> = new Set()): boolean {
    const hx = this.room.size[0] / 2 - WALL_MARGIN_M,
      hy = this.room.size[1] / 2 - WALL_MARGIN_M;
    if (footprint(box).some(([x, y]) => Math.abs(x) > hx || Math.abs(y) > hy)) return false;
    for (const o of this.objects) {
      if (ignore.has(o.id)) continue;
      const ob = objectBox(o);
      if (margin > 0 ? footprintsOverlap(box, ob, margin / 2) : boxesIntersect(box, ob)) return false;
    }
    return true;
  }

  /** Tries random floor spots until an object of this footprint fits; returns the centre or null. */
  findFloorSpot(half: [number, number], margin: number, yaw: number, region?: (x: number, y: number) => boolean, tries = 200): [number, number] | null {
    const hx = this.room.size[0] / 2 - WALL_MARGIN_M,
      hy = this.room.size[1] / 2 - WALL_MARGIN_M;
    for (let i = 0; i < tries; i++) {
      const x = this.rng.uniform(-hx, hx),
        y = this.rng.uniform(-hy, hy);
      if (region && !region(x, y)) continue;
      if (this.isClear({ centre: [x, y, 0.5], extent: [2 * half[0], 2 * half[1], 1], yaw }, margin)) return [x, y];
    }
    return null;
  }

  /** Places furniture along the walls (backs to the wall), as scene clutter. */
  addWallFurniture(count: number, categories: readonly string[]): void {
    for (let k = 0; k < count; k++) {
      const category = this.rng.pick(categories);
      const model = this.rng.pick(categoryDef(category).models).id;
      const e = SceneBuilder.scaledExtent(model, 1);
      const wall = this.rng.int(0, 3);
      const [sx, sy] = this.room.size;
      // Furniture models face -y (front); turn the back to the chosen wall.
      const yaw = [0, Math.PI / 2, Math.PI, -Math.PI / 2][wall]!;
      for (let t = 0; t < 30; t++) {
        const along = this.rng.uniform(-0.35, 0.35);
        const gap = 0.02;
        let x: number, y: number;
        if (wall === 0) [x, y] = [along * sx, sy / 2 - e[1] / 2 - gap];
        else if (wall === 1) [x, y] = [-sx / 2 + e[1] / 2 + gap, along * sy];
        else if (wall === 2) [x, y] = [along * sx, -sy / 2 + e[1] / 2 + gap];
        else [x, y] = [sx / 2 - e[1] / 2 - gap, along * sy];
        const box: YawBox = { centre: [x, y, e[2] / 2], extent: [e[0], e[1], e[2]], yaw };
        if (this.objects.every((o) => !footprintsOverlap(box, objectBox(o), 0.1))) {
          this.add(category, { model, x, y, yaw, role: "furniture" });
          break;
        }
      }
    }
  }
}

/** "tennis_ball" -> "tennis ball". */
export function displayName(category: string): string {
  return category.replace(/_/g, " ");
}

const PLURAL_EXCEPTIONS: Record<string, string> = {
  dice: "dice",
  shoe: "shoes",
  glass: "glasses",
  potted_plant: "potted plants",
  toy_block: "toy blocks",
  peach: "peaches",
  tomato: "tomatoes",
  bookshelf: "bookshelves",
  glass_bowl: "glass bowls",
  walnut: "walnuts",
  chestnut: "chestnuts",
  box: "boxes",
};

export function pluralName(category: string): string {
  const e = PLURAL_EXCEPTIONS[category];
  if (e) return e;
  const n = displayName(category);
  return /(s|x|ch|sh)$/.test(n) ? `${n}es` : `${n}s`;
}

/** A colour word the category's own name already says ("lime" for a lime): naming it would read "the lime lime". */
const colourInName = (color: string, category: string) => displayName(category).split(" ").includes(color);

/**
 * "the X" unless the category repeats, then "the <colour> X" (numbered when colours repeat too); unique per task.
 * A colour the category's name already says is left out ("the lime #2", never "the lime lime #2"); such a name is
 * numbered even when it is the only one of its colour, since "the lime" would not say which of the limes it is.
 */
export function assignNames(objects: TaskObject[]): void {
  const byCat = new Map<string, TaskObject[]>();
  for (const o of objects) byCat.set(o.category, [...(byCat.get(o.category) ?? []), o]);
  for (const list of byCat.values()) {
    if (list.length === 1) list[0]!.name = `the ${displayName(list[0]!.category)}`;
    else {
      // colour first; copies of the same colour are numbered in id order ("the blue toy block #2")
      const byColor = new Map<string, TaskObject[]>();
      for (const o of list) {
        const descriptor = colourInName(o.color, o.category) ? "" : o.color;
        byColor.set(descriptor, [...(byColor.get(descriptor) ?? []), o]);
      }
      for (const [descriptor, same] of byColor)
        same.forEach(
          (o, k) => (o.name = `the ${descriptor ? `${descriptor} ` : ""}${displayName(o.category)}${same.length > 1 || !descriptor ? ` #${k + 1}` : ""}`),
        );
    }
  }
}

/** A camera pose at `from` looking at `target`, checked to be a free spot for the agent. */
export function cameraLookingAt(builder: SceneBuilder, from: Vec3, target: Vec3, agentLimits?: { min_camera_height_m: number }): AgentPose | null {
  const { yaw, pitch } = lookAt(from, target);
  const world = worldOf({ room: builder.room, objects: builder.objects, ...(agentLimits ? { agent_limits: agentLimits } : {}) });
  if (!isFree(world, from)) return null;
  return { position: [round4(from[0]), round4(from[1]), round4(from[2])], yaw: round4(yaw), pitch: round4(pitch) };
}

/** Camera height of the counting tasks' initial view (ESI `AGENT_CAMERA_HEIGHT_M`, batch_counting_merge.py). */
export const COUNTING_CAMERA_HEIGHT_M = 1.25;
/**
 * The counting tasks' initial camera aims at this height above the room centre (ESI `AGENT_CAMERA_TARGET_HEIGHT_M`,
 * batch_counting_merge.py `_sample_primary_view_pose`): 0.35 m drop, ≈13° down
 * from 1.5 m, replacing suite v1's fixed 30° (the paper's text; ESI's measured pitch median is 12–24°).
 */
export const COUNTING_CAMERA_AIM_HEIGHT_M = 0.9;

/**
 * Whether a yes/no question's planned answer is yes: its options are always listed yes first, no second, so the
 * planned slot (answerPlan.ts) is the answer itself, and a balanced plan balances yes and no.
 */
export const plannedYes = (plan: AnswerPlan): boolean => plan.slot === 0;

/** Integer options per counting question (ESI `_build_counting_options`: 4). */
const COUNT_OPTION_COUNT = 4;

/**
 * Integer options: COUNT_OPTION_COUNT consecutive integers (>= 0), ascending, with the answer at the planned slot
 * (answerPlan.ts). Options drawn around the answer (answer ± k, or the answer plus the counts a view shows) put
 * it in the middle: at dad60a5 the option nearest the options' mean was right 67 % of the time (issue 16). In a
 * window at a balanced position neither the answer's index nor the mean gives it away. A window cannot start
 * below 0, so an answer smaller than its slot is redrawn.
 */
export function integerOptions(plan: AnswerPlan, answer: number): string[] {
  require(answer >= plan.slot, `count ${answer} cannot sit at option ${plan.slot} of non-negative integers`);
  return Array.from({ length: COUNT_OPTION_COUNT }, (_, i) => String(answer - plan.slot + i));
}
