/**
 * Open containers with an interior: the one declaration of a container's walls. A library category with an
 * `interior` spec builds its mesh from it (so the rendered walls are the declared ones) and the interior's
 * size and volume follow from the same numbers (core/objects/containers.ts scales them to a placed object
 * and estimates them from a scene-graph box). Unit scale, metres, Z up, base at z = 0.
 */
import type { Vec3 } from "../math/vec.js";
import { box, openContainer, type PartMesh, type Slot } from "./mesh.js";

/** An open-topped rectangular box: each side wall is `wallFraction` of the outer size along its axis. */
interface BoxInterior {
  shape: "box";
  outer: Vec3;
  /** thickness of each side wall as a fraction of the outer size on that axis (equal fractions in x and y: the interior is outer x (1 - 2 w) on both) */
  wallFraction: number;
  /** thickness of the bottom as a fraction of the outer height */
  bottomFraction: number;
}

/** An open-topped round container (bowl, glass, bucket): a frustum from radius r0 (bottom) to r1 (top), walls and bottom `wall` thick, standing on `base` (a stem or foot below it). */
interface RoundInterior {
  shape: "round";
  r0: number;
  r1: number;
  height: number;
  wall: number;
  /** z of the container's bottom (0, or the height of a stem) */
  base: number;
}

export type InteriorSpec = BoxInterior | RoundInterior;

/** Builds the walls of a container spec into `g` (primary slot unless given). */
export function buildContainer(g: PartMesh, spec: InteriorSpec, slot: Slot = 0): void {
  if (spec.shape === "round") {
    openContainer(g, [0, 0], spec.base, spec.height, spec.r0, spec.r1, spec.wall, slot);
    return;
  }
  const [sx, sy, sz] = spec.outer;
  const wx = spec.wallFraction * sx,
    wy = spec.wallFraction * sy,
    wb = spec.bottomFraction * sz;
  box(g, [0, 0, wb / 2], [sx, sy, wb], slot);
  box(g, [-sx / 2 + wx / 2, 0, sz / 2], [wx, sy, sz], slot);
  box(g, [sx / 2 - wx / 2, 0, sz / 2], [wx, sy, sz], slot);
  box(g, [0, -sy / 2 + wy / 2, sz / 2], [sx - 2 * wx, wy, sz], slot);
  box(g, [0, sy / 2 - wy / 2, sz / 2], [sx - 2 * wx, wy, sz], slot);
}

/** Frustum volume between radii a and b over height h. */
const frustum = (a: number, b: number, h: number) => (Math.PI * h * (a * a + a * b + b * b)) / 3;

/**
 * The interior of a spec at unit scale: its clear size (x, y: the narrowest opening; z: from the inner bottom to
 * the rim) and its volume (m^3).
 */
export function specInterior(spec: InteriorSpec): { extent: Vec3; volume: number } {
  if (spec.shape === "box") {
    const k = 1 - 2 * spec.wallFraction;
    const extent: Vec3 = [spec.outer[0] * k, spec.outer[1] * k, spec.outer[2] * (1 - spec.bottomFraction)];
    return { extent, volume: extent[0] * extent[1] * extent[2] };
  }
  const a = spec.r0 - spec.wall,
    b = spec.r1 - spec.wall,
    h = spec.height - spec.wall;
  const d = 2 * Math.min(a, b);
  return { extent: [d, d, h], volume: frustum(a, b, h) };
}
