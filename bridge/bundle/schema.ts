/**
 * The frame bundle: the interchange format every frame source writes and every later stage reads.
 * A directory with `bundle.json` (this schema) and per-view files:
 *   views/NNN_rgb.png    8-bit RGB PNG
 *   views/NNN_depth.f32  float32 little-endian, row-major H x W, metric z-depth (m), 0 = no measurement
 *   views/NNN_inst.png   16-bit greyscale PNG of instance ids (0 = none), ids listed in `instances`
 * See README "Frame bundles" for the field table.
 */
import { z } from "zod";
import { TaskSchema } from "../task/schema.js";
import { SafeSegmentSchema } from "../../src/core/paths.js";

const finite = () => z.number().finite();
const Row4 = z.tuple([finite(), finite(), finite(), finite()]);

export const IntrinsicsSchema = z.object({
  fx: finite().positive(),
  fy: finite().positive(),
  cx: finite(),
  cy: finite(),
});

export const BundleViewSchema = z.object({
  index: z.number().int().min(0),
  rgb: z.string().min(1).describe("path of the RGB PNG, relative to the bundle directory"),
  depth: z.string().min(1).describe("path of the float32 LE depth file"),
  instances: z.string().min(1).describe("path of the 16-bit instance-id PNG"),
  intrinsics: IntrinsicsSchema.describe("pixels; pixel (i, j) has its centre at (u, v) = (i, j)"),
  extrinsic: z.tuple([Row4, Row4, Row4]).describe("camera-from-world [R | t], OpenCV camera axes"),
  action: z.string().nullable().describe("the action that led to this view (null for the first view)"),
});

export const InstanceEntrySchema = z.object({
  id: z.number().int().min(1).max(65535),
  category: z.string().min(1),
  structure: z.boolean().describe("room structure (floor, wall) rather than an object"),
});

export const PARADIGMS = ["single", "multi", "gt", "active"] as const;
export type Paradigm = (typeof PARADIGMS)[number];

export const BUNDLE_FORMAT = "esi3d-bundle/1";

export const BundleManifestSchema = z.object({
  format: z.literal(BUNDLE_FORMAT),
  task_id: SafeSegmentSchema,
  paradigm: z.enum(PARADIGMS),
  simulator: z.string().min(1),
  image: z.object({ width: z.number().int().min(8).max(8192), height: z.number().int().min(8).max(8192) }),
  conventions: z.object({
    world: z.literal("z-up-metres"),
    camera: z.literal("opencv"),
    extrinsic: z.literal("camera-from-world"),
    pixel_centre: z.literal("integer"),
    depth: z.literal("z-depth-metres-float32le"),
  }),
  views: z.array(BundleViewSchema).min(1),
  instances: z.array(InstanceEntrySchema).describe("id -> category table for every id in the instance images"),
  task: TaskSchema.describe("the task record the views were captured for"),
});
export type BundleManifest = z.infer<typeof BundleManifestSchema>;

export const BUNDLE_CONVENTIONS: BundleManifest["conventions"] = {
  world: "z-up-metres",
  camera: "opencv",
  extrinsic: "camera-from-world",
  pixel_centre: "integer",
  depth: "z-depth-metres-float32le",
};
