/**
 * ScanNet v2, as ScanNet's SensReader (`reader.py --export_color_images --export_depth_images
 * --export_poses --export_intrinsics`) writes a scene: color/<i>.jpg (1296x968), depth/<i>.png (uint16 mm,
 * 640x480), pose/<i>.txt (4x4 camera-to-world, OpenCV axes), intrinsic/intrinsic_{color,depth}.txt (4x4).
 * Optional: instance-filt/<i>.png (2D instance ids from <scene>_2d-instance-filt.zip, 0 = unannotated) with
 * <scene>.aggregation.json (objectId -> label; a pixel's id is objectId + 1), and <scene>.txt, whose
 * `axisAlignment` (16 numbers) aligns the scan to the axes. The scans are z-up (ScanNet's world).
 * Frames with non-finite poses (ScanNet marks lost tracking with -inf) are left out.
 */
import { existsSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { readJsonFile } from "../../core/fs.js";
import * as z from "zod";
import { extrinsicOfCameraToWorld, intrinsicsOfMatrix, isFiniteMatrix, checkRigid, numbersOf, readNumbers, readText, type Mat4 } from "./matrices.js";
import { framesIn, requireDir } from "./files.js";
import { DatasetError, type DatasetFrame, type DatasetScene } from "./scene.js";
import { colourSize as colourImageSize } from "./images.js";

/** ScanNet's depth_shift: depth PNGs are millimetres. */
const SCANNET_DEPTH_SCALE = 1000;

const AggregationSchema = z.object({
  segGroups: z.array(z.object({ objectId: z.number().int().min(0), label: z.string().min(1) })),
});

export function readScannet(dir: string): DatasetScene {
  const depthDir = requireDir(dir, "depth", "ScanNet (reader.py export)");
  const poseDir = requireDir(dir, "pose", "ScanNet (reader.py export)");
  const colorDir = requireDir(dir, "color", "ScanNet (reader.py export)");
  const notes: string[] = [];
  const intrinsicDir = requireDir(dir, "intrinsic", "ScanNet (reader.py export)");
  const depthK = join(intrinsicDir, "intrinsic_depth.txt");
  const colorK = join(intrinsicDir, "intrinsic_color.txt");
  const useDepthK = existsSync(depthK);
  const kFile = useDepthK ? depthK : colorK;
  const K = intrinsicsOfMatrix(readNumbers(kFile, 16, "4x4 intrinsic matrix"), kFile);
  const frames0 = framesIn(depthDir, ".png");
  if (frames0.length === 0) throw new DatasetError(depthDir, "no depth images (<i>.png)");
  const colourSize = useDepthK ? null : colourImageSize(colorFrame(colorDir, frames0[0]!.stem));
  const align = axisAlignment(dir);
  if (align) notes.push(`axisAlignment of ${basename(align.file)} applied (world = the aligned scan)`);
  const maskDir = join(dir, "instance-filt");
  const instances = existsSync(maskDir) ? aggregationInstances(dir, notes) : undefined;
  if (!instances) notes.push(existsSync(maskDir) ? "instance-filt/ without an aggregation.json: masks left out" : "no instance-filt/: no instance masks");
  const frames: DatasetFrame[] = [];
  let invalid = 0;
  for (const f of frames0) {
    const poseFile = join(poseDir, `${f.stem}.txt`);
    if (!existsSync(poseFile)) throw new DatasetError(poseFile, `missing: depth/${f.stem}.png has no pose (pose/<i>.txt, a 4x4 camera-to-world matrix)`);
    const n = numbersOf(readText(poseFile, "camera pose"));
    if (!n || n.length !== 16)
      throw new DatasetError(poseFile, `expected 16 numbers (a 4x4 camera-to-world matrix), found ${n ? n.length : "a token that is not a number"}`);
    if (!isFiniteMatrix(n)) {
      invalid++;
      continue;
    }
    checkRigid(n, poseFile);
    const c2w = align ? mul4(align.m, n) : n;
    frames.push({
      name: f.stem,
      rgb: colorFrame(colorDir, f.stem),
      depth: f.file,
      ...(instances ? { mask: join(maskDir, `${f.stem}.png`) } : {}),
      extrinsic: extrinsicOfCameraToWorld(c2w),
      intrinsics: K,
      intrinsicsSize: colourSize,
      poseFrom: { file: poseFile },
      intrinsicsFrom: { file: kFile },
    });
  }
  if (invalid) notes.push(`${invalid} frame(s) with non-finite poses left out (lost tracking)`);
  return {
    layout: "scannet",
    name: basename(dir),
    dir,
    frames,
    depthScale: SCANNET_DEPTH_SCALE,
    up: "+z",
    ...(instances ? { instances } : {}),
    notes,
    ...(useDepthK ? {} : { intrinsicsNote: "no intrinsic_depth.txt: intrinsic_color.txt scaled to the depth image" }),
  };
}

/** color/<i>.jpg as the export names it, or a .png of the same name (colour converted by the user). */
const colorFrame = (colorDir: string, stem: string) =>
  existsSync(join(colorDir, `${stem}.jpg`)) ? join(colorDir, `${stem}.jpg`) : join(colorDir, `${stem}.png`);

function mul4(a: Mat4, b: Mat4): Mat4 {
  const out: number[] = new Array(16).fill(0);
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) for (let k = 0; k < 4; k++) out[i * 4 + j]! += a[i * 4 + k]! * b[k * 4 + j]!;
  return out;
}

/** `axisAlignment = m00 ... m33` of <scene>.txt (the scene's meta file), when present. */
function axisAlignment(dir: string): { file: string; m: Mat4 } | null {
  const file = join(dir, `${basename(dir)}.txt`);
  if (!existsSync(file)) return null;
  const line = readText(file, "scene meta")
    .split(/\r?\n/)
    .find((l) => /^\s*axisAlignment\s*=/.test(l));
  if (!line) return null;
  const m = numbersOf(line.split("=")[1] ?? "");
  if (!m || m.length !== 16)
    throw new DatasetError(file, `axisAlignment: expected 16 numbers (a 4x4 matrix), found ${m ? m.length : "a token that is not a number"}`);
  checkRigid(m, file, "axisAlignment");
  return { file, m };
}

/** Mask id (objectId + 1) -> label, from the scene's aggregation JSON. */
function aggregationInstances(dir: string, notes: string[]): Array<{ id: number; category: string }> | undefined {
  const file = readdirSync(dir)
    .filter((f) => f.endsWith(".aggregation.json"))
    .sort()[0];
  if (!file) return undefined;
  const agg = readJsonFile(join(dir, file), AggregationSchema, "ScanNet aggregation");
  notes.push(`instance masks from instance-filt/ with labels of ${file}`);
  return agg.segGroups.map((g) => ({ id: g.objectId + 1, category: g.label }));
}
