/**
 * Replica as NICE-SLAM distributes it: <scene>/results/frameNNNNNN.jpg and depthNNNNNN.png (uint16,
 * 6553.5 per metre), <scene>/traj.txt (one camera-to-world 4x4 per line, 16 numbers, OpenCV axes: NICE-SLAM
 * flips y and z only after loading, for its renderer), and cam_params.json in the scene folder or the one
 * above it (`camera: {w, h, fx, fy, cx, cy, scale}`); without it, NICE-SLAM's Replica camera 600/600/599.5/
 * 339.5 at 1200x680 (configs/Replica/replica.yaml). The up axis of the world is not stated (give --up).
 */
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import * as z from "zod";
import { readJsonFile } from "../../core/fs.js";
import { checkRigid, extrinsicOfCameraToWorld, numbersOf, readText } from "./matrices.js";
import { framesIn, requireDir } from "./files.js";
import { DatasetError, type DatasetFrame, type DatasetScene } from "./scene.js";

/** NICE-SLAM's Replica png_depth_scale. */
const REPLICA_DEPTH_SCALE = 6553.5;
/** NICE-SLAM's Replica camera (configs/Replica/replica.yaml). */
const REPLICA_CAMERA = { w: 1200, h: 680, fx: 600, fy: 600, cx: 599.5, cy: 339.5, scale: REPLICA_DEPTH_SCALE };

/**
 * Depth scales (raw units per metre) a layout may state: from 1 (raw values in metres: a 16-bit PNG then reaches
 * 65 km) to 1e6 (micrometres: 6.5 cm of range). Outside, every pixel is no measurement or beyond range (a
 * `scale: 1e-300` turned every pixel into "no measurement" silently).
 */
const MIN_DEPTH_UNITS_PER_METRE = 1;
const MAX_DEPTH_UNITS_PER_METRE = 1e6;

const CamParamsSchema = z.object({
  camera: z.object({
    w: z.number().int().positive(),
    h: z.number().int().positive(),
    fx: z.number().positive().finite(),
    fy: z.number().positive().finite(),
    cx: z.number().finite(),
    cy: z.number().finite(),
    scale: z.number().min(MIN_DEPTH_UNITS_PER_METRE).max(MAX_DEPTH_UNITS_PER_METRE).describe("raw depth units per metre"),
  }),
});

/** NICE-SLAM's depth file names: results/depthNNNNNN.png. */
const DEPTH_STEM = /^depth(\d+)$/;

export function readReplica(dir: string): DatasetScene {
  const results = requireDir(dir, "results", "Replica (NICE-SLAM)");
  const trajFile = join(dir, "traj.txt");
  const rows = readText(trajFile, "camera trajectory, one 4x4 camera-to-world per line")
    .split(/\r?\n/)
    .filter((l) => l.trim());
  const camFile = [join(dir, "cam_params.json"), join(dir, "..", "cam_params.json")].find((f) => existsSync(f));
  const cam = camFile ? readJsonFile(camFile, CamParamsSchema, "Replica cam_params.json (camera: w, h, fx, fy, cx, cy, scale)").camera : REPLICA_CAMERA;
  const depthFrames = framesIn(results, ".png").filter((f) => f.stem.startsWith("depth"));
  if (depthFrames.length === 0) throw new DatasetError(results, "no depth images (depthNNNNNN.png)");
  const frames: DatasetFrame[] = depthFrames.map((f) => {
    const digits = DEPTH_STEM.exec(f.stem)?.[1];
    if (digits === undefined)
      throw new DatasetError(
        f.file,
        "expected a depth image named depth<frame number>.png (NICE-SLAM's results/depthNNNNNN.png), whose number is its line of traj.txt (from 0)",
      );
    const index = Number(digits);
    const row = rows[index];
    if (row === undefined) throw new DatasetError(trajFile, `has ${rows.length} poses; results/${f.stem}.png needs line ${index + 1}`);
    const n = numbersOf(row);
    if (!n || n.length !== 16)
      throw new DatasetError(
        trajFile,
        `expected 16 numbers (a 4x4 camera-to-world matrix), found ${n ? n.length : "a token that is not a number"}`,
        `line ${index + 1}`,
      );
    checkRigid(n, trajFile, `line ${index + 1}`);
    const stem = f.stem.slice("depth".length);
    return {
      name: `frame${stem}`,
      rgb: join(results, `frame${stem}.jpg`),
      depth: f.file,
      extrinsic: extrinsicOfCameraToWorld(n),
      intrinsics: { fx: cam.fx, fy: cam.fy, cx: cam.cx, cy: cam.cy },
      intrinsicsSize: { width: cam.w, height: cam.h },
      poseFrom: { file: trajFile, field: `line ${index + 1}` },
      intrinsicsFrom: camFile ? { file: camFile, field: "camera" } : { file: dir, field: "NICE-SLAM's Replica camera" },
    };
  });
  const notes = [
    camFile ? `depth scale ${cam.scale} per metre from ${camFile}` : `no cam_params.json: NICE-SLAM's depth scale ${REPLICA_DEPTH_SCALE} per metre`,
    "no 2D instance masks in this layout",
    "world up axis not stated by the layout (give --up)",
  ];
  const intrinsicsNote = camFile ? `camera from ${camFile}` : "no cam_params.json: NICE-SLAM's Replica camera (600/600/599.5/339.5 at 1200x680)";
  return { layout: "replica", name: basename(dir), dir, frames, depthScale: cam.scale, up: null, notes, intrinsicsNote };
}
