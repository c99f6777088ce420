/**
 * Whole-object culling for the rasterizer: a scene's triangles come in runs of one instance (buildScene
 * emits each object's triangles together), and a run whose world bounding box lies entirely behind the near
 * plane or entirely off one side of the image has no triangle that could cover a pixel. The renderer skips
 * such runs instead of transforming, clipping and bounding every triangle in them: generation's visibility
 * checks render at a sixteenth of the pixels, where that per-triangle work is half the render.
 *
 * The test is exact for what it skips: the camera transform is affine, so a linear function of camera
 * coordinates (z, or x − (cx + margin)·z for the left edge, ...) is at its largest over a box at one of its 8
 * corners. When it is negative at all 8 (by CULL_MARGIN_PX or CULL_NEAR_MARGIN_M, far beyond the rounding
 * of any one vertex's projection), every vertex and every near-plane clip point of the run projects off the
 * image or lies behind the near plane, where rasterTriangle's bounding box (or the clipping) already drew
 * nothing. So a culled render is the same image, bit for bit (test/bridge/sim/renderer.test.ts).
 */
import { boundsOf, type Bounds } from "../../core/geometry.js";
import type { Mat34 } from "../../core/math/vec.js";
import type { RenderScene } from "./scene.js";

/** Pixels a culled run's projection must lie beyond the image's edge: rounding moves a vertex by ~1e-9 px. */
const CULL_MARGIN_PX = 1;
/** Metres a culled run must lie behind the near plane: rounding moves a vertex's depth by ~1e-15 m. */
const CULL_NEAR_MARGIN_M = 1e-6;

/** Runs of consecutive triangles with one instance id: [start, end) and the world bounds of their vertices. */
export interface TriangleRuns {
  count: number;
  start: Int32Array;
  end: Int32Array;
  bounds: Bounds[];
}

const runsOfScene = new WeakMap<RenderScene, TriangleRuns>();

/** The scene's runs, computed once per scene (a scene's triangles are not changed after buildScene). */
export function triangleRuns(scene: RenderScene): TriangleRuns {
  let runs = runsOfScene.get(scene);
  if (!runs) runsOfScene.set(scene, (runs = computeRuns(scene)));
  return runs;
}

function computeRuns(scene: RenderScene): TriangleRuns {
  const { tris, triId } = scene;
  const first: number[] = [];
  for (let t = 0; t < triId.length; t++) if (t === 0 || triId[t] !== triId[t - 1]) first.push(t);
  const start = Int32Array.from(first),
    end = Int32Array.from(first, (_, r) => first[r + 1] ?? triId.length);
  // a run's triangles are its vertices' x,y,z triples, 9 floats a triangle
  const bounds = first.map((_, r) => boundsOf(tris.subarray(9 * start[r]!, 9 * end[r]!)));
  return { count: first.length, start, end, bounds };
}

/** The view a run is tested against: camera-from-world E, intrinsics and image size. */
export interface CullView {
  E: Mat34;
  fx: number;
  fy: number;
  cx: number;
  cy: number;
  W: number;
  H: number;
  near: number;
}

/** Whether run r of `runs` can cover no pixel of the view (see the module's comment). */
export function runOutsideView(runs: TriangleRuns, r: number, v: CullView): boolean {
  const { min, max } = runs.bounds[r]!;
  const E = v.E;
  const left = v.cx + CULL_MARGIN_PX,
    right = v.W - 1 + CULL_MARGIN_PX - v.cx;
  const top = v.cy + CULL_MARGIN_PX,
    bottom = v.H - 1 + CULL_MARGIN_PX - v.cy;
  const nearLimit = v.near - CULL_NEAR_MARGIN_M;
  // each flag stays set while every corner so far is outside that side
  let behind = true,
    offLeft = true,
    offRight = true,
    offTop = true,
    offBottom = true;
  for (let c = 0; c < 8; c++) {
    const wx = (c & 1 ? max : min)[0],
      wy = (c & 2 ? max : min)[1],
      wz = (c & 4 ? max : min)[2];
    const x = E[0][0] * wx + E[0][1] * wy + E[0][2] * wz + E[0][3];
    const y = E[1][0] * wx + E[1][1] * wy + E[1][2] * wz + E[1][3];
    const z = E[2][0] * wx + E[2][1] * wy + E[2][2] * wz + E[2][3];
    if (!(z < nearLimit)) behind = false;
    // px < -margin  <=>  fx·x + (cx + margin)·z < 0 for z > 0, and likewise for the other edges
    if (!(v.fx * x + left * z < 0)) offLeft = false;
    if (!(v.fx * x - right * z > 0)) offRight = false;
    if (!(v.fy * y + top * z < 0)) offTop = false;
    if (!(v.fy * y - bottom * z > 0)) offBottom = false;
  }
  // the side tests divide by z and fx, fy: they hold for the positive focal lengths of every built camera
  return behind || (v.fx > 0 && v.fy > 0 && (offLeft || offRight || offTop || offBottom));
}
