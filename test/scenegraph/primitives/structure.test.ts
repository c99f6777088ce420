/** Floor and wall separation on synthetic rooms with known ground truth. */
import { describe, expect, it } from "vitest";
import { STRUCTURE_FLOOR, STRUCTURE_OBJECT, STRUCTURE_WALL, segmentStructure } from "../../../scenegraph/primitives/structure.js";

/** The floor inlier band's half-width (3 cm): points this close to the floor are floor. */
const FLOOR_BAND_M = 0.03;
import { syntheticRoom, syntheticScene } from "./helpers.js";

/** Fraction of points of true class `k` (optionally only those higher than minZ above the floor) labelled `k`. */
function recall(mask: Uint8Array, truth: Uint8Array, k: number, keep: (i: number) => boolean = () => true): number {
  let tp = 0,
    all = 0;
  for (let i = 0; i < mask.length; i++) {
    if (truth[i] !== k || !keep(i)) continue;
    all++;
    if (mask[i] === k) tp++;
  }
  return tp / all;
}

function precision(mask: Uint8Array, truth: Uint8Array, k: number): number {
  let tp = 0,
    all = 0;
  for (let i = 0; i < mask.length; i++) {
    if (mask[i] !== k) continue;
    all++;
    if (truth[i] === k) tp++;
  }
  return tp / all;
}

describe("segmentStructure", () => {
  it("separates floor, 4 walls and the objects of an axis-aligned room", () => {
    const { xyz, truth } = syntheticRoom("a");
    const r = segmentStructure(xyz);
    const z = (i: number) => xyz[3 * i + 2]!;
    expect(r.floor).not.toBeNull();
    expect(Math.abs(r.floor!.c)).toBeLessThan(0.005);
    expect(r.walls.length).toBe(4);
    for (const w of r.walls) {
      expect(w.zMax - w.zMin).toBeGreaterThan(2.2);
      // axis-aligned normals, pointing into the room
      expect(Math.max(Math.abs(w.normal[0]), Math.abs(w.normal[1]))).toBeCloseTo(1, 3);
      expect(-w.offset).toBeGreaterThan(1.9); // the room (origin) is on the normal's side: n.0 - offset > 0
    }
    expect(recall(r.mask, truth, STRUCTURE_FLOOR)).toBeGreaterThan(0.999);
    // the bottom 3 cm of the walls (~1.2 % of their points) and of the objects fall in the floor band
    expect(precision(r.mask, truth, STRUCTURE_FLOOR)).toBeGreaterThan(0.95);
    expect(precision(r.mask, truth, STRUCTURE_FLOOR)).toBeLessThan(1);
    // wall points above the floor band
    expect(recall(r.mask, truth, STRUCTURE_WALL, (i) => z(i) > FLOOR_BAND_M + 0.01)).toBeGreaterThan(0.995);
    expect(precision(r.mask, truth, STRUCTURE_WALL)).toBeGreaterThan(0.995);
    // objects stay objects (except their bottom 3 cm)
    expect(recall(r.mask, truth, STRUCTURE_OBJECT, (i) => z(i) > FLOOR_BAND_M + 0.01)).toBeGreaterThan(0.995);
  });

  it("handles a rotated, shifted room with a slightly tilted floor and 1 cm noise", () => {
    const { xyz, truth } = syntheticRoom("b", { yaw: 0.35, offset: [3, -1, 0.4], tiltDeg: 1.5, noiseM: 0.01 });
    const r = segmentStructure(xyz);
    expect(r.walls.length).toBe(4);
    expect(r.floor).not.toBeNull();
    // recovered tilt ~1.5 deg
    expect((Math.atan(Math.hypot(r.floor!.a, r.floor!.b)) * 180) / Math.PI).toBeCloseTo(1.5, 1);
    // heights above the fitted floor
    const up = (i: number) => xyz[3 * i + 2]! - (r.floor!.a * xyz[3 * i]! + r.floor!.b * xyz[3 * i + 1]! + r.floor!.c);
    expect(recall(r.mask, truth, STRUCTURE_FLOOR)).toBeGreaterThan(0.99);
    expect(recall(r.mask, truth, STRUCTURE_WALL, (i) => up(i) > 0.06)).toBeGreaterThan(0.98);
    expect(precision(r.mask, truth, STRUCTURE_WALL)).toBeGreaterThan(0.98);
    expect(recall(r.mask, truth, STRUCTURE_OBJECT, (i) => up(i) > 0.06)).toBeGreaterThan(0.98);
  });

  it("finds no walls in an open scene (gen_scene-like: floor + objects), and the floor there", () => {
    const xyz = syntheticScene(60_000, "open");
    const r = segmentStructure(xyz);
    expect(r.walls.length).toBe(0);
    expect(r.floor).not.toBeNull();
    let floor = 0;
    for (let i = 0; i < r.mask.length; i++) floor += r.mask[i] === STRUCTURE_FLOOR ? 1 : 0;
    expect(floor / r.mask.length).toBeGreaterThan(0.5);
  });

  it("is deterministic and copes with empty input", () => {
    const { xyz } = syntheticRoom("c", { density: 400 });
    expect(segmentStructure(xyz)).toEqual(segmentStructure(xyz));
    expect(segmentStructure(new Float32Array(0))).toEqual({ mask: new Uint8Array(0), floor: null, walls: [] });
  });
});
