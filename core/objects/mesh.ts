/**
 * Triangle meshes built from primitives. A mesh is a triangle soup (9 floats per triangle) with one
 * material slot per triangle; the object library assembles models from these parts.
 * Local frames are Z up, metres. No back-face culling is assumed anywhere, so single surfaces are
 * visible from both sides.
 */
import type { Vec3 } from "../math/vec.js";
import { boundsOf, type Bounds } from "../geometry.js";

/** Material slot of a part: 0 = the instance's primary colour, 1 = secondary, 2 = accent, 3 = glass. */
export type Slot = 0 | 1 | 2 | 3;

export interface PartMesh {
  tris: number[]; // x0 y0 z0 x1 y1 z1 x2 y2 z2 per triangle
  slots: Slot[];
}

export function emptyMesh(): PartMesh {
  return { tris: [], slots: [] };
}

function tri(m: PartMesh, a: Vec3, b: Vec3, c: Vec3, slot: Slot): void {
  m.tris.push(a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2]);
  m.slots.push(slot);
}

function quad(m: PartMesh, a: Vec3, b: Vec3, c: Vec3, d: Vec3, slot: Slot): void {
  tri(m, a, b, c, slot);
  tri(m, a, c, d, slot);
}

/** Axis-aligned box centred at `c` with full sizes `s`. */
export function box(m: PartMesh, c: Vec3, s: Vec3, slot: Slot): void {
  const [x0, y0, z0] = [c[0] - s[0] / 2, c[1] - s[1] / 2, c[2] - s[2] / 2];
  const [x1, y1, z1] = [c[0] + s[0] / 2, c[1] + s[1] / 2, c[2] + s[2] / 2];
  quad(m, [x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0], slot); // bottom
  quad(m, [x0, y0, z1], [x0, y1, z1], [x1, y1, z1], [x1, y0, z1], slot); // top
  quad(m, [x0, y0, z0], [x0, y0, z1], [x1, y0, z1], [x1, y0, z0], slot); // -y
  quad(m, [x0, y1, z0], [x1, y1, z0], [x1, y1, z1], [x0, y1, z1], slot); // +y
  quad(m, [x0, y0, z0], [x0, y1, z0], [x0, y1, z1], [x0, y0, z1], slot); // -x
  quad(m, [x1, y0, z0], [x1, y0, z1], [x1, y1, z1], [x1, y1, z0], slot); // +x
}

export interface RevolveOptions {
  segments?: number;
  capBottom?: boolean;
  capTop?: boolean;
}

/**
 * Surface of revolution about the local Z axis through (cx, cy): `profile` is a list of (radius, z)
 * points from bottom to top. Radius 0 points close the surface to a pole.
 */
export function revolve(m: PartMesh, cx: number, cy: number, profile: Array<[number, number]>, slot: Slot, opts: RevolveOptions = {}): void {
  const n = opts.segments ?? 20;
  const ring = (r: number, z: number, k: number): Vec3 => {
    const a = (2 * Math.PI * k) / n;
    return [cx + r * Math.cos(a), cy + r * Math.sin(a), z];
  };
  for (let p = 0; p + 1 < profile.length; p++) {
    const [r0, z0] = profile[p]!;
    const [r1, z1] = profile[p + 1]!;
    for (let k = 0; k < n; k++) {
      const a = ring(r0, z0, k),
        b = ring(r0, z0, k + 1),
        c = ring(r1, z1, k + 1),
        d = ring(r1, z1, k);
      if (r0 > 0) tri(m, a, b, c, slot);
      if (r1 > 0) tri(m, a, c, d, slot);
    }
  }
  const capRing = (r: number, z: number) => {
    if (r <= 0) return;
    const centre: Vec3 = [cx, cy, z];
    for (let k = 0; k < n; k++) tri(m, centre, ring(r, z, k), ring(r, z, k + 1), slot);
  };
  if (opts.capBottom) capRing(profile[0]![0], profile[0]![1]);
  if (opts.capTop) capRing(profile[profile.length - 1]![0], profile[profile.length - 1]![1]);
}

/** Closed cylinder (or frustum when r0 != r1) standing on z0. */
export function cylinder(m: PartMesh, c: [number, number], z0: number, h: number, r0: number, r1: number, slot: Slot, segments = 20): void {
  revolve(
    m,
    c[0],
    c[1],
    [
      [r0, z0],
      [r1, z0 + h],
    ],
    slot,
    { segments, capBottom: true, capTop: true },
  );
}

/** Ellipsoid with semi-axes (rx, ry, rz) centred at c. */
export function ellipsoid(m: PartMesh, c: Vec3, r: Vec3, slot: Slot, rings = 10, segments = 18): void {
  for (let i = 0; i < rings; i++) {
    const t0 = Math.PI * (i / rings) - Math.PI / 2,
      t1 = Math.PI * ((i + 1) / rings) - Math.PI / 2;
    for (let k = 0; k < segments; k++) {
      const p0 = (2 * Math.PI * k) / segments,
        p1 = (2 * Math.PI * (k + 1)) / segments;
      const v = (t: number, p: number): Vec3 => [c[0] + r[0] * Math.cos(t) * Math.cos(p), c[1] + r[1] * Math.cos(t) * Math.sin(p), c[2] + r[2] * Math.sin(t)];
      const a = v(t0, p0),
        b = v(t0, p1),
        d = v(t1, p0),
        e = v(t1, p1);
      if (i > 0) tri(m, a, b, e, slot);
      if (i < rings - 1) tri(m, a, e, d, slot);
    }
  }
}

/**
 * Open-topped container with walls of thickness `wall` (a glass, jar, bowl, box): outer and inner
 * surfaces of a frustum from radius r0 (bottom) to r1 (top), a solid bottom of thickness `wall`, and a rim.
 */
/** Segments of a round open container's walls (its mesh, and the wall pieces it collides as in the physics world). */
export const CONTAINER_SEGMENTS = 24;

export function openContainer(
  m: PartMesh,
  c: [number, number],
  z0: number,
  h: number,
  r0: number,
  r1: number,
  wall: number,
  slot: Slot,
  segments = CONTAINER_SEGMENTS,
): void {
  revolve(
    m,
    c[0],
    c[1],
    [
      [r0, z0],
      [r1, z0 + h],
    ],
    slot,
    { segments, capBottom: true },
  );
  revolve(
    m,
    c[0],
    c[1],
    [
      [r0 - wall, z0 + wall],
      [r1 - wall, z0 + h],
    ],
    slot,
    { segments, capBottom: true },
  );
  // rim: annulus between inner and outer top radii
  const n = segments;
  for (let k = 0; k < n; k++) {
    const a0 = (2 * Math.PI * k) / n,
      a1 = (2 * Math.PI * (k + 1)) / n;
    const p = (r: number, a: number): Vec3 => [c[0] + r * Math.cos(a), c[1] + r * Math.sin(a), z0 + h];
    quad(m, p(r1, a0), p(r1, a1), p(r1 - wall, a1), p(r1 - wall, a0), slot);
  }
}

/** Open-topped rectangular box container (outer size s, walls `wall`) centred on (c.x, c.y), base at z0. */
export function openBox(m: PartMesh, c: [number, number], z0: number, s: Vec3, wall: number, slot: Slot): void {
  const [sx, sy, sz] = s;
  box(m, [c[0], c[1], z0 + wall / 2], [sx, sy, wall], slot);
  box(m, [c[0] - sx / 2 + wall / 2, c[1], z0 + sz / 2], [wall, sy, sz], slot);
  box(m, [c[0] + sx / 2 - wall / 2, c[1], z0 + sz / 2], [wall, sy, sz], slot);
  box(m, [c[0], c[1] - sy / 2 + wall / 2, z0 + sz / 2], [sx - 2 * wall, wall, sz], slot);
  box(m, [c[0], c[1] + sy / 2 - wall / 2, z0 + sz / 2], [sx - 2 * wall, wall, sz], slot);
}

/** Half-torus handle in the XZ plane, attached at x = cx, spanning z in [zc - R, zc + R], bulging to +x. */
export function handle(m: PartMesh, cx: number, zc: number, R: number, r: number, slot: Slot, segments = 10, sides = 8): void {
  for (let i = 0; i < segments; i++) {
    const u0 = -Math.PI / 2 + (Math.PI * i) / segments,
      u1 = -Math.PI / 2 + (Math.PI * (i + 1)) / segments;
    for (let k = 0; k < sides; k++) {
      const v0 = (2 * Math.PI * k) / sides,
        v1 = (2 * Math.PI * (k + 1)) / sides;
      const p = (u: number, v: number): Vec3 => {
        const rr = R + r * Math.cos(v);
        return [cx + rr * Math.cos(u), r * Math.sin(v), zc + rr * Math.sin(u)];
      };
      quad(m, p(u0, v0), p(u1, v0), p(u1, v1), p(u0, v1), slot);
    }
  }
}

export const meshBounds = (tris: ArrayLike<number>): Bounds => boundsOf(tris);
