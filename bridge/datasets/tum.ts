/**
 * TUM RGB-D, one sequence folder as published: rgb.txt and depth.txt (lines `timestamp filename`, `#`
 * comments), groundtruth.txt (lines `timestamp tx ty tz qx qy qz qw`: the colour camera's optical centre
 * and orientation, camera-to-world, OpenCV axes, in the motion-capture frame), rgb/*.png, depth/*.png
 * (uint16, 5000 per metre). Each depth frame is paired with the nearest colour frame and the nearest pose,
 * each within associate.py's default 0.02 s. Intrinsics: the sequence's camera from its name (freiburg1/2/3,
 * TUM's calibration page), else TUM's default 525/525/319.5/239.5; --intrinsics overrides them.
 * The world is the motion-capture frame, whose up axis the layout does not state (give --up).
 */
import { basename, join } from "node:path";
import type { Intrinsics } from "../../core/math/camera.js";
import { isWithin } from "../../core/paths.js";
import { extrinsicOfCameraToWorld, numbersOf, readText, rigid, rotationOfQuaternion } from "./matrices.js";
import { nearest } from "./arkitscenes.js";
import { DatasetError, type DatasetFrame, type DatasetScene } from "./scene.js";

/** TUM's depth PNGs: 5000 units per metre ("a pixel value of 5000 in the depth image is 1 m"). */
const TUM_DEPTH_SCALE = 5000;
/** associate.py's default --max_difference (s). */
const TUM_MAX_DIFFERENCE_S = 0.02;

/** The ROS-default-calibrated intrinsics TUM publishes per Kinect (vision.in.tum.de, "File Formats"). */
const TUM_INTRINSICS: Record<string, Intrinsics> = {
  freiburg1: { fx: 517.3, fy: 516.5, cx: 318.6, cy: 255.3 },
  freiburg2: { fx: 520.9, fy: 521.0, cx: 325.1, cy: 249.7 },
  freiburg3: { fx: 535.4, fy: 539.2, cx: 320.1, cy: 247.6 },
};
/** TUM's default intrinsics, for sequences of no named camera. */
const TUM_DEFAULT_INTRINSICS: Intrinsics = { fx: 525.0, fy: 525.0, cx: 319.5, cy: 239.5 };

interface Stamped {
  ts: number;
  line: number;
  fields: string[];
}

function readList(file: string, what: string, minFields: number): Stamped[] {
  const out: Stamped[] = [];
  readText(file, what)
    .split(/\r?\n/)
    .forEach((raw, i) => {
      const line = raw.trim();
      if (!line || line.startsWith("#")) return;
      const fields = line.split(/\s+/);
      const ts = Number(fields[0]);
      if (fields.length < minFields || !Number.isFinite(ts)) throw new DatasetError(file, `expected ${what}`, `line ${i + 1}`);
      out.push({ ts, line: i + 1, fields });
    });
  return out.sort((a, b) => a.ts - b.ts);
}

/** The file a list line names, refused when it lies outside the sequence folder (`../outside/x.png`). */
function fileOfLine(dir: string, list: string, s: Stamped): string {
  const file = join(dir, s.fields[1]!);
  if (!isWithin(dir, file))
    throw new DatasetError(
      join(dir, list),
      `names ${s.fields[1]}, outside the sequence folder ${dir}; expected a path below it (rgb/..., depth/...)`,
      `line ${s.line}`,
    );
  return file;
}

export function readTum(dir: string): DatasetScene {
  const rgb = readList(join(dir, "rgb.txt"), "lines `timestamp filename`", 2);
  const depth = readList(join(dir, "depth.txt"), "lines `timestamp filename`", 2);
  const gtFile = join(dir, "groundtruth.txt");
  const gt = readList(gtFile, "lines `timestamp tx ty tz qx qy qz qw`", 8);
  if (depth.length === 0) throw new DatasetError(join(dir, "depth.txt"), "lists no depth frames");
  const camera = Object.keys(TUM_INTRINSICS).find((k) => basename(dir).includes(k));
  const K = camera ? TUM_INTRINSICS[camera]! : TUM_DEFAULT_INTRINSICS;
  const frames: DatasetFrame[] = [];
  let unpaired = 0;
  for (const d of depth) {
    const c = nearest(rgb, d.ts),
      p = nearest(gt, d.ts);
    if (!c || !p || Math.abs(c.ts - d.ts) > TUM_MAX_DIFFERENCE_S || Math.abs(p.ts - d.ts) > TUM_MAX_DIFFERENCE_S) {
      unpaired++;
      continue;
    }
    const n = numbersOf(p.fields.slice(1, 8).join(" "));
    if (!n) throw new DatasetError(gtFile, "expected numbers `timestamp tx ty tz qx qy qz qw`", `line ${p.line}`);
    const c2w = rigid(rotationOfQuaternion(n[3]!, n[4]!, n[5]!, n[6]!), [n[0]!, n[1]!, n[2]!]);
    frames.push({
      name: d.fields[0]!,
      rgb: fileOfLine(dir, "rgb.txt", c),
      depth: fileOfLine(dir, "depth.txt", d),
      extrinsic: extrinsicOfCameraToWorld(c2w),
      intrinsics: K,
      intrinsicsSize: null,
      poseFrom: { file: gtFile, field: `line ${p.line}` },
      intrinsicsFrom: { file: dir, field: camera ? `TUM's ${camera} calibration` : "TUM's default intrinsics" },
    });
  }
  if (frames.length === 0) throw new DatasetError(gtFile, `no depth frame has a colour frame and a pose within ${TUM_MAX_DIFFERENCE_S} s`);
  const notes = ["no 2D instance masks in this layout", "world = the motion-capture frame; up axis not stated (give --up)"];
  if (unpaired) notes.push(`${unpaired} depth frame(s) without a colour frame and a pose within ${TUM_MAX_DIFFERENCE_S} s left out`);
  const intrinsicsNote = `intrinsics: ${camera ? `TUM's ${camera} calibration` : "TUM's default 525/525/319.5/239.5 (no freiburg1/2/3 in the folder name)"}`;
  return { layout: "tum", name: basename(dir), dir, frames, depthScale: TUM_DEPTH_SCALE, up: null, notes, intrinsicsNote };
}
