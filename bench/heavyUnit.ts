/**
 * The unit the stage benchmarks share (bench/stages.ts, and the compute floors' peers: computeFloors.ts,
 * fusionPeer.ts), and how a stage's bytes are counted, so that every floor the benches print for
 * a stage is the same number.
 */
import type { FrameBundle, ViewData } from "../core/bundle/io.js";
import type { BuiltinSubcategory } from "../core/task/taxonomy.js";
import type { PointCloud } from "../reconstruct/pointcloud.js";
import type { PipelineResult } from "../scenegraph/pipeline.js";
import type { ThreeDArm } from "../src/eval/config.js";

export interface BenchUnit {
  subcategory: BuiltinSubcategory;
  seed: string;
  index: number;
}

/** The heavy unit: bench/graph.ts's heaviest scene (most object pixels of its three), multi paradigm. */
export const HEAVY_UNIT: BenchUnit = { subcategory: "counting_with_occlusion", seed: "bench-graph", index: 0 };
/** A unit of another task, run first to bring the JIT to where a worker is after its first unit. */
export const WARMUP_UNIT: BenchUnit = { subcategory: "spatial_distance", seed: "bench-stages-warmup", index: 0 };

export const jsonBytes = (x: unknown) => Buffer.byteLength(JSON.stringify(x));
export const viewBytes = (views: readonly ViewData[], fields: ReadonlyArray<"rgb" | "depth" | "ids">) =>
  views.reduce((n, v) => n + fields.reduce((m, f) => m + v[f].byteLength, 0), 0);
export const cloudBytes = (c: PointCloud) =>
  c.xyz.byteLength + c.rgb.byteLength + c.confidence.byteLength + c.view.byteLength + c.pixel.byteLength + c.instance.byteLength;

/**
 * A graph stage's bytes: its cloud and the views' masks read (an appearance arm also reads their colours, each
 * mask's luma: scenegraph/segmentStats.ts), its members and graph written.
 */
export function graphStageBytes(r: PipelineResult, bundle: FrameBundle, arm: ThreeDArm): number {
  const fields: Array<"rgb" | "ids"> = arm.labels === "appearance" ? ["ids", "rgb"] : ["ids"];
  return cloudBytes(r.cloud) + viewBytes(bundle.views, fields) + r.members.reduce((n, m) => n + m.byteLength, 0) + jsonBytes(r.graph);
}
