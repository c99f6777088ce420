#!/usr/bin/env node
// The noisy cloud of dad60a5's work (its 5 components at its level 0.5, structure excluded, a reused arena, as
// a run builds it) from a base build (A, default dad60a5, issue 19's reference) and this checkout's dist/ (B),
// in one process: each call gets a fresh copy of a rendered 30-view bundle (so no cache is warm), the builds
// alternate within each round, and a full GC runs before each call. Prints each build's best time per bundle
// and the ratio A / B. The like-for-like form of `npm run bench -- noisy`, whose goal is an absolute time.
//
//   node --expose-gc scripts/ab-noisy.mjs [--base dad60a5] [--rounds 5]
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBase } from "./base-build.mjs";

const repo = resolve(fileURLToPath(new URL("..", import.meta.url)));
const argv = process.argv.slice(2);
const flag = (name, fallback) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : fallback);
const usage = (message) => {
  console.error(`ab-noisy: ${message}\nusage: node --expose-gc scripts/ab-noisy.mjs [--base COMMIT] [--rounds N]`);
  process.exit(2);
};
const rounds = Number(flag("rounds", "5"));
if (!Number.isInteger(rounds) || rounds < 1) usage(`--rounds must be a positive integer, got ${flag("rounds")}`);
if (!globalThis.gc) usage("run node with --expose-gc (a full GC before each call keeps the last cloud's collection out of the next timing)");

const a = buildBase(repo, flag("base", "dad60a5"), usage);
const builds = [
  { name: `A ${a.sha.slice(0, 12)}`, dist: `${a.dir}/dist` },
  { name: "B this dist/", dist: `${repo}/dist` },
];
for (const b of builds) {
  b.noisy = (await import(`${b.dist}/reconstruct/noisy/index.js`)).noisyPointCloud;
  b.arena = new (await import(`${b.dist}/reconstruct/pointcloud.js`)).CloudArena();
  b.best = Infinity;
}
// the bundles from this checkout's simulator (the renderer's output is pinned to the bit since before dad60a5)
const { generateTask } = await import(`${repo}/dist/bridge/sim/generate/suite.js`);
const { renderBundle } = await import(`${repo}/dist/bridge/sim/capture.js`);
const bundles = ["counting_with_occlusion", "spatial_distance", "linear_alignment"].map((s) => renderBundle(generateTask(s, "bench", 0), "multi"));
const fresh = (b) => ({
  ...b,
  views: b.views.map((v) => ({ ...v, depth: new Float32Array(v.depth), rgb: new Uint8Array(v.rgb), ids: new Uint16Array(v.ids) })),
});
const structure = (b) => new Set(b.manifest.instances.filter((e) => e.structure).map((e) => e.id));
const options = { seed: "0", level: 0.5, components: ["depth", "pose", "flying", "dropout", "blobs"] };

for (let r = 0; r < rounds; r++) {
  for (const b of builds) {
    let ms = 0;
    for (const bundle of bundles) {
      const input = fresh(bundle);
      globalThis.gc();
      const t = performance.now();
      b.noisy(input, { ...options, excludeIds: structure(input), arena: b.arena });
      ms += performance.now() - t;
    }
    b.best = Math.min(b.best, ms / bundles.length);
  }
}
console.log(`noisy cloud of dad60a5's work, 30 views 518x392, cold, best of ${rounds} interleaved rounds over ${bundles.length} bundles:`);
for (const b of builds) console.log(`  ${b.name.padEnd(20)} ${b.best.toFixed(0)} ms per bundle`);
console.log(`ratio A/B: ${(builds[0].best / builds[1].best).toFixed(2)}x (issue 19: >= 3x, a third of dad60a5's time)`);
