/**
 * A software z-buffer rasterizer on the CPU. For each view it produces RGB (Lambert shading with
 * ambient, sun and point lights, glass blended over what is behind it), metric z-depth (float32) and an
 * instance-id image.
 *
 * Conventions (src/core/math/camera.ts): pixel (i, j) is sampled at its centre, image coordinates (i, j);
 * depth is the camera-axis z of the first surface hit, glass included (as a rasterised depth buffer
 * gives it); pixels that see nothing (no ceiling, open sky) have depth 0 and id 0.
 * Depth is interpolated as 1/z, which is exact for planar triangles under perspective.
 */
import type { Mat34 } from "../../src/core/math/vec.js";
import type { Intrinsics } from "../../src/core/math/camera.js";
import { FLOOR_ID, FLOOR_TILE_M, type RenderScene } from "./scene.js";
import { colorRgb } from "../task/palette.js";

/** Near clipping plane (m): closer geometry is cut away. */
export const NEAR_PLANE_M = 0.05;
/** Fraction of light one glass surface lets through; the rest is the glass tint (a glass wall has two surfaces, a glass four along a ray through it). */
export const GLASS_TRANSMITTANCE = 0.9;
/** Colour of pixels that see nothing (the open ceiling). */
export const SKY_RGB: [number, number, number] = [30, 32, 40];

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
}

export interface RenderOutput {
  width: number;
  height: number;
  rgb: Uint8Array | null;
  depth: Float32Array;
  ids: Uint16Array;
}

/** Scratch buffers reused across views of the same size (a 30-view bundle allocates them once). */
interface Scratch {
  n: number;
  zOpaque: Float32Array;
  triOpaque: Int32Array;
  zGlass: Float32Array;
  triGlass: Int32Array;
  glassLayers: Uint8Array;
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
    };
  }
  return scratch;
}

type FragmentSink = (idx: number, z: number, tri: number) => void;

export function render(scene: RenderScene, cam: RenderCamera, opts: RenderOptions = {}): RenderOutput {
  const W = cam.width, H = cam.height, N = W * H;
  const { fx, fy, cx, cy } = cam.K;
  const E = cam.E;
  const s = getScratch(N);
  const zO = s.zOpaque.fill(Infinity), tO = s.triOpaque.fill(-1);
  const zG = s.zGlass.fill(Infinity), tG = s.triGlass.fill(-1), layers = s.glassLayers.fill(0);

  const tris = scene.tris;
  const nTri = scene.triId.length;
  const only = opts.onlyIds;
  // camera-space and projected vertices of the (up to 4) clipped polygon
  const cxs = new Float64Array(4), cys = new Float64Array(4), czs = new Float64Array(4);
  const px = new Float64Array(4), py = new Float64Array(4), piz = new Float64Array(4);
  const inX = new Float64Array(3), inY = new Float64Array(3), inZ = new Float64Array(3);

  const opaqueSink: FragmentSink = (idx, z, tri) => {
    if (z < zO[idx]!) {
      zO[idx] = z;
      tO[idx] = tri;
    }
  };
  const glassSink: FragmentSink = (idx, z, tri) => {
    if (z < zO[idx]!) {
      if (layers[idx]! < 255) layers[idx]!++;
      if (z < zG[idx]!) {
        zG[idx] = z;
        tG[idx] = tri;
      }
    }
  };

  const rasterTriangle = (a: number, b: number, c: number, tri: number, sink: FragmentSink): void => {
    let x0 = px[a]!, y0 = py[a]!, x1 = px[b]!, y1 = py[b]!, x2 = px[c]!, y2 = py[c]!;
    let iz0 = piz[a]!, iz1 = piz[b]!, iz2 = piz[c]!;
    let area = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0);
    if (!(Math.abs(area) > 1e-12)) return;
    if (area < 0) {
      // Make the winding consistent; there is no back-face culling.
      [x1, x2] = [x2, x1];
      [y1, y2] = [y2, y1];
      [iz1, iz2] = [iz2, iz1];
      area = -area;
    }
    const minX = Math.max(0, Math.ceil(Math.min(x0, x1, x2)));
    const maxX = Math.min(W - 1, Math.floor(Math.max(x0, x1, x2)));
    const minY = Math.max(0, Math.ceil(Math.min(y0, y1, y2)));
    const maxY = Math.min(H - 1, Math.floor(Math.max(y0, y1, y2)));
    if (minX > maxX || minY > maxY) return;
    const inv = 1 / area;
    // Edge functions e_k(x, y) = A_k x + B_k y + C_k, positive inside.
    const A0 = y1 - y2, B0 = x2 - x1, C0 = x1 * y2 - x2 * y1; // edge 1->2, weight of vertex 0
    const A1 = y2 - y0, B1 = x0 - x2, C1 = x2 * y0 - x0 * y2; // edge 2->0, weight of vertex 1
    const A2 = y0 - y1, B2 = x1 - x0, C2 = x0 * y1 - x1 * y0; // edge 0->1, weight of vertex 2
    for (let y = minY; y <= maxY; y++) {
      let w0 = A0 * minX + B0 * y + C0;
      let w1 = A1 * minX + B1 * y + C1;
      let w2 = A2 * minX + B2 * y + C2;
      let idx = y * W + minX;
      for (let x = minX; x <= maxX; x++, idx++, w0 += A0, w1 += A1, w2 += A2) {
        if (w0 < 0 || w1 < 0 || w2 < 0) continue;
        const iz = (w0 * iz0 + w1 * iz1 + w2 * iz2) * inv;
        if (iz <= 0) continue;
        sink(idx, 1 / iz, tri);
      }
    }
  };

  const drawPass = (glass: boolean): void => {
    const sink = glass ? glassSink : opaqueSink;
    for (let t = 0; t < nTri; t++) {
      if ((scene.triGlass[t] === 1) !== glass) continue;
      if (only && !only.has(scene.triId[t]!)) continue;
      const o = t * 9;
      let nIn = 0;
      for (let k = 0; k < 3; k++) {
        const wx = tris[o + 3 * k]!, wy = tris[o + 3 * k + 1]!, wz = tris[o + 3 * k + 2]!;
        inX[k] = E[0][0] * wx + E[0][1] * wy + E[0][2] * wz + E[0][3];
        inY[k] = E[1][0] * wx + E[1][1] * wy + E[1][2] * wz + E[1][3];
        inZ[k] = E[2][0] * wx + E[2][1] * wy + E[2][2] * wz + E[2][3];
        if (inZ[k]! >= NEAR_PLANE_M) nIn++;
      }
      if (nIn === 0) continue;
      // Clip the triangle against the near plane (Sutherland-Hodgman, one plane).
      let n = 0;
      for (let k = 0; k < 3; k++) {
        const j = (k + 1) % 3;
        const zk = inZ[k]!, zj = inZ[j]!;
        const kIn = zk >= NEAR_PLANE_M, jIn = zj >= NEAR_PLANE_M;
        if (kIn) {
          cxs[n] = inX[k]!; cys[n] = inY[k]!; czs[n] = zk; n++;
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
      rasterTriangle(0, 1, 2, t, sink);
      if (n === 4) rasterTriangle(0, 2, 3, t, sink);
    }
  };

  drawPass(false);
  drawPass(true);

  const depth = new Float32Array(N);
  const ids = new Uint16Array(N);
  for (let i = 0; i < N; i++) {
    const g = tG[i]!;
    if (g >= 0) {
      depth[i] = zG[i]!;
      ids[i] = scene.triId[g]!;
    } else if (tO[i]! >= 0) {
      depth[i] = zO[i]!;
      ids[i] = scene.triId[tO[i]!]!;
    }
  }
  const rgb = opts.rgb === false ? null : shade(scene, cam, zO, tO, tG, layers);
  return { width: W, height: H, rgb, depth, ids };
}

/** Deferred Lambert shading of the opaque surface per pixel, then glass layers blended over it. */
function shade(scene: RenderScene, cam: RenderCamera, zO: Float32Array, tO: Int32Array, tG: Int32Array, layers: Uint8Array): Uint8Array {
  const W = cam.width, H = cam.height;
  const { fx, fy, cx, cy } = cam.K;
  const E = cam.E;
  // Camera centre C = -R^T t and world-from-camera rotation columns.
  const r00 = E[0][0], r01 = E[0][1], r02 = E[0][2], r10 = E[1][0], r11 = E[1][1], r12 = E[1][2], r20 = E[2][0], r21 = E[2][1], r22 = E[2][2];
  const Cx = -(r00 * E[0][3] + r10 * E[1][3] + r20 * E[2][3]);
  const Cy = -(r01 * E[0][3] + r11 * E[1][3] + r21 * E[2][3]);
  const Cz = -(r02 * E[0][3] + r12 * E[1][3] + r22 * E[2][3]);
  const L = scene.lighting;
  const sun = L.sun;
  const sunLen = sun ? Math.hypot(...sun.direction) || 1 : 1;
  const sdx = sun ? -sun.direction[0] / sunLen : 0, sdy = sun ? -sun.direction[1] / sunLen : 0, sdz = sun ? -sun.direction[2] / sunLen : 0;
  const sunI = sun ? sun.intensity : 0;
  const lights = L.lights;
  const out = new Uint8Array(W * H * 3);
  const glassRgb = colorRgb("glass");
  for (let j = 0; j < H; j++) {
    const yn = (j - cy) / fy;
    for (let i = 0; i < W; i++) {
      const p = j * W + i;
      const t = tO[p]!;
      let r: number, g: number, b: number;
      if (t < 0) {
        [r, g, b] = SKY_RGB;
      } else {
        const xn = (i - cx) / fx;
        // ray direction in world (camera z = 1) and the surface point
        const dx = r00 * xn + r10 * yn + r20, dy = r01 * xn + r11 * yn + r21, dz = r02 * xn + r12 * yn + r22;
        const z = zO[p]!;
        const X = Cx + z * dx, Y = Cy + z * dy, Z = Cz + z * dz;
        let nx = scene.normals[t * 3]!, ny = scene.normals[t * 3 + 1]!, nz = scene.normals[t * 3 + 2]!;
        if (nx * dx + ny * dy + nz * dz > 0) {
          nx = -nx; ny = -ny; nz = -nz;
        }
        let light = L.ambient + sunI * Math.max(0, nx * sdx + ny * sdy + nz * sdz);
        for (let k = 0; k < lights.length; k++) {
          const lt = lights[k]!;
          const lx = lt.position[0] - X, ly = lt.position[1] - Y, lz = lt.position[2] - Z;
          const d = Math.hypot(lx, ly, lz) || 1e-6;
          const lambert = Math.max(0, (nx * lx + ny * ly + nz * lz) / d);
          light += (lt.intensity * lambert) / (1 + (d / lt.range) * (d / lt.range));
        }
        let ar = scene.triRgb[t * 3]!, ag = scene.triRgb[t * 3 + 1]!, ab = scene.triRgb[t * 3 + 2]!;
        if (scene.triId[t] === FLOOR_ID && ((Math.floor(X / FLOOR_TILE_M) + Math.floor(Y / FLOOR_TILE_M)) & 1) === 1) {
          ar *= 0.86; ag *= 0.86; ab *= 0.86;
        }
        r = ar * light; g = ag * light; b = ab * light;
      }
      const n = layers[p]!;
      if (n > 0 && tG[p]! >= 0) {
        const tr = GLASS_TRANSMITTANCE ** n;
        r = r * tr + glassRgb[0]! * (1 - tr);
        g = g * tr + glassRgb[1]! * (1 - tr);
        b = b * tr + glassRgb[2]! * (1 - tr);
      }
      const o = p * 3;
      out[o] = r > 255 ? 255 : r < 0 ? 0 : Math.round(r);
      out[o + 1] = g > 255 ? 255 : g < 0 ? 0 : Math.round(g);
      out[o + 2] = b > 255 ? 255 : b < 0 ? 0 : Math.round(b);
    }
  }
  return out;
}
