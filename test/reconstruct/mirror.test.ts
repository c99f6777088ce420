import { describe, expect, it } from "vitest";
import { renderBundle } from "../../bridge/sim/capture.js";
import { noisyPointCloud, NOISE_COMPONENTS, VGGT_TYPICAL_LEVEL, type NoiseComponent } from "../../reconstruct/noisy/index.js";
import type { PointCloud } from "../../reconstruct/pointcloud.js";
import type { Vec3 } from "../../core/math/vec.js";
import { BOX_CENTRE, BOX_EXTENT, BOX_ID, MIRROR_ID, mirrorTask } from "../helpers/mirrorScene.js";
import { gtOf, metaOf, sameArrays } from "./noisyHelpers.js";

// the initial view and one after a step to the left: the box's image seen from two places
const bundle = renderBundle(mirrorTask(undefined, ["move_left"]), "gt");
const plane = bundle.manifest.mirrors![0]!;
const q = plane.centre,
  n = plane.normal;

/** Signed distance of point k of a cloud from the mirror's plane (positive on its reflecting side). */
const offPlane = (c: PointCloud, k: number) => (c.xyz[3 * k]! - q[0]) * n[0] + (c.xyz[3 * k + 1]! - q[1]) * n[1] + (c.xyz[3 * k + 2]! - q[2]) * n[2];

/** The box's mirror image: its box reflected in the plane (an axis-aligned box for a mirror facing −x), grown by `grow`. */
function imageBox(grow: number): { lo: Vec3; hi: Vec3 } {
  const d = (BOX_CENTRE[0] - q[0]) * n[0] + (BOX_CENTRE[1] - q[1]) * n[1] + (BOX_CENTRE[2] - q[2]) * n[2];
  const c: Vec3 = [BOX_CENTRE[0] - 2 * d * n[0], BOX_CENTRE[1] - 2 * d * n[1], BOX_CENTRE[2] - 2 * d * n[2]];
  const lo = c.map((x, k) => x - BOX_EXTENT[k]! / 2 - grow) as Vec3,
    hi = c.map((x, k) => x + BOX_EXTENT[k]! / 2 + grow) as Vec3;
  return { lo, hi };
}
const inside = (c: PointCloud, k: number, b: { lo: Vec3; hi: Vec3 }) => [0, 1, 2].every((a) => c.xyz[3 * k + a]! >= b.lo[a]! && c.xyz[3 * k + a]! <= b.hi[a]!);

/**
 * What point k's pixel reflects (0 for a pixel that is no mirror pixel or reflects nothing). The box's image lies
 * beyond the room's wall, among the wall's own points: the tests count the points of mirror pixels.
 */
const reflects = (c: PointCloud, k: number) => bundle.views[c.view[k]!]!.reflectedIds![c.pixel[k]!]!;

function countWhere(c: PointCloud, test: (k: number) => boolean): number {
  let n = 0;
  for (let k = 0; k < c.count; k++) if (test(k)) n++;
  return n;
}

/** The median of `value` over the points that pass `test`. */
function median(c: PointCloud, test: (k: number) => boolean, value: (k: number) => number): number {
  const vs: number[] = [];
  for (let k = 0; k < c.count; k++) if (test(k)) vs.push(value(k));
  return vs.sort((a, b) => a - b)[vs.length >> 1]!;
}

const noisy = (level: number, components: readonly NoiseComponent[]) =>
  noisyPointCloud(bundle, { noiseLevel: level, noiseSeed: "mirror", noiseComponents: [...components] });

describe("reconstruction of a mirror", () => {
  it("gt keeps the mirror's surface: every point of a mirror pixel lies on the mirror's plane, inside its rectangle", () => {
    const gt = gtOf(bundle);
    const onMirror = countWhere(gt, (k) => reflects(gt, k) !== 0);
    expect(onMirror).toBeGreaterThan(1000);
    for (let k = 0; k < gt.count; k++) {
      if (reflects(gt, k) === 0) continue;
      expect(gt.instance[k]).toBe(MIRROR_ID);
      expect(Math.abs(offPlane(gt, k))).toBeLessThan(1e-3);
      const r = [0, 1, 2].map((a) => gt.xyz[3 * k + a]! - q[a]!);
      expect(Math.abs(r[0]! * plane.u[0] + r[1]! * plane.u[1] + r[2]! * plane.u[2])).toBeLessThan(plane.half_width_m + 1e-3);
      expect(Math.abs(r[0]! * plane.v[0] + r[1]! * plane.v[1] + r[2]! * plane.v[2])).toBeLessThan(plane.half_height_m + 1e-3);
    }
    // nothing of the mirror near the box's mirror image
    expect(countWhere(gt, (k) => reflects(gt, k) !== 0 && inside(gt, k, imageBox(0.3)))).toBe(0);
  });

  it("noisy's mirror component alone puts a mirror pixel at its mirror image, behind the mirror: the box's image where the mirror equation puts it", () => {
    const c = noisy(1, ["mirror"]);
    const meta = metaOf(c);
    expect(meta.components).toEqual(["mirror"]);
    let mirrorPx = 0;
    for (const v of bundle.views) for (let p = 0; p < v.depth.length; p++) if (v.reflectedDepth![p]! > 0) mirrorPx++;
    expect(meta.counts.mirrorPx).toBe(mirrorPx);
    const box = imageBox(1e-3);
    let boxPoints = 0;
    for (let k = 0; k < c.count; k++) {
      const shows = reflects(c, k);
      if (shows === 0) continue;
      // the image lies as far behind the mirror as what it shows lies in front
      expect(offPlane(c, k)).toBeLessThan(0);
      if (shows === BOX_ID) {
        boxPoints++;
        expect(inside(c, k, box)).toBe(true);
      }
    }
    expect(boxPoints).toBeGreaterThan(100);
  });

  it(`noisy at the vggt-typical level puts a phantom of the box near its mirror image, and none with 'mirror' switched off`, () => {
    const all = noisy(VGGT_TYPICAL_LEVEL, NOISE_COMPONENTS);
    const near = imageBox(0.15);
    const phantom = countWhere(all, (k) => reflects(all, k) !== 0 && inside(all, k, near));
    expect(phantom).toBeGreaterThan(50);
    // most points of mirror pixels that show something lie behind the mirror
    const shown = countWhere(all, (k) => reflects(all, k) !== 0),
      behind = countWhere(all, (k) => reflects(all, k) !== 0 && offPlane(all, k) < -0.1);
    expect(behind / shown).toBeGreaterThan(0.9);

    const off = noisy(
      VGGT_TYPICAL_LEVEL,
      NOISE_COMPONENTS.filter((x) => x !== "mirror"),
    );
    expect(metaOf(off).counts.mirrorPx).toBe(0);
    expect(countWhere(off, (k) => reflects(off, k) !== 0 && inside(off, k, imageBox(0.3)))).toBe(0);
    // its mirror pixels stay on the mirror, up to the other components' depth error (a few per cent of the
    // mirror's 2.5–3 m: centimetres to decimetres); with it they lie metres behind
    expect(
      Math.abs(
        median(
          off,
          (k) => reflects(off, k) !== 0,
          (k) => offPlane(off, k),
        ),
      ),
    ).toBeLessThan(0.25);
    expect(
      median(
        all,
        (k) => reflects(all, k) !== 0,
        (k) => offPlane(all, k),
      ),
    ).toBeLessThan(-1);
  });

  it("is the gt cloud at level 0 and the same cloud for the same seed", () => {
    expect(sameArrays(noisy(0, NOISE_COMPONENTS), gtOf(bundle))).toBe(true);
    expect(sameArrays(noisy(VGGT_TYPICAL_LEVEL, NOISE_COMPONENTS), noisy(VGGT_TYPICAL_LEVEL, NOISE_COMPONENTS))).toBe(true);
  });
});
