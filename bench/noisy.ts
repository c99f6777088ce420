/**
 * The `noisy` point-cloud source against `gt` on a real 30-view 518×392 bundle from the built-in
 * simulator (≈ 6 M pixels, design.md's planning size), timed on the path a run pays: every timed call
 * gets a fresh copy of the bundle (new FrameBundle, views and pixel arrays, as `runUnit` renders one per
 * unit), so none of the per-bundle caches of level-free fields is warm. The run-like rows pass what
 * `graphOfBundle` passes (structure ids excluded, a reused CloudArena) at the run's default level
 * (VGGT_TYPICAL_LEVEL) with every component. The one warm row reuses one bundle object (its pages already
 * touched, the JIT warm), and says so.
 */
import type { BenchContext } from "./context.js";
import type { FrameBundle } from "../core/bundle/io.js";
import { generateTask } from "../bridge/sim/generate/suite.js";
import { renderBundle } from "../bridge/sim/capture.js";
import { backprojectViews } from "../reconstruct/gt/backproject.js";
import { CloudArena, type PointCloud } from "../reconstruct/pointcloud.js";
import { NOISE_COMPONENTS, noisyPointCloud, VGGT_TYPICAL_LEVEL, type NoisyMeta } from "../reconstruct/noisy/index.js";
import { structureIds } from "../scenegraph/pipeline.js";

/**
 * Goal: the cold, run-like noisy cloud (default level, every component) of 30 views at 518×392 within this
 * many milliseconds on one core: a third of the 2.76 s issue 19 measured at commit dad60a5.
 */
const GOAL_MS = 920;

/** A copy of the bundle that shares no object with it (so no WeakMap-keyed cache can hit), as a run's fresh render. */
function freshBundle(b: FrameBundle): FrameBundle {
  return { ...b, views: b.views.map((v) => ({ ...v, depth: new Float32Array(v.depth), rgb: new Uint8Array(v.rgb), ids: new Uint16Array(v.ids) })) };
}

interface Case {
  name: string;
  /** Builds the input outside the timing (a fresh bundle for cold cases). */
  input: () => FrameBundle;
  run: (b: FrameBundle) => PointCloud;
}

/**
 * Best time of each case over `rounds` rounds, the cases interleaved within a round (so load from other
 * processes spreads over all of them), each run after a full GC when node runs with --expose-gc (npm run
 * bench does): a 6 M-point cloud is ~170 MB, and collecting the last one would otherwise land in the next timing.
 */
function timeInterleaved(cases: readonly Case[], rounds: number): { ms: number[]; results: PointCloud[] } {
  const gc = (globalThis as { gc?: () => void }).gc;
  const ms = cases.map(() => Infinity);
  const results: PointCloud[] = [];
  for (let r = 0; r < rounds; r++) {
    cases.forEach((c, i) => {
      const input = c.input();
      gc?.();
      const t = performance.now();
      results[i] = c.run(input);
      ms[i] = Math.min(ms[i]!, performance.now() - t);
    });
  }
  return { ms, results };
}

export default async function (ctx: BenchContext): Promise<void> {
  const bundle = renderBundle(generateTask("counting_with_occlusion", "bench", 0), "multi");
  const { width: W, height: H } = bundle.views[0]!;
  const categories = new Map(bundle.manifest.instances.map((e) => [e.id, e.category] as [number, string]));
  const excludeIds = structureIds(bundle);
  const arena = new CloudArena();
  const level = VGGT_TYPICAL_LEVEL;
  const ROUNDS = 5,
    COMPONENT_ROUNDS = 3;
  const fresh = () => freshBundle(bundle);
  console.log(
    `  ${bundle.views.length} views ${W}x${H} (${((bundle.views.length * W * H) / 1e6).toFixed(1)} M pixels), built-in simulator; cold (a fresh bundle per call) unless marked warm; best of ${ROUNDS} interleaved rounds (GC between runs), ms`,
  );
  const row = (name: string, ms: number, extra = "") => console.log(`  ${name.padEnd(46)} ${ms.toFixed(1).padStart(8)}${extra ? `  ${extra}` : ""}`);

  const main: Case[] = [
    { name: "gt, run-like (structure excluded)", input: fresh, run: (b) => backprojectViews(b.views, categories, { excludeIds, arena }) },
    {
      name: `noisy level ${level} (default), run-like`,
      input: fresh,
      run: (b) => noisyPointCloud(b, { noiseLevel: level, noiseSeed: "0", excludeIds, arena }),
    },
    { name: "gt, whole cloud", input: fresh, run: (b) => backprojectViews(b.views, categories) },
    { name: `noisy level ${level} (default), whole cloud`, input: fresh, run: (b) => noisyPointCloud(b, { noiseLevel: level, noiseSeed: "0" }) },
    { name: "noisy level 0 (= gt), whole cloud", input: fresh, run: (b) => noisyPointCloud(b, { noiseLevel: 0, noiseSeed: "0" }) },
    { name: "noisy level 1, whole cloud", input: fresh, run: (b) => noisyPointCloud(b, { noiseLevel: 1, noiseSeed: "0" }) },
    { name: "noisy level 0.5, whole cloud", input: fresh, run: (b) => noisyPointCloud(b, { noiseLevel: 0.5, noiseSeed: "0" }) },
    // the same bundle object again: only the first touch of its pixel arrays is saved
    {
      name: `WARM noisy level ${level}, run-like (same bundle)`,
      input: () => bundle,
      run: (b) => noisyPointCloud(b, { noiseLevel: level, noiseSeed: "0", excludeIds, arena }),
    },
  ];
  const components: Case[] = NOISE_COMPONENTS.map((comp) => ({
    name: `noisy level 1, ${comp} only, whole cloud`,
    input: fresh,
    run: (b: FrameBundle) => noisyPointCloud(b, { noiseLevel: 1, noiseSeed: "0", noiseComponents: [comp] }),
  }));
  for (const c of [...main, ...components]) c.run(c.input()); // JIT warm-up
  const report = (cases: Case[], rounds: number, gtIndex: (i: number) => number) => {
    const { ms, results } = timeInterleaved(cases, rounds);
    cases.forEach((c, i) => {
      const r = results[i]!,
        gt = gtIndex(i);
      const counts = r.source === "noisy" ? (r.meta as unknown as NoisyMeta).counts : null;
      const vsGt = gt < 0 || gt === i ? "" : `x${(ms[i]! / ms[gt]!).toFixed(2)} of gt, ${ms[i]! >= ms[gt]! ? "+" : ""}${(ms[i]! - ms[gt]!).toFixed(0)} ms; `;
      const extra =
        `${vsGt}${(r.count / 1e6).toFixed(2)} M points` +
        (counts && counts.flying ? `, ${counts.flying} flying (${counts.flyingKept} kept)` : "") +
        (counts && counts.blobs ? `, ${counts.blobs} blobs` : "");
      row(c.name, ms[i]!, extra);
    });
    return ms;
  };
  const ms = report(main, ROUNDS, (i) => (i < 2 ? 0 : i === 7 ? 0 : 2));
  console.log(`  per component (cold, best of ${COMPONENT_ROUNDS}):`);
  report(components, COMPONENT_ROUNDS, () => -1);
  const cold = ms[1]!;
  // an absolute time from issue 19's machine: a faster machine passes it sooner, so docs/performance.md gives the
  // like-for-like ratio against dad60a5's build, timed in one process
  ctx.goal(
    `noisy, cold run-like, default level ${level}, 30 views 518x392`,
    `${cold.toFixed(0)} ms (gt ${ms[0]!.toFixed(0)} ms; warm ${ms[7]!.toFixed(0)} ms)`,
    `< ${GOAL_MS} ms, an absolute time set on issue 19's slower machine; docs/performance.md: the ratio against dad60a5`,
    cold < GOAL_MS,
  );
}
