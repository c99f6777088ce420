/**
 * A software z-buffer rasterizer on the CPU. For each view it produces RGB (Lambert shading with
 * ambient, sun and point lights, glass blended over what is behind it), metric z-depth (float32) and an
 * instance-id image.
 *
 * Conventions (core/math/camera.ts): pixel (i, j) is sampled at its centre, image coordinates (i, j);
 * depth is the camera-axis z of the first surface hit, glass included (as a rasterised depth buffer
 * gives it); pixels that see nothing (no ceiling, open sky) have depth 0 and id 0.
 * Depth is interpolated as 1/z, which is exact for planar triangles under perspective.
 *
 * Mirrors (core/objects/mirror.ts) are drawn exactly, one bounce: a pixel whose first opaque surface is a
 * mirror's reflective face, seen from its reflecting side, shows the scene rendered again from the camera's
 * mirror image (extrinsic E·M, M the reflection about the mirror's plane), where only what lies beyond the
 * mirror's depth at that pixel counts: exactly the half-space in front of the mirror, seen through its
 * rectangle. Depth and ids keep the mirror's surface; the reflected ids and depth (the mirror image's z-depth,
 * i.e. the reflected path) come beside them. A mirror seen in another mirror shows its own surface.
 */
import type { Mat34 } from "../../core/math/vec.js";
import type { Intrinsics } from "../../core/math/camera.js";
import { hypot3 } from "../../core/math/hypot.js";
import { FLOOR_TILE_M, type RenderScene } from "./scene.js";
import { FLOOR_ID } from "../../core/task/instanceIds.js";
import { colorRgb } from "../../core/task/palette.js";
import { runOutsideView, triangleRuns, type CullView } from "./cull.js";
import { toByte } from "./toByte.js";
import { reflectedExtrinsic } from "../../core/objects/mirror.js";
import { cameraCentre } from "../../core/math/camera.js";

/** Near clipping plane (m): closer geometry is cut away. */
const NEAR_PLANE_M = 0.05;
/** Fraction of light one glass surface lets through; the rest is the glass tint (a glass wall has two surfaces, a glass four along a ray through it). */
const GLASS_TRANSMITTANCE = 0.9;
/** Colour of pixels that see nothing (the open ceiling). */
const SKY_RGB: [number, number, number] = [30, 32, 40];
/**
 * Fraction of light a mirror returns: a silvered glass mirror reflects about 90 % of visible light (silver's
 * ~95 % behind a glass surface that loses ~4 % each way), the reflected image a little darker than the scene.
 */
const MIRROR_REFLECTANCE = 0.9;

export interface RenderCamera {
  width: number;
  height: number;
  K: Intrinsics;
  E: Mat34;
}

export interface RenderOptions {
  /** Skip the RGB output (visibility checks need ids only). */
  rgb?: boolean;
  /** Render only triangles of these instance ids (visibility of an object with nothing in front of it). */
  onlyIds?: ReadonlySet<number>;
  /** Test every pixel for the side of its triangle it sees (the reference that sideCodes must equal; tests). */
  sidesPerPixel?: boolean;
  /** false: rasterise every object, none culled (the reference that culling must equal; tests). */
  cull?: boolean;
}

export interface RenderOutput {
  width: number;
  height: number;
  rgb: Uint8Array | null;
  depth: Float32Array;
  ids: Uint16Array;
  /** Scenes with mirrors: the id each mirror pixel's reflected ray hits first (0 elsewhere, and where it sees nothing). */
  reflectedIds?: Uint16Array;
  /** Scenes with mirrors: the z-depth of that point's mirror image, the reflected path along the pixel's ray (0 where reflectedIds is 0). */
  reflectedDepth?: Float32Array;
}

/** Scratch buffers reused across views of the same size (a 30-view bundle allocates them once). */
interface Scratch {
  n: number;
  zOpaque: Float32Array;
  triOpaque: Int32Array;
  zGlass: Float32Array;
  triGlass: Int32Array;
  glassLayers: Uint8Array;
  /** A reflection pass's nearest accepted depth per pixel (ReflectionBound). */
  zMin: Float32Array;
}
let scratch: Scratch | null = null;
function getScratch(n: number): Scratch {
  if (!scratch || scratch.n !== n) {
    scratch = {
      n,
      zOpaque: new Float32Array(n),
      triOpaque: new Int32Array(n),
      zGlass: new Float32Array(n),
      triGlass: new Int32Array(n),
      glassLayers: new Uint8Array(n),
      zMin: new Float32Array(n),
    };
  }
  return scratch;
}

export function render(scene: RenderScene, cam: RenderCamera, opts: RenderOptions = {}): RenderOutput {
  const { out, mirrorPixels } = rasterise(scene, cam, opts, null);
  if (mirrorPixels) reflectMirrors(scene, cam, opts, out, mirrorPixels);
  return out;
}

/** An inclusive rectangle of pixels. */
interface PixelRect {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/**
 * What a reflection pass draws: only fragments farther than zMin[p] (the mirror's depth at its pixels,
 * +Infinity at every other pixel), inside `box`, and nothing of the mirror `skipId` itself.
 */
interface ReflectionBound {
  zMin: Float32Array;
  box: PixelRect;
  skipId: number;
}

/** The pixels of a view that show a mirror from its reflecting side, with what the reflection needs of each. */
interface MirrorPixels {
  /** Pixel index, and the index in scene.mirrors of the mirror it shows. */
  pixel: Int32Array;
  mirror: Uint8Array;
  /** The mirror's depth at the pixel (its first opaque surface). */
  z: Float32Array;
  /** Glass surfaces in front of it (blended over the reflection as over any surface). */
  layers: Uint8Array;
}

/** One pass of the rasterizer; the primary pass (bound null) of a scene with mirrors also finds the mirror pixels. */
function rasterise(
  scene: RenderScene,
  cam: RenderCamera,
  opts: RenderOptions,
  bound: ReflectionBound | null,
): { out: RenderOutput; mirrorPixels: MirrorPixels | null } {
  const W = cam.width,
    H = cam.height,
    N = W * H;
  const { fx, fy, cx, cy } = cam.K;
  const E = cam.E;
  const s = getScratch(N);
  const zO = s.zOpaque.fill(Infinity),
    tO = s.triOpaque.fill(-1);
  // the glass buffers are cleared and read only when the scene has glass (3 of 57 built-in scenes)
  const glassScene = scene.triGlass.includes(1);
  const zG = glassScene ? s.zGlass.fill(Infinity) : s.zGlass,
    tG = glassScene ? s.triGlass.fill(-1) : s.triGlass,
    layers = glassScene ? s.glassLayers.fill(0) : s.glassLayers;
  const box = bound?.box ?? { x0: 0, x1: W - 1, y0: 0, y1: H - 1 };
  const buf: RasterBuffers = { W, H, ...box, zO, tO, zG, tG, layers, glass: glassScene, zMin: bound?.zMin ?? null };

  const only = opts.onlyIds;
  const polygon = clipPolygon();

  // whole objects off the image or behind the camera are skipped (cull.ts: the same image)
  const runs = triangleRuns(scene);
  const visible = new Uint8Array(runs.count);
  const view: CullView = { E, fx, fy, cx, cy, W, H, near: NEAR_PLANE_M };
  for (let r = 0; r < runs.count; r++) {
    const id = scene.triId[runs.start[r]!]!;
    visible[r] = (only === undefined || only.has(id)) && id !== bound?.skipId && !(opts.cull !== false && runOutsideView(runs, r, view)) ? 1 : 0;
  }
  for (let pass = 0; pass < (glassScene ? 2 : 1); pass++) {
    const glass = pass === 1;
    for (let r = 0; r < runs.count; r++) {
      if (visible[r]) rasterRun(scene, buf, runs.start[r]!, runs.end[r]!, glass, view, polygon);
    }
  }

  const depth = new Float32Array(N);
  const ids = new Uint16Array(N);
  let rgb: Uint8Array | null = null;
  if (opts.rgb === false)
    for (let j = box.y0; j <= box.y1; j++) for (let p = j * W + box.x0; p <= j * W + box.x1; p++) resolvePixel(buf, scene.triId, p, depth, ids);
  else rgb = shade(scene, cam, buf, depth, ids, opts.sidesPerPixel === true);
  const mirrorPixels = bound === null && scene.triMirror ? findMirrorPixels(scene, E, buf) : null;
  return { out: { width: W, height: H, rgb, depth, ids }, mirrorPixels };
}

/** The pixels whose first opaque surface is a mirror's reflective face, seen from the side it reflects. */
function findMirrorPixels(scene: RenderScene, E: Mat34, buf: RasterBuffers): MirrorPixels {
  const triMirror = scene.triMirror!;
  const C = cameraCentre(E);
  // a mirror seen from behind (its slab's back, or its face edge-on) reflects nothing
  const inFront = scene.mirrors.map(({ plane: { centre: q, normal: n } }) => (C[0] - q[0]) * n[0] + (C[1] - q[1]) * n[1] + (C[2] - q[2]) * n[2] > 0);
  const pixels: number[] = [];
  for (let p = 0; p < buf.tO.length; p++) {
    const t = buf.tO[p]!;
    if (t >= 0 && triMirror[t]! > 0 && inFront[triMirror[t]! - 1]) pixels.push(p);
  }
  const pixel = Int32Array.from(pixels);
  const mirror = new Uint8Array(pixel.length),
    z = new Float32Array(pixel.length),
    layers = new Uint8Array(pixel.length);
  for (let k = 0; k < pixel.length; k++) {
    const p = pixel[k]!;
    mirror[k] = triMirror[buf.tO[p]!]! - 1;
    z[k] = buf.zO[p]!;
    layers[k] = buf.glass && buf.tG[p]! >= 0 ? buf.layers[p]! : 0;
  }
  return { pixel, mirror, z, layers };
}

/**
 * Fills the mirror pixels of `out` with what each mirror reflects: per mirror seen, a pass from the camera's
 * mirror image bounded to that mirror's pixels and to the half-space in front of it (ReflectionBound). The RGB
 * of a mirror pixel becomes the reflected colour times MIRROR_REFLECTANCE, any glass in front blended over it.
 */
function reflectMirrors(scene: RenderScene, cam: RenderCamera, opts: RenderOptions, out: RenderOutput, mp: MirrorPixels): void {
  const W = cam.width,
    N = W * cam.height;
  const reflectedIds = new Uint16Array(N),
    reflectedDepth = new Float32Array(N);
  out.reflectedIds = reflectedIds;
  out.reflectedDepth = reflectedDepth;
  const transmit = glassTransmittance();
  const glassRgb = colorRgb("glass");
  scene.mirrors.forEach((m, k) => {
    const zMin = getScratch(N).zMin.fill(Infinity);
    const box: PixelRect = { x0: W, x1: -1, y0: cam.height, y1: -1 };
    for (let i = 0; i < mp.pixel.length; i++) {
      if (mp.mirror[i] !== k) continue;
      const p = mp.pixel[i]!,
        x = p % W,
        y = (p - x) / W;
      zMin[p] = mp.z[i]!;
      box.x0 = Math.min(box.x0, x);
      box.x1 = Math.max(box.x1, x);
      box.y0 = Math.min(box.y0, y);
      box.y1 = Math.max(box.y1, y);
    }
    if (box.x1 < 0) return;
    const seen = rasterise(scene, { ...cam, E: reflectedExtrinsic(cam.E, m.reflection) }, opts, { zMin, box, skipId: m.plane.id }).out;
    for (let i = 0; i < mp.pixel.length; i++) {
      if (mp.mirror[i] !== k) continue;
      const p = mp.pixel[i]!;
      reflectedIds[p] = seen.ids[p]!;
      reflectedDepth[p] = seen.depth[p]!;
      if (!out.rgb) continue;
      const tr = transmit[mp.layers[i]!]!;
      for (let c = 0; c < 3; c++) out.rgb[p * 3 + c] = toByte(seen.rgb![p * 3 + c]! * MIRROR_REFLECTANCE * tr + glassRgb[c]! * (1 - tr));
    }
  });
}

/** A triangle's camera-space vertices, and the camera-space and projected vertices of its (up to 4) clipped polygon. */
interface ClipPolygon {
  inX: Float64Array;
  inY: Float64Array;
  inZ: Float64Array;
  cxs: Float64Array;
  cys: Float64Array;
  czs: Float64Array;
  px: Float64Array;
  py: Float64Array;
  piz: Float64Array;
}

function clipPolygon(): ClipPolygon {
  const v = () => new Float64Array(4);
  return { inX: v(), inY: v(), inZ: v(), cxs: v(), cys: v(), czs: v(), px: v(), py: v(), piz: v() };
}

/**
 * Transforms, near-clips, projects and scan-converts triangles [from, to) of one run (one instance) into the
 * opaque or the glass buffers, the triangles of the other kind skipped; `polygon` is the caller's scratch.
 */
function rasterRun(scene: RenderScene, buf: RasterBuffers, from: number, to: number, glass: boolean, view: CullView, polygon: ClipPolygon): void {
  const { inX, inY, inZ, cxs, cys, czs, px, py, piz } = polygon;
  const tris = scene.tris,
    triGlass = scene.triGlass;
  const { E, fx, fy, cx, cy } = view;
  const e00 = E[0][0],
    e01 = E[0][1],
    e02 = E[0][2],
    e03 = E[0][3];
  const e10 = E[1][0],
    e11 = E[1][1],
    e12 = E[1][2],
    e13 = E[1][3];
  const e20 = E[2][0],
    e21 = E[2][1],
    e22 = E[2][2],
    e23 = E[2][3];
  for (let t = from; t < to; t++) {
    if ((triGlass[t] === 1) !== glass) continue;
    const o = t * 9;
    let nIn = 0;
    for (let k = 0; k < 3; k++) {
      const wx = tris[o + 3 * k]!,
        wy = tris[o + 3 * k + 1]!,
        wz = tris[o + 3 * k + 2]!;
      inX[k] = e00 * wx + e01 * wy + e02 * wz + e03;
      inY[k] = e10 * wx + e11 * wy + e12 * wz + e13;
      inZ[k] = e20 * wx + e21 * wy + e22 * wz + e23;
      if (inZ[k]! >= NEAR_PLANE_M) nIn++;
    }
    if (nIn === 0) continue;
    // Clip the triangle against the near plane (Sutherland-Hodgman, one plane).
    let n = 0;
    for (let k = 0; k < 3; k++) {
      const j = k === 2 ? 0 : k + 1;
      const zk = inZ[k]!,
        zj = inZ[j]!;
      const kIn = zk >= NEAR_PLANE_M,
        jIn = zj >= NEAR_PLANE_M;
      if (kIn) {
        cxs[n] = inX[k]!;
        cys[n] = inY[k]!;
        czs[n] = zk;
        n++;
      }
      if (kIn !== jIn) {
        const f = (NEAR_PLANE_M - zk) / (zj - zk);
        cxs[n] = inX[k]! + f * (inX[j]! - inX[k]!);
        cys[n] = inY[k]! + f * (inY[j]! - inY[k]!);
        czs[n] = NEAR_PLANE_M;
        n++;
      }
    }
    for (let k = 0; k < n; k++) {
      const iz = 1 / czs[k]!;
      px[k] = fx * cxs[k]! * iz + cx;
      py[k] = fy * cys[k]! * iz + cy;
      piz[k] = iz;
    }
    rasterTriangle(buf, px[0]!, py[0]!, piz[0]!, px[1]!, py[1]!, piz[1]!, px[2]!, py[2]!, piz[2]!, t, glass);
    if (n === 4) rasterTriangle(buf, px[0]!, py[0]!, piz[0]!, px[2]!, py[2]!, piz[2]!, px[3]!, py[3]!, piz[3]!, t, glass);
  }
}

/** Depth and id of pixel `p`: the nearest glass surface where there is one, else the opaque surface. */
function resolvePixel(buf: RasterBuffers, triId: Uint16Array, p: number, depth: Float32Array, ids: Uint16Array): void {
  const g = buf.glass ? buf.tG[p]! : -1;
  if (g >= 0) {
    depth[p] = buf.zG[p]!;
    ids[p] = triId[g]!;
  } else {
    const t = buf.tO[p]!;
    if (t >= 0) {
      depth[p] = buf.zO[p]!;
      ids[p] = triId[t]!;
    }
  }
}

/** The per-pixel buffers one view's triangles are rasterised into. */
interface RasterBuffers {
  W: number;
  H: number;
  /** The pixels drawn: the whole image, or a reflection pass's box. */
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  zO: Float32Array;
  tO: Int32Array;
  zG: Float32Array;
  tG: Int32Array;
  layers: Uint8Array;
  /** Whether the scene has glass: without it zG, tG and layers hold another view's values and are not read. */
  glass: boolean;
  /** A reflection pass's bound (ReflectionBound.zMin): a fragment counts only beyond it; null for a camera's own pass. */
  zMin: Float32Array | null;
}

/**
 * Scan-converts one projected triangle into the opaque or the glass buffers. A pixel centre is inside
 * when its three edge functions are >= 0; each row's edge values start at the bounding box's left column
 * and step by one addition per pixel, so every pixel sees exactly the floating-point values (and hence
 * the coverage and depth) of a whole-box scan. The walk stops at the end of the row's span: an edge
 * value steps by a constant of one sign, and rounded addition is monotonic, so each edge's inside set
 * along a row is a prefix or a suffix and their intersection is one run of pixels.
 */
function rasterTriangle(
  buf: RasterBuffers,
  x0: number,
  y0: number,
  iz0: number,
  x1: number,
  y1: number,
  iz1: number,
  x2: number,
  y2: number,
  iz2: number,
  tri: number,
  glass: boolean,
): void {
  const W = buf.W;
  let area = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0);
  if (!(Math.abs(area) > 1e-12)) return;
  if (area < 0) {
    // Make the winding consistent; there is no back-face culling.
    let tmp = x1;
    x1 = x2;
    x2 = tmp;
    tmp = y1;
    y1 = y2;
    y2 = tmp;
    tmp = iz1;
    iz1 = iz2;
    iz2 = tmp;
    area = -area;
  }
  const minX = Math.max(buf.x0, Math.ceil(Math.min(x0, x1, x2)));
  const maxX = Math.min(buf.x1, Math.floor(Math.max(x0, x1, x2)));
  const minY = Math.max(buf.y0, Math.ceil(Math.min(y0, y1, y2)));
  const maxY = Math.min(buf.y1, Math.floor(Math.max(y0, y1, y2)));
  if (minX > maxX || minY > maxY) return;
  const inv = 1 / area;
  // Edge functions e_k(x, y) = A_k x + B_k y + C_k, positive inside.
  const A0 = y1 - y2,
    B0 = x2 - x1,
    C0 = x1 * y2 - x2 * y1; // edge 1->2, weight of vertex 0
  const A1 = y2 - y0,
    B1 = x0 - x2,
    C1 = x2 * y0 - x0 * y2; // edge 2->0, weight of vertex 1
  const A2 = y0 - y1,
    B2 = x1 - x0,
    C2 = x0 * y1 - x1 * y0; // edge 0->1, weight of vertex 2
  const zO = buf.zO;
  const base0 = A0 * minX,
    base1 = A1 * minX,
    base2 = A2 * minX;
  for (let y = minY; y <= maxY; y++) {
    let w0 = base0 + B0 * y + C0;
    let w1 = base1 + B1 * y + C1;
    let w2 = base2 + B2 * y + C2;
    let x = minX;
    // to the span's first pixel (a NaN edge value counts as inside, as in the test below)
    while (x <= maxX && (w0 < 0 || w1 < 0 || w2 < 0)) {
      x++;
      w0 += A0;
      w1 += A1;
      w2 += A2;
    }
    const idx0 = y * W + x;
    if (buf.zMin) {
      boundedSpan(buf, buf.zMin, glass, tri, x, maxX, idx0, w0, w1, w2, A0, A1, A2, iz0, iz1, iz2, inv);
      continue;
    }
    let idx = idx0;
    if (!glass) {
      const tO = buf.tO;
      for (; x <= maxX; x++, idx++, w0 += A0, w1 += A1, w2 += A2) {
        if (w0 < 0 || w1 < 0 || w2 < 0) break;
        const iz = (w0 * iz0 + w1 * iz1 + w2 * iz2) * inv;
        if (iz <= 0) continue;
        const z = 1 / iz;
        if (z < zO[idx]!) {
          zO[idx] = z;
          tO[idx] = tri;
        }
      }
    } else {
      const zG = buf.zG,
        tG = buf.tG,
        layers = buf.layers;
      for (; x <= maxX; x++, idx++, w0 += A0, w1 += A1, w2 += A2) {
        if (w0 < 0 || w1 < 0 || w2 < 0) break;
        const iz = (w0 * iz0 + w1 * iz1 + w2 * iz2) * inv;
        if (iz <= 0) continue;
        const z = 1 / iz;
        if (z < zO[idx]!) {
          if (layers[idx]! < 255) layers[idx]!++;
          if (z < zG[idx]!) {
            zG[idx] = z;
            tG[idx] = tri;
          }
        }
      }
    }
  }
}

/**
 * One row's span of a reflection pass, from pixel x (index idx) with edge values w0..w2: rasterTriangle's opaque
 * or glass loop, keeping only fragments beyond zMin (in front of the mirror, through its rectangle). A loop of
 * its own so that a camera's own pass runs the loops above unchanged.
 */
function boundedSpan(
  buf: RasterBuffers,
  zMin: Float32Array,
  glass: boolean,
  tri: number,
  x: number,
  maxX: number,
  idx: number,
  w0: number,
  w1: number,
  w2: number,
  A0: number,
  A1: number,
  A2: number,
  iz0: number,
  iz1: number,
  iz2: number,
  inv: number,
): void {
  const { zO, tO, zG, tG, layers } = buf;
  for (; x <= maxX; x++, idx++, w0 += A0, w1 += A1, w2 += A2) {
    if (w0 < 0 || w1 < 0 || w2 < 0) break;
    const iz = (w0 * iz0 + w1 * iz1 + w2 * iz2) * inv;
    if (iz <= 0) continue;
    const z = 1 / iz;
    if (!(z > zMin[idx]! && z < zO[idx]!)) continue;
    if (!glass) {
      zO[idx] = z;
      tO[idx] = tri;
    } else {
      if (layers[idx]! < 255) layers[idx]!++;
      if (z < zG[idx]!) {
        zG[idx] = z;
        tG[idx] = tri;
      }
    }
  }
}

/**
 * Floor checker tiles per metre. FLOOR_TILE_M is a power of two, so x · TILES_PER_M is exactly x / FLOOR_TILE_M
 * (both the correctly rounded x · 2^k), and a multiplication costs a fraction of a division on every floor
 * pixel (the division was the shading's hottest line). test/bridge/sim/renderer.test.ts holds it to a power of two.
 * A tile's checker colour is the parity of its two indices' sum, taken as the low bit of their XOR: the same
 * bit for any indices below 2^52 (each is converted to a 32-bit integer exactly modulo 2^32, which keeps its
 * parity), and twice as fast as converting their sum (0.71 against 1.37 ns per pixel).
 */
const TILES_PER_M = 1 / FLOOR_TILE_M;

/** Albedo factor of the floor's darker checker tiles. */
const FLOOR_DARK_TILE = 0.86;

/**
 * Without point lights a pixel's colour depends only on its triangle, the side it sees and (on the floor)
 * its checker tile: 4 RGB entries per triangle (front/back x light/dark tile), computed with the per-pixel
 * arithmetic of shade, so the same bits.
 */
function surfaceColours(scene: RenderScene, ambient: number, sunI: number, sdx: number, sdy: number, sdz: number): Float64Array {
  const { normals, triRgb } = scene;
  const nTri = scene.triId.length;
  const out = new Float64Array(nTri * 12);
  for (let t = 0; t < nTri; t++) {
    for (let side = 0; side < 2; side++) {
      let nx = normals[t * 3]!,
        ny = normals[t * 3 + 1]!,
        nz = normals[t * 3 + 2]!;
      if (side === 1) {
        nx = -nx;
        ny = -ny;
        nz = -nz;
      }
      const light = ambient + sunI * Math.max(0, nx * sdx + ny * sdy + nz * sdz);
      for (let dark = 0; dark < 2; dark++) {
        let ar = triRgb[t * 3]!,
          ag = triRgb[t * 3 + 1]!,
          ab = triRgb[t * 3 + 2]!;
        if (dark === 1) {
          ar *= FLOOR_DARK_TILE;
          ag *= FLOOR_DARK_TILE;
          ab *= FLOOR_DARK_TILE;
        }
        const k = (t * 4 + side * 2 + dark) * 3;
        out[k] = ar * light;
        out[k + 1] = ag * light;
        out[k + 2] = ab * light;
      }
    }
  }
  return out;
}

/** The light that n glass surfaces let through, for n = 0..255 (a pixel's glass layer count). */
function glassTransmittance(): Float64Array {
  const transmit = new Float64Array(256);
  for (let n = 0; n < 256; n++) transmit[n] = GLASS_TRANSMITTANCE ** n;
  return transmit;
}

/** sideCodes bits: the camera sees the triangle's front (its normal's side away from the camera)... */
const SIDE_FACING = 1;
/** ...the side is to be found per pixel (the camera is close to the triangle's plane)... */
const SIDE_PER_PIXEL = 2;
/** ...the triangle is floor (its checker tile is found per pixel). */
const SIDE_FLOOR = 4;
/**
 * How far (m) the camera must be from a triangle's plane, per metre of the triangle's size, for the side it
 * sees to be the same at every pixel. The per-pixel test, n·d > 0 with d the pixel's ray (camera z = 1),
 * has n·d = (n·(V0 − C) + n·(X − V0)) / z for the ray's hit X: the first term is the camera's signed distance
 * to the plane through vertex V0, the second is below 1e-6 of |X − V0| (the float32 normal is perpendicular
 * to the triangle within ~2e-7), and the double rounding of n·d is below 1e-15 of |d|. So when the distance
 * exceeds FACING_MARGIN_PER_M · (the triangle's size + 1 m of slack for pixel centres just off its edges)
 * and the triangle is nearer than FACING_MAX_DEPTH_M, every pixel's test gives the distance's sign.
 */
const FACING_MARGIN_PER_M = 1e-5;
const FACING_MAX_DEPTH_M = 1e4;

/**
 * Per triangle (no point lights): which side the camera sees when that is the same at every pixel, else
 * SIDE_PER_PIXEL; and SIDE_FLOOR for the floor. The bits give the per-pixel test's answer exactly
 * (FACING_MARGIN_PER_M), so the image is the same as testing every pixel.
 */
function sideCodes(scene: RenderScene, Cx: number, Cy: number, Cz: number, E: Mat34, perPixel: boolean): Uint8Array {
  const { tris, normals, triId } = scene;
  const nTri = triId.length;
  const out = new Uint8Array(nTri);
  const e20 = E[2][0],
    e21 = E[2][1],
    e22 = E[2][2],
    e23 = E[2][3];
  for (let t = 0; t < nTri; t++) {
    const o = t * 9;
    const x0 = tris[o]!,
      y0 = tris[o + 1]!,
      z0 = tris[o + 2]!;
    let size = 0,
      depth = 0;
    for (let k = 0; k < 3; k++) {
      const x = tris[o + 3 * k]!,
        y = tris[o + 3 * k + 1]!,
        z = tris[o + 3 * k + 2]!;
      size = Math.max(size, Math.abs(x - x0) + Math.abs(y - y0) + Math.abs(z - z0));
      depth = Math.max(depth, Math.abs(e20 * x + e21 * y + e22 * z + e23));
    }
    const s = normals[t * 3]! * (x0 - Cx) + normals[t * 3 + 1]! * (y0 - Cy) + normals[t * 3 + 2]! * (z0 - Cz);
    let code = !perPixel && Math.abs(s) > FACING_MARGIN_PER_M * (size + 1) && depth < FACING_MAX_DEPTH_M ? (s > 0 ? SIDE_FACING : 0) : SIDE_PER_PIXEL;
    if (triId[t] === FLOOR_ID) code |= SIDE_FLOOR;
    out[t] = code;
  }
  return out;
}

/**
 * Deferred Lambert shading of the opaque surface per pixel, then glass layers blended over it; the same
 * pass writes each pixel's depth and id (as resolvePixel does), so the buffers are read once.
 */
function shade(scene: RenderScene, cam: RenderCamera, buf: RasterBuffers, depth: Float32Array, ids: Uint16Array, sidesPerPixel: boolean): Uint8Array {
  const { zO, tO, zG, tG, layers, glass } = buf;
  const W = cam.width,
    H = cam.height;
  const { fx, fy, cx, cy } = cam.K;
  const E = cam.E;
  // Camera centre C = -R^T t and world-from-camera rotation columns.
  const r00 = E[0][0],
    r01 = E[0][1],
    r02 = E[0][2],
    r10 = E[1][0],
    r11 = E[1][1],
    r12 = E[1][2],
    r20 = E[2][0],
    r21 = E[2][1],
    r22 = E[2][2];
  const Cx = -(r00 * E[0][3] + r10 * E[1][3] + r20 * E[2][3]);
  const Cy = -(r01 * E[0][3] + r11 * E[1][3] + r21 * E[2][3]);
  const Cz = -(r02 * E[0][3] + r12 * E[1][3] + r22 * E[2][3]);
  const L = scene.lighting;
  const sun = L.sun;
  const sunLen = sun ? Math.hypot(...sun.direction) || 1 : 1;
  const sdx = sun ? -sun.direction[0] / sunLen : 0,
    sdy = sun ? -sun.direction[1] / sunLen : 0,
    sdz = sun ? -sun.direction[2] / sunLen : 0;
  const sunI = sun ? sun.intensity : 0;
  const ambient = L.ambient;
  // point lights as flat arrays: position, intensity, range
  const nLights = L.lights.length;
  const lpx = new Float64Array(nLights),
    lpy = new Float64Array(nLights),
    lpz = new Float64Array(nLights);
  const lInt = new Float64Array(nLights),
    lRange = new Float64Array(nLights);
  for (let k = 0; k < nLights; k++) {
    const lt = L.lights[k]!;
    lpx[k] = lt.position[0];
    lpy[k] = lt.position[1];
    lpz[k] = lt.position[2];
    lInt[k] = lt.intensity;
    lRange[k] = lt.range;
  }
  // normalised image x per column, and the glass transmittance per layer count (the same ** as per pixel)
  const xnOf = new Float64Array(W);
  for (let i = 0; i < W; i++) xnOf[i] = (i - cx) / fx;
  const transmit = glassTransmittance();
  const normals = scene.normals,
    triRgb = scene.triRgb,
    triId = scene.triId;
  const out = new Uint8Array(W * H * 3);
  // read by index: destructured, these made V8 box r, g and b (one young-generation GC per view)
  const skyR = SKY_RGB[0],
    skyG = SKY_RGB[1],
    skyB = SKY_RGB[2];
  const glassRgb = colorRgb("glass");
  const glassR = glassRgb[0],
    glassG = glassRgb[1],
    glassB = glassRgb[2];
  const surface = nLights === 0 ? surfaceColours(scene, ambient, sunI, sdx, sdy, sdz) : null;
  const sides = surface ? sideCodes(scene, Cx, Cy, Cz, E, sidesPerPixel) : null;
  let surfaceBytes: Uint8Array | null = null;
  if (surface) {
    surfaceBytes = new Uint8Array(surface.length); // a loop: Uint8Array.from with a map function is generic and slow
    for (let k = 0; k < surface.length; k++) surfaceBytes[k] = toByte(surface[k]!);
  }
  // a copy runs at memory speed; the loop below then stores a depth only where it is not the opaque one
  depth.set(zO);
  // the pixels drawn: the whole image, or a reflection pass's box (the pass reads nothing outside it)
  const { x0, x1, y0, y1 } = buf;
  for (let j = y0; j <= y1; j++) {
    const yn = (j - cy) / fy;
    for (let i = x0, p = j * W + x0; i <= x1; i++, p++) {
      const t = tO[p]!,
        tg = glass ? tG[p]! : -1;
      // depth and id as resolvePixel gives them: the opaque depth was copied in whole, so only glass and
      // sky (whose opaque depth is the buffer's Infinity) are written here
      if (tg >= 0) {
        depth[p] = zG[p]!;
        ids[p] = triId[tg]!;
      } else if (t >= 0) ids[p] = triId[t]!;
      else depth[p] = 0;
      let r: number, g: number, b: number;
      if (t < 0) {
        r = skyR;
        g = skyG;
        b = skyB;
      } else {
        const xn = xnOf[i]!;
        if (surface) {
          // no point lights: the colour is the triangle's, for its side and checker tile (precomputed above);
          // the side from the triangle's code where the camera is clearly off its plane (sideCodes)
          const code = sides![t]!;
          let facing = (code & SIDE_FACING) !== 0,
            dark = 0;
          if (code & (SIDE_PER_PIXEL | SIDE_FLOOR)) {
            const dx = r00 * xn + r10 * yn + r20,
              dy = r01 * xn + r11 * yn + r21;
            if (code & SIDE_PER_PIXEL) facing = normals[t * 3]! * dx + normals[t * 3 + 1]! * dy + normals[t * 3 + 2]! * (r02 * xn + r12 * yn + r22) > 0;
            if (code & SIDE_FLOOR) {
              const z = zO[p]!;
              dark = (Math.floor((Cx + z * dx) * TILES_PER_M) ^ Math.floor((Cy + z * dy) * TILES_PER_M)) & 1;
            }
          }
          const k = (t * 4 + (facing ? 2 : 0) + dark) * 3;
          if (!(tg >= 0 && layers[p]! > 0)) {
            // no glass in front: the rounded bytes are the table's too
            const o = p * 3;
            out[o] = surfaceBytes![k]!;
            out[o + 1] = surfaceBytes![k + 1]!;
            out[o + 2] = surfaceBytes![k + 2]!;
            continue;
          }
          r = surface[k]!;
          g = surface[k + 1]!;
          b = surface[k + 2]!;
        } else {
          // ray direction in world (camera z = 1) and the surface point
          const dx = r00 * xn + r10 * yn + r20,
            dy = r01 * xn + r11 * yn + r21,
            dz = r02 * xn + r12 * yn + r22;
          let nx = normals[t * 3]!,
            ny = normals[t * 3 + 1]!,
            nz = normals[t * 3 + 2]!;
          const facing = nx * dx + ny * dy + nz * dz > 0;
          const floor = triId[t] === FLOOR_ID;
          const z = zO[p]!;
          const X = Cx + z * dx,
            Y = Cy + z * dy,
            Z = Cz + z * dz;
          if (facing) {
            nx = -nx;
            ny = -ny;
            nz = -nz;
          }
          let light = ambient + sunI * Math.max(0, nx * sdx + ny * sdy + nz * sdz);
          for (let k = 0; k < nLights; k++) {
            const lx = lpx[k]! - X,
              ly = lpy[k]! - Y,
              lz = lpz[k]! - Z;
            const dot = nx * lx + ny * ly + nz * lz;
            // a light behind the surface adds +0 (lambert is max(0, ≤ 0) = +0, and the schema's intensity and
            // range are finite, so the term is +0 too): skip its distance and divisions, the same bytes
            if (dot <= 0) continue;
            const d = hypot3(lx, ly, lz) || 1e-6;
            const lambert = Math.max(0, dot / d);
            const dr = d / lRange[k]!;
            light += (lInt[k]! * lambert) / (1 + dr * dr);
          }
          let ar = triRgb[t * 3]!,
            ag = triRgb[t * 3 + 1]!,
            ab = triRgb[t * 3 + 2]!;
          if (floor && ((Math.floor(X * TILES_PER_M) ^ Math.floor(Y * TILES_PER_M)) & 1) === 1) {
            ar *= FLOOR_DARK_TILE;
            ag *= FLOOR_DARK_TILE;
            ab *= FLOOR_DARK_TILE;
          }
          r = ar * light;
          g = ag * light;
          b = ab * light;
        }
      }
      // tg first: without glass in the scene, layers is not read
      const n = tg >= 0 ? layers[p]! : 0;
      if (n > 0) {
        const tr = transmit[n]!;
        r = r * tr + glassR * (1 - tr);
        g = g * tr + glassG * (1 - tr);
        b = b * tr + glassB * (1 - tr);
      }
      const o = p * 3;
      out[o] = toByte(r);
      out[o + 1] = toByte(g);
      out[o + 2] = toByte(b);
    }
  }
  return out;
}
