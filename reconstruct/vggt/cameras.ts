/**
 * The cameras the `vggt` source decoded, as a file (`esi3d points --source vggt --cameras FILE`): per view
 * the predicted camera-from-world extrinsic and intrinsics, in the frame the cloud is in.
 */
import * as z from "zod";
import { writeFileAtomic } from "../../core/fs.js";
import type { PointCloud } from "../pointcloud.js";
import type { CameraRecord } from "./assemble.js";
import type { PreprocessPlan } from "./preprocess.js";
import type { DroppedView } from "./postprocess.js";

const VGGT_CAMERAS_FORMAT = "esi3d-vggt-cameras/1";

const finite = () => z.number().finite();
const row = z.tuple([finite(), finite(), finite(), finite()]);
const intrinsics = z.object({
  fx: finite(),
  fy: finite(),
  cx: finite(),
  cy: finite(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
});

const VggtCamerasFileSchema = z.object({
  format: z.literal(VGGT_CAMERAS_FORMAT),
  conventions: z.object({
    extrinsic: z.literal("camera-from-world [R | t] (3x4 rows), OpenCV camera axes: x right, y down, z forward").describe("x_cam = R·x_world + t"),
    pixel_centre: z.literal("integer").describe("pixel (i, j) is centred at (u, v) = (i, j), as the bundle's conventions"),
    frame: z.string().describe("what x_world is: the bundle's world (align sim3) or VGGT's frame (align none)"),
    model_principal_point: z.string().describe("how the model-resolution principal point was set"),
  }),
  views: z.array(
    z.object({
      view: z.number().int().nonnegative(),
      extrinsic: z.tuple([row, row, row]),
      /** At the bundle's image resolution (through the preprocessing's resize and crop/pad). */
      ...intrinsics.shape,
      model: intrinsics.describe("the same camera at the model's input resolution, as VGGT's pose_encoding_to_extri_intri gives it"),
    }),
  ),
  droppedViews: z.array(z.object({ view: z.number().int().nonnegative(), reason: z.string() })).describe("views whose predicted camera was degenerate"),
});
type VggtCamerasFile = z.infer<typeof VggtCamerasFileSchema>;

/** The cameras file of a cloud built by the vggt source (its meta.cameras, meta.preprocess, meta.droppedViews). */
function vggtCamerasFile(cloud: PointCloud): VggtCamerasFile {
  const m = cloud.meta as {
    cameras?: CameraRecord[];
    preprocess?: PreprocessPlan;
    cameraFrame?: string;
    pixelConvention?: string;
    droppedViews?: DroppedView[];
  };
  if (cloud.source !== "vggt" || !m.cameras || !m.preprocess) throw new Error("vggtCamerasFile: not a cloud of the vggt source");
  const plan = m.preprocess;
  return VggtCamerasFileSchema.parse({
    format: VGGT_CAMERAS_FORMAT,
    conventions: {
      extrinsic: "camera-from-world [R | t] (3x4 rows), OpenCV camera axes: x right, y down, z forward",
      pixel_centre: "integer",
      frame: m.cameraFrame ?? "unknown",
      model_principal_point: m.pixelConvention ?? "unknown",
    },
    views: m.cameras.map((c) => ({
      view: c.view,
      extrinsic: c.extrinsic,
      ...c.intrinsics,
      width: cloud.imageWidth,
      height: cloud.imageHeight,
      model: { ...c.modelIntrinsics, width: plan.width, height: plan.height },
    })),
    droppedViews: m.droppedViews ?? [],
  });
}

/** Writes vggtCamerasFile(cloud) as JSON, atomically. */
export function writeVggtCameras(cloud: PointCloud, file: string): void {
  writeFileAtomic(file, JSON.stringify(vggtCamerasFile(cloud), null, 1) + "\n");
}
