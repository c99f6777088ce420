/**
 * A compiled peer for the graph stage of the main job: how long Open3D (C++, one thread) takes for the
 * downsampling and denoising the default instance builder (`--instances fusion`, scenegraph/instances/
 * fusion.ts) does, on the very point sets ours does them on, beside our whole graph stage and its
 * memory-bandwidth floor (counted as bench/stages.ts counts it).
 *
 * The unit is bench/stages.ts's heavy one (heavyUnit.ts HEAVY_UNIT: a fresh multi render of
 * counting_with_occlusion, bench-graph #0), and the arms are the default run's whose graph stage is over 15x its
 * floor: gt, noisy and noisy-appearance. For each arm the fusion is replayed on the arm's cloud and evidence with
 * fusion.ts's own FusionState, through a DetectionCache that records what it is asked to compute (an appearance
 * arm after its oracle arm, as a run builds them, so only its own cache misses):
 *   - detections (step 1): every mask segment's raw points (at least MIN_DETECTION_POINTS), which fusion
 *     voxel-downsamples and denoises (largest DBSCAN cluster);
 *   - settled nodes (step 2): a node's points with the detections it gathered since, downsampled only;
 *   - nodes from detection voxels (step 3 as fusion does it, cluster.ts denoiseFused): per node before
 *     post-merge, its detections' denoised voxel means together, downsampled and denoised again. That is
 *     ConceptGraphs' step 3 too: its objects keep downsampled points only, never their raw ones;
 *   - nodes from raw members: each final node's raw points (armPipeline's r.members, after step 3 and the
 *     post-merges), downsampled and denoised from scratch: the "re-downsample from raw points" variant.
 * The sets are dumped and peers/o3d_fusion.py runs voxel_down_sample + cluster_dbscan on each; the same
 * steps are timed here with our primitives, and the per-set voxel and kept counts of both are compared
 * (ours is meant to be Open3D's arithmetic: voxelDownsample.ts, dbscan.ts).
 *
 * Open3D's figures cover those two steps alone: not the evidence, the association, the post-merges, the raw
 * member bookkeeping and per-voxel stats fusion keeps, nor the nodes and relations. So the Open3D time over
 * the graph stage's floor is a lower bound on where a compiled graph stage doing our steps would sit.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchContext } from "./context.js";
import { concatFloat32, concatUint32 } from "../core/concat.js";
import { graphStageBytes, HEAVY_UNIT, WARMUP_UNIT, type BenchUnit } from "./heavyUnit.js";
import { generateTask } from "../bridge/sim/generate/suite.js";
import { renderBundle } from "../bridge/sim/capture.js";
import type { FrameBundle } from "../core/bundle/io.js";
import { CloudArena, type PointCloud } from "../reconstruct/pointcloud.js";
import { armPipeline, cloudOrder } from "../src/eval/pipeline.js";
import { labelledFor, SharedCloud, type PipelineResult } from "../scenegraph/pipeline.js";
import { DEFAULT_RUN_CONFIG, threeDArms, type ThreeDArm } from "../src/eval/config.js";
import { labelledEvidence } from "../scenegraph/appearance.js";
import type { Evidence } from "../scenegraph/evidence.js";
import { DetectionCache, FusionState, pointsBySegment } from "../scenegraph/instances/fusion.js";
import { compactVoxels, gather, largestClusterMask, type Cluster, type DenoiseRule, type FusedPart } from "../scenegraph/instances/cluster.js";
import { DEFAULT_INSTANCE_PARAMS, DENOISE_MIN_KEEP, type InstanceParams } from "../scenegraph/instances/params.js";
import { voxelDownsample } from "../scenegraph/primitives/voxelDownsample.js";
import { sameValues } from "../scenegraph/primitives/sameValues.js";

/** Fresh rounds (generate, render, build) for our graph stage time; the best is kept, as in stages.ts. */
export const FUSION_PEER_ROUNDS = 3;
/** Passes over the dumped sets, on each side; each step's least time is kept. */
export const FUSION_PEER_REPEAT = 3;
/** The default run's arms whose graph stage is over 15x its floor (bench/stages.ts); gt-appearance is not. */
const ARMS = ["gt", "noisy", "noisy-appearance"];

const here = dirname(fileURLToPath(import.meta.url));
const peer = join(here, "..", "..", "bench", "peers", "o3d_fusion.py");
/** One arena for every build, as a run's worker keeps one (and stages.ts). A cloud in it lives until the next build. */
const arena = new CloudArena();

/**
 * A DetectionCache that also keeps what fusion asked it to compute: steps 1 and 3's inputs and results, and the
 * node points step 2 downsampled with the detections a node gathered (settled).
 */
class RecordingCache extends DetectionCache {
  readonly detections: Array<{ members: Uint32Array; part: FusedPart | null }> = [];
  readonly nodes: Array<{ parts: FusedPart[]; voxels: number }> = [];
  readonly settledInputs: Float32Array[] = [];
  readonly settledVoxels: number[] = [];

  /** Forgets what was recorded (the cache keeps its entries): the next replay records only what it computes anew. */
  reset(): void {
    this.detections.length = this.nodes.length = this.settledInputs.length = this.settledVoxels.length = 0;
  }

  override settled(xyz: Float32Array, pending: readonly Float32Array[], make: () => Float32Array): Float32Array {
    return super.settled(xyz, pending, () => {
      this.settledInputs.push(concatFloat32([xyz, ...pending]));
      const out = make();
      this.settledVoxels.push(out.length / 3);
      return out;
    });
  }

  override get(view: number, members: Uint32Array, make: () => FusedPart | null): FusedPart | null {
    return super.get(view, members, () => {
      const part = make();
      this.detections.push({ members, part });
      return part;
    });
  }

  override fused(parts: readonly FusedPart[], make: () => ReturnType<DetectionCache["fused"]>): ReturnType<DetectionCache["fused"]> {
    return super.fused(parts, () => {
      const node = make();
      this.nodes.push({ parts: [...parts], voxels: node.xyz.length / 3 });
      return node;
    });
  }
}

/** fuseDetections (fusion.ts) through a recording cache: every view in order, then one snapshot. */
function replayFusion(cloud: PointCloud, ev: Evidence, p: InstanceParams, rec: RecordingCache): Cluster[] {
  const bySeg = pointsBySegment(cloud, ev);
  const state = new FusionState(ev.mode, p, (xyz) => voxelDownsample(xyz, p.voxelM).xyz, rec);
  const byView = new Map<number, number[]>();
  ev.segments.forEach((s, k) => byView.set(s.view, [...(byView.get(s.view) ?? []), k]));
  for (const view of [...byView.keys()].sort((a, b) => a - b)) state.addView(cloud, ev, view, byView.get(view)!, (k) => bySeg[k]!);
  return state.snapshot(cloud);
}

/** A dumped set: cloud point indices per item, or points per item; `denoise: false`, downsampled only. */
type PointSet = ({ kind: "index"; items: Uint32Array[] } | { kind: "points"; items: Float32Array[] }) & { denoise?: false };

interface Steps {
  gather: number;
  voxel: number;
  dbscan: number;
  select: number;
}
interface SetResult {
  items: number;
  points: number;
  voxels: number;
  kept: number;
  steps_s: Steps;
  per_item: { voxels: number[]; kept: number[] };
}

const itemPoints = (s: PointSet) => s.items.map((x) => (s.kind === "index" ? x.length : x.length / 3));

/**
 * Our side of what o3d_fusion.py times, step for step with our primitives: gather, voxelDownsample,
 * DBSCAN with the largest cluster (largestClusterMask, which skips sets under minKeep voxels), and the
 * kept voxels compacted. Less than makeCluster/denoiseFused do: no raw members mapped, no stats.
 */
function oursSteps(cloud: PointCloud, set: PointSet, voxelM: number, rule: DenoiseRule): SetResult {
  const best: Steps = { gather: Infinity, voxel: Infinity, dbscan: Infinity, select: Infinity };
  const voxels: number[] = [],
    kept: number[] = [];
  for (let r = 0; r < FUSION_PEER_REPEAT; r++) {
    const s: Steps = { gather: 0, voxel: 0, dbscan: 0, select: 0 };
    voxels.length = kept.length = 0;
    for (const item of set.items) {
      const t0 = performance.now();
      const xyz = set.kind === "index" ? gather(cloud.xyz, item as Uint32Array) : (item as Float32Array);
      const t1 = performance.now();
      const ds = voxelDownsample(xyz, voxelM);
      const t2 = performance.now();
      const keep = set.denoise === false ? null : largestClusterMask(ds.xyz, ds.count, rule);
      const t3 = performance.now();
      const n = keep ? compactVoxels(ds.xyz, ds.count, keep).xyz.length / 3 : ds.count;
      const t4 = performance.now();
      (s.gather += t1 - t0), (s.voxel += t2 - t1), (s.dbscan += t3 - t2), (s.select += t4 - t3);
      voxels.push(ds.count);
      kept.push(n);
    }
    for (const k of Object.keys(best) as Array<keyof Steps>) best[k] = Math.min(best[k], s[k] / 1000);
  }
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return { items: set.items.length, points: sum(itemPoints(set)), voxels: sum(voxels), kept: sum(kept), steps_s: best, per_item: { voxels, kept } };
}

const bytesOf = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** Writes the cloud and the sets as o3d_fusion.py reads them (its docstring: raw little-endian arrays). */
function writeDump(dir: string, cloud: PointCloud, sets: Record<string, PointSet>, p: InstanceParams, rule: DenoiseRule): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "cloud.f32"), bytesOf(cloud.xyz.subarray(0, 3 * cloud.count)));
  const manifest: Record<string, unknown> = {
    voxel: p.voxelM,
    eps: rule.epsM,
    min_points: rule.minPoints,
    min_keep: rule.minKeep,
    cloud: { xyz: "cloud.f32", count: cloud.count },
    sets: {},
  };
  for (const [name, s] of Object.entries(sets)) {
    const all = s.kind === "index" ? concatUint32(s.items) : concatFloat32(s.items);
    // offsets in the file's items: indices for an index set, points (3 floats each) for a points set
    const per = s.kind === "index" ? 1 : 3;
    const off = new Uint32Array(s.items.length + 1);
    s.items.forEach((x, k) => (off[k + 1] = off[k]! + x.length / per));
    const data = s.kind === "index" ? `${name}.idx.u32` : `${name}.xyz.f32`;
    writeFileSync(join(dir, data), bytesOf(all));
    writeFileSync(join(dir, `${name}.off.u32`), bytesOf(off));
    (manifest.sets as Record<string, unknown>)[name] = {
      ...(s.kind === "index" ? { kind: "index", idx: data } : { kind: "points", xyz: data }),
      off: `${name}.off.u32`,
      ...(s.denoise === false ? { denoise: false } : {}),
    };
  }
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest));
}

/** Per item, how many agree; and the first few that differ, for the report. */
function agreement(ours: number[], theirs: number[]): { same: number; differ: string[] } {
  let same = 0;
  const differ: string[] = [];
  ours.forEach((v, k) => (v === theirs[k] ? same++ : differ.push(`#${k}: ours ${v}, Open3D ${theirs[k]}`)));
  return { same, differ: differ.slice(0, 5) };
}

/** One arm's sets, dumped while its cloud is alive (the arena's next build overwrites it). */
interface ArmExtract {
  cloudPoints: number;
  dir: string;
  sets: Record<string, PointSet>;
  ours: Record<string, SetResult>;
  /** fusion's own results, to check oursSteps against: kept voxels per detection, per step-3 node */
  fusionKept: Record<string, number[]>;
  nodesBeforeMerge: number;
  finalNodes: number;
  replayMatches: boolean;
  bytes: number;
  graphTimings: Record<string, number>;
}

async function extract(ctx: BenchContext, bundle: FrameBundle, r: PipelineResult, arm: ThreeDArm): Promise<ArmExtract> {
  // graphOfBundle never passes params: the graph is built with the defaults (r.graph.params records them)
  const p = DEFAULT_INSTANCE_PARAMS;
  const rule: DenoiseRule = { epsM: p.denoiseEpsM, minPoints: p.denoiseMinPoints, minKeep: DENOISE_MIN_KEEP };
  if (r.options.instances !== "fusion" || r.graph.params.voxelM !== p.voxelM)
    throw new Error(`fusionPeer: arm ${arm.label} was not built by fusion with the default params`);
  // the evidence buildSceneGraph fuses: the noisy cloud's relabelled masks, under the arm's label mode
  const labelled = await labelledFor(bundle, r.cloud);
  const ev = labelledEvidence(labelled, r.options.masks, r.options.labels, r.options.labelSeed);
  const rec = new RecordingCache();
  // an appearance arm follows its cloud's oracle arm in a run and shares its cache (fusion.ts DetectionCache):
  // replayed after it, it records only what it computes itself
  if (r.options.labels !== "oracle") {
    replayFusion(r.cloud, labelledEvidence(labelled, r.options.masks, "oracle", r.options.labelSeed), p, rec);
    rec.reset();
  }
  const nodes = replayFusion(r.cloud, ev, p, rec);
  // the replay must be the graph's fusion: the same final nodes' raw members
  const replayMatches = nodes.length === r.members.length && r.members.every((m) => nodes.some((n) => sameValues(n.members, m)));
  const sets: Record<string, PointSet> = {
    detections: { kind: "index", items: rec.detections.map((d) => d.members) },
    nodes_fused: { kind: "points", items: rec.nodes.map((n) => concatFloat32(n.parts.map((d) => d.xyz))) },
    settled: { kind: "points", items: rec.settledInputs, denoise: false },
    nodes_raw: { kind: "index", items: r.members },
  };
  const dir = join(ctx.workDir, `fusion-peer-${arm.label}`);
  writeDump(dir, r.cloud, sets, p, rule);
  const ours = Object.fromEntries(Object.entries(sets).map(([k, s]) => [k, oursSteps(r.cloud, s, p.voxelM, rule)]));
  const fusionKept = {
    detections: rec.detections.map((d) => (d.part ? d.part.xyz.length / 3 : 0)),
    nodes_fused: rec.nodes.map((n) => n.voxels),
    settled: rec.settledVoxels,
  };
  return {
    cloudPoints: r.cloud.count,
    dir,
    sets,
    ours,
    fusionKept,
    nodesBeforeMerge: rec.nodes.length,
    finalNodes: r.members.length,
    replayMatches,
    bytes: graphStageBytes(r, bundle, arm),
    graphTimings: r.graph.timings_ms ?? {},
  };
}

/** One fresh unit's arms that ARMS names, in the run's order; `onArm` sees each result while its cloud is alive. */
async function unit(which: BenchUnit, onArm?: (bundle: FrameBundle, r: PipelineResult, arm: ThreeDArm) => Promise<void>): Promise<Map<string, number>> {
  const bundle = renderBundle(generateTask(which.subcategory, which.seed, which.index), "multi");
  const config = DEFAULT_RUN_CONFIG;
  const all = threeDArms(config);
  const shared = new SharedCloud();
  const graphMs = new Map<string, number>();
  for (const arm of cloudOrder(config, all)
    .map((i) => all[i]!)
    .filter((a) => ARMS.includes(a.label))) {
    const r = await armPipeline(bundle, config, arm, { arena, shared, diagnose: false });
    graphMs.set(arm.label, r.timings_ms.graph!);
    await onArm?.(bundle, r, arm);
  }
  return graphMs;
}

const ms = (s: number) => (s * 1000).toFixed(1);
const core = (s: Steps) => s.voxel + s.dbscan;
const total = (s: Steps) => s.gather + s.voxel + s.dbscan + s.select;

interface Open3dResult {
  open3d: string;
  sets: Record<string, SetResult>;
}

/** peers/o3d_fusion.py over an arm's dump (one thread, FUSION_PEER_REPEAT passes). */
function runPeer(py: string, x: ArmExtract): Open3dResult {
  const out = join(x.dir, "o3d.json");
  const run = spawnSync(py, [peer, x.dir, "--out", out, "--threads", "1", "--repeat", String(FUSION_PEER_REPEAT)], {
    encoding: "utf8",
    env: { ...process.env, OMP_NUM_THREADS: "1" },
  });
  if (run.status !== 0) throw new Error(`o3d_fusion.py: exit ${run.status}\n${run.stderr}`);
  return JSON.parse(readFileSync(out, "utf8")) as Open3dResult;
}

/** Open3D's time for the arm's own steps: detections and step-3 nodes downsampled and denoised, settled nodes downsampled (ms). */
const open3dStepsMs = (o3d: Open3dResult) =>
  1000 * (core(o3d.sets.detections!.steps_s) + core(o3d.sets.nodes_fused!.steps_s) + o3d.sets.settled!.steps_s.voxel);

/** Whether Open3D found what fusion found: every set's per-item voxel and kept counts equal ours. */
const agrees = (x: ArmExtract, o3d: Open3dResult) =>
  ["detections", "nodes_fused", "settled"].every((k) => {
    const t = o3d.sets[k]!,
      u = x.ours[k]!;
    return agreement(u.per_item.voxels, t.per_item.voxels).same === t.items && agreement(u.per_item.kept, t.per_item.kept).same === t.items;
  });

/**
 * The compute floor bench/stages.ts sets beside an arm's graph stage: Open3D doing the arm's downsampling and
 * denoising on the very point sets it does them on, and whether both found the same voxels and clusters.
 */
export async function open3dGraphSteps(
  ctx: BenchContext,
  py: string,
  bundle: FrameBundle,
  r: PipelineResult,
  arm: ThreeDArm,
): Promise<{ ms: number; agrees: boolean; sets: string }> {
  const x = await extract(ctx, bundle, r, arm);
  const o3d = runPeer(py, x);
  const count = (k: string) => `${o3d.sets[k]!.items} ${k.replace("_", " ")}`;
  return { ms: open3dStepsMs(o3d), agrees: agrees(x, o3d) && x.replayMatches, sets: ["detections", "nodes_fused", "settled"].map(count).join(", ") };
}

export default async function benchFusionPeer(ctx: BenchContext): Promise<void> {
  const py = ctx.pythonWithOpen3d();
  if (!py) {
    console.log("  skipped: no /usr/bin/python3 with Open3D and numpy (bench/peers/README.md)");
    return;
  }
  const bw = ctx.bandwidth();
  await unit(WARMUP_UNIT);
  const best = new Map<string, number>();
  const extracts = new Map<string, ArmExtract>();
  for (let round = 0; round < FUSION_PEER_ROUNDS; round++) {
    (globalThis as { gc?: () => void }).gc?.();
    const last = round === FUSION_PEER_ROUNDS - 1;
    // the sets are taken in the last round, after its graphs are timed
    const times = await unit(HEAVY_UNIT, last ? async (bundle, r, arm) => void extracts.set(arm.label, await extract(ctx, bundle, r, arm)) : undefined);
    for (const [arm, t] of times) best.set(arm, Math.min(best.get(arm) ?? Infinity, t));
  }
  const floorMs = (bytes: number) => bytes / bw.floorGBps / 1e6;
  console.log(
    `  unit: ${HEAVY_UNIT.subcategory} (${HEAVY_UNIT.seed} #${HEAVY_UNIT.index}), multi, default run config; bandwidth floor at ${bw.floorGBps.toFixed(1)} GB/s; Open3D and our steps: 1 thread, best of ${FUSION_PEER_REPEAT} passes per step`,
  );
  for (const label of ARMS) {
    const x = extracts.get(label);
    if (!x) throw new Error(`fusionPeer: the default run has no ${label} arm`);
    const o3d = runPeer(py, x);
    const graphMs = best.get(label)!;
    const floor = floorMs(x.bytes);
    console.log(
      `\n  arm ${label}: cloud ${x.cloudPoints} points; graph stage best ${graphMs} ms of ${FUSION_PEER_ROUNDS} fresh rounds (last round's sub-stages ${JSON.stringify(x.graphTimings)}); floor ${floor.toFixed(2)} ms (${(x.bytes / 1e6).toFixed(1)} MB as stages.ts counts), ${(graphMs / floor).toFixed(0)}x`,
    );
    console.log(
      `  fusion replay: ${x.sets.detections!.items.length} detections, ${x.nodesBeforeMerge} nodes before post-merge, ${x.finalNodes} final nodes (${x.replayMatches ? "the graph's own nodes" : "NOT THE GRAPH'S NODES"})`,
    );
    console.log(
      `  ${"set".padEnd(34)} ${"items".padStart(5)} ${"points".padStart(8)} ${"voxels".padStart(7)} ${"kept".padStart(7)} | Open3D ${o3d.open3d} ms: gather  voxel dbscan select  v+d total | ours ms: gather  voxel dbscan select  v+d total`,
    );
    const names: Record<string, string> = {
      detections: "1  detections (raw points)",
      settled: "2  nodes settled (downsampled only)",
      nodes_fused: "3  nodes (detections' voxels)",
      nodes_raw: "3' final nodes (raw members)",
    };
    const row = (s: Steps) =>
      `${ms(s.gather).padStart(6)} ${ms(s.voxel).padStart(6)} ${ms(s.dbscan).padStart(6)} ${ms(s.select).padStart(6)} ${ms(core(s)).padStart(6)} ${ms(total(s)).padStart(5)}`;
    for (const [k, name] of Object.entries(names)) {
      const t = o3d.sets[k]!,
        u = x.ours[k]!;
      console.log(
        `  ${name.padEnd(34)} ${String(t.items).padStart(5)} ${String(t.points).padStart(8)} ${String(t.voxels).padStart(7)} ${String(t.kept).padStart(7)} |           ${row(t.steps_s)} |      ${row(u.steps_s)}`,
      );
    }
    const det = o3d.sets.detections!.steps_s,
      fused = o3d.sets.nodes_fused!.steps_s,
      settled = o3d.sets.settled!.steps_s;
    const steps = open3dStepsMs(o3d);
    console.log(
      `  Open3D's steps of this arm (detections and nodes downsampled and denoised, settled nodes downsampled): ${steps.toFixed(1)} ms (${ms(core(det))} + ${ms(core(fused))} + ${ms(settled.voxel)}), ${(steps / floor).toFixed(0)}x the graph stage's floor; with gather and select ${ms(total(det) + total(fused) + total(settled))} ms`,
    );
    for (const k of Object.keys(names)) {
      const t = o3d.sets[k]!,
        u = x.ours[k]!;
      const v = agreement(u.per_item.voxels, t.per_item.voxels),
        c = agreement(u.per_item.kept, t.per_item.kept);
      const diff = [...v.differ.map((d) => `voxels ${d}`), ...c.differ.map((d) => `kept ${d}`)];
      console.log(
        `  agreement ${k}: voxel counts ${v.same}/${t.items}, largest-cluster (kept) counts ${c.same}/${t.items}${diff.length ? `; differ: ${diff.join("; ")}` : ""}`,
      );
    }
    // our isolated steps must be what fusion computed (else the comparison is of something else)
    for (const [k, kept] of Object.entries(x.fusionKept)) {
      const same = agreement(x.ours[k]!.per_item.kept, kept).same;
      if (same !== kept.length) console.log(`  WARNING: our isolated ${k} steps keep other voxel counts than fusion did (${same}/${kept.length} agree)`);
    }
  }
}
