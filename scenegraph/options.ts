/**
 * The scene-graph options, declared once (CLI flags, run configs, service bodies and OpenAPI derive from
 * this), and the one rule that ties them: without masks there are no 2D fragments to fuse, so fusion
 * falls back to DBSCAN.
 */
import * as z from "zod";
import type { FlagSpec } from "../core/flags.js";

/** Where a graph's 2D evidence comes from (the modes are explained in scenegraph/evidence.ts). */
export const MASK_MODES = ["semantic", "instance", "oracle", "none"] as const;
export type MaskMode = (typeof MASK_MODES)[number];

/** Where mask labels come from: the true categories, or the seeded detector error model of scenegraph/appearance.ts. */
export const LABEL_MODES = ["oracle", "appearance"] as const;
export type LabelMode = (typeof LABEL_MODES)[number];

export const INSTANCE_MODES = ["fusion", "dbscan"] as const;

/** How a graph remembers views of a world that changed between them (scenegraph/time.ts). */
const TIME_MODES = ["diff", "fuse"] as const;
export type InstanceMode = (typeof INSTANCE_MODES)[number];

export const GraphOptionsSchema = z
  .object({
    masks: z.enum(MASK_MODES).default("instance").describe("evidence: semantic | instance | oracle | none (see docs/how-it-works.md, 'Evidence modes')"),
    instances: z
      .enum(INSTANCE_MODES)
      .default("fusion")
      .describe("instance builder: fusion (2D masks fused across views) | dbscan (label-agnostic clustering); masks none always uses dbscan"),
    labels: z
      .enum(LABEL_MODES)
      .default("oracle")
      .describe("mask labels: oracle (true categories) | appearance (a seeded detector error model: what each view shows, docs/labels.md)"),
    labelSeed: z
      .string()
      .regex(/^[A-Za-z0-9_.-]+$/, "use letters, digits, '_', '.', '-' only")
      .default("0")
      .describe("appearance labels: seed of the detector error model"),
    time: z
      .enum(TIME_MODES)
      .default("diff")
      .describe(
        "views from several phases of a changing world: diff (each phase's graph followed into the next: kept, moved, removed, added, replaced) | fuse (every view in one graph, as for an unchanging world); other bundles are the same either way",
      ),
  })
  .strict();

export const GRAPH_FLAGS: readonly FlagSpec[] = [
  { path: "masks", flag: "--masks <mode>" },
  { path: "instances", flag: "--instances <mode>" },
  { path: "labels", flag: "--labels <mode>" },
  { path: "labelSeed", flag: "--label-seed <seed>" },
  { path: "time", flag: "--time <mode>" },
];

/** The instance builder that runs: fusion needs 2D masks, so `--masks none` always clusters with DBSCAN. */
export function effectiveInstances(masks: MaskMode, instances: InstanceMode): InstanceMode {
  return masks === "none" ? "dbscan" : instances;
}
