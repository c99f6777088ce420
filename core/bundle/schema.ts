/**
 * The frame bundle: the interchange format every frame source writes and every later stage reads.
 * A directory with `bundle.json` (this schema) and per-view files:
 *   views/NNN_rgb.png    8-bit RGB PNG
 *   views/NNN_depth.f32  float32 little-endian, row-major H x W, metric z-depth (m), 0 = no measurement
 *   views/NNN_inst.png   16-bit greyscale PNG of instance ids (0 = none), ids listed in `instances`
 * and, in a bundle whose scene has mirrors (`mirrors`), per view what each mirror pixel shows:
 *   views/NNN_refl_inst.png   16-bit ids of the object each mirror pixel's reflected ray hits (0 elsewhere)
 *   views/NNN_refl_depth.f32  z-depth (m) of that point's mirror image: the reflected path (0 elsewhere)
 * See docs/tasks.md "Frame bundles" for the field table. A bundle imported from a dataset (bridge/datasets) has no
 * task record and says where it came from (`imported`); when the dataset does not give gravity, its world is
 * `unknown-up-metres` (docs/own-data.md).
 */
import * as z from "zod";
import { TaskSchema } from "../task/schema.js";
import { SafeSegmentSchema } from "../paths.js";

const finite = () => z.number().finite();
const Row4 = z.tuple([finite(), finite(), finite(), finite()]);

/**
 * The longest category name (characters): names are words ("kitchen_cabinet"). Graph labels come from them and
 * are matched against question text as patterns: a 5 MB label failed as "Regular expression too large" and
 * echoed itself whole. Ours.
 */
export const MAX_CATEGORY_CHARS = 128;

export const IntrinsicsSchema = z.object({
  fx: finite().positive(),
  fy: finite().positive(),
  cx: finite(),
  cy: finite(),
});

/**
 * What a view's mirror pixels show, beside the depth and instance images (which hold the mirror's own surface,
 * as a rasterised depth buffer does). Absent in a bundle whose scene has no mirror, and in bundles written before
 * mirrors existed.
 */
const ReflectionFilesSchema = z
  .object({
    instances: z
      .string()
      .min(1)
      .describe("path of the 16-bit PNG of the instance id each mirror pixel's reflected ray hits first (0 = not a mirror pixel, or it sees nothing)"),
    depth: z
      .string()
      .min(1)
      .describe(
        "path of the float32 LE image of the z-depth (m) of that point's mirror image: the length of the reflected path along the pixel's ray, behind the mirror (0 where the instances image is 0)",
      ),
  })
  .describe("what the view's mirror pixels show (bundles of scenes with mirrors)");

export const BundleViewSchema = z.object({
  index: z.number().int().min(0),
  rgb: z.string().min(1).describe("path of the RGB PNG, relative to the bundle directory"),
  depth: z.string().min(1).describe("path of the float32 LE depth file"),
  instances: z.string().min(1).describe("path of the 16-bit instance-id PNG"),
  intrinsics: IntrinsicsSchema.describe("pixels; pixel (i, j) has its centre at (u, v) = (i, j)"),
  extrinsic: z.tuple([Row4, Row4, Row4]).describe("camera-from-world [R | t], OpenCV camera axes"),
  action: z.string().nullable().describe("the action that led to this view (null for the first view)"),
  reflection: ReflectionFilesSchema.optional(),
  phase: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("the phase of the world the view saw (an index into the task's phases); absent when the world does not change"),
});

export const InstanceEntrySchema = z.object({
  id: z.number().int().min(1).max(65535),
  category: z.string().min(1).max(MAX_CATEGORY_CHARS),
  structure: z.boolean().describe("room structure (floor, wall) rather than an object"),
});

const Vec3Schema = z.tuple([finite(), finite(), finite()]);

/**
 * A planar mirror's reflective rectangle, in world coordinates: centre, the unit normal on its reflecting side,
 * and the unit axes along its width and height (normal, u and v right-handed).
 */
const MirrorPlaneSchema = z.object({
  id: z.number().int().min(1).max(65535).describe("instance id of the mirror (its pixels in the instance images)"),
  centre: Vec3Schema.describe("centre of the reflective rectangle (m, world)"),
  normal: Vec3Schema.describe("unit normal, pointing to the side the mirror reflects"),
  u: Vec3Schema.describe("unit axis along the rectangle's width"),
  v: Vec3Schema.describe("unit axis along the rectangle's height"),
  half_width_m: finite().min(0),
  half_height_m: finite().min(0),
});
export type MirrorPlane = z.infer<typeof MirrorPlaneSchema>;

export const PARADIGMS = ["single", "multi", "gt", "active"] as const;
export type Paradigm = (typeof PARADIGMS)[number];

export const BUNDLE_FORMAT = "esi3d-bundle/1";

/**
 * The world frames a bundle may be in: Z up (gravity along -Z; every simulator, and datasets whose layout
 * gives gravity), or metres in a frame whose up axis the source does not state (an imported TUM or Replica
 * scene without --up): stages that need "up" say so rather than assume it.
 */
const WORLD_FRAMES = ["z-up-metres", "unknown-up-metres"] as const;

/** Where an imported bundle came from (esi3d import <layout>): enough to trace each view to its source frame. */
const ImportedFromSchema = z
  .object({
    layout: z.string().min(1).describe("the dataset layout read, e.g. scannet, tum"),
    dir: z.string().min(1).describe("the directory imported"),
    depth_scale: finite().positive().describe("raw depth units per metre in the source (1000 = mm, 5000 TUM, 6553.5 Replica)"),
    up: z.string().describe("the source world axis made +Z (e.g. +z, +y), or 'unknown'"),
    frames: z.array(z.string().min(1)).describe("per view, the source frame it was read from (file stem or timestamp)"),
    notes: z.array(z.string()).describe("decisions the importer made (frames skipped, colour resized, ...)"),
  })
  .describe("set on bundles imported from a dataset layout");

export const BundleManifestSchema = z.object({
  format: z.literal(BUNDLE_FORMAT),
  task_id: SafeSegmentSchema,
  paradigm: z.enum(PARADIGMS),
  simulator: z.string().min(1),
  image: z.object({ width: z.number().int().min(8).max(8192), height: z.number().int().min(8).max(8192) }),
  conventions: z.object({
    world: z.enum(WORLD_FRAMES),
    camera: z.literal("opencv"),
    extrinsic: z.literal("camera-from-world"),
    pixel_centre: z.literal("integer"),
    depth: z.literal("z-depth-metres-float32le"),
  }),
  views: z.array(BundleViewSchema).min(1),
  instances: z.array(InstanceEntrySchema).describe("id -> category table for every id in the instance images"),
  task: TaskSchema.optional().describe("the task record the views were captured for; absent for a bundle of one's own (imported scenes)"),
  imported: ImportedFromSchema.optional(),
  mirrors: z
    .array(MirrorPlaneSchema)
    .optional()
    .describe("the scene's planar mirrors (set when it has any; the views then carry `reflection`): one bounce, docs/tasks.md"),
});
export type BundleManifest = z.infer<typeof BundleManifestSchema>;

export const BUNDLE_CONVENTIONS: BundleManifest["conventions"] = {
  world: "z-up-metres",
  camera: "opencv",
  extrinsic: "camera-from-world",
  pixel_centre: "integer",
  depth: "z-depth-metres-float32le",
};
