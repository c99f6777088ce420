/**
 * The whole graph pipeline against Open3D's, as users run it (issue 19): `esi3d graph BUNDLE --instances
 * dbscan --masks instance` as a whole process (node startup and imports, bundle read, back-projection, voxel
 * downsampling, DBSCAN, nodes, relations, the diagnosis its summary line prints) against our Open3D script
 * of the same steps and parameters (peers/o3d_graph.py), on the heaviest of a few 30-view bundles written
 * with writeBundle, for two seeds: the bench's own (bench-graph, the scene graph benches' bundles) and
 * another (issue 42 found the ratio 1.34-1.38x on a bundle of another seed while the bench said 2.13x, so
 * the goal must hold on more than the one bundle the code was tuned on). The two processes run
 * alternately (A/B pairs, best of each); both must find the same nodes. Goal: ours at least 2x faster on
 * each bundle.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CLI_MAIN, type BenchContext } from "./context.js";
import { generateTask } from "../bridge/sim/generate/suite.js";
import { captureBundle } from "../bridge/sim/capture.js";
import { writeBundle } from "../core/bundle/io.js";
import { FUSION_VOXEL_M } from "../scenegraph/instances/params.js";

/** The seeds whose bundles are timed: the graph benches' own, and one the code was not measured on before. */
export const PIPELINE_SEEDS = ["bench-graph", "1"] as const;
/** The multi-view scenes of each seed the heaviest (most object pixels) is taken from: counting, furniture, many objects. */
const PIPELINE_SCENES = ["counting_with_occlusion", "spatial_segmentation", "view_hallucination", "category_ambiguity"] as const;
/** A/B pairs: each pair runs ours then Open3D's, so both see the same machine load. */
export const PIPELINE_PAIRS = 5;
/**
 * Box centres (axis-aligned, of the voxel points) must agree within one voxel: both sides use the same
 * voxel grid (ours is Open3D's arithmetic) and DBSCAN semantics, so only a border voxel that joins a
 * different neighbour may move a box, and a voxel is at most 0.025 m across.
 */
export const CENTRE_TOLERANCE_M = FUSION_VOXEL_M;

const here = dirname(fileURLToPath(import.meta.url));
const peer = join(here, "..", "..", "bench", "peers", "o3d_graph.py");

interface Box {
  min: number[];
  max: number[];
}
const centre = (b: Box) => b.min.map((v, k) => (v + b.max[k]!) / 2);

function run(cmd: string, args: string[]): number {
  const t = performance.now();
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: exit ${r.status}\n${r.stderr}`);
  return ms;
}

/** Nodes of both outputs paired by label and box centre; null when they agree, else what differs. */
function mismatch(ours: { label: string; aabb: Box; point_count: number }[], theirs: { label: string; aabb: Box; voxels: number }[]): string | null {
  if (ours.length !== theirs.length) return `${ours.length} nodes vs Open3D's ${theirs.length}`;
  const left = [...theirs];
  for (const n of ours) {
    const c = centre(n.aabb);
    const k = left.findIndex((m) => m.label === n.label && centre(m.aabb).every((v, i) => Math.abs(v - c[i]!) <= CENTRE_TOLERANCE_M));
    if (k < 0) return `no Open3D node matches our ${n.label} at [${c.map((v) => v.toFixed(3))}] (${n.point_count} voxels)`;
    left.splice(k, 1);
  }
  return null;
}

/** Ours against Open3D's on the heaviest of the seed's scenes; the goal line for that bundle. */
function pipelineOnSeed(ctx: BenchContext, py: string, seed: string): void {
  const captures = PIPELINE_SCENES.map((s) => captureBundle(generateTask(s, seed, 0), "multi"));
  const objectPixels = (c: (typeof captures)[number]) => c.payloads.reduce((n, v) => n + v.ids.filter((id) => id >= 16).length, 0);
  const heaviest = captures.sort((a, b) => objectPixels(b) - objectPixels(a))[0]!;
  const dir = join(ctx.workDir, `graph-pipeline-bundle-${seed}`);
  writeBundle(dir, heaviest.manifest, heaviest.payloads);
  const oursOut = join(ctx.workDir, "graph-pipeline-ours.json"),
    theirsOut = join(ctx.workDir, "graph-pipeline-o3d.json");
  const ours: number[] = [],
    theirs: number[] = [];
  for (let i = 0; i < PIPELINE_PAIRS; i++) {
    ours.push(run(process.execPath, [CLI_MAIN, "graph", dir, "--instances", "dbscan", "--masks", "instance", "-o", oursOut]));
    theirs.push(run(py, [peer, dir, "--out", theirsOut, "--threads", "1"]));
  }
  const importMs = run(py, ["-c", "import numpy, PIL.Image, open3d"]);
  const g = JSON.parse(readFileSync(oursOut, "utf8")) as { nodes: { label: string; aabb: Box; point_count: number }[]; timings_ms: Record<string, number> };
  const o = JSON.parse(readFileSync(theirsOut, "utf8")) as {
    nodes: { label: string; aabb: Box; voxels: number }[];
    points: number;
    import_s: number;
    stages_s: Record<string, number>;
  };
  const differs = mismatch(g.nodes, o.nodes);
  const best = (xs: number[]) => Math.min(...xs);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const name = `seed ${seed}, ${heaviest.manifest.task_id}`;
  console.log(
    `  bundle (${name}): ${heaviest.payloads.length} views, ${o.points} object points; ${g.nodes.length} nodes, ${differs ? `NODES DIFFER: ${differs}` : `the same nodes as Open3D's (label, box centre within ${CENTRE_TOLERANCE_M} m)`}`,
  );
  console.log(
    `    esi3d graph (whole process): best ${best(ours).toFixed(0)} ms, median ${median(ours).toFixed(0)} ms; graph stages ${JSON.stringify(g.timings_ms)}`,
  );
  console.log(
    `    Open3D script (whole process, 1 thread): best ${best(theirs).toFixed(0)} ms, median ${median(theirs).toFixed(0)} ms; its stages (s) ${JSON.stringify(o.stages_s)}; importing numpy, PIL and Open3D alone ${importMs.toFixed(0)} ms (in-script ${(o.import_s * 1000).toFixed(0)} ms)`,
  );
  const ratio = best(theirs) / best(ours);
  ctx.goal(
    `esi3d graph vs Open3D's pipeline of the same steps, whole process (${name})`,
    `${ratio.toFixed(2)}x faster (${best(ours).toFixed(0)} vs ${best(theirs).toFixed(0)} ms)`,
    ">= 2x faster, the same nodes",
    ratio >= 2 && differs === null,
  );
}

export default async function benchGraphPipeline(ctx: BenchContext): Promise<void> {
  const py = ctx.pythonWithOpen3d();
  if (!py) {
    console.log("  skipped: no /usr/bin/python3 with Open3D and numpy (bench/peers/README.md)");
    return;
  }
  for (const seed of PIPELINE_SEEDS) pipelineOnSeed(ctx, py, seed);
}
