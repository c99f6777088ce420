/**
 * Shared input checks and bounds for `Float32Array` xyz clouds (x, y, z per point, metres, Z up).
 * Every primitive calls these first so bad input fails with one clear message, never deep inside a loop.
 */
import type { Bounds } from "../../core/geometry.js";

export type { Bounds };

/** Number of points in an xyz array; throws if its length is not a multiple of 3. */
export function pointCount(xyz: Float32Array, name = "xyz"): number {
  if (!(xyz instanceof Float32Array)) throw new TypeError(`${name}: expected a Float32Array of x,y,z triples`);
  if (xyz.length % 3 !== 0) throw new RangeError(`${name}: length ${xyz.length} is not a multiple of 3 (x,y,z per point)`);
  return xyz.length / 3;
}

/**
 * Axis-aligned bounds of all points; throws on an empty cloud or a non-finite coordinate (naming the point).
 * One pass with the bounds in locals: every voxel downsampling of a detection starts here, and a finite check
 * followed by boundsOf's generic loop read each detection twice.
 */
export function computeBounds(xyz: Float32Array, name = "xyz"): Bounds {
  const n = pointCount(xyz, name);
  if (n === 0) throw new RangeError(`${name}: empty point cloud`);
  let x0 = Infinity,
    y0 = Infinity,
    z0 = Infinity,
    x1 = -Infinity,
    y1 = -Infinity,
    z1 = -Infinity;
  for (let i = 0, o = 0; i < n; i++, o += 3) {
    const x = xyz[o]!,
      y = xyz[o + 1]!,
      z = xyz[o + 2]!;
    // x - x is NaN for NaN and for +-Infinity: one test catches both.
    if (x - x !== 0 || y - y !== 0 || z - z !== 0) throw new RangeError(`${name}: point ${i} has a non-finite coordinate (${x}, ${y}, ${z})`);
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
    if (z < z0) z0 = z;
    if (z > z1) z1 = z;
  }
  return { min: [x0, y0, z0], max: [x1, y1, z1] };
}

export function checkPositive(value: number, name: string): void {
  if (!(value > 0) || !Number.isFinite(value)) throw new RangeError(`${name} must be a positive finite number, got ${value}`);
}

export function checkPositiveInt(value: number, name: string): void {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
}
