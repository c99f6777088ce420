/**
 * |r̂·n|, the cosine between a pixel's ray and the true surface normal (from central differences of the
 * back-projected true depth; one-sided at borders and next to pixels without depth; 0 where the normal is
 * undefined), as the float32 the warp divides by.
 */
import type { ViewData } from "../../core/bundle/io.js";
import { hypot3 } from "../../core/math/hypot.js";
import { isValid } from "./filters.js";
import { clearFloat32 } from "./clearFloat32.js";

/** Per column and per row of a view: (i − cx) / fx and (j − cy) / fy, the pixel's normalised ray. */
export function rayTables(v: ViewData): { xn: Float64Array; yn: Float64Array } {
  const { width: W, height: H, K } = v;
  const xn = new Float64Array(W),
    yn = new Float64Array(H);
  for (let i = 0; i < W; i++) xn[i] = (i - K.cx) / K.fx;
  for (let j = 0; j < H; j++) yn[j] = (j - K.cy) / K.fy;
  return { xn, yn };
}

/**
 * |r̂·n| at pixel (i, j) = q of true depth g as the float32 the warp reads: the cosine defined as
 * |n·p| / (hypot(n)·hypot(p)) with n the normal from central differences and p the back-projected pixel,
 * rounded to a float32. Plain numbers and no arrays, as this runs once per pixel. It is found from a cheaper
 * quotient, |n·p| / √(|n|²·|p|²), whenever every double within COS32_MARGIN of that quotient rounds to the
 * same float32, which then holds for the defined value too; otherwise from the definition.
 */
export function normalCos32At(g: Float32Array, W: number, H: number, xn: Float64Array, yn: Float64Array, i: number, j: number, q: number): number {
  const t = g[q]!;
  if (!isValid(t)) return 0;
  const il = i > 0 && isValid(g[q - 1]!) ? i - 1 : i,
    ir = i + 1 < W && isValid(g[q + 1]!) ? i + 1 : i;
  const ju = j > 0 && isValid(g[q - W]!) ? j - 1 : j,
    jd = j + 1 < H && isValid(g[q + W]!) ? j + 1 : j;
  if (il === ir || ju === jd) return 0;
  // the back-projected neighbours (x̂·d, ŷ·d, d): a right, b left, c down, e up
  const ga = g[j * W + ir]!,
    gb = g[j * W + il]!,
    gc = g[jd * W + i]!,
    ge = g[ju * W + i]!;
  const y = yn[j]!,
    x = xn[i]!;
  const ux = xn[ir]! * ga - xn[il]! * gb,
    uy = y * ga - y * gb,
    uz = ga - gb;
  const vx = x * gc - x * ge,
    vy = yn[jd]! * gc - yn[ju]! * ge,
    vz = gc - ge;
  const nx = uy * vz - uz * vy,
    ny = uz * vx - ux * vz,
    nz = ux * vy - uy * vx;
  const px = x * t,
    py = y * t;
  const dot = Math.abs(nx * px + ny * py + nz * t);
  const n2 = nx * nx + ny * ny + nz * nz,
    p2 = px * px + py * py + t * t;
  if (n2 > SQUARES_MIN && n2 < SQUARES_MAX && p2 > SQUARES_MIN && p2 < SQUARES_MAX) {
    const f = clearFloat32(dot / Math.sqrt(n2 * p2));
    if (f === f) return f;
  }
  const nn = hypot3(nx, ny, nz),
    pn = hypot3(px, py, t);
  if (nn === 0) return 0;
  return Math.fround(dot / (nn * pn));
}

/** The range where the squares' sums neither underflow nor overflow, and their product neither. */
const SQUARES_MIN = 2 ** -500,
  SQUARES_MAX = 2 ** 500;
