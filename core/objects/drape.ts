/**
 * The drape model of a cloth (ESI-Bench's Deformable: a cloth of side <= 50 cm dropped over a small object). ESI
 * simulates the cloth in OmniGibson; esi3d has no soft-body engine, so the cloth's shape is computed, not simulated:
 *
 * 1. The objects under the cloth's square are ray-cast from above on a fine grid (TOP_SAMPLE_M): H(q) is the top
 *    of whatever lies at q (0 on bare floor).
 * 2. The cloth rests on those tops and falls off their edges at DRAPE_SLOPE_DEG down to the floor: its height is
 *    the upper envelope h(p) = max(0, max_q H(q) - tan(slope) * max(0, |p - q| - dilation)), a cone hung from every
 *    top point. `dilation` (one mesh cell's diagonal plus one sample spacing) makes the interpolated mesh lie on or
 *    above every top between its vertices, so no object pokes through.
 * 3. Area is roughly conserved: the mesh's square footprint shrinks until the draped surface's area equals the flat
 *    cloth's side squared (the rest of a real cloth would fold into its skirt; this model keeps the skirt smooth).
 *
 * A cloth covers what it hides when its whole edge lies on the floor (`covers`): the object is then closed in
 * between the cloth and the floor, hidden from every viewpoint above the floor.
 *
 * A cloth held by the engine (`support` undefined) renders folded: a small square of FOLD_LAYERS layers.
 */
import type { Vec3 } from "../math/vec.js";
import type { TaskObject } from "../task/schema.js";
import { objectWorldTriangles, shapeOf } from "./shape.js";

export const CLOTH_CATEGORY = "cloth";
/** ESI-Bench §6.2.6: one cloth asset of side length at most 50 cm. */
export const CLOTH_MAX_SIDE_M = 0.5;
/**
 * Mesh cells per side: 41 gives 1.2 cm cells on a 50 cm cloth, finer than the 5-15 cm objects' features it must
 * show (a mug's handle, a bottle's neck), and 3362 triangles, a tenth of a furnished room's. Odd, so that no grid
 * line runs through the cloth's centre: the task's camera stands on that line (ESI's main view at azimuth -90 deg),
 * and an edge lying in the camera's own vertical plane projects onto one pixel column, which the rasterizer's edge
 * test can leave open on both sides (a one-pixel crack through which the hidden object showed). The cells' diagonals
 * alternate for the same reason (`CELL_SPLIT`), which halves such a crack but does not close it: a camera standing
 * exactly on a cell diagonal through the centre (azimuth 45 deg and its multiples) can still see
 * a dashed one-pixel line; a watertight fill rule in the rasterizer would close it.
 */
const DRAPE_GRID_CELLS = 41;
/**
 * Slope (deg from horizontal) at which the cloth falls off an object's top edge. Ours [assumption]: a light cloth
 * over a small object hangs in a conical skirt, steeper than 45 deg (it slides off shallower slopes) and short of
 * vertical (its bending stiffness keeps it off the object's sides over a few centimetres).
 */
export const DRAPE_SLOPE_DEG = 60;
/** Spacing of the ray-cast samples of the objects' tops (m): half a mesh cell of the largest cloth. Ours. */
const TOP_SAMPLE_M = 0.005;
/** The cloth's thickness (m): its mesh lies this far above the envelope, so it never touches what it covers. Ours: a towel's 3 mm. */
const CLOTH_THICKNESS_M = 0.003;
/** A held cloth is folded in half four times (twice each way): 16 layers, a quarter of its side. Ours. */
const FOLD_LAYERS = 16;
const FOLD_SIDE_FRACTION = 0.25;
/** Bisection steps of the area-conserving footprint: 2^-30 of the side, far below a millimetre. */
const AREA_BISECTION_STEPS = 30;

/** A computed drape: heights of a (n + 1)^2 vertex grid over the square of half-width `half` around `centre`. */
export interface Drape {
  centre: [number, number];
  half: number;
  n: number;
  /** Height of the cloth's underside (envelope) at each vertex, row-major in y then x (m above the floor). */
  heights: Float32Array;
  /** The flat cloth's side (m). */
  side: number;
}

/** The flat cloth's side length: a cloth's record scales the unit square model by its side (scale [side, side, 1]). */
function clothSide(cloth: Pick<TaskObject, "scale">): number {
  return typeof cloth.scale === "number" ? cloth.scale : cloth.scale[0];
}

interface TopSample {
  x: number;
  y: number;
  z: number;
}

/** The tops of the objects' triangles over a grid of TOP_SAMPLE_M in the square (ray-cast from above: the highest hit). */
function topSamples(centre: readonly [number, number], half: number, under: readonly TaskObject[]): TopSample[] {
  const m = Math.ceil((2 * half) / TOP_SAMPLE_M);
  const x0 = centre[0] - half,
    y0 = centre[1] - half;
  const top = new Float32Array((m + 1) * (m + 1));
  for (const obj of under) {
    const t = objectWorldTriangles(shapeOf(obj));
    for (let o = 0; o < t.length; o += 9) {
      const ax = t[o]!,
        ay = t[o + 1]!,
        az = t[o + 2]!,
        bx = t[o + 3]!,
        by = t[o + 4]!,
        bz = t[o + 5]!,
        cx = t[o + 6]!,
        cy = t[o + 7]!,
        cz = t[o + 8]!;
      const det = (by - cy) * (ax - cx) + (cx - bx) * (ay - cy);
      if (Math.abs(det) < 1e-14) continue; // a vertical triangle: its edges are other triangles' edges
      const i0 = Math.max(0, Math.ceil((Math.min(ax, bx, cx) - x0) / TOP_SAMPLE_M)),
        i1 = Math.min(m, Math.floor((Math.max(ax, bx, cx) - x0) / TOP_SAMPLE_M));
      const j0 = Math.max(0, Math.ceil((Math.min(ay, by, cy) - y0) / TOP_SAMPLE_M)),
        j1 = Math.min(m, Math.floor((Math.max(ay, by, cy) - y0) / TOP_SAMPLE_M));
      for (let j = j0; j <= j1; j++)
        for (let i = i0; i <= i1; i++) {
          const px = x0 + i * TOP_SAMPLE_M,
            py = y0 + j * TOP_SAMPLE_M;
          const l1 = ((by - cy) * (px - cx) + (cx - bx) * (py - cy)) / det;
          const l2 = ((cy - ay) * (px - cx) + (ax - cx) * (py - cy)) / det;
          const l3 = 1 - l1 - l2;
          if (l1 < -1e-9 || l2 < -1e-9 || l3 < -1e-9) continue;
          const z = l1 * az + l2 * bz + l3 * cz;
          const k = j * (m + 1) + i;
          if (z > top[k]!) top[k] = z;
        }
    }
  }
  const out: TopSample[] = [];
  for (let j = 0; j <= m; j++)
    for (let i = 0; i <= m; i++) if (top[j * (m + 1) + i]! > 0) out.push({ x: x0 + i * TOP_SAMPLE_M, y: y0 + j * TOP_SAMPLE_M, z: top[j * (m + 1) + i]! });
  return out;
}

/** The envelope's heights on an (n + 1)^2 grid over the square of half-width `half` around `centre`. */
function envelope(samples: readonly TopSample[], centre: readonly [number, number], half: number, n: number, dilation: number): Float32Array {
  const slope = Math.tan((DRAPE_SLOPE_DEG * Math.PI) / 180);
  const h = new Float32Array((n + 1) * (n + 1));
  const cell = (2 * half) / n;
  for (let j = 0; j <= n; j++)
    for (let i = 0; i <= n; i++) {
      const px = centre[0] - half + i * cell,
        py = centre[1] - half + j * cell;
      let best = 0;
      for (const s of samples) {
        if (s.z <= best) continue;
        const z = s.z - slope * Math.max(0, Math.hypot(px - s.x, py - s.y) - dilation);
        if (z > best) best = z;
      }
      h[j * (n + 1) + i] = best;
    }
  return h;
}

/**
 * CELL_SPLIT: cells in even columns are cut along their diagonal a-d (lower-left to upper-right), cells in odd
 * columns along b-c, so that no diagonal runs on from cell to cell along a 45 deg line (see DRAPE_GRID_CELLS).
 */
const splitsAD = (i: number) => i % 2 === 0;

/** Area of a triangle of a cell of side `cell` with corner heights p (right angle), q (along x) and r (along y). */
const rightTriangleArea = (cell: number, p: number, q: number, r: number) => 0.5 * Math.hypot(cell * cell, cell * (q - p), cell * (r - p));

/** Surface area of each cell's two triangles on a height grid (a b / c d: a at (i, j), b at (i + 1, j), c at (i, j + 1)). */
function cellAreas(h: Float32Array, n: number, cell: number): Float32Array {
  const out = new Float32Array(n * n);
  for (let j = 0; j < n; j++)
    for (let i = 0; i < n; i++) {
      const a = h[j * (n + 1) + i]!,
        b = h[j * (n + 1) + i + 1]!,
        c = h[(j + 1) * (n + 1) + i]!,
        d = h[(j + 1) * (n + 1) + i + 1]!;
      // cut a-d: triangles (b; a, d) and (c; d, a) have their right angles at b and c; cut b-c: at a and d
      out[j * n + i] = splitsAD(i)
        ? rightTriangleArea(cell, b, a, d) + rightTriangleArea(cell, c, d, a)
        : rightTriangleArea(cell, a, b, c) + rightTriangleArea(cell, d, c, b);
    }
  return out;
}

/** The objects whose footprint reaches into the square: what the cloth can rest on (never another cloth). */
function objectsUnder(centre: readonly [number, number], half: number, objects: readonly TaskObject[], self: number): TaskObject[] {
  return objects.filter((o) => {
    if (o.id === self || o.category === CLOTH_CATEGORY) return false;
    const r = Math.hypot(o.extent[0], o.extent[1]) / 2;
    return Math.abs(o.position[0] - centre[0]) < half + r && Math.abs(o.position[1] - centre[1]) < half + r;
  });
}

/**
 * The drape of `cloth` (its XY position and flat side) over the other objects under it: the envelope over the
 * square whose draped area equals the flat cloth's.
 */
export function drapeCloth(cloth: Pick<TaskObject, "id" | "position" | "scale">, objects: readonly TaskObject[], n = DRAPE_GRID_CELLS): Drape {
  const side = clothSide(cloth);
  const centre: [number, number] = [cloth.position[0], cloth.position[1]];
  const full = side / 2;
  const samples = topSamples(centre, full, objectsUnder(centre, full, objects, cloth.id));
  const dilation = Math.SQRT2 * ((2 * full) / n + TOP_SAMPLE_M);
  // area of the envelope over a centred square of half-width a, from the full square's grid (cells cut by the square count by their covered share)
  const hFull = envelope(samples, centre, full, n, dilation);
  const cell = (2 * full) / n;
  const areas = cellAreas(hFull, n, cell);
  const areaWithin = (a: number) => {
    let sum = 0;
    const cover = (k: number) => Math.max(0, Math.min(-full + (k + 1) * cell, a) - Math.max(-full + k * cell, -a)) / cell;
    for (let j = 0; j < n; j++) {
      const fy = cover(j);
      if (fy === 0) continue;
      for (let i = 0; i < n; i++) sum += areas[j * n + i]! * fy * cover(i);
    }
    return sum;
  };
  let lo = 0,
    hi = full;
  for (let s = 0; s < AREA_BISECTION_STEPS; s++) {
    const mid = (lo + hi) / 2;
    if (areaWithin(mid) < side * side) lo = mid;
    else hi = mid;
  }
  const half = lo;
  const dil = Math.SQRT2 * ((2 * half) / n + TOP_SAMPLE_M);
  return { centre, half, n, heights: envelope(samples, centre, half, n, dil), side };
}

/** Whether the drape's whole edge lies on the floor: what it covers is closed in between cloth and floor. */
export function covers(d: Drape): boolean {
  const { n, heights } = d;
  for (let k = 0; k <= n; k++) {
    if (heights[k]! > 0 || heights[n * (n + 1) + k]! > 0 || heights[k * (n + 1)]! > 0 || heights[k * (n + 1) + n]! > 0) return false;
  }
  return true;
}

/** The drape's box: its square footprint and its top (m). */
export function drapeBox(d: Drape): { centre: Vec3; extent: Vec3 } {
  const top = Math.max(...d.heights) + CLOTH_THICKNESS_M;
  return { centre: [d.centre[0], d.centre[1], top / 2], extent: [2 * d.half, 2 * d.half, top] };
}

/** The draped cloth's triangles (9 floats each), facing up: the envelope lifted by CLOTH_THICKNESS_M. */
function drapeTriangles(d: Drape): Float32Array {
  const { n, half, centre, heights } = d;
  const cell = (2 * half) / n;
  const out = new Float32Array(n * n * 2 * 9);
  const v = (i: number, j: number): Vec3 => [centre[0] - half + i * cell, centre[1] - half + j * cell, heights[j * (n + 1) + i]! + CLOTH_THICKNESS_M];
  let o = 0;
  const put = (p: Vec3) => {
    out[o++] = p[0];
    out[o++] = p[1];
    out[o++] = p[2];
  };
  for (let j = 0; j < n; j++)
    for (let i = 0; i < n; i++) {
      const a = v(i, j),
        b = v(i + 1, j),
        c = v(i, j + 1),
        e = v(i + 1, j + 1);
      // counter-clockwise from above (normals up), cut as CELL_SPLIT says
      if (splitsAD(i)) {
        put(a), put(b), put(e);
        put(a), put(e), put(c);
      } else {
        put(a), put(b), put(c);
        put(b), put(e), put(c);
      }
    }
  return out;
}

/** The folded cloth's extent: a square of FOLD_SIDE_FRACTION of its side, FOLD_LAYERS thicknesses high. */
function foldedExtent(side: number): Vec3 {
  return [side * FOLD_SIDE_FRACTION, side * FOLD_SIDE_FRACTION, FOLD_LAYERS * CLOTH_THICKNESS_M];
}

/** A held (or folded) cloth's triangles: a flat box of the folded extent centred on the cloth's position. */
function foldedTriangles(cloth: Pick<TaskObject, "position" | "scale">): Float32Array {
  const [ex, ey, ez] = foldedExtent(clothSide(cloth));
  const [px, py, pz] = cloth.position;
  const x0 = px - ex / 2,
    x1 = px + ex / 2,
    y0 = py - ey / 2,
    y1 = py + ey / 2,
    z0 = pz - ez / 2,
    z1 = pz + ez / 2;
  const quads: Array<[Vec3, Vec3, Vec3, Vec3]> = [
    [
      [x0, y0, z0],
      [x0, y1, z0],
      [x1, y1, z0],
      [x1, y0, z0],
    ],
    [
      [x0, y0, z1],
      [x1, y0, z1],
      [x1, y1, z1],
      [x0, y1, z1],
    ],
    [
      [x0, y0, z0],
      [x1, y0, z0],
      [x1, y0, z1],
      [x0, y0, z1],
    ],
    [
      [x0, y1, z0],
      [x0, y1, z1],
      [x1, y1, z1],
      [x1, y1, z0],
    ],
    [
      [x0, y0, z0],
      [x0, y0, z1],
      [x0, y1, z1],
      [x0, y1, z0],
    ],
    [
      [x1, y0, z0],
      [x1, y1, z0],
      [x1, y1, z1],
      [x1, y0, z1],
    ],
  ];
  return Float32Array.from(quads.flatMap(([a, b, c, e]) => [...a, ...b, ...c, ...a, ...c, ...e]));
}

/** A cloth's world triangles: draped over what lies under it when it rests (has a support), folded when held. */
export function clothTriangles(cloth: TaskObject, objects: readonly TaskObject[]): Float32Array {
  if (cloth.support === undefined) return foldedTriangles(cloth);
  return drapeTriangles(drapeCloth(cloth, objects));
}
