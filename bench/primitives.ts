/**
 * Point-cloud primitives vs Open3D (bench/peers/o3d_peer.py, 1 thread) on the same shuffled
 * gen_scene.py clouds in the same run: voxel downsampling (0.02 m), DBSCAN (eps 0.05, min 10, on the
 * downsampled cloud), plus kd-tree / grid build and radius search. (The comparison of our kd-tree with
 * kd-tree-javascript is retired with that dependency; its last figures are in docs/performance.md.)
 * Results must agree exactly (same voxel points, same labels); speed is reported as ratios.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/main.js primitives
 *   ESI3D_BENCH_SIZES=1m node dist/bench/main.js primitives     (skip the 4M cloud)
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchContext } from "./context.js";
import { voxelDownsample } from "../scenegraph/primitives/voxelDownsample.js";
import { dbscanDetailed } from "../scenegraph/primitives/dbscan.js";
import { KdTree3 } from "../scenegraph/primitives/kdtree.js";
import { VoxelHashGrid } from "../scenegraph/primitives/hashGrid.js";

const VOXEL = 0.02,
  EPS = 0.05,
  MIN_POINTS = 10,
  RADIUS = 0.02,
  QUERIES = 10_000;
/** Runs (best taken) for the fast operations, on both sides: a shared machine's noise is tens of ms. */
const FAST_RUNS = 7;

const here = dirname(fileURLToPath(import.meta.url));
// dist/bench -> repository root -> bench/peers (the project's own copies of the peer scripts)
const peersDir = [resolve(here, "../../bench/peers"), resolve(here, "peers")].find((p) => existsSync(join(p, "o3d_peer.py")));

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function readF32(path: string): Float32Array {
  const b = readFileSync(path);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

function writeF32(path: string, a: Float32Array): void {
  writeFileSync(path, Buffer.from(a.buffer, a.byteOffset, a.byteLength));
}

function peer(py: string, args: string[]): { seconds: number } & Record<string, unknown> {
  const out = execFileSync(py, [join(peersDir!, "o3d_peer.py"), "--threads", "1", ...args], { encoding: "utf8", maxBuffer: 1 << 26 });
  return JSON.parse(out.trim().split("\n").pop()!) as { seconds: number } & Record<string, unknown>;
}

/** Whether two clouds hold the same float32 points (bit patterns), in any order. */
function sameTuples(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false;
  const key = (x: Float32Array) => {
    const u = new Uint32Array(x.buffer, x.byteOffset, x.length);
    const keys: string[] = [];
    for (let i = 0; i < u.length; i += 3) keys.push(`${u[i]},${u[i + 1]},${u[i + 2]}`);
    return keys.sort();
  };
  const ka = key(a),
    kb = key(b);
  return ka.every((k, i) => k === kb[i]);
}

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const ratio = (theirs: number, ours: number) => theirs / ours;

export default async function primitives(ctx: BenchContext): Promise<void> {
  const py = ctx.pythonWithOpen3d();
  if (!py || !peersDir) {
    console.log("  Open3D peer unavailable (needs /usr/bin/python3 with python3-open3d): no comparison possible");
    ctx.goal("primitives vs Open3D", "not measured", "Open3D installed", false);
    return;
  }
  const dataDir = join(ctx.workDir, "primitives");
  mkdirSync(dataDir, { recursive: true });
  const sizes = (process.env.ESI3D_BENCH_SIZES ?? "1m,4m").split(",");
  console.log(`  generating ${sizes.join(", ")} clouds with gen_scene.py (shuffled, 2 mm noise, 0.1 % outliers) ...`);
  execFileSync(py, [join(peersDir, "gen_scene.py"), "--sizes", [...sizes, "100k"].join(","), "--out", dataDir], { stdio: "ignore" });

  // Untimed calls of each operation on the 100k cloud first, so the timed runs measure optimised code
  // as in a long-running process (V8 compiles hot functions after their first runs; Open3D is native
  // and needs no warm-up).
  const warm = readF32(join(dataDir, "scene_100k.f32"));
  for (let i = 0; i < 3; i++) {
    const d = voxelDownsample(warm, VOXEL).xyz;
    dbscanDetailed(d, EPS, MIN_POINTS);
    new KdTree3(warm).within(0, 0, 0, RADIUS);
    new VoxelHashGrid(warm, RADIUS).countWithin(0, 0, 0, RADIUS);
  }
  console.log(`  Open3D with 1 thread; both sides best of ${FAST_RUNS} runs, in ms;`);
  console.log(`  ours after 3 warm-up calls of each operation on a 100k cloud (the machine is shared: ratios from one run)`);
  console.log(`  ${"op".padEnd(34)}${"size".padStart(6)}${"ours".padStart(10)}${"Open3D".padStart(10)}${"ratio".padStart(8)}  agreement`);
  const row = (op: string, size: string, ours: number, theirs: number | null, agree: string) =>
    console.log(
      `  ${op.padEnd(34)}${size.padStart(6)}${fmt(ours).padStart(10)}${(theirs === null ? "-" : fmt(theirs)).padStart(10)}${(theirs === null ? "-" : ratio(theirs, ours).toFixed(1) + "x").padStart(8)}  ${agree}`,
    );

  for (const size of sizes) {
    const file = join(dataDir, `scene_${size}.f32`);
    const xyz = readF32(file);
    const n = xyz.length / 3;
    gc();

    // voxel downsampling
    const vox = await ctx.time(() => voxelDownsample(xyz, VOXEL), FAST_RUNS);
    const o3dDown = join(dataDir, `o3d_down_${size}.f32`);
    const pv = peer(py, ["--in", file, "--op", "voxel", "--voxel", String(VOXEL), "--runs", String(FAST_RUNS), "--out", o3dDown]);
    const voxSame = vox.result.count === pv.points_out && sameTuples(vox.result.xyz, readF32(o3dDown));
    row(`voxel downsample ${VOXEL}`, size, vox.ms, pv.seconds * 1000, `${vox.result.count} pts, ${voxSame ? "bit-identical" : "DIFFERENT"}`);

    // DBSCAN on the downsampled cloud (ours, written for Open3D in our order)
    const down = vox.result.xyz;
    const downFile = join(dataDir, `down_${size}.f32`);
    writeF32(downFile, down);
    gc();
    const db = await ctx.time(() => dbscanDetailed(down, EPS, MIN_POINTS), FAST_RUNS);
    const labFile = join(dataDir, `labels_${size}.i32`);
    const pd = peer(py, [
      "--in",
      downFile,
      "--op",
      "dbscan",
      "--eps",
      String(EPS),
      "--min-points",
      String(MIN_POINTS),
      "--runs",
      String(FAST_RUNS),
      "--out",
      labFile,
    ]);
    const theirLabels = new Int32Array(readFileSync(labFile).buffer.slice(0));
    let labelDiff = 0;
    for (let i = 0; i < theirLabels.length; i++) if (theirLabels[i] !== db.result.labels[i]) labelDiff++;
    const dbSame = labelDiff === 0 && theirLabels.length === db.result.labels.length;
    row(
      `DBSCAN eps ${EPS} min ${MIN_POINTS}`,
      size,
      db.ms,
      pd.seconds * 1000,
      `${db.result.clusterCount} clusters, ${dbSame ? "identical labels" : `${labelDiff} labels differ`}`,
    );

    // spatial indexes: build + 10k radius queries (every n/10k-th point, as bench_peers.py)
    gc();
    const step = Math.floor(n / QUERIES);
    const out: number[] = [];
    const kd = await ctx.time(() => new KdTree3(xyz));
    const kdq = await ctx.time(() => {
      let total = 0;
      for (let q = 0; q < QUERIES; q++) {
        out.length = 0;
        total += kd.result.within(xyz[3 * q * step]!, xyz[3 * q * step + 1]!, xyz[3 * q * step + 2]!, RADIUS, out).length;
      }
      return total;
    });
    row("kd-tree build", size, kd.ms, null, "");
    row(`kd-tree ${QUERIES / 1000}k radius ${RADIUS} queries`, size, kdq.ms, null, `${kdq.result} neighbours`);
    const grid = await ctx.time(() => new VoxelHashGrid(xyz, RADIUS));
    const gq = await ctx.time(() => {
      let total = 0;
      for (let q = 0; q < QUERIES; q++) total += grid.result.countWithin(xyz[3 * q * step]!, xyz[3 * q * step + 1]!, xyz[3 * q * step + 2]!, RADIUS);
      return total;
    });
    row(`voxel grid (cell ${RADIUS}) build`, size, grid.ms, null, "");
    row(`voxel grid ${QUERIES / 1000}k radius queries`, size, gq.ms, null, gq.result === kdq.result ? "same counts as kd-tree" : "COUNTS DIFFER");

    if (size === "1m") {
      const r = (theirs: number, ours: number) => ratio(theirs, ours).toFixed(1) + "x";
      ctx.goal(
        "voxel downsampling 1M vs Open3D (1 thread)",
        `${r(pv.seconds * 1000, vox.ms)} (${fmt(vox.ms)} vs ${fmt(pv.seconds * 1000)} ms), ${voxSame ? "bit-identical" : "DIFFERENT"}`,
        ">= 2x, identical",
        voxSame && ratio(pv.seconds * 1000, vox.ms) >= 2,
      );
      ctx.goal(
        "DBSCAN on the downsampled 1M cloud vs Open3D",
        `${r(pd.seconds * 1000, db.ms)} (${fmt(db.ms)} vs ${fmt(pd.seconds * 1000)} ms), ${dbSame ? "identical labels" : "labels differ"}`,
        ">= 2x, identical labels",
        dbSame && ratio(pd.seconds * 1000, db.ms) >= 2,
      );
    }
  }
}
