/** Hull, minimum-area rectangle, yaw boxes, footprint and height overlaps: geometry checked against known answers and brute force. */
import { describe, expect, it } from "vitest";
import { Rng } from "../../../core/math/rng.js";
import { boxVolume } from "../../../core/geometry.js";
import { convexHull2d, minAreaRect } from "../../../scenegraph/primitives/hull2d.js";
import { aabb, footprintIntersectionArea, yawBox, zOverlap, type YawBox } from "../../../scenegraph/primitives/boxes.js";

const cross = (ax: number, ay: number, bx: number, by: number, cx: number, cy: number) => (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);

/** Points sampled on the surface of a box of the given size, yaw and centre (2 mm noise optional). */
function boxSurface(rng: Rng, n: number, size: [number, number, number], yaw: number, c: [number, number, number], noise = 0): Float32Array {
  const out = new Float32Array(3 * n);
  const [a, b, h] = size;
  const areas = [b * h, b * h, a * h, a * h, a * b, a * b];
  const total = areas.reduce((s, v) => s + v, 0);
  for (let i = 0; i < n; i++) {
    let r = rng.next() * total,
      f = 0;
    while (r >= areas[f]!) r -= areas[f++]!;
    const u = [rng.uniform(-a / 2, a / 2), rng.uniform(-b / 2, b / 2), rng.uniform(-h / 2, h / 2)];
    const ax = Math.floor(f / 2);
    u[ax] = (f % 2 ? 0.5 : -0.5) * size[ax]!;
    const cs = Math.cos(yaw),
      sn = Math.sin(yaw);
    out[3 * i] = c[0] + cs * u[0]! - sn * u[1]! + rng.normal(0, noise);
    out[3 * i + 1] = c[1] + sn * u[0]! + cs * u[1]! + rng.normal(0, noise);
    out[3 * i + 2] = c[2] + u[2]! + rng.normal(0, noise);
  }
  return out;
}

describe("convexHull2d", () => {
  it("is convex, counter-clockwise, made of input points, and contains every point", () => {
    const rng = new Rng("hull");
    for (let t = 0; t < 20; t++) {
      const n = [3, 10, 200, 3000][t % 4]!;
      const xy = new Float64Array(2 * n);
      for (let i = 0; i < 2 * n; i++) xy[i] = t % 2 ? rng.normal() : Math.round(rng.uniform(-5, 5)); // integer grids: many collinear points
      const hull = convexHull2d(xy);
      const h = hull.length;
      if (h < 3) continue;
      let notConvex = 0,
        outside = 0;
      for (let k = 0; k < h; k++) {
        const a = hull[k]!,
          b = hull[(k + 1) % h]!,
          c = hull[(k + 2) % h]!;
        if (!(cross(xy[2 * a]!, xy[2 * a + 1]!, xy[2 * b]!, xy[2 * b + 1]!, xy[2 * c]!, xy[2 * c + 1]!) > 0)) notConvex++;
        for (let i = 0; i < n; i++) if (cross(xy[2 * a]!, xy[2 * a + 1]!, xy[2 * b]!, xy[2 * b + 1]!, xy[2 * i]!, xy[2 * i + 1]!) < 0) outside++;
      }
      expect(notConvex).toBe(0);
      expect(outside).toBe(0);
    }
  });

  it("degenerate input: one point, duplicates, collinear points", () => {
    expect(Array.from(convexHull2d(new Float64Array([1, 1])))).toEqual([0]);
    expect(convexHull2d(new Float64Array([1, 1, 1, 1, 1, 1])).length).toBe(1);
    const line = convexHull2d(new Float64Array([0, 0, 1, 1, 2, 2, 3, 3]));
    expect(Array.from(line)).toEqual([0, 3]);
  });
});

describe("minAreaRect (rotating calipers)", () => {
  it("equals the brute-force minimum over all hull edges", () => {
    const rng = new Rng("calipers");
    for (let t = 0; t < 30; t++) {
      const n = 5 + t * 7;
      const xy = new Float64Array(2 * n);
      const sx = rng.uniform(0.2, 3),
        sy = rng.uniform(0.2, 3),
        rot = rng.uniform(0, Math.PI);
      for (let i = 0; i < n; i++) {
        const x = rng.uniform(-sx, sx),
          y = rng.uniform(-sy, sy);
        xy[2 * i] = Math.cos(rot) * x - Math.sin(rot) * y;
        xy[2 * i + 1] = Math.sin(rot) * x + Math.cos(rot) * y;
      }
      const hull = convexHull2d(xy);
      let bestArea = Infinity;
      for (let e = 0; e < hull.length; e++) {
        const a = hull[e]!,
          b = hull[(e + 1) % hull.length]!;
        let ux = xy[2 * b]! - xy[2 * a]!,
          uy = xy[2 * b + 1]! - xy[2 * a + 1]!;
        const l = Math.hypot(ux, uy);
        ux /= l;
        uy /= l;
        let u0 = Infinity,
          u1 = -Infinity,
          v0 = Infinity,
          v1 = -Infinity;
        for (let i = 0; i < n; i++) {
          const u = xy[2 * i]! * ux + xy[2 * i + 1]! * uy,
            v = -xy[2 * i]! * uy + xy[2 * i + 1]! * ux;
          u0 = Math.min(u0, u);
          u1 = Math.max(u1, u);
          v0 = Math.min(v0, v);
          v1 = Math.max(v1, v);
        }
        bestArea = Math.min(bestArea, (u1 - u0) * (v1 - v0));
      }
      const r = minAreaRect(xy, hull);
      expect(r.area).toBeCloseTo(bestArea, 10);
      expect(r.length * r.width).toBeCloseTo(r.area, 12);
    }
  });
});

describe("yawBox", () => {
  it("recovers yaw, extents and centre of rotated boxes (yaw in [0, pi/2), extent[0] along yaw)", () => {
    const rng = new Rng("yawbox");
    for (const yawDeg of [0, 10, 33, 45, 60, 89, 100, 170, -25]) {
      const size: [number, number, number] = [0.8, 0.3, 0.5];
      const c: [number, number, number] = [1.5, -2, 0.25];
      const pts = boxSurface(rng, 4000, size, (yawDeg * Math.PI) / 180, c);
      const b = yawBox(pts);
      // the same rectangle seen with yaw in [0, 90): the long side is along yaw when yawDeg mod 180 < 90
      const mod = ((yawDeg % 180) + 180) % 180;
      const expectYaw = ((mod % 90) * Math.PI) / 180;
      const longAlong = mod < 90;
      expect(b.yaw).toBeGreaterThanOrEqual(0);
      expect(b.yaw).toBeLessThan(Math.PI / 2);
      expect(b.yaw).toBeCloseTo(expectYaw, 2);
      expect(b.extent[0]).toBeCloseTo(longAlong ? 0.8 : 0.3, 2);
      expect(b.extent[1]).toBeCloseTo(longAlong ? 0.3 : 0.8, 2);
      expect(b.extent[2]).toBeCloseTo(0.5, 2);
      for (let a = 0; a < 3; a++) expect(b.centre[a]).toBeCloseTo(c[a]!, 2);
      expect(boxVolume(b)).toBeCloseTo(0.8 * 0.3 * 0.5, 2);
    }
  });

  it("is tighter than the axis-aligned box for a rotated object, equal for an aligned one", () => {
    const rng = new Rng("tight");
    const rotated = boxSurface(rng, 3000, [1, 0.4, 0.4], Math.PI / 6, [0, 0, 0.2], 0.002);
    const a = aabb(rotated);
    const b = yawBox(rotated);
    expect(b.extent[0] * b.extent[1]).toBeLessThan(0.6 * (a.max[0] - a.min[0]) * (a.max[1] - a.min[1]));
    const aligned = boxSurface(rng, 3000, [1, 0.4, 0.4], 0, [0, 0, 0.2]);
    const a2 = aabb(aligned),
      b2 = yawBox(aligned);
    expect(b2.extent[0] * b2.extent[1]).toBeCloseTo((a2.max[0] - a2.min[0]) * (a2.max[1] - a2.min[1]), 6);
  });

  it("uses only the subset given by indices; rejects empty and bad subsets", () => {
    const pts = new Float32Array([0, 0, 0, 1, 0, 0, 1, 2, 0, 0, 2, 1, 50, 50, 50]);
    const b = yawBox(pts, [0, 1, 2, 3]);
    expect(b.extent[0] * b.extent[1]).toBeCloseTo(2, 6);
    expect(b.extent[2]).toBe(1);
    expect(aabb(pts, [4]).min).toEqual([50, 50, 50]);
    expect(() => yawBox(pts, [])).toThrow(/empty point set/);
    expect(() => yawBox(pts, [7])).toThrow(/not a point index/);
  });

  it("degenerate clouds: a single point, a vertical line, a flat segment", () => {
    expect(yawBox(new Float32Array([1, 2, 3])).extent).toEqual([0, 0, 0]);
    const pole = yawBox(new Float32Array([1, 1, 0, 1, 1, 2]));
    expect(pole.extent[2]).toBe(2);
    expect(boxVolume(pole)).toBe(0);
    const seg = yawBox(new Float32Array([0, 0, 0, 3, 3, 0]));
    expect(Math.max(seg.extent[0], seg.extent[1])).toBeCloseTo(Math.hypot(3, 3), 6);
    expect(seg.yaw).toBeCloseTo(Math.PI / 4, 12);
  });

  it("describes a rectangle drawn at any angle by its one yaw in [0, pi/2), extent[0] along that yaw", () => {
    // (angle drawn at, side along it, side across it) -> (yaw, extent[0], extent[1])
    for (const [angle, along, across, yaw, e0, e1] of [
      [0.3, 2, 1, 0.3, 2, 1],
      [0.3 + Math.PI / 2, 1, 2, 0.3, 2, 1],
      [0.3 + Math.PI / 2, 2, 1, 0.3, 1, 2],
      [0.3 + Math.PI, 2, 1, 0.3, 2, 1],
      [0.3 - Math.PI / 2, 1, 2, 0.3, 2, 1],
      [0.3 - 3 * Math.PI, 2, 1, 0.3, 2, 1],
    ] as const) {
      const c = Math.cos(angle),
        s = Math.sin(angle);
      const pts: number[] = [];
      for (const [u, v] of [
        [-1, -1],
        [1, -1],
        [1, 1],
        [-1, 1],
      ] as const)
        for (const z of [0, 1]) pts.push(5 + (c * u * along) / 2 - (s * v * across) / 2, -2 + (s * u * along) / 2 + (c * v * across) / 2, z);
      const b = yawBox(new Float32Array(pts));
      expect(b.yaw, `${angle}`).toBeCloseTo(yaw, 6);
      expect(b.extent[0], `${angle}`).toBeCloseTo(e0, 5);
      expect(b.extent[1], `${angle}`).toBeCloseTo(e1, 5);
    }
  });
});

describe("box overlap measures", () => {
  const box = (cx: number, cy: number, cz: number, ex: number, ey: number, ez: number, yaw = 0): YawBox => ({
    centre: [cx, cy, cz],
    extent: [ex, ey, ez],
    yaw,
  });

  /** The intersection volume, as relations and fusion compose it: footprint overlap times z overlap. */
  const inter = (a: YawBox, b: YawBox) => footprintIntersectionArea(a, b) * zOverlap(a, b);

  it("intersections of known configurations", () => {
    const a = box(0, 0, 0.5, 1, 1, 1);
    expect(inter(a, a)).toBeCloseTo(1, 12);
    expect(inter(a, box(3, 0, 0.5, 1, 1, 1))).toBe(0);
    // shifted by half along x
    expect(inter(a, box(0.5, 0, 0.5, 1, 1, 1))).toBeCloseTo(0.5, 12);
    // the same unit square rotated 45 deg about the common centre: intersection is a regular octagon of area 2(sqrt2 - 1)
    const oct = 2 * (Math.SQRT2 - 1);
    expect(footprintIntersectionArea(a, box(0, 0, 0.5, 1, 1, 1, Math.PI / 4))).toBeCloseTo(oct, 12);
    // half the height overlapping
    expect(zOverlap(a, box(0, 0, 1, 1, 1, 1))).toBeCloseTo(0.5, 12);
    expect(inter(a, box(0, 0, 1, 1, 1, 1))).toBeCloseTo(0.5, 12);
    // touching faces: zero volume of intersection
    expect(inter(a, box(1, 0, 0.5, 1, 1, 1))).toBeCloseTo(0, 12);
    // the same box described with yaw + 90 deg and swapped extents
    expect(inter(box(0, 0, 0, 2, 1, 1, 0.2), box(0, 0, 0, 1, 2, 1, 0.2 + Math.PI / 2))).toBeCloseTo(2, 12);
  });

  it("a cup's footprint on a table is the whole cup's, disjoint footprints 0", () => {
    const table = box(0, 0, 0.7, 1.2, 0.8, 0.05, 0.3);
    const cup = box(0.1, 0.05, 0.78, 0.08, 0.08, 0.1, 1.1);
    expect(footprintIntersectionArea(cup, table)).toBeCloseTo(0.08 * 0.08, 12);
    expect(footprintIntersectionArea(table, cup)).toBeCloseTo(0.08 * 0.08, 12);
    expect(footprintIntersectionArea(table, box(5, 5, 0, 1, 1, 1))).toBe(0);
  });

  it("a footprint meets itself in its whole area (its corners go counter-clockwise, as the clipping needs)", () => {
    const b = box(1, 2, 0, 2, 0.5, 1, 0.7);
    expect(footprintIntersectionArea(b, b)).toBeCloseTo(1, 12);
  });
});
