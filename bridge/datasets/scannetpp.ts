/**
 * ScanNet++ iPhone stream, as its toolkit's `iphone/prepare_iphone_data.py` extracts a scene:
 * <scene>/iphone/rgb/frame_NNNNNN.jpg (1920x1440), iphone/depth/frame_NNNNNN.png (uint16 mm, 256x192) and
 * iphone/pose_intrinsic_imu.json, keyed by frame name, each with `intrinsic` (3x3, at the RGB size) and
 * `aligned_pose` (4x4 camera-to-world in the scan's aligned, z-up frame, OpenCV axes: the toolkit's own
 * iphone/arkit_pcl.py back-projects with it directly). The raw ARKit `pose` is not used. No 2D instance
 * masks ship (the toolkit rasterises them from the annotated mesh).
 */
import { existsSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import * as z from "zod";
import { readJsonFile } from "../../core/fs.js";
import { checkRigid, extrinsicOfCameraToWorld, intrinsicsOfMatrix, isFiniteMatrix } from "./matrices.js";
import { framesIn, requireDir } from "./files.js";
import { colourFile, colourSize } from "./images.js";
import { DatasetError, type DatasetFrame, type DatasetScene } from "./scene.js";

/** prepare_iphone_data.py writes depth as uint16 millimetres. */
const SCANNETPP_DEPTH_SCALE = 1000;

const num = z.number();
const FrameSchema = z.object({
  intrinsic: z.array(z.array(num).length(3)).length(3).describe("3x3 K at the RGB image's size"),
  aligned_pose: z.array(z.array(num).length(4)).length(4).describe("4x4 camera-to-world in the aligned scan frame"),
});
const PosesSchema = z.record(z.string(), FrameSchema.passthrough());

export function readScannetpp(dir0: string): DatasetScene {
  // the scene folder (data/<scene_id>) or its iphone/ folder
  const dir = existsSync(join(dir0, "iphone")) && statSync(join(dir0, "iphone")).isDirectory() ? join(dir0, "iphone") : dir0;
  const scene = dir === dir0 ? basename(join(dir0, "..")) : basename(dir0);
  const depthDir = requireDir(dir, "depth", "ScanNet++ iPhone");
  const rgbDir = requireDir(dir, "rgb", "ScanNet++ iPhone");
  const poseFile = join(dir, "pose_intrinsic_imu.json");
  if (!existsSync(poseFile))
    throw new DatasetError(poseFile, "missing: a ScanNet++ iPhone scene has pose_intrinsic_imu.json (per frame: intrinsic, aligned_pose)");
  const poses = readJsonFile(poseFile, PosesSchema, "ScanNet++ pose_intrinsic_imu.json (per frame: intrinsic 3x3, aligned_pose 4x4)");
  const depthFrames = framesIn(depthDir, ".png");
  if (depthFrames.length === 0) throw new DatasetError(depthDir, "no depth images (frame_NNNNNN.png)");
  const notes: string[] = ["no 2D instance masks in this layout"];
  const frames: DatasetFrame[] = [];
  let rgbSize: { width: number; height: number } | null = null;
  let invalid = 0;
  for (const f of depthFrames) {
    const p = poses[f.stem];
    if (!p) throw new DatasetError(poseFile, `no entry for depth/${f.stem}.png (expected a key "${f.stem}" with intrinsic and aligned_pose)`, f.stem);
    const c2w = p.aligned_pose.flat();
    if (!isFiniteMatrix(c2w)) {
      invalid++;
      continue;
    }
    checkRigid(c2w, poseFile, `${f.stem}.aligned_pose`);
    const rgb = colourFile(join(rgbDir, `${f.stem}.jpg`));
    rgbSize ??= colourSize(rgb);
    frames.push({
      name: f.stem,
      rgb,
      depth: f.file,
      extrinsic: extrinsicOfCameraToWorld(c2w),
      intrinsics: intrinsicsOfMatrix(p.intrinsic.flat(), poseFile, `${f.stem}.intrinsic`),
      intrinsicsSize: rgbSize,
      poseFrom: { file: poseFile, field: `${f.stem}.aligned_pose` },
      intrinsicsFrom: { file: poseFile, field: `${f.stem}.intrinsic` },
    });
  }
  if (invalid) notes.push(`${invalid} frame(s) with non-finite aligned_pose left out`);
  return { layout: "scannetpp", name: scene, dir: dir0, frames, depthScale: SCANNETPP_DEPTH_SCALE, up: "+z", notes };
}
