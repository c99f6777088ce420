// Calibrates the 2D arm's aspect -> drape height map (src/reason/deformablePrograms.ts ASPECT_TO_HEIGHT) on its own seed,
// not the measurement's: the cloth mask's box aspect in each initial view against the drape's true height.
//   npm run build && node scripts/deformable-aspect-calibration.mjs
import { generateTask } from "../dist/bridge/sim/generate/suite.js";
import { buildScene } from "../dist/bridge/sim/scene.js";
import { render } from "../dist/bridge/sim/raster.js";
import { intrinsicsFromHfov, poseToExtrinsic } from "../dist/core/math/camera.js";
const xs = [],
  ys = [];
for (let i = 0; i < 40; i++) {
  const t = generateTask("deformable", "deformable-2d-cal", i);
  const c = t.objects.find((o) => o.category === "cloth");
  const { width: W, height: H, hfov_deg } = t.camera;
  const out = render(buildScene(t), { width: W, height: H, K: intrinsicsFromHfov(W, H, hfov_deg), E: poseToExtrinsic(t.agent_initial) }, { rgb: false });
  let x0 = W,
    x1 = -1,
    y0 = H,
    y1 = -1;
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++)
      if (out.ids[y * W + x] === c.id) {
        x0 = Math.min(x0, x);
        x1 = Math.max(x1, x);
        y0 = Math.min(y0, y);
        y1 = Math.max(y1, y);
      }
  xs.push((y1 - y0 + 1) / (x1 - x0 + 1));
  ys.push(c.extent[2]);
}
const n = xs.length,
  mx = xs.reduce((a, b) => a + b) / n,
  my = ys.reduce((a, b) => a + b) / n;
const a = xs.reduce((s, x, i) => s + (x - mx) * (ys[i] - my), 0) / xs.reduce((s, x) => s + (x - mx) ** 2, 0);
const b = my - a * mx;
const res = Math.sqrt(xs.reduce((s, x, i) => s + (ys[i] - (a * x + b)) ** 2, 0) / n);
console.log({ n, slope: a.toFixed(4), intercept: b.toFixed(4), rmse: res.toFixed(4), aspects: [Math.min(...xs).toFixed(3), Math.max(...xs).toFixed(3)] });
