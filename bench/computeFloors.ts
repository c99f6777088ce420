/**
 * Compute floors for bench/stages.ts: for a stage that a bandwidth floor does not bound, what the stage's
 * defined work costs when done by compiled code, or on its own, on the very same inputs. Issue 19 allows a
 * stage over 15x its bandwidth floor where the reason is explained; a compute floor that is itself over 15x
 * that floor is the measured reason (the same work, done by the compiled code measured, does not meet the ratio).
 *   - cloud noisy: the transcendental calls the noise model makes, each function timed alone over the very
 *     arguments the stage passed it, in call order, at the lower of V8's and glibc's cost (transcendentals.ts);
 *   - graph (gt, noisy, noisy-appearance): Open3D (C++, one thread) downsampling and denoising the point sets
 *     the arm's fusion downsamples and denoises, an appearance arm only those its oracle arm did not
 *     (bench/fusionPeer.ts); its voxels and clusters must equal ours.
 * Each is a lower bound on a compiled stage: the peers do only part of the stage's work. None is a second
 * implementation of ours kept in step with it (the renderer's C++ port was retired for that reason, issue 42:
 * its last figures are in docs/performance.md).
 */
import type { BenchContext } from "./context.js";
import type { Task } from "../core/task/schema.js";
import type { FrameBundle } from "../core/bundle/io.js";
import { renderBundle } from "../bridge/sim/capture.js";
import { armOptions, armPipeline, cloudOrder } from "../src/eval/pipeline.js";
import { graphCloud, SharedCloud } from "../scenegraph/pipeline.js";
import { GraphPipelineOptionsSchema } from "../scenegraph/pipelineOptions.js";
import { DEFAULT_RUN_CONFIG, threeDArms } from "../src/eval/config.js";
import { CloudArena } from "../reconstruct/pointcloud.js";
import { open3dGraphSteps } from "./fusionPeer.js";
import { recordMathCalls, transcendentalFloor } from "./transcendentals.js";

export interface ComputeFloor {
  ms: number;
  /** what was timed, for the table */
  what: string;
  /** the peer's output equals ours (false: the floor is of something else, and explains nothing) */
  exact: boolean;
}

/** The noisy cloud's floor: its transcendental calls alone. */
async function noisyCloudFloor(ctx: BenchContext, bundle: FrameBundle, expectPoints: number): Promise<ComputeFloor> {
  const arm = threeDArms(DEFAULT_RUN_CONFIG).find((a) => a.label === "noisy")!;
  const o = GraphPipelineOptionsSchema.parse(armOptions(DEFAULT_RUN_CONFIG, arm));
  const { value, calls } = await recordMathCalls(() => graphCloud(bundle, o));
  const f = transcendentalFloor(ctx.workDir, calls);
  const per = f.rows.map(
    (r) =>
      `${(r.calls / 1e6).toFixed(2)} M ${r.name} at ${Math.min(r.v8Ns ?? Infinity, r.glibcNs ?? Infinity).toFixed(2)} ns (V8 ${r.v8Ns?.toFixed(2) ?? "-"}, glibc ${r.glibcNs?.toFixed(2) ?? "-"})`,
  );
  return {
    ms: f.ms,
    what: `its transcendental calls alone: ${per.join(", ")}${f.untimed ? `; ${f.untimed} other calls not timed` : ""}`,
    exact: value.cloud.count === expectPoints,
  };
}

/** The `wanted` graph stages' floors: Open3D's steps of each arm, its arms built anew on the bundle; null without Open3D. */
async function graphFloors(ctx: BenchContext, bundle: FrameBundle, wanted: ReadonlySet<string>): Promise<Map<string, ComputeFloor> | null> {
  const py = ctx.pythonWithOpen3d();
  if (!py) return null;
  const config = DEFAULT_RUN_CONFIG,
    arms = threeDArms(config),
    shared = new SharedCloud(),
    arena = new CloudArena();
  const out = new Map<string, ComputeFloor>();
  for (const arm of cloudOrder(config, arms).map((i) => arms[i]!)) {
    // every arm is built, in the run's order: an appearance arm's graph reuses its oracle arm's work
    const r = await armPipeline(bundle, config, arm, { arena, shared, diagnose: false });
    const stage = `graph ${arm.label}`;
    if (!wanted.has(stage)) continue;
    const s = await open3dGraphSteps(ctx, py, bundle, r, arm);
    out.set(stage, { ms: s.ms, what: `Open3D's downsampling and denoising of its ${s.sets}`, exact: s.agrees });
  }
  return out;
}

/**
 * Compute floors by stage name (bench/stages.ts's rows) for the `wanted` stages that have one here, on one fresh
 * multi render of the task; `noisyCloudPoints` is the stage's cloud's size, which the recorded cloud must have.
 */
export async function computeFloors(ctx: BenchContext, task: Task, wanted: ReadonlySet<string>, noisyCloudPoints: number): Promise<Map<string, ComputeFloor>> {
  const floors = new Map<string, ComputeFloor>();
  const bundle = renderBundle(task, "multi");
  if (wanted.has("cloud noisy")) floors.set("cloud noisy", await noisyCloudFloor(ctx, bundle, noisyCloudPoints));
  for (const [stage, f] of (await graphFloors(ctx, bundle, wanted)) ?? []) floors.set(stage, f);
  return floors;
}
