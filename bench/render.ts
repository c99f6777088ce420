/**
 * Renderer throughput and the time for a 30-view 518x392 bundle (issue goal: under 1.5 s on one core).
 * Node runs the renderer on one thread, so these figures are single-core.
 */
import { join } from "node:path";
import type { BenchContext } from "./context.js";
import { generateTask } from "../bridge/sim/generate/suite.js";
import { captureBundle } from "../bridge/sim/capture.js";
import { writeBundle } from "../core/bundle/io.js";
import { decodePng, encodePng } from "../core/bundle/png.js";
import { float32ToLE } from "../core/bundle/view.js";
import { buildScene } from "../bridge/sim/scene.js";
import { generatorContext, GeneratorOptionsSchema } from "../bridge/sim/generate/options.js";
import type { Task } from "../core/task/schema.js";
import type { CapturedBundle } from "../bridge/sim/capture.js";

/** Environment variable naming another build's dist/ (e.g. of commit 8f61b9f) to A/B the render and encode stages against. */
const BASELINE_ENV = "ESI3D_BENCH_BASELINE";
/** Interleaved rounds per build in the A/B (best of each). */
const AB_ROUNDS = 5;

/**
 * With ESI3D_BENCH_BASELINE set: the baseline build's renderBundle and encodePng against this build's,
 * alternating per round (the machine's load hits both alike), best of AB_ROUNDS each, and whether the two
 * builds give the same pixels, and PNGs that decode to the same pixels.
 */
async function compareWithBaseline(task: Task, ours: CapturedBundle): Promise<void> {
  const base = process.env[BASELINE_ENV];
  if (!base) {
    console.log(`  (set ${BASELINE_ENV}=<another build's dist/> for a before/after A/B of these stages)`);
    return;
  }
  const baseCapture = (await import(join(base, "bridge/sim/capture.js"))).captureBundle as typeof captureBundle;
  const baseEncode = (await import(join(base, "core/bundle/png.js"))).encodePng as typeof encodePng;
  const { width: W, height: H } = task.camera;
  const encodeAll = (enc: typeof encodePng, c: CapturedBundle) => c.payloads.map((p) => [enc(W, H, 3, 8, p.rgb), enc(W, H, 1, 16, p.ids)]);
  const stages = {
    render: [() => baseCapture(task, "multi"), () => captureBundle(task, "multi")],
    encode: [() => encodeAll(baseEncode, ours), () => encodeAll(encodePng, ours)],
  } as const;
  for (const [name, [before, after]] of Object.entries(stages)) {
    let a = Infinity,
      b = Infinity;
    for (let r = 0; r < AB_ROUNDS; r++) {
      let t = performance.now();
      before();
      a = Math.min(a, performance.now() - t);
      t = performance.now();
      after();
      b = Math.min(b, performance.now() - t);
    }
    console.log(`  A/B ${name}: baseline ${a.toFixed(0)} ms, this build ${b.toFixed(0)} ms per bundle: ${(a / b).toFixed(2)}x`);
  }
  const theirs = baseCapture(task, "multi");
  const samePixels = theirs.payloads.every((p, i) => {
    const q = ours.payloads[i]!;
    return (
      Buffer.from(p.rgb).equals(Buffer.from(q.rgb)) &&
      Buffer.from(p.depth.buffer).equals(Buffer.from(q.depth.buffer)) &&
      Buffer.from(p.ids.buffer).equals(Buffer.from(q.ids.buffer))
    );
  });
  // PNG bytes differ where the zlib level does; what must not differ is what they decode to
  const pngsOf = (enc: typeof encodePng) => ours.payloads.flatMap((p) => [enc(W, H, 3, 8, p.rgb), enc(W, H, 1, 16, p.ids)]);
  const ourPngs = pngsOf(encodePng),
    basePngs = pngsOf(baseEncode);
  const samePngPixels = basePngs.every((png, i) => Buffer.from(decodePng(png).data.buffer).equals(Buffer.from(decodePng(ourPngs[i]!).data.buffer)));
  const mb = (pngs: Buffer[]) => (pngs.reduce((n, b) => n + b.length, 0) / 1e6).toFixed(2);
  console.log(
    `  A/B output: rgb, depth and ids ${samePixels ? "bit-identical" : "DIFFER"}; PNGs decode to ${samePngPixels ? "the same" : "DIFFERENT"} pixels (${mb(basePngs)} MB baseline, ${mb(ourPngs)} MB this build)`,
  );
}

export default async function benchRender(ctx: BenchContext): Promise<void> {
  // the scene with the most triangles among a few task kinds (furniture, chairs, many objects)
  const task = (["counting_with_occlusion", "spatial_segmentation", "category_ambiguity", "view_hallucination", "partial_occlusion"] as const)
    .map((s) => generateTask(s, "bench", 0))
    .sort((a, b) => buildScene(b).triId.length - buildScene(a).triId.length)[0]!;
  const scene = buildScene(task);
  const { ms: renderMs, result } = await ctx.time(() => captureBundle(task, "multi"), 3);
  const views = result.payloads.length;
  const pixels = views * task.camera.width * task.camera.height;
  console.log(`  scene: ${scene.triId.length} triangles; ${views} views of ${task.camera.width}x${task.camera.height}`);
  console.log(
    `  render only (RGB + depth + ids): ${renderMs.toFixed(0)} ms = ${(pixels / renderMs / 1000).toFixed(1)} Mpixel/s, ${(renderMs / views).toFixed(1)} ms/view`,
  );
  // the bundle writer's stages apart: encoding every view's files in memory, then the whole atomic write
  const { width: W, height: H } = task.camera;
  const { ms: encodeMs } = await ctx.time(() => {
    for (const p of result.payloads) {
      encodePng(W, H, 3, 8, p.rgb);
      float32ToLE(p.depth);
      encodePng(W, H, 1, 16, p.ids);
    }
  }, 3);
  const { ms: writeMs } = await ctx.time(() => writeBundle(join(ctx.workDir, "bundle-written"), result.manifest, result.payloads), 3);
  console.log(
    `  per ${views}-view bundle: render ${renderMs.toFixed(0)} ms, encode (RGB and id PNGs, float32 depth) ${encodeMs.toFixed(0)} ms, write (encode + files + rename) ${writeMs.toFixed(0)} ms`,
  );
  await compareWithBaseline(task, result);
  const dir = join(ctx.workDir, "bundle");
  const { ms: totalMs } = await ctx.time(() => {
    const c = captureBundle(task, "multi");
    writeBundle(dir, c.manifest, c.payloads);
  }, 3);
  console.log(`  render + PNG/float32 encode + atomic write: ${totalMs.toFixed(0)} ms`);
  ctx.goal("30-view 518x392 bundle, rendered and written", `${(totalMs / 1000).toFixed(2)} s`, "< 1.5 s on one core", totalMs < 1500);
  // ESI-Bench's render size (--image 1280x720, 4.5x the pixels): measured, no goal (issue 16)
  const big = generateTask(task.subcategory as "counting_with_occlusion", "bench", 0, generatorContext(GeneratorOptionsSchema.parse({ image: "1280x720" })));
  const { ms: bigMs, result: bigResult } = await ctx.time(() => {
    const c = captureBundle(big, "multi");
    writeBundle(join(ctx.workDir, "bundle-1280"), c.manifest, c.payloads);
    return c;
  }, 2);
  console.log(
    `  1280x720 (--image 1280x720), ${bigResult.payloads.length} views, rendered and written: ${bigMs.toFixed(0)} ms (${(bigMs / totalMs).toFixed(2)}x the 518x392 bundle for ${((1280 * 720) / (task.camera.width * task.camera.height)).toFixed(2)}x the pixels)`,
  );
}
