/**
 * Turns a task record into a renderable triangle scene: the room (floor and four walls; no ceiling, as
 * ESI-Bench loads none) and every object's model, scaled, rotated and placed; a mirror's reflective face is
 * marked for the renderer's reflection pass (core/objects/mirror.ts).
 */
import type { Vec3 } from "../../core/math/vec.js";
import type { Lighting, Task, TaskObject } from "../../core/task/schema.js";
import { colorRgb, type Rgb } from "../../core/task/palette.js";
import { buildModel, modelDef } from "../../core/objects/library.js";
import { objectWorldTriangles, shapeOf } from "../../core/objects/shape.js";
import { CLOTH_CATEGORY, clothTriangles } from "../../core/objects/drape.js";
import { roomFrame } from "./agent.js";
import { solidIntervals, wallPoint } from "../../core/task/layout.js";
import { FLOOR_ID, WALL_IDS } from "../../core/task/instanceIds.js";
import { MIRROR_CATEGORY, mirrorPlane, reflectionMatrix, reflectiveTriangles } from "../../core/objects/mirror.js";
import type { MirrorPlane } from "../../core/bundle/schema.js";
import type { Mat34 } from "../../core/math/vec.js";

const FLOOR_RGB: Rgb = [176, 150, 118];
const WALL_RGB: Rgb = [214, 210, 200];
/** Size of the floor's checker tiles (m); gives the floor texture that multi-view methods need. */
export const FLOOR_TILE_M = 0.5;

/** Mirrors a scene may hold: triMirror names a triangle's mirror in one byte. */
const MAX_MIRRORS = 255;

export interface RenderScene {
  /** World-space triangle soup, 9 floats per triangle. */
  tris: Float32Array;
  /** Unit normal per triangle (3 floats). */
  normals: Float32Array;
  /** Instance id per triangle. */
  triId: Uint16Array;
  /** Albedo per triangle (3 bytes). */
  triRgb: Uint8Array;
  /** 1 where the triangle is glass. */
  triGlass: Uint8Array;
  /** The scene's mirrors: each one's reflective rectangle and the reflection about its plane. */
  mirrors: Array<{ plane: MirrorPlane; reflection: Mat34 }>;
  /** Per triangle, 1 + the index in `mirrors` of the mirror whose reflective face it is, else 0; null without mirrors. */
  triMirror: Uint8Array | null;
  lighting: Lighting;
  /** id -> category for every id that can appear in an instance image. */
  categories: Map<number, string>;
  roomSize: [number, number];
  roomHeight: number;
}

interface Builder {
  tris: number[];
  ids: number[];
  rgb: number[];
  glass: number[];
  /** 1 + mirror index per triangle (see RenderScene.triMirror). */
  mirror: number[];
}

function pushQuad(b: Builder, a: Vec3, c: Vec3, d: Vec3, e: Vec3, id: number, rgb: Rgb): void {
  b.tris.push(...a, ...c, ...d, ...a, ...d, ...e);
  b.ids.push(id, id);
  b.rgb.push(...rgb, ...rgb);
  b.glass.push(0, 0);
  b.mirror.push(0, 0);
}

function slotColor(obj: TaskObject, slot: number): Rgb {
  const md = modelDef(obj.model);
  if (slot === 0) return colorRgb(obj.color);
  if (slot === 1) return colorRgb(md.secondary ?? obj.color);
  if (slot === 2) return colorRgb(md.accent ?? md.secondary ?? obj.color);
  return colorRgb("glass");
}

export function buildScene(task: Pick<Task, "room" | "objects" | "lighting">): RenderScene {
  const b: Builder = { tris: [], ids: [], rgb: [], glass: [], mirror: [] };
  const mirrors: RenderScene["mirrors"] = [];
  const [sx, sy] = task.room.size;
  // a room at world bounds (imported tasks) has its floor rectangle there, at its floor height
  const {
    centre: [cx, cy],
    floorZ: z0,
  } = roomFrame(task.room);
  const x0 = cx - sx / 2,
    x1 = cx + sx / 2,
    y0 = cy - sy / 2,
    y1 = cy + sy / 2,
    z1 = z0 + task.room.height;
  const categories = new Map<number, string>();
  categories.set(FLOOR_ID, "floor");
  pushQuad(b, [x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0], FLOOR_ID, FLOOR_RGB);
  const walls: Array<[Vec3, Vec3, Vec3, Vec3]> = [
    [
      [x0, y0, z0],
      [x0, y0, z1],
      [x1, y0, z1],
      [x1, y0, z0],
    ],
    [
      [x1, y0, z0],
      [x1, y0, z1],
      [x1, y1, z1],
      [x1, y1, z0],
    ],
    [
      [x1, y1, z0],
      [x1, y1, z1],
      [x0, y1, z1],
      [x0, y1, z0],
    ],
    [
      [x0, y1, z0],
      [x0, y1, z1],
      [x0, y0, z1],
      [x0, y0, z0],
    ],
  ];
  walls.forEach((w, i) => {
    pushQuad(b, w[0], w[1], w[2], w[3], WALL_IDS[i]!, WALL_RGB);
    categories.set(WALL_IDS[i]!, "wall");
  });
  // interior walls of a multi-room layout: full-height quads, cut where the doorways are
  for (const w of task.room.layout?.walls ?? []) {
    categories.set(w.id, "wall");
    for (const [s0, s1] of solidIntervals(w)) {
      const [ax, ay] = wallPoint(w, s0),
        [bx, by] = wallPoint(w, s1);
      pushQuad(b, [ax, ay, z0], [ax, ay, z1], [bx, by, z1], [bx, by, z0], w.id, WALL_RGB);
    }
  }
  // a model the library does not have renders as a box of the object's extent (objects/shape.ts shapeOf)
  for (const obj of task.objects.map(shapeOf)) {
    categories.set(obj.id, obj.category);
    // a cloth's mesh is its drape over what lies under it (or folded, when held), in its own colour
    if (obj.category === CLOTH_CATEGORY) {
      const cloth = clothTriangles(obj, task.objects);
      for (let k = 0; k < cloth.length; k++) b.tris.push(cloth[k]!);
      for (let t = 0; t < cloth.length / 9; t++) {
        b.ids.push(obj.id);
        b.rgb.push(...colorRgb(obj.color));
        b.glass.push(0);
        b.mirror.push(0);
      }
      continue;
    }
    const world = objectWorldTriangles(obj);
    const slots = buildModel(obj.model).slots;
    let reflective: Uint8Array | null = null;
    if (obj.category === MIRROR_CATEGORY) {
      if (mirrors.length === MAX_MIRRORS) throw new Error(`a scene holds at most ${MAX_MIRRORS} mirrors (one byte per triangle names its mirror)`);
      const plane = mirrorPlane(obj);
      mirrors.push({ plane, reflection: reflectionMatrix(plane) });
      reflective = reflectiveTriangles(world, plane);
    }
    for (let t = 0; t < slots.length; t++) {
      for (let k = 0; k < 9; k++) b.tris.push(world[t * 9 + k]!);
      const slot = slots[t]!;
      b.ids.push(obj.id);
      b.rgb.push(...slotColor(obj, slot));
      b.glass.push(obj.transparent || slot === 3 ? 1 : 0);
      b.mirror.push(reflective?.[t] ? mirrors.length : 0);
    }
  }
  const tris = Float32Array.from(b.tris);
  const n = b.ids.length;
  const normals = new Float32Array(n * 3);
  for (let t = 0; t < n; t++) {
    const o = t * 9;
    const ux = tris[o + 3]! - tris[o]!,
      uy = tris[o + 4]! - tris[o + 1]!,
      uz = tris[o + 5]! - tris[o + 2]!;
    const vx = tris[o + 6]! - tris[o]!,
      vy = tris[o + 7]! - tris[o + 1]!,
      vz = tris[o + 8]! - tris[o + 2]!;
    const nx = uy * vz - uz * vy,
      ny = uz * vx - ux * vz,
      nz = ux * vy - uy * vx;
    const l = Math.hypot(nx, ny, nz) || 1;
    normals[t * 3] = nx / l;
    normals[t * 3 + 1] = ny / l;
    normals[t * 3 + 2] = nz / l;
  }
  return {
    tris,
    normals,
    triId: Uint16Array.from(b.ids),
    triRgb: Uint8Array.from(b.rgb),
    triGlass: Uint8Array.from(b.glass),
    mirrors,
    triMirror: mirrors.length ? Uint8Array.from(b.mirror) : null,
    lighting: task.lighting,
    categories,
    roomSize: [sx, sy],
    roomHeight: task.room.height,
  };
}
