/** The cloth's drape model (core/objects/drape.ts) and its render (bridge/sim/scene.ts). */
import { describe, expect, it } from "vitest";
import { Rng } from "../../../core/math/rng.js";
import { CLOTH_MAX_SIDE_M, covers, drapeCloth, type Drape } from "../../../core/objects/drape.js";

/** drape.ts's cloth: 3 mm thick, folded into 16 layers when held (ours). */
const CLOTH_THICKNESS_M = 0.003;
const FOLD_LAYERS = 16;
const LIGHTING = { ambient: 0.4, sun: { direction: [0.2, 0.1, -1] as [number, number, number], intensity: 0.6 }, lights: [] };
import { objectWorldTriangles } from "../../../core/objects/shape.js";
import type { TaskObject } from "../../../core/task/schema.js";
import { makeRoom, SceneBuilder } from "../../../bridge/sim/generate/common.js";
import { buildScene } from "../../../bridge/sim/scene.js";
import { lookAt } from "../../../bridge/sim/agent.js";
import { visibleCounts } from "../../../bridge/sim/generate/visibility.js";
import { IMAGE_SIZES } from "../../../bridge/sim/generate/options.js";

/** One object of `category` on the floor at the room's centre, and a cloth of `side` over it. */
function covered(
  category: string,
  side: number,
  model?: string,
): { objects: TaskObject[]; target: TaskObject; cloth: TaskObject; room: ReturnType<typeof makeRoom> } {
  const rng = new Rng("drape-test");
  const room = makeRoom(rng, "living_room");
  const b = new SceneBuilder(rng, room);
  const target = b.add(category, { x: 0, y: 0, role: "target", ...(model ? { model } : {}) });
  const cloth = b.add("cloth", { x: 0, y: 0, scale: [side, side, 1], role: "cover", support: target.id });
  return { objects: b.objects, target, cloth, room };
}

/** The cloth mesh's height over (x, y): the triangle of its cell that holds the point (drapeTriangles' split). */
function meshHeight(d: Drape, x: number, y: number): number {
  const cell = (2 * d.half) / d.n;
  const u = (x - d.centre[0] + d.half) / cell,
    v = (y - d.centre[1] + d.half) / cell;
  const i = Math.min(d.n - 1, Math.max(0, Math.floor(u))),
    j = Math.min(d.n - 1, Math.max(0, Math.floor(v)));
  const fu = u - i,
    fv = v - j;
  const h = (a: number, b: number) => d.heights[b * (d.n + 1) + a]! + CLOTH_THICKNESS_M;
  // the cell's cut alternates (drape.ts CELL_SPLIT): a-d in even columns, b-c in odd ones
  const [a, b, c, e] = [h(i, j), h(i + 1, j), h(i, j + 1), h(i + 1, j + 1)];
  if (i % 2 === 0) return fu >= fv ? a + fu * (b - a) + fv * (e - b) : a + fv * (c - a) + fu * (e - c);
  return fu + fv <= 1 ? a + fu * (b - a) + fv * (c - a) : e + (1 - fu) * (c - e) + (1 - fv) * (b - e);
}

/** Surface area (m^2) of the cloth's triangles in the render scene. */
function clothArea(c: ReturnType<typeof covered>): number {
  const scene = buildScene({ room: c.room, objects: c.objects, lighting: LIGHTING });
  const t = scene.tris;
  let a = 0;
  for (let o = 0; o < t.length; o += 9) {
    if (scene.triId[o / 9] !== c.cloth.id) continue;
    const ux = t[o + 3]! - t[o]!,
      uy = t[o + 4]! - t[o + 1]!,
      uz = t[o + 5]! - t[o + 2]!;
    const vx = t[o + 6]! - t[o]!,
      vy = t[o + 7]! - t[o + 1]!,
      vz = t[o + 8]! - t[o + 2]!;
    a += 0.5 * Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
  }
  return a;
}

/** Heights along the cloth's X axis through its centre. */
const profile = (d: Drape) => Array.from({ length: d.n + 1 }, (_, i) => d.heights[Math.floor(d.n / 2) * (d.n + 1) + i]!);

describe("drape model", () => {
  const tall = covered("bottle", CLOTH_MAX_SIDE_M);
  const flat = covered("pot", CLOTH_MAX_SIDE_M);
  const tallDrape = drapeCloth(tall.cloth, tall.objects);
  const flatDrape = drapeCloth(flat.cloth, flat.objects);

  it("follows the hidden object's shape: a tall narrow object makes a high peak, a flat wide one a low broad plateau", () => {
    const [pt, pf] = [profile(tallDrape), profile(flatDrape)];
    expect(Math.max(...pt)).toBeCloseTo(tall.target.extent[2], 2);
    expect(Math.max(...pf)).toBeCloseTo(flat.target.extent[2], 2);
    // the profile's width at half its peak: narrow under the bottle, broad under the pot
    const cell = (2 * tallDrape.half) / tallDrape.n;
    const halfWidth = (p: number[]) => p.filter((h) => h >= Math.max(...p) / 2).length * cell;
    expect(halfWidth(pf)).toBeGreaterThan(halfWidth(pt));
    expect(halfWidth(pf)).toBeGreaterThan(flat.target.extent[0]);
    expect(halfWidth(pt) / Math.max(...pt)).toBeLessThan(1);
    expect(halfWidth(pf) / Math.max(...pf)).toBeGreaterThan(2);
  });

  it("keeps the flat cloth's area and covers the object, edge on the floor", () => {
    for (const [c, d] of [
      [tall, tallDrape],
      [flat, flatDrape],
    ] as const) {
      expect(clothArea(c)).toBeCloseTo(d.side * d.side, 2);
      expect(d.half).toBeLessThan(d.side / 2);
      expect(covers(d)).toBe(true);
    }
    // a cloth too small for the object leaves its edge in the air
    const small = covered("bottle", 0.2);
    expect(covers(drapeCloth(small.cloth, small.objects))).toBe(false);
  });

  it("lets nothing through: every vertex of the covered object lies under the cloth", () => {
    for (const [c, d] of [
      [tall, tallDrape],
      [flat, flatDrape],
    ] as const) {
      const t = objectWorldTriangles(c.target);
      let worst = Infinity;
      for (let o = 0; o < t.length; o += 3) worst = Math.min(worst, meshHeight(d, t[o]!, t[o + 1]!) - t[o + 2]!);
      expect(worst).toBeGreaterThan(0);
    }
  });

  it("hides the object from passive views all around it, at the task camera's heights", () => {
    const camera = IMAGE_SIZES["518x392"];
    for (const c of [tall, flat]) {
      const scene = buildScene({
        room: c.room,
        objects: c.objects,
        lighting: { ambient: 0.4, sun: { direction: [0.2, 0.1, -1], intensity: 0.6 }, lights: [] },
      });
      let clothSeen = 0;
      for (const height of [0.2, 0.4, 0.9, 1.5])
        for (const distance of [0.5, 1.2])
          for (let k = 0; k < 8; k++) {
            // ESI's main view (-90 deg) and the 45 deg steps between, off the exact diagonals by 10 deg: a cell diagonal
            // lying in the camera's own vertical plane projects onto one pixel column, which the rasterizer can leave
            // open (drape.ts DRAPE_GRID_CELLS)
            const az = k % 2 === 0 ? (k * Math.PI) / 4 - Math.PI / 2 : (k * Math.PI) / 4 + Math.PI / 18;
            const from: [number, number, number] = [distance * Math.cos(az), distance * Math.sin(az), height];
            const { yaw, pitch } = lookAt(from, [0, 0, 0.05]);
            const counts = visibleCounts(scene, camera, { position: from, yaw, pitch }, 0.5);
            expect(counts.get(c.target.id) ?? 0).toBe(0);
            if ((counts.get(c.cloth.id) ?? 0) > 0) clothSeen++;
          }
      expect(clothSeen).toBe(64);
    }
  });

  it("renders a cloth with no support folded flat: a small square of several layers", () => {
    const c = covered("bottle", CLOTH_MAX_SIDE_M);
    const held: TaskObject = { ...c.cloth, position: [1, 1, 1] };
    delete held.support;
    const scene = buildScene({
      room: c.room,
      objects: [c.target, held],
      lighting: { ambient: 0.4, sun: { direction: [0, 0, -1], intensity: 0.6 }, lights: [] },
    });
    const zs: number[] = [],
      xs: number[] = [];
    for (let t = 0; t < scene.triId.length; t++)
      if (scene.triId[t] === held.id)
        for (let v = 0; v < 3; v++) {
          xs.push(scene.tris[t * 9 + v * 3]!);
          zs.push(scene.tris[t * 9 + v * 3 + 2]!);
        }
    expect(Math.max(...xs) - Math.min(...xs)).toBeCloseTo(CLOTH_MAX_SIDE_M / 4, 5);
    expect(Math.max(...zs) - Math.min(...zs)).toBeCloseTo(FOLD_LAYERS * CLOTH_THICKNESS_M, 5);
  });
});
