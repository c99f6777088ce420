/**
 * The options of every point-cloud source, declared once: the CLI's flags (`points`, `graph`, `run`, ...),
 * a run's config.json, the service's request bodies and the OpenAPI document are all derived from these
 * schemas. Field descriptions are the help text.
 */
import * as z from "zod";
import type { FlagSpec } from "../core/flags.js";
import { NoiseOptionsSchema } from "./noisy/params.js";

export const SOURCES = ["gt", "vggt", "noisy"] as const;

export const SourceSchema = z.enum(SOURCES).describe("point-cloud source: gt (depth back-projection), vggt (ONNX model), noisy (controlled error model)");

const VGGT_DEVICES = ["auto", "cuda", "cpu"] as const;

/** VGGT's options (reconstruct/vggt; models/README.md). Defaults follow VGGT's demo. */
export const VggtOptionsSchema = z
  .object({
    modelPath: z.string().min(1).nullable().default(null).describe("vggt: the .onnx file (or a directory holding vggt.onnx); default $ESI3D_VGGT_MODEL"),
    device: z.enum(VGGT_DEVICES).default("auto").describe("vggt: execution provider auto|cuda|cpu (auto tries CUDA when an NVIDIA driver is present)"),
    points: z
      .enum(["depth", "pointmap"])
      .default("depth")
      .describe("vggt: points from the depth head with decoded cameras (depth) or the point-map head (pointmap)"),
    // VGGT's demo (demo_gradio.py) drops the lowest 50 % by default: the one default of the percentile
    confPercentile: z.number().min(0).max(100).default(50).describe("vggt: drop the lowest p % of confidences (per chunk; VGGT's demo drops 50 %)"),
    confThreshold: z.number().min(0).max(1e9).nullable().default(null).describe("vggt: instead, keep confidence >= c (takes precedence over the percentile)"),
    align: z.enum(["sim3", "none"]).default("sim3").describe("vggt: sim3 (align predicted cameras to the known poses) or none (VGGT's frame)"),
    maxFramesPerChunk: z.number().int().min(1).nullable().default(null).describe("vggt: at most this many views per VGGT run (memory also limits it)"),
  })
  .strict();
export type VggtSettings = z.infer<typeof VggtOptionsSchema>;

/** One cloud: its source and that source's options. */
export const CloudOptionsSchema = z
  .object({
    source: SourceSchema.default("gt"),
    ...NoiseOptionsSchema.shape,
    vggt: VggtOptionsSchema.default(VggtOptionsSchema.parse({})),
  })
  .strict();
export type CloudOptions = z.infer<typeof CloudOptionsSchema>;

/** The command-line names of the cloud options (shared by every command that builds a cloud). */
const NOISE_FLAGS: readonly FlagSpec[] = [
  { path: "noiseLevel", flag: "--noise-level <x>" },
  { path: "noiseSeed", flag: "--noise-seed <seed>" },
];
export const VGGT_FLAGS: readonly FlagSpec[] = [
  { path: "vggt.modelPath", flag: "--vggt-model <path>" },
  { path: "vggt.device", flag: "--device <device>" },
  { path: "vggt.points", flag: "--vggt-points <from>" },
  { path: "vggt.confPercentile", flag: "--conf-percentile <p>" },
  { path: "vggt.confThreshold", flag: "--conf-threshold <c>" },
  { path: "vggt.align", flag: "--align <mode>" },
];
export const CLOUD_FLAGS: readonly FlagSpec[] = [{ path: "source", flag: "--source <source>" }, ...NOISE_FLAGS, ...VGGT_FLAGS];
