/**
 * Our renderer against a compiled peer of itself: bench/peers/raster_peer.cpp is bridge/sim/raster.ts (with
 * cull.ts) written again in C++17, the same algorithm and the same floating-point operations in the same
 * order, so that it gives the same images bit for bit. It shows how far a compiled implementation of this
 * very algorithm sits from the memory-bandwidth floor of its output, and how far ours sits from it.
 *
 * Per task: the scene (buildScene) and the cameras captureBundle(task, "multi") renders, only the distinct
 * poses (captureBundle copies a view whose pose repeats an earlier one instead of rendering it again, so the
 * dump holds the views it actually renders), written to a binary dump (its format: the peer's header). The
 * peer is compiled with g++ -O3 -march=native -ffp-contract=off; our `render` over the same cameras and the
 * peer's process run alternately (A/B pairs, best of each). Both time only the render loop over the views,
 * best of RENDER_REPS passes; ours allocates each view's output arrays (as render does), the peer writes into
 * buffers allocated before its timing. Every view's rgb, depth and ids must be equal byte for byte.
 *
 *   node --expose-gc dist/bench/main.js renderPeer
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchContext } from "./context.js";
import { HEAVY_UNIT, type BenchUnit } from "./heavyUnit.js";
import { generateTask } from "../bridge/sim/generate/suite.js";
import { captureBundle } from "../bridge/sim/capture.js";
import { buildScene, FLOOR_ID, FLOOR_TILE_M, type RenderScene } from "../bridge/sim/scene.js";
import { GLASS_TRANSMITTANCE, NEAR_PLANE_M, render, SKY_RGB, type RenderCamera, type RenderOutput } from "../bridge/sim/raster.js";
import { CULL_MARGIN_PX, CULL_NEAR_MARGIN_M } from "../bridge/sim/cull.js";
import { paradigmViews } from "../bridge/sim/views.js";
import { intrinsicsFromHfov, poseToExtrinsic } from "../src/core/math/camera.js";
import { colorRgb } from "../bridge/task/palette.js";
import type { Task } from "../bridge/task/schema.js";

/** A/B pairs: each runs ours, then the peer's process, so both see the same machine load. */
export const PEER_PAIRS = 5;
/** Passes over all views per side and pair (the peer's argv REPS); each side keeps its best. */
export const RENDER_REPS = 3;
/** The flags the peer is built with: -ffp-contract=off, as an FMA would change the bits of a*b+c. */
export const PEER_CXXFLAGS = ["-O3", "-march=native", "-ffp-contract=off", "-fno-fast-math", "-std=c++17"];

interface PeerTask extends BenchUnit {
  /** what the task exercises */
  why: string;
}

/** bench/stages.ts's HEAVY unit first, then glass scenes (blending) and point-light scenes (per-pixel shading). */
const TASKS: PeerTask[] = [
  { ...HEAVY_UNIT, why: "stages.ts HEAVY" },
  { subcategory: "material_transparency", seed: "bench-graph", index: 0, why: "glass" },
  { subcategory: "material_transparency", seed: "bench-graph", index: 1, why: "glass" },
  { subcategory: "illumination_variability", seed: "bench-graph", index: 0, why: "point lights" },
  { subcategory: "illumination_variability", seed: "bench-graph", index: 1, why: "point lights" },
];

const here = dirname(fileURLToPath(import.meta.url));
const PEER_SOURCE = join(here, "..", "..", "bench", "peers", "raster_peer.cpp");

/** The cameras captureBundle(task, "multi") renders: one per distinct pose (its repeats are copies). */
export function renderedCameras(task: Task): { cams: RenderCamera[]; planned: number } {
  const { width, height, hfov_deg } = task.camera;
  const K = intrinsicsFromHfov(width, height, hfov_deg);
  const planned = paradigmViews(task, "multi");
  const seen = new Set<string>();
  const cams: RenderCamera[] = [];
  for (const pv of planned) {
    const E = poseToExtrinsic(pv.pose);
    const key = E.flat().join(" "); // captureBundle's key
    if (seen.has(key)) continue;
    seen.add(key);
    cams.push({ width, height, K, E });
  }
  return { cams, planned: planned.length };
}

/** Little-endian fields appended in order (the peer's DUMP format). */
class DumpWriter {
  private parts: Buffer[] = [];
  raw(b: ArrayBufferView): void {
    this.parts.push(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  }
  u32(...v: number[]): void {
    this.raw(Uint32Array.from(v));
  }
  f64(...v: number[]): void {
    this.raw(Float64Array.from(v));
  }
  u8(...v: number[]): void {
    this.raw(Uint8Array.from(v));
  }
  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}

export function writeDump(path: string, scene: RenderScene, cams: RenderCamera[]): void {
  const w = new DumpWriter();
  const L = scene.lighting;
  w.raw(Buffer.from("ESIRPv01", "latin1"));
  w.u32(scene.triId.length, cams.length, L.lights.length, L.sun ? 1 : 0);
  w.f64(NEAR_PLANE_M, GLASS_TRANSMITTANCE, FLOOR_TILE_M, CULL_MARGIN_PX, CULL_NEAR_MARGIN_M);
  w.u32(FLOOR_ID);
  w.u8(...SKY_RGB);
  w.u8(...colorRgb("glass"));
  // the engine's pow, as shade's table computes it (V8's pow and glibc's differ in the last bit for some n)
  const transmit = new Float64Array(256);
  for (let n = 0; n < 256; n++) transmit[n] = GLASS_TRANSMITTANCE ** n;
  w.raw(transmit);
  w.f64(L.ambient, ...(L.sun ? L.sun.direction : [0, 0, 0]), L.sun ? L.sun.intensity : 0);
  for (const lt of L.lights) w.f64(...lt.position, lt.intensity, lt.range);
  w.raw(scene.tris);
  w.raw(scene.normals);
  w.raw(scene.triId);
  w.raw(scene.triRgb);
  w.raw(scene.triGlass);
  for (const c of cams) {
    w.u32(c.width, c.height);
    w.f64(c.K.fx, c.K.fy, c.K.cx, c.K.cy, ...c.E.flat());
  }
  writeFileSync(path, w.bytes());
}

const bytesOf = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** Byte-for-byte comparison of our views with the peer's output file; null when all are equal. */
export function compareImages(ours: RenderOutput[], peerFile: string): string | null {
  const file = readFileSync(peerFile);
  let at = 0, differing = 0, rgbDiff = 0, depthDiff = 0, idsDiff = 0;
  let first: string | null = null;
  ours.forEach((o, v) => {
    const N = o.width * o.height;
    const rgb = file.subarray(at, (at += 3 * N));
    const depth = file.subarray(at, (at += 4 * N));
    const ids = file.subarray(at, (at += 2 * N));
    const oRgb = bytesOf(o.rgb!), oDepth = bytesOf(o.depth), oIds = bytesOf(o.ids);
    if (rgb.equals(oRgb) && depth.equals(oDepth) && ids.equals(oIds)) return;
    for (let p = 0; p < N; p++) {
      const dr = rgb[3 * p] !== oRgb[3 * p] || rgb[3 * p + 1] !== oRgb[3 * p + 1] || rgb[3 * p + 2] !== oRgb[3 * p + 2];
      const dd = depth.readUInt32LE(4 * p) !== oDepth.readUInt32LE(4 * p);
      const di = ids.readUInt16LE(2 * p) !== oIds.readUInt16LE(2 * p);
      if (!(dr || dd || di)) continue;
      differing++;
      if (dr) rgbDiff++;
      if (dd) depthDiff++;
      if (di) idsDiff++;
      first ??=
        `view ${v} pixel (${p % o.width}, ${Math.floor(p / o.width)}): ours rgb ${[...oRgb.subarray(3 * p, 3 * p + 3)]} depth ${oDepth.readFloatLE(4 * p)} id ${oIds.readUInt16LE(2 * p)}; ` +
        `peer rgb ${[...rgb.subarray(3 * p, 3 * p + 3)]} depth ${depth.readFloatLE(4 * p)} id ${ids.readUInt16LE(2 * p)}`;
    }
  });
  if (at !== file.length) return `the peer wrote ${file.length} bytes, ${at} expected`;
  if (differing === 0) return null;
  return `${differing} pixels differ (rgb ${rgbDiff}, depth ${depthDiff}, ids ${idsDiff}); first: ${first}`;
}

/** The peer's binary in `dir`, or null when there is no g++ (the bench then skips the peer). */
export function compilePeer(dir: string): string | null {
  const exe = join(dir, "raster_peer");
  const r = spawnSync("g++", [...PEER_CXXFLAGS, "-o", exe, PEER_SOURCE], { encoding: "utf8" });
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") return null;
  if (r.status !== 0) throw new Error(`g++ ${PEER_SOURCE}: exit ${r.status}\n${r.stderr}`);
  return exe;
}

/** The peer's best render-loop time (ms) over the dump's cameras; its images of the last pass go to `out`. */
export function runPeer(exe: string, dump: string, out: string): number {
  const r = spawnSync(exe, [dump, out, String(RENDER_REPS)], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${exe}: exit ${r.status}\n${r.stderr}`);
  return (JSON.parse(r.stdout) as { views: number; best_ms: number; all_ms: number[] }).best_ms;
}

interface Row {
  task: string;
  scene: string;
  /** views rendered (distinct poses) and planned */
  rendered: number;
  planned: number;
  pixels: number;
  oursMs: number;
  peerMs: number;
  same: string | null;
}

export default async function benchRenderPeer(ctx: BenchContext): Promise<void> {
  const dir = join(ctx.workDir, "render-peer");
  mkdirSync(dir, { recursive: true });
  const exe = compilePeer(dir);
  if (!exe) {
    console.log("  skipped: no g++ on PATH to build the compiled peer (bench/peers/raster_peer.cpp)");
    return;
  }
  console.log(`  peer: g++ ${PEER_CXXFLAGS.join(" ")} (${PEER_SOURCE})`);
  const rows: Row[] = [];
  for (const t of TASKS) {
    const task = generateTask(t.subcategory, t.seed, t.index);
    const scene = buildScene(task);
    const { cams, planned } = renderedCameras(task);
    // the cameras are captureBundle's: its first view of each pose is our render of that camera
    const captured = captureBundle(task, "multi").payloads;
    const keys = paradigmViews(task, "multi").map((pv) => poseToExtrinsic(pv.pose).flat().join(" "));
    const firstOf = [...new Set(keys)].map((k) => keys.indexOf(k));
    const dump = join(dir, `${t.subcategory}-${t.index}.dump`), out = join(dir, `${t.subcategory}-${t.index}.out`);
    writeDump(dump, scene, cams);
    let oursMs = Infinity, peerMs = Infinity;
    let ours: RenderOutput[] = [];
    for (let pair = 0; pair < PEER_PAIRS; pair++) {
      (globalThis as { gc?: () => void }).gc?.();
      for (let r = 0; r < RENDER_REPS; r++) {
        const t0 = performance.now();
        ours = cams.map((cam) => render(scene, cam));
        oursMs = Math.min(oursMs, performance.now() - t0);
      }
      peerMs = Math.min(peerMs, runPeer(exe, dump, out));
    }
    const bundleSame = firstOf.length === ours.length && firstOf.every((i, v) => bytesOf(captured[i]!.rgb).equals(bytesOf(ours[v]!.rgb!)) && bytesOf(captured[i]!.depth).equals(bytesOf(ours[v]!.depth)) && bytesOf(captured[i]!.ids).equals(bytesOf(ours[v]!.ids)));
    if (!bundleSame) throw new Error(`${task.task_id}: render of the dumped cameras is not captureBundle's images`);
    const glassTris = scene.triGlass.reduce((n, g) => n + g, 0);
    const L = scene.lighting;
    rows.push({
      task: `${t.subcategory} #${t.index} (${t.why})`,
      scene: `${scene.triId.length} tris, ${glassTris} glass, ${L.lights.length} lights${L.sun ? ", sun" : ""}`,
      rendered: cams.length,
      planned,
      pixels: cams.length * task.camera.width * task.camera.height,
      oursMs,
      peerMs,
      same: compareImages(ours, out),
    });
  }
  rmSync(dir, { recursive: true, force: true }); // the peer's images: about 50 MB a task

  const bw = ctx.bandwidth();
  // the floor: the views' rgb, depth and ids written (9 bytes a pixel), as bench/stages.ts counts the render
  const floorMs = (pixels: number) => (9 * pixels) / bw.floorGBps / 1e6;
  console.log(`  our render vs the C++ peer, best of ${PEER_PAIRS} A/B pairs x ${RENDER_REPS} passes each, single thread; views: rendered (distinct poses) of planned; floor: rgb+depth+ids written at ${bw.floorGBps.toFixed(1)} GB/s`);
  console.log(`  ${"task".padEnd(44)} ${"scene".padEnd(36)} ${"views".padStart(9)} ${"ours ms".padStart(8)} ${"peer ms".padStart(8)} ${"ours/peer".padStart(9)} ${"ms/view".padStart(13)} ${"floor ms".padStart(8)} ${"peer/floor".padStart(10)} ${"ours/floor".padStart(10)}  images`);
  for (const r of rows) {
    const perView = `${(r.oursMs / r.rendered).toFixed(2)}/${(r.peerMs / r.rendered).toFixed(2)}`;
    const f = floorMs(r.pixels);
    console.log(
      `  ${r.task.padEnd(44)} ${r.scene.padEnd(36)} ${`${r.rendered} of ${r.planned}`.padStart(9)} ${r.oursMs.toFixed(1).padStart(8)} ${r.peerMs.toFixed(1).padStart(8)} ${`${(r.oursMs / r.peerMs).toFixed(2)}x`.padStart(9)} ${perView.padStart(13)} ${f.toFixed(2).padStart(8)} ${`${(r.peerMs / f).toFixed(0)}x`.padStart(10)} ${`${(r.oursMs / f).toFixed(0)}x`.padStart(10)}  ${r.same === null ? "bit-identical" : `DIFFER: ${r.same}`}`,
    );
  }
  console.log(`  (ms/view: ours/peer; ${TASKS[0]!.subcategory} #${TASKS[0]!.index} is bench/stages.ts's HEAVY unit; the rest check glass blending and point-light shading)`);
}
